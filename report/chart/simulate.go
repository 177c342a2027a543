package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/seccompbench/seccompbench/report/internal/text"
)

// Size of the simulate plot: wider than the run plot, since it holds a
// bar per syscall (about 380 for x86_64).
const (
	simPlotWidth  = 12 * vg.Inch
	simPlotHeight = 6.5 * vg.Inch
)

// SyscallBar is one syscall of a [SimulatePlot], as `simulate --all`
// computed it with all six arguments 0.
type SyscallBar struct {
	// Arch is the ABI name ("x86_64"), Name the syscall name ("" if the
	// table has none) and Nr its number in that ABI's table.
	Arch string
	Name string
	Nr   int
	// Instructions is the number of BPF instructions the filters execute
	// for this syscall when they run, summed over the stack, even if the
	// action cache skips them (analysis.SyscallCost.Executed).
	Instructions int
	// Cached reports that the action cache (Linux 5.11+) allows the
	// syscall without running any filter (kernel/seccomp.c:
	// seccomp_cache_check_allow), so it costs 0 instructions.
	Cached bool
	// Allowed reports that the stack's verdict is ALLOW.
	Allowed bool
	// Verdict is the verdict as people read it: "ALLOW", "ERRNO(1)",
	// "KILL_PROCESS".
	Verdict string
}

// SimulatePlot is what [WriteSimulateSVG] and [WriteSimulatePNG] draw: the
// bars of one ABI in the order they should appear.
type SimulatePlot struct {
	// Arch names the ABI of Bars ("x86_64").
	Arch string
	// Stack describes the filter stack for the title, with the policy
	// names and the depth: "1 filter: default", "4 filters: a, b cycled".
	Stack string
	// Order is how Bars are sorted: "nr" (by syscall number), "cost" (most
	// instructions first) or "name"; it decides the x axis labels.
	Order string
	// CacheDefeated reports that every filter starts with a load of
	// instruction_pointer, so the cache can allow nothing (simulate
	// --defeat-cache).
	CacheDefeated bool
	Bars          []SyscallBar
}

// barClass is how a bar is coloured: cached, or the stack's action.
type barClass int

const (
	classCached    barClass = iota // cached: costs nothing
	classAllowed                   // ALLOW, filters run on every call
	classLog                       // LOG: allowed and logged
	classUserNotif                 // USER_NOTIF: a supervisor decides
	classTrace                     // TRACE: a tracer decides
	classErrno                     // ERRNO(n): the call fails
	classTrap                      // TRAP: SIGSYS instead of the call
	classKill                      // KILL_PROCESS, KILL_THREAD
	numClasses
)

// classColors are Okabe and Ito's eight colours, one per class, so every
// action reads apart (and black for KILL, the hardest verdict): pale sky
// blue for free calls (a ghost of what would run), vermillion for the
// allowed cost that matters.
var classColors = [numClasses]color.Color{
	classCached:    color.RGBA{R: 0xAB, G: 0xDA, B: 0xF4, A: 0xFF}, // #56B4E9 half-way to white
	classAllowed:   colorDefeated,                                  // vermillion, as run's defeat variant
	classLog:       color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, // orange
	classUserNotif: color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}, // bluish green
	classTrace:     color.RGBA{R: 0xB8, G: 0xA9, B: 0x00, A: 0xFF}, // yellow, darkened to show on white
	classErrno:     color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}, // blue
	classTrap:      color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}, // reddish purple
	classKill:      color.RGBA{R: 0x00, G: 0x00, B: 0x00, A: 0xFF}, // black
}

// classAction is the action name of each verdict class, as verdicts
// start ("ERRNO(1)" is ERRNO); KILL covers KILL_PROCESS and KILL_THREAD.
var classAction = [numClasses]string{
	classAllowed: "ALLOW", classLog: "LOG", classUserNotif: "USER_NOTIF", classTrace: "TRACE",
	classErrno: "ERRNO", classTrap: "TRAP", classKill: "KILL",
}

func (b SyscallBar) class() barClass {
	switch {
	case b.Cached:
		return classCached
	case b.Allowed:
		return classAllowed
	}
	for c := classLog; c < numClasses; c++ {
		if strings.HasPrefix(b.Verdict, classAction[c]) {
			return c
		}
	}
	return classErrno // an unknown verdict: refused, as the kernel does
}

// SimulateLegendCached is the legend entry of the cached bars.
const SimulateLegendCached = "cached: the kernel skips the filters (bar = what they would execute)"

// SimulateLegendAllowed is the legend entry of allowed syscalls that are
// not cached.
const SimulateLegendAllowed = "ALLOW, not cached: the filters run on every call"

// classEffect says what happens after the filters ran, per verdict class.
var classEffect = [numClasses]string{
	classLog:       "the filters run, then the call runs and is logged",
	classUserNotif: "the filters run, then a supervisor decides (ENOSYS without one)",
	classTrace:     "the filters run, then a tracer decides (ENOSYS without one)",
	classErrno:     "the filters run, then the call fails with that errno",
	classTrap:      "the filters run, then SIGSYS is sent instead of the call",
	classKill:      "the filters run, then the kernel kills the thread or process",
}

// SimulateSeriesNames returns the legend entries of the plot of p, in
// order: cached, ALLOW not cached, then one per other action present,
// naming its verdicts (e.g. "ERRNO(1), ERRNO(13): the filters run, then
// the call fails with that errno"). Tests and docs use it to find the
// series in the SVG.
func SimulateSeriesNames(p *SimulatePlot) []string {
	var names []string
	for c := range numClasses {
		if n := simClassName(p, c); n != "" {
			names = append(names, n)
		}
	}
	return names
}

func simClassName(p *SimulatePlot, c barClass) string {
	var verdicts []string
	for _, b := range p.Bars {
		if b.class() != c {
			continue
		}
		v := strings.TrimSpace(b.Verdict)
		if v == "" {
			v = classAction[c]
		}
		if !slices.Contains(verdicts, v) {
			verdicts = append(verdicts, v)
		}
	}
	if len(verdicts) == 0 {
		return ""
	}
	switch c {
	case classCached:
		return SimulateLegendCached
	case classAllowed:
		return SimulateLegendAllowed
	}
	slices.Sort(verdicts)
	if len(verdicts) > 4 {
		verdicts = append(verdicts[:4], fmt.Sprintf("%d more", len(verdicts)-4))
	}
	return fmt.Sprintf("%s: %s", strings.Join(verdicts, ", "), classEffect[c])
}

// WriteSimulateSVG writes the plot of [WriteSimulatePNG] as SVG (fonts
// referenced by name, not embedded). Errors wrap [ErrNothingToPlot] or
// come from drawing and writing.
func WriteSimulateSVG(w io.Writer, p *SimulatePlot) error {
	c := vgsvg.New(simPlotWidth, simPlotHeight)
	if err := drawSimulate(draw.New(c), p); err != nil {
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// WriteSimulatePNG draws a bar per syscall of p.Bars, in their order: the
// height is the BPF instructions the stack executes for it (in
// instructions, summed over the filters), the colour says whether the
// action cache skips the filters (cached), whether they run for an
// allowed call, or whether they run for another verdict. The most
// expensive uncached allowed syscalls are named above their bars. The
// title names the ABI and the stack; a caption under the legend explains
// the bars and counts each class. The image is [PNGDPI] dots per inch,
// 12 × 6.5 inches. Errors wrap [ErrNothingToPlot] or come from drawing and
// writing.
func WriteSimulatePNG(w io.Writer, p *SimulatePlot) error {
	c := vgimg.NewWith(vgimg.UseWH(simPlotWidth, simPlotHeight), vgimg.UseDPI(PNGDPI))
	if err := drawSimulate(draw.New(c), p); err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("write png: %w", err)
	}
	return nil
}

// syscallBars draws one filled rectangle per bar at x = its index.
type syscallBars struct {
	bars []SyscallBar
}

// Plot implements plot.Plotter.
func (s syscallBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	const half = 0.42 // of a slot; the rest is the gap between bars
	for i, b := range s.bars {
		if b.Instructions <= 0 {
			continue
		}
		x0, x1 := trX(float64(i)-half), trX(float64(i)+half)
		if x1-x0 < vg.Points(0.6) { // keep hairline bars visible
			mid := (x0 + x1) / 2
			x0, x1 = mid-vg.Points(0.3), mid+vg.Points(0.3)
		}
		y0, y1 := trY(0), trY(float64(b.Instructions))
		poly := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(classColors[b.class()], c.ClipPolygonY(poly))
	}
}

// DataRange implements plot.DataRanger.
func (s syscallBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	for _, b := range s.bars {
		ymax = max(ymax, float64(b.Instructions))
	}
	return -0.5, float64(len(s.bars)) - 0.5, 0, ymax
}

// swatch is a legend thumbnail: a filled box.
type swatch struct{ color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(s.color, pts)
}

// maxBarLabels is how many uncached allowed syscalls get their name above
// the bar; maxVerdictLabels how many with another verdict (each verdict
// at least once, the most expensive bar first).
const (
	maxBarLabels     = 12
	maxVerdictLabels = 8
)

// drawSimulate draws sp on dc: a bar per syscall coloured by class, the
// names of the costliest bars written upwards above them, the legend
// and the caption below. Errors wrap ErrNothingToPlot.
func drawSimulate(dc draw.Canvas, sp *SimulatePlot) error {
	if len(sp.Bars) == 0 {
		return fmt.Errorf("plot simulation: %w", ErrNothingToPlot)
	}
	arch := sp.Arch
	if arch == "" {
		arch = sp.Bars[0].Arch
	}
	p := newSimulatePlot(sp, arch)
	leg := newLegend(vg.Points(20))
	for c := range numClasses {
		if n := simClassName(sp, c); n != "" {
			leg.Add(n, swatch{classColors[c]})
		}
	}
	band := newLegendBand(dc, &leg, simCaption(sp, arch))
	plotArea := band.plotArea(dc)
	lblSty := draw.TextStyle{Color: color.Gray{Y: 0x20}, Font: sans(10), Handler: plot.DefaultTextHandler,
		Rotation: math.Pi / 2, XAlign: draw.XLeft, YAlign: draw.YCenter}
	raiseForLabels(sp, p, plotArea, lblSty)
	p.Draw(plotArea)
	da := p.DataCanvas(plotArea)
	for _, l := range layoutLabels(sp, p, da, lblSty) {
		drawBarLabel(p, da, sp.Bars[l.bar], l, lblSty)
	}
	band.draw(dc, &leg)
	return nil
}

// newSimulatePlot returns the plot of sp's bars for arch, with its
// title, axes (a bar per unit of x; y from 0 to 5% above the highest
// bar, at least 1 instruction) and grid, not yet drawn.
func newSimulatePlot(sp *SimulatePlot, arch string) *plot.Plot {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("BPF instructions the seccomp filters execute per %s syscall\nstack: %s", arch, text.OrDash(sp.Stack))
	p.Title.TextStyle.Font = sans(15)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = simXLabel(sp, arch)
	p.Y.Label.Text = "instructions executed per call (all filters)"
	p.X.Label.TextStyle.Font = sans(13)
	p.Y.Label.TextStyle.Font = sans(13)
	p.X.Tick.Label.Font = sans(11)
	p.Y.Tick.Label.Font = sans(11)
	p.X.Tick.Marker = simXTicks(sp)
	p.Y.Tick.Marker = niceTicks{n: 8}
	p.X.Padding = 0
	p.Add(simGrid{sp: sp})
	p.Add(syscallBars{bars: sp.Bars})
	p.X.Min = -0.5
	p.X.Max = float64(len(sp.Bars)) - 0.5
	p.Y.Min = 0
	ymax := 1.0
	for _, b := range sp.Bars {
		ymax = max(ymax, float64(b.Instructions))
	}
	p.Y.Max = ymax * 1.05
	return p
}

func simXLabel(sp *SimulatePlot, arch string) string {
	switch sp.Order {
	case "nr":
		return fmt.Sprintf("%s syscall number (one bar per syscall, %d bars; dashed line: unused numbers left out)", arch, len(sp.Bars))
	case "cost":
		return fmt.Sprintf("%s syscalls by instructions actually run, most first; cached ones (none run) last (%d bars)", arch, len(sp.Bars))
	case "name":
		return fmt.Sprintf("%s syscalls by name (%d bars)", arch, len(sp.Bars))
	}
	return fmt.Sprintf("%s syscalls (%d bars)", arch, len(sp.Bars))
}

// simXTicks labels the x axis: syscall numbers at multiples of 50 and
// after each gap in the numbering when sorted by number, first letters
// when sorted by name, ranks otherwise.
func simXTicks(sp *SimulatePlot) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		minGap := float64(len(sp.Bars)) / 30
		last := math.Inf(-1)
		add := func(i int, label string) {
			x := float64(i)
			t := plot.Tick{Value: x}
			if x-last >= minGap {
				t.Label = label
				last = x
			}
			ticks = append(ticks, t)
		}
		switch sp.Order {
		case "nr":
			for i, b := range sp.Bars {
				gap := i > 0 && b.Nr-sp.Bars[i-1].Nr > 1
				if b.Nr%50 == 0 || gap || i == 0 {
					add(i, fmt.Sprint(b.Nr))
				}
			}
		case "name":
			for i, b := range sp.Bars {
				n := barName(b)
				if i == 0 || n[:1] != barName(sp.Bars[i-1])[:1] {
					add(i, n[:1])
				}
			}
		default:
			for _, t := range (niceTicks{n: 10}).Ticks(0, float64(len(sp.Bars)-1)) {
				if t.Label != "" {
					add(int(t.Value), fmt.Sprint(int(t.Value)+1))
				}
			}
		}
		return ticks
	})
}

// SimulateNotMeasured ends the simulate plot's caption: its costs come
// from emulating the filters, on no kernel or CPU.
const SimulateNotMeasured = "Emulated by seccompbench's BPF interpreter, not measured: the unit is BPF instructions, on no particular kernel or CPU (the cache prediction follows Linux 5.11+)."

// simCaption explains a bar and counts the classes.
func simCaption(sp *SimulatePlot, arch string) string {
	var n [numClasses]int
	for _, b := range sp.Bars {
		n[b.class()]++
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Each bar is one %s syscall called with all arguments 0 (rules on arguments may take other paths); its height is the BPF instructions the filters execute for it, summed over the stack. ", arch)
	if sp.CacheDefeated {
		// kernel/seccomp.c: seccomp_uprobe_exception lets uretprobe and
		// uprobe through even then (Linux 6.11+).
		fmt.Fprintf(&s, "Cache defeated: every filter first loads instruction_pointer, so the action cache allows nothing; %d of %d still skip the filters through kernel exceptions (uretprobe, uprobe). ", n[classCached], len(sp.Bars))
	} else {
		fmt.Fprintf(&s, "%d of %d are cached: the kernel allows them without running any filter (the action cache, Linux 5.11+), so they cost nothing however tall the bar. ", n[classCached], len(sp.Bars))
	}
	fmt.Fprintf(&s, "Not cached, so the filters run on every call: %s", text.Plural(n[classAllowed], "allowed syscall"))
	if n[classAllowed] > maxBarLabels {
		fmt.Fprintf(&s, " (the %d most expensive named)", maxBarLabels)
	} else if n[classAllowed] > 0 {
		s.WriteString(" (named)")
	}
	other := 0
	for c := classLog; c < numClasses; c++ {
		other += n[c]
	}
	fmt.Fprintf(&s, " and %s with another action, coloured by action and named above their bars (syscalls as name(2)).", text.Plural(other, "syscall"))
	s.WriteString(" " + SimulateNotMeasured)
	return s.String()
}

// simGrid draws horizontal grid lines only (vertical ones would cross
// hundreds of bars) and, when bars are in syscall number order, a dashed
// vertical line where more than 10 unused numbers are left out.
type simGrid struct{ sp *SimulatePlot }

// Plot implements plot.Plotter.
func (g simGrid) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := draw.LineStyle{Color: color.Gray{Y: 0xDD}, Width: vg.Points(0.5)}
	for _, t := range plt.Y.Tick.Marker.Ticks(plt.Y.Min, plt.Y.Max) {
		if t.IsMinor() {
			continue
		}
		y := trY(t.Value)
		c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
	}
	if g.sp.Order != "nr" {
		return
	}
	gapSty := draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	for i := 1; i < len(g.sp.Bars); i++ {
		if g.sp.Bars[i].Nr-g.sp.Bars[i-1].Nr > 10 {
			x := trX(float64(i) - 0.5)
			c.StrokeLine2(gapSty, x, c.Min.Y, x, c.Max.Y)
		}
	}
}
