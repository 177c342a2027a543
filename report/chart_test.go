package report_test

import (
	"bytes"
	"errors"
	"image/png"
	"io"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/chart"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/svgtest"
)

func TestSVGSeries(t *testing.T) {
	d := report.FixtureDoc(t, 0)
	var out, warn bytes.Buffer
	if err := chart.WriteSVG(&out, &warn, d); err != nil {
		t.Fatal(err)
	}
	texts := svgtest.Texts(t, out.Bytes())
	want := chart.PlotSeriesNames(d)
	if len(want) != 5 {
		t.Fatalf("series = %v, want 2 measured + 2 fits + baseline", want)
	}
	for _, w := range append(want, "number of filters stacked (N)", "Syscall cost in ns per op vs. seccomp filters stacked") {
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("SVG has no text %q; texts: %q", w, texts)
		}
	}
	if !slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, "+20.0 ns per filter") }) {
		t.Errorf("defeat fit legend does not show the 20 ns/filter slope: %v", want)
	}
}

func TestPNG(t *testing.T) {
	d := report.FixtureDoc(t, 0)
	var out bytes.Buffer
	if err := chart.WritePNG(&out, io.Discard, d); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	if got, want := img.Bounds().Dx(), int(float64(chart.PlotWidth/vg.Inch)*chart.PNGDPI); got != want {
		t.Errorf("width = %d px, want %d", got, want)
	}
}

func TestPlotNothing(t *testing.T) {
	d := &document.Document{}
	for name, f := range map[string]func(io.Writer, io.Writer, *document.Document) error{"svg": chart.WriteSVG, "png": chart.WritePNG} {
		if err := f(io.Discard, io.Discard, d); !errors.Is(err, chart.ErrNothingToPlot) {
			t.Errorf("%s: err = %v, want chart.ErrNothingToPlot", name, err)
		}
	}
}

func TestFleetSVG(t *testing.T) {
	f, err := report.BuildFleet(report.FleetFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := chart.WriteFleetSVG(&b, f); err != nil {
		t.Fatal(err)
	}
	for _, want := range append(chart.FleetLegend(f), report.FleetRowLabels(f)...) {
		if !strings.Contains(b.String(), svgEscape(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// svgEscape escapes text as vgsvg writes it.
func svgEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
