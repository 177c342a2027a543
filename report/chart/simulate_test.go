package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/seccompbench/seccompbench/report/internal/svgtest"
)

// fixtureSimPlot is a small x86_64 simulation: read and write cached,
// kill allowed but uncached (118 instructions), mount and reboot denied
// with ERRNO(1), and a gap in the numbering (335 to 424).
func fixtureSimPlot() *SimulatePlot {
	return &SimulatePlot{Arch: "x86_64", Stack: "1 filter: default", Order: "nr", Bars: []SyscallBar{
		{Arch: "x86_64", Name: "read", Nr: 0, Instructions: 6, Cached: true, Allowed: true, Verdict: "ALLOW"},
		{Arch: "x86_64", Name: "write", Nr: 1, Instructions: 7, Cached: true, Allowed: true, Verdict: "ALLOW"},
		{Arch: "x86_64", Name: "kill", Nr: 62, Instructions: 118, Allowed: true, Verdict: "ALLOW"},
		{Arch: "x86_64", Name: "mount", Nr: 165, Instructions: 114, Verdict: "ERRNO(1)"},
		{Arch: "x86_64", Name: "reboot", Nr: 169, Instructions: 114, Verdict: "ERRNO(1)"},
		{Arch: "x86_64", Name: "uretprobe", Nr: 335, Instructions: 110, Cached: true, Allowed: true, Verdict: "ALLOW"},
		{Arch: "x86_64", Name: "pidfd_send_signal", Nr: 424, Instructions: 114, Verdict: "ERRNO(1)"},
	}}
}

// TestSimulateSVG decodes the SVG as XML and finds the legend entries, the
// axis labels, the title with the stack and the name of the uncached
// allowed syscall.
func TestSimulateSVG(t *testing.T) {
	sp := fixtureSimPlot()
	var out bytes.Buffer
	if err := WriteSimulateSVG(&out, sp); err != nil {
		t.Fatal(err)
	}
	texts := svgtest.Texts(t, out.Bytes())
	want := SimulateSeriesNames(sp)
	if len(want) != 3 {
		t.Fatalf("series = %q, want cached, allowed, ERRNO", want)
	}
	want = append(want,
		"cached: the kernel skips the filters",
		"BPF instructions the seccomp filters execute per x86_64 syscall",
		"stack: 1 filter: default",
		"instructions executed per call (all filters)",
		"x86_64 syscall number",
		"kill(2): 118",
		"mount(2) → ERRNO(1): 114", // another action: named with its verdict
		"424",                      // the tick after the gap in the numbering
	)
	for _, w := range want {
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("SVG has no text %q; texts: %q", w, texts)
		}
	}
	for _, notWant := range []string{"read(2): 6", "mount(2): 114", "refused"} {
		if slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, notWant) }) {
			t.Errorf("SVG says %q; cached syscalls get no name, others their verdict, and no legend says refused", notWant)
		}
	}
}

func TestSimulatePNG(t *testing.T) {
	var out bytes.Buffer
	if err := WriteSimulatePNG(&out, fixtureSimPlot()); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	gotW, gotH := img.Bounds().Dx(), img.Bounds().Dy()
	wantW, wantH := int(float64(simPlotWidth/vg.Inch)*PNGDPI), int(float64(simPlotHeight/vg.Inch)*PNGDPI)
	if gotW != wantW || gotH != wantH {
		t.Errorf("size = %d×%d px, want %d×%d", gotW, gotH, wantW, wantH)
	}
	if wantW != 1440 || wantH != 780 {
		t.Errorf("want size %d×%d, documented as 12 × 6.5 inches at 120 dpi", wantW, wantH)
	}
}

func TestSimulatePlotNothing(t *testing.T) {
	sp := &SimulatePlot{Arch: "x86_64"}
	for name, f := range map[string]func(io.Writer, *SimulatePlot) error{"svg": WriteSimulateSVG, "png": WriteSimulatePNG} {
		if err := f(io.Discard, sp); !errors.Is(err, ErrNothingToPlot) {
			t.Errorf("%s: err = %v, want ErrNothingToPlot", name, err)
		}
	}
}

func TestSimulateSeriesNames(t *testing.T) {
	cached := SyscallBar{Instructions: 5, Cached: true, Allowed: true, Verdict: "ALLOW"}
	allowed := SyscallBar{Instructions: 9, Allowed: true, Verdict: "ALLOW"}
	verdict := func(v string) SyscallBar { return SyscallBar{Instructions: 9, Verdict: v} }
	tests := []struct {
		name string
		bars []SyscallBar
		want []string
	}{
		{"all three", []SyscallBar{cached, allowed, verdict("ERRNO(1)")}, []string{
			SimulateLegendCached, SimulateLegendAllowed,
			"ERRNO(1): the filters run, then the call fails with that errno"}},
		// issue 17: KILL_PROCESS was a grey bar like ERRNO, both "refused".
		{"each action its own entry", []SyscallBar{verdict("KILL_PROCESS"), verdict("ERRNO(38)"), verdict("ERRNO(1)"), verdict("TRAP"), verdict("KILL_THREAD")}, []string{
			"ERRNO(1), ERRNO(38): the filters run, then the call fails with that errno",
			"TRAP: the filters run, then SIGSYS is sent instead of the call",
			"KILL_PROCESS, KILL_THREAD: the filters run, then the kernel kills the thread or process"}},
		{"log lets the call through", []SyscallBar{verdict("LOG"), verdict("ERRNO(1)")}, []string{
			"LOG: the filters run, then the call runs and is logged",
			"ERRNO(1): the filters run, then the call fails with that errno"}},
		{"notify and trace", []SyscallBar{verdict("USER_NOTIF"), verdict("TRACE(0)")}, []string{
			"USER_NOTIF: the filters run, then a supervisor decides (ENOSYS without one)",
			"TRACE(0): the filters run, then a tracer decides (ENOSYS without one)"}},
		{"nothing cached", []SyscallBar{allowed}, []string{SimulateLegendAllowed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SimulateSeriesNames(&SimulatePlot{Bars: tt.bars})
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSimCaption(t *testing.T) {
	tests := []struct {
		name   string
		defeat bool
		want   []string
	}{
		{"cache on", false, []string{"3 of 7 are cached", "1 allowed syscall (named) and 3 syscalls with another action"}},
		{"cache defeated", true, []string{"Cache defeated", "1 of 7 still skip the filters", "3 allowed syscalls (named)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := fixtureSimPlot()
			if tt.defeat {
				sp.CacheDefeated = true
				sp.Bars[0].Cached, sp.Bars[1].Cached = false, false // uretprobe stays
			}
			got := simCaption(sp, "x86_64")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("caption lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestLayoutLabels lays out names over 20 adjacent uncached allowed bars
// among 300: the 12 most expensive get names, in bar order, one text
// height apart, each starting above every bar under it.
func TestLayoutLabels(t *testing.T) {
	sp := &SimulatePlot{Order: "nr"}
	for i := range 300 {
		b := SyscallBar{Name: fmt.Sprintf("s%d", i), Nr: i, Instructions: 50, Cached: true, Allowed: true, Verdict: "ALLOW"}
		if i >= 100 && i < 120 {
			b = SyscallBar{Name: fmt.Sprintf("s%d", i), Nr: i, Instructions: 10 + i%7, Allowed: true, Verdict: "ALLOW"}
		}
		if i == 299 { // at the right edge, alone
			b = SyscallBar{Name: "edge", Nr: i, Instructions: 99, Allowed: true, Verdict: "ALLOW"}
		}
		sp.Bars = append(sp.Bars, b)
	}
	p := plot.New()
	p.Add(syscallBars{bars: sp.Bars})
	p.X.Min, p.X.Max = -0.5, 299.5
	p.Y.Min, p.Y.Max = 0, 120
	c := vgimg.New(simPlotWidth, simPlotHeight)
	da := p.DataCanvas(draw.New(c))
	sty := draw.TextStyle{Font: sans(10), Handler: plot.DefaultTextHandler}
	got := layoutLabels(sp, p, da, sty)

	if len(got) != maxBarLabels {
		t.Fatalf("%d labels, want %d", len(got), maxBarLabels)
	}
	trX, _ := p.Transforms(&da)
	gap := float64(sty.Handler.Extents(sty.Font).Height+vg.Points(2)) / float64(trX(1)-trX(0))
	var named []int
	for k, l := range got {
		b := sp.Bars[l.bar]
		named = append(named, l.bar)
		if !b.Allowed || b.Cached {
			t.Errorf("label %q on a bar that is not allowed-uncached", l.text)
		}
		if want := fmt.Sprintf("%s(2): %d", b.Name, b.Instructions); l.text != want {
			t.Errorf("label %d = %q, want %q", k, l.text, want)
		}
		if l.base < float64(b.Instructions) {
			t.Errorf("label %q starts at %v, below its bar (%d)", l.text, l.base, b.Instructions)
		}
		if l.x < -0.5 || l.x > 299.5 {
			t.Errorf("label %q at x = %v, outside the plot", l.text, l.x)
		}
		if k > 0 {
			if d := l.x - got[k-1].x; d < gap-1e-9 {
				t.Errorf("labels %q and %q are %.2f bars apart, want >= %.2f", got[k-1].text, l.text, d, gap)
			}
			if l.bar <= got[k-1].bar {
				t.Errorf("labels not in bar order: %d after %d", l.bar, got[k-1].bar)
			}
		}
	}
	// The block's labels are centred on it, not pushed off to one side.
	var sum float64
	var n int
	for _, l := range got {
		if l.bar != 299 {
			sum += l.x
			n++
		}
	}
	if mean := sum / float64(n); mean < 100 || mean > 119 {
		t.Errorf("the block's labels are centred at x = %.1f, outside its bars 100..119", mean)
	}
	if !slices.Contains(named, 299) {
		t.Errorf("the most expensive (edge, 99) is not named: %v", named)
	}
	// Of the 20 in the block, the costs 10+i%7 (i = 100..119): the 11 most
	// expensive besides edge have i%7 in {6, 5, 4} (3+3+3 = 9) and two of
	// i%7 == 3.
	for _, i := range named {
		if i != 299 && (i < 100 || i >= 120 || i%7 < 3) {
			t.Errorf("bar %d (cost %d) named while a more expensive one is not: %v", i, sp.Bars[i].Instructions, named)
		}
	}
}

// Every class has its own colour, and a bar's label names the syscall as
// name(2) and, unless ALLOW, its verdict.
func TestSimulateClassesDistinct(t *testing.T) {
	for a := range numClasses {
		if classColors[a] == nil {
			t.Errorf("class %d has no colour", a)
		}
		for b := a + 1; b < numClasses; b++ {
			if classColors[a] == classColors[b] {
				t.Errorf("classes %d and %d share a colour", a, b)
			}
		}
	}
	for _, tt := range []struct {
		bar  SyscallBar
		want string
	}{
		{SyscallBar{Name: "kill", Instructions: 118, Allowed: true, Verdict: "ALLOW"}, "kill(2): 118"},
		{SyscallBar{Name: "ptrace", Instructions: 14, Verdict: "KILL_PROCESS"}, "ptrace(2) → KILL_PROCESS: 14"},
		{SyscallBar{Nr: 999, Instructions: 3, Verdict: "ERRNO(38)"}, "nr 999 → ERRNO(38): 3"},
	} {
		if got := labelText(tt.bar); got != tt.want {
			t.Errorf("labelText(%+v) = %q, want %q", tt.bar, got, tt.want)
		}
	}
}
