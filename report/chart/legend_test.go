package chart

import (
	"bytes"
	"encoding/json"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/svgtest"
)

// exampleRun reads the committed run result docs/examples/run.json.
func exampleRun(t *testing.T) *document.Document {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "examples", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := report.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// exampleFleet builds the fleet of the committed results
// docs/examples/fleet/node-*.json.
func exampleFleet(t *testing.T) *document.Fleet {
	t.Helper()
	var entries []document.FleetEntry
	for _, n := range []string{"node-1.json", "node-2.json", "node-3.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "fleet", n))
		if err != nil {
			t.Fatal(err)
		}
		e, err := report.ReadFleetEntry(n, data)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	fl, err := report.BuildFleet(entries)
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

// filledMarks counts the paths filled with colour c, leaving out the
// paths at the indices skip (legend thumbnails).
func filledMarks(els []svgtest.Element, c string, skip []int) int {
	n := 0
	for i, e := range els {
		if e.Name == "path" && e.Fill == c && !slices.Contains(skip, i) {
			n++
		}
	}
	return n
}

// wantTexts fails the test for each of want that no text of els contains.
func wantTexts(t *testing.T, els []svgtest.Element, want ...string) {
	t.Helper()
	var all strings.Builder
	for _, e := range els {
		all.WriteString(e.Text + " ")
	}
	for _, w := range want {
		if !strings.Contains(all.String(), w) {
			t.Errorf("chart has no text %q; texts:\n%s", w, all.String())
		}
	}
}

// TestRunLegend checks the run plot's legend against its data, for both
// orders of the variants: each variant's legend entries (measured and
// fitted) have the variant's colour, which is the colour of as many
// markers as the variant has cells; "on" is always the cached colour and
// "defeat" the defeated one; the title names the policy, the unit, the
// kernel and the CPU.
func TestRunLegend(t *testing.T) {
	for _, order := range [][]string{{"on", "defeat"}, {"defeat", "on"}} {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			d := exampleRun(t)
			d.Config.Variants = order
			slices.SortStableFunc(d.Results, func(a, b document.CellResult) int {
				return slices.Index(order, a.Variant) - slices.Index(order, b.Variant)
			})
			var b bytes.Buffer
			if err := WriteSVG(&b, io.Discard, d); err != nil {
				t.Fatal(err)
			}
			els := svgtest.Elements(t, b.Bytes())
			var thumbs []int
			for _, v := range order {
				want := map[string]string{"on": hexColor(colorCached), "defeat": hexColor(colorDefeated)}[v]
				m := svgtest.Legend(t, els, measuredName(d, v))
				fit := svgtest.Legend(t, els, fitName(d, findFit(d, v)))
				if m.Color != want || fit.Color != want {
					t.Errorf("%s: legend colours measured %s, fit %s; want %s", v, m.Color, fit.Color, want)
				}
				thumbs = append(thumbs, m.Index)
				cells := 0
				for _, r := range d.Results {
					if r.Variant == v {
						cells++
					}
				}
				if got := filledMarks(els, want, thumbs); got != cells {
					t.Errorf("%s: %d markers in the legend's colour %s, want one per cell (%d)", v, got, want, cells)
				}
			}
			wantTexts(t, els, "embedded:default", "ns per op", d.Environment.Kernel, d.Environment.CPUModel, d.Config.Workload)
		})
	}
}

// TestFleetLegend checks the fleet plot's legend against its rows: each
// variant's entry has the variant's colour, the same as in the run plot,
// on one marker per row of that variant; the title names every group's
// policy and the unit, the caption every result's kernel and CPU.
func TestFleetLegend(t *testing.T) {
	fl := exampleFleet(t)
	var b bytes.Buffer
	if err := WriteFleetSVG(&b, fl); err != nil {
		t.Fatal(err)
	}
	els := svgtest.Elements(t, b.Bytes())
	legend := FleetLegend(fl)
	var thumbs []int
	for i, v := range legendOrder(report.FleetVariants(fl)) {
		e := svgtest.Legend(t, els, legend[i])
		thumbs = append(thumbs, e.Index)
		if want := VariantColor(v, nil); e.Color != want {
			t.Errorf("%s: legend colour %s, want %s (the run plot's)", v, e.Color, want)
		}
		rows := 0
		for _, g := range fl.Groups {
			for _, r := range g.Rows {
				if r.Variant == v {
					rows++
				}
			}
		}
		if got := filledMarks(els, e.Color, thumbs); got != rows {
			t.Errorf("%s: %d markers in the legend's colour, want one per row (%d)", v, got, rows)
		}
	}
	want := []string{"ns per op"}
	for _, g := range fl.Groups {
		want = append(want, g.Policy)
		for _, r := range g.Rows {
			want = append(want, r.Kernel, r.CPUModel, r.Result)
		}
	}
	wantTexts(t, els, want...)
}

// TestSimulateLegend checks the simulate plot's legend against its bars:
// each entry's swatch has its class's colour, which fills one bar per
// syscall of that class; the uncached allowed bars have the defeated
// colour of the other charts; the caption says nothing was measured.
func TestSimulateLegend(t *testing.T) {
	sp := fixtureSimPlot()
	var b bytes.Buffer
	if err := WriteSimulateSVG(&b, sp); err != nil {
		t.Fatal(err)
	}
	els := svgtest.Elements(t, b.Bytes())
	for c := range numClasses {
		name := simClassName(sp, c)
		if name == "" {
			continue
		}
		e := svgtest.Legend(t, els, name)
		want := hexColor(color.RGBAModel.Convert(classColors[c]).(color.RGBA))
		if e.Color != want {
			t.Errorf("%q: swatch %s, want %s", name, e.Color, want)
		}
		bars := 0
		for _, bar := range sp.Bars {
			if bar.class() == c && bar.Instructions > 0 {
				bars++
			}
		}
		if got := filledMarks(els, want, []int{e.Index}); got != bars {
			t.Errorf("%q: %d bars in the swatch's colour, want %d", name, got, bars)
		}
	}
	if classColors[classAllowed] != colorDefeated {
		t.Errorf("uncached allowed bars are %v, want the defeated colour %v", classColors[classAllowed], colorDefeated)
	}
	wantTexts(t, els, sp.Stack, "instructions", "not measured")
}

// TestEstimateLegend checks the estimate plot's legend against its rows:
// the uncached entry has the defeated colour and the cached one the
// cached colour, each on one marker per syscall of its kind; the title
// names the profile, the stack and the unit, the caption the model.
func TestEstimateLegend(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "estimate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e document.Estimate
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	// One cached syscall, so both entries are drawn.
	e.Syscalls[1].Cached = true
	e.Model.MeasuredOn = "kernel 6.18.0-test, Test CPU"
	var b bytes.Buffer
	if err := WriteEstimateSVG(&b, &e, 0); err != nil {
		t.Fatal(err)
	}
	els := svgtest.Elements(t, b.Bytes())
	bars := EstimateBars(&e, 0)
	var thumbs []int
	for _, tt := range []struct {
		name   string
		cached bool
		color  string
	}{
		{EstimateLegendUncached, false, hexColor(colorDefeated)},
		{EstimateLegendCached, true, hexColor(colorCached)},
	} {
		l := svgtest.Legend(t, els, tt.name)
		thumbs = append(thumbs, l.Index)
		if l.Color != tt.color {
			t.Errorf("%q: colour %s, want %s", tt.name, l.Color, tt.color)
		}
		rows := 0
		for _, s := range bars {
			if s.Cached == tt.cached {
				rows++
			}
		}
		if got := filledMarks(els, tt.color, thumbs); got != rows {
			t.Errorf("%q: %d markers in its colour, want one per syscall (%d)", tt.name, got, rows)
		}
	}
	wantTexts(t, els, e.Profile.Source, "positions", "in ns", "calibration files", "read (4000 calls)", "kernel 6.18.0-test, Test CPU")
}
