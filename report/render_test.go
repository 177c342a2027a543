package report

import (
	"bytes"
	"encoding/csv"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/seccompbench/seccompbench/internal/golden"
	"github.com/seccompbench/seccompbench/report/document"
)

func TestGoldenRenderers(t *testing.T) {
	d := fixtureDoc(t, 0)
	tests := []struct {
		name   string
		render func(w, warn io.Writer) error
	}{
		{"markdown.md", func(w, _ io.Writer) error { return WriteMarkdown(w, d) }},
		{"table.txt", func(w, _ io.Writer) error { return WriteTable(w, d) }},
		{"table-explain.txt", func(w, _ io.Writer) error { return WriteText(w, d, TextOptions{Explain: true}) }},
		{"children.csv", func(w, warn io.Writer) error { return WriteCSV(w, warn, d) }},
		{"bench.txt", func(w, warn io.Writer) error { return WriteBenchstat(w, warn, d) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, warn bytes.Buffer
			if err := tt.render(&out, &warn); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tt.name, out.Bytes())
		})
	}
}

func TestMarkdownSections(t *testing.T) {
	d := fixtureDoc(t, 0)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, d); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"## What it means", "## Results", "## Per-filter model", "## Action cache", "## Environment", "## Configuration",
		"```sh\n" + d.Command + "\n```", "6.18.0-test", "| defeat | 32 | 6 |", d.Meaning[0].Text[:20]} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	d.Partial = true
	b.Reset()
	WriteMarkdown(&b, d)
	if !strings.Contains(b.String(), "Partial result") {
		t.Errorf("partial document not marked")
	}
}

func TestCSVRows(t *testing.T) {
	d := fixtureDoc(t, 0)
	var out, warn bytes.Buffer
	if err := WriteCSV(&out, &warn, d); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rows[0], CSVHeader; !slices.Equal(got, want) {
		t.Fatalf("header = %v, want %v", got, want)
	}
	if got, want := len(rows)-1, len(fixtureSamples(0)); got != want {
		t.Fatalf("rows = %d, want one per child = %d", got, want)
	}
	// Row i is the child with Seq i, and its value is that child's.
	for i, s := range fixtureSamples(0) {
		r := rows[i+1]
		ns, _ := strconv.ParseFloat(r[4], 64)
		if r[0] != string(s.Variant) || r[1] != strconv.Itoa(s.Filters) || r[2] != strconv.Itoa(s.Block) || r[3] != strconv.Itoa(i) || ns != s.NsPerOp {
			t.Fatalf("row %d = %v, want child %+v", i+1, r, s)
		}
		if want := strconv.Itoa(2000 * s.Filters); r[5] != want {
			t.Errorf("row %d install_ns_total = %s, want %s", i+1, r[5], want)
		}
	}
	// The fixture's 6 blocks are too few for time segments; that is the
	// only warning it may give.
	for _, w := range strings.Split(strings.TrimSpace(warn.String()), "\n") {
		if w != "" && !strings.Contains(w, "6 blocks: too few for 3 time segments") {
			t.Errorf("unexpected warning: %s", w)
		}
	}

	t.Run("no children", func(t *testing.T) {
		d := fixtureDoc(t, 0)
		d.Children = nil
		var out, warn bytes.Buffer
		if err := WriteCSV(&out, &warn, d); err != nil {
			t.Fatal(err)
		}
		rows, _ := csv.NewReader(&out).ReadAll()
		if got, want := len(rows)-1, len(fixtureSamples(0)); got != want {
			t.Errorf("rows = %d, want %d from samples_ns", got, want)
		}
		if !strings.Contains(warn.String(), "no per-child records") {
			t.Errorf("warn = %q, want a note about missing children", warn.String())
		}
	})
}

// TestBenchstatParses reads the benchstat output back with x/perf/benchfmt:
// every child is one result with the right name parts and value.
func TestBenchstatParses(t *testing.T) {
	d := fixtureDoc(t, 0)
	var out, warn bytes.Buffer
	if err := WriteBenchstat(&out, &warn, d); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(&out, "bench.txt")
	var got []string
	var cfg map[string]string
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt: %v", rec)
		case *benchfmt.Result:
			if cfg == nil {
				cfg = map[string]string{}
				for _, c := range rec.Config {
					cfg[c.Key] = string(c.Value)
				}
			}
			base, parts := rec.Name.Parts()
			if string(base) != "Seccomp" {
				t.Fatalf("base name = %q, want Seccomp", base)
			}
			if rec.Iters != 1 {
				t.Errorf("iters = %d, want 1 (one child)", rec.Iters)
			}
			// benchfmt tidies ns/op into sec/op and keeps the original.
			if len(rec.Values) != 1 || rec.Values[0].OrigUnit != "ns/op" || rec.Values[0].Unit != "sec/op" {
				t.Fatalf("%s values = %+v, want one ns/op value", rec.Name, rec.Values)
			}
			v := rec.Values[0].OrigValue
			got = append(got, strings.Join(partsStrings(parts), "")+" "+strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range fixtureSamples(0) {
		// The fixture's values have at most one decimal, so rounding to 0.01 keeps them.
		want = append(want, "/variant="+string(s.Variant)+"/filters="+strconv.Itoa(s.Filters)+"/workload=getpid "+strconv.FormatFloat(s.NsPerOp, 'f', -1, 64))
	}
	if !slices.Equal(got, want) {
		t.Errorf("parsed results differ:\ngot  %v\nwant %v", got, want)
	}
	for k, v := range map[string]string{"goos": "linux", "goarch": "amd64", "cpu": "Test CPU @ 2.00GHz", "kernel": "6.18.0-test", "policy": "default"} {
		if cfg[k] != v {
			t.Errorf("config %s = %q, want %q", k, cfg[k], v)
		}
	}
}

func partsStrings(ps [][]byte) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// TestSVGSeries decodes the SVG as XML and finds every legend entry, the
// axis labels and the title.
func TestBenchFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{88.89324031966092, "88.89"},
		{1004.5, "1004.5"},
		{992, "992"},
		{0.004, "0"},
		{-0.004, "0"},
		{1234.5678, "1234.57"},
	}
	for _, tt := range tests {
		if got := benchFloat(tt.in); got != tt.want {
			t.Errorf("benchFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNoNegativeZeroRendered gives a fit whose per-filter cost and CI bound
// round to -0 and checks that no renderer prints "-0.0" or "-0.00".
func TestNoNegativeZeroRendered(t *testing.T) {
	d := fixtureDoc(t, 0)
	f := &d.Fits[0]
	f.PerFilterNs, f.PerFilterCILowNs, f.PerFilterCIHighNs = -0.04, -0.07, -0.001
	d.Results[1].OverheadNs, d.Results[1].OverheadPct = -0.03, -0.004
	d.Drift[0].OverRunNs = -0.02
	d.Meaning = Explain(d)
	if want := "Per-filter cost ~0 ns (-0.0400 ns, 95% CI [-0.0700, -0.0010]"; !strings.Contains(d.Meaning[0].Text, want) {
		t.Errorf("meaning = %q, want it to contain %q", d.Meaning[0].Text, want)
	}
	negZero := regexp.MustCompile(`-0(\.0+)?([^.0-9]|$)`)
	renderers := map[string]func(io.Writer, *document.Document) error{"table": writeExplain, "markdown": WriteMarkdown}
	for name, r := range renderers {
		var b bytes.Buffer
		if err := r(&b, d); err != nil {
			t.Fatal(err)
		}
		if m := negZero.FindString(b.String()); m != "" {
			t.Errorf("%s prints negative zero %q:\n%s", name, m, b.String())
		}
	}
	c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: fixtureDoc(t, 0)}, {Name: "b.json", Doc: d}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]func(io.Writer, *document.Comparison) error{"compare table": WriteComparisonTable, "compare markdown": WriteComparisonMarkdown} {
		var b bytes.Buffer
		if err := r(&b, c); err != nil {
			t.Fatal(err)
		}
		if m := negZero.FindString(b.String()); m != "" {
			t.Errorf("%s prints negative zero %q:\n%s", name, m, b.String())
		}
	}
}

// TestBlocksText: the header gives the blocks that really ran and why the
// run stopped, not the --trials minimum of a --target-ci run.
func TestBlocksText(t *testing.T) {
	tests := []struct {
		name string
		run  *document.RunInfo
		want string
	}{
		{"no run info", nil, "3 randomized blocks (--trials 3)"},
		{"trials", &document.RunInfo{Blocks: 3, StopReason: "trials"}, "3 randomized blocks (--trials 3)"},
		{"target reached", &document.RunInfo{Blocks: 39, StopReason: "precision", TargetCINs: 0.5}, "39 randomized blocks (stopped: target CI reached, per-filter CI half-width <= 0.5 ns)"},
		{"relative target", &document.RunInfo{Blocks: 12, StopReason: "precision", TargetCIRel: 0.05}, "12 randomized blocks (stopped: target CI reached, per-filter CI half-width <= 5% of the estimate)"},
		{"max-trials", &document.RunInfo{Blocks: 200, StopReason: "max-trials", TargetCINs: 0.1}, "200 randomized blocks (stopped: --max-trials reached before the target CI, per-filter CI half-width <= 0.1 ns)"},
		{"max-time", &document.RunInfo{Blocks: 57, StopReason: "max-time", TargetCINs: 0.1}, "57 randomized blocks (stopped: --max-time reached before the target CI, per-filter CI half-width <= 0.1 ns)"},
		{"max-time, no target (command workload)", &document.RunInfo{Blocks: 2, StopReason: "max-time"}, "2 randomized blocks (stopped: --max-time reached after 2 of --trials 3)"},
		{"interrupted", &document.RunInfo{Blocks: 1, StopReason: "interrupted"}, "1 complete randomized block (stopped: interrupted)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &document.Document{Config: document.Config{Trials: 3}, Run: tt.run}
			if got := blocksText(d, "<="); got != tt.want {
				t.Errorf("blocksText = %q, want %q", got, tt.want)
			}
		})
	}
	d := fixtureDoc(t, 0)
	d.Config.Trials = 3
	d.Run = &document.RunInfo{Blocks: 39, StopReason: "precision", TargetCINs: 0.5, ElapsedS: 20}
	for name, r := range map[string]func(io.Writer, *document.Document) error{"table": writeExplain, "markdown": WriteMarkdown} {
		var b bytes.Buffer
		if err := r(&b, d); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "39 randomized blocks (stopped: target CI reached") || strings.Contains(b.String(), "--trials 3") {
			t.Errorf("%s header does not give the 39 blocks that ran:\n%s", name, b.String())
		}
	}
}

// TestDriftSpan: the drift line counts the children from the variant's
// first baseline child to its last, in run order, every variant's included.
func TestDriftSpan(t *testing.T) {
	d := fixtureDoc(t, 0)
	// In the fixture the first "on" 0-filter child has Seq 0 (block 0) and
	// the last Seq 5*14+2 = 72 (block 5, third cell).
	if got, want := driftSpan(d, "on"), "over 73 children (first to last baseline child, all variants counted)"; got != want {
		t.Errorf("driftSpan(on) = %q, want %q", got, want)
	}
	d.Children = nil
	if got, want := driftSpan(d, "on"), "over the run"; got != want {
		t.Errorf("without children: driftSpan = %q, want %q", got, want)
	}
}

// writeExplain is the text report with --explain.
func writeExplain(w io.Writer, d *document.Document) error {
	return WriteText(w, d, TextOptions{Explain: true})
}
