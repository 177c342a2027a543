// Package chart draws the plots of results as SVG and PNG: the run's cost
// per filter count, a fleet's per-filter costs, and simulate's per-syscall
// instruction counts. It is the only package that imports gonum/plot; it
// reads finished results from report and computes nothing.
package chart

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// Plot size and PNG resolution.
const (
	// PlotWidth is the width of the run plot.
	PlotWidth  = 9 * vg.Inch
	plotHeight = 6.5 * vg.Inch
	// PNGDPI is the resolution of [WritePNG], in dots per inch.
	PNGDPI = 120
)

// ErrNothingToPlot is returned by [WriteSVG] and [WritePNG] when the
// document has no result cells.
var ErrNothingToPlot = errors.New("no results to plot")

// WriteSVG writes the plot of [WritePNG] as SVG (fonts referenced by name,
// not embedded). Notes about what could not be drawn go to warn. Errors
// wrap [ErrNothingToPlot] or come from drawing and writing.
func WriteSVG(w, warn io.Writer, d *document.Document) error {
	c := vgsvg.New(PlotWidth, plotHeight)
	if err := drawPlot(draw.New(c), warn, d); err != nil {
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// WritePNG draws ns/op against the number of filters stacked, one series
// per variant: the cell means (medians with --robust) with their confidence
// intervals as error bars, the fitted line baseline + entry + N·per-filter
// for N ≥ 1 with the per-filter slope and its CI in the legend, and the
// 0-filter baseline as a horizontal line. The title names the policies,
// the workload and the kernel; axis labels carry units; the legend sits
// below the plot so it never hides data. The image is [PNGDPI] dots per
// inch. Notes about what could not be drawn go to warn. Errors wrap
// [ErrNothingToPlot] or come from drawing and writing.
func WritePNG(w, warn io.Writer, d *document.Document) error {
	c := vgimg.NewWith(vgimg.UseWH(PlotWidth, plotHeight), vgimg.UseDPI(PNGDPI))
	if err := drawPlot(draw.New(c), warn, d); err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("write png: %w", err)
	}
	return nil
}

// PlotSeriesNames returns the legend entries of the plot of d, in order:
// per variant the measured points and (if fitted) the fitted line, then
// the baseline. Tests and docs use it to find the series in the SVG.
func PlotSeriesNames(d *document.Document) []string {
	var names []string
	for _, v := range plotVariants(d) {
		names = append(names, measuredName(d, v))
		if f := findFit(d, v); f != nil {
			names = append(names, fitName(d, f))
		}
	}
	if b, ok := baseline(d); ok {
		names = append(names, baselineName(b))
	}
	return names
}

func measuredName(d *document.Document, v string) string {
	center := "mean"
	if d.Config.Robust {
		center = "median"
	}
	return fmt.Sprintf("%s: measured %s, bars = %.0f%% CI", report.VariantLabel(v), center, d.Config.Confidence*100)
}

func fitName(d *document.Document, f *document.Fit) string {
	return fmt.Sprintf("%s: fitted line, %+.1f ns per filter (%.0f%% CI %.1f to %.1f), %+.0f ns step at the first filter",
		report.VariantLabel(f.Variant), text.Num(f.PerFilterNs), d.Config.Confidence*100, text.Num(f.PerFilterCILowNs), text.Num(f.PerFilterCIHighNs), text.Num(f.EntryNs))
}

func baselineName(b float64) string {
	return fmt.Sprintf("baseline, no filters: %.0f ns/op", text.Num(b))
}

// plotVariants lists the variants with results in legend order.
func plotVariants(d *document.Document) []string {
	var vs []string
	add := func(v string) {
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	for _, v := range d.Config.Variants {
		for _, r := range d.Results {
			if r.Variant == v {
				add(v)
			}
		}
	}
	for _, r := range d.Results {
		add(r.Variant)
	}
	return legendOrder(vs)
}

func findFit(d *document.Document, v string) *document.Fit {
	for i := range d.Fits {
		if d.Fits[i].Variant == v {
			return &d.Fits[i]
		}
	}
	return nil
}

// baseline is the mean ns/op of the 0-filter cells, pooled over variants
// (weighted by children; every variant's 0-filter cell runs the same
// unfiltered child).
func baseline(d *document.Document) (float64, bool) {
	var sum float64
	var n int
	for _, r := range d.Results {
		if r.Filters == 0 && r.N > 0 {
			sum += r.MeanNs * float64(r.N)
			n += r.N
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// PlotTitle is the title of the run plot: what is plotted and in which
// unit, the policies and workload, and the kernel and CPU it was
// measured on.
func PlotTitle(d *document.Document) string {
	return fmt.Sprintf("Syscall cost in ns per op vs. seccomp filters stacked\npolicy %s, workload %s\nmeasured on kernel %s, %s",
		report.PolicyTitle(d), d.Config.Workload, text.OrDash(d.Environment.Kernel), text.OrDash(d.Environment.CPUModel))
}

// cellPoints are a variant's cells as plot points with CI error bars.
type cellPoints struct {
	plotter.XYs
	plotter.YErrors
}

func drawPlot(dc draw.Canvas, warn io.Writer, d *document.Document) error {
	if len(d.Results) == 0 {
		return fmt.Errorf("plot result: %w", ErrNothingToPlot)
	}
	p := plot.New()
	pct := d.Config.Confidence * 100
	p.Title.Text = PlotTitle(d)
	if d.Partial {
		p.Title.Text = "PARTIAL RESULT (run interrupted): " + p.Title.Text
	}
	p.Title.TextStyle.Font = sans(15)
	p.Title.Text = wrapLines(p.Title.Text, p.Title.TextStyle, dc.Max.X-dc.Min.X-vg.Points(40))
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "number of filters stacked (N)"
	center := "mean"
	if d.Config.Robust {
		center = "median"
	}
	p.Y.Label.Text = fmt.Sprintf("time per op, ns (%s; lower is better)", center)
	p.X.Label.TextStyle.Font = sans(13)
	p.Y.Label.TextStyle.Font = sans(13)
	p.X.Tick.Label.Font = sans(11)
	p.Y.Tick.Label.Font = sans(11)
	p.Add(plotter.NewGrid())

	leg := newLegend(vg.Points(28))

	maxN := 0
	for _, r := range d.Results {
		maxN = max(maxN, r.Filters)
	}
	ymin, ymax, err := addVariants(p, &leg, warn, d, maxN)
	if err != nil {
		return err
	}
	if b, ok := baseline(d); ok {
		ln, err := plotter.NewLine(plotter.XYs{{X: 0, Y: b}, {X: float64(max(maxN, 1)), Y: b}})
		if err != nil {
			return fmt.Errorf("plot baseline: %w", err)
		}
		ln.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(2), vg.Points(3)}}
		p.Add(ln)
		leg.Add(baselineName(b), ln)
		ymin, ymax = min(ymin, b), max(ymax, b)
	}

	// Y from 0, so a gap between lines is in proportion to the cost it
	// shows; the top gets 5 % headroom.
	p.Y.Min = 0
	if !math.IsInf(ymax, -1) {
		p.Y.Max = ymax * 1.05
	}
	_ = ymin
	p.X.Min = -0.02 * float64(max(maxN, 1))
	p.X.Max = float64(max(maxN, 1)) * 1.02
	p.X.Tick.Marker = countTicks(d.Config.FilterCounts, maxN)
	p.Y.Tick.Marker = niceTicks{n: 8}

	// Caption below the legend: what one op is and how to read the bars.
	caption := fmt.Sprintf("op = %s. Each point: the %s of %s fresh processes, run in randomized order; bars: its %.0f%% confidence interval.",
		text.OrDash(d.Config.Op), center, childrenPerPoint(d), pct)
	band := newLegendBand(dc, &leg, caption)
	p.Draw(band.plotArea(dc))
	band.draw(dc, &leg)
	return nil
}

// addVariants adds, per variant, the measured points with their intervals
// and the fitted line to p and leg, and returns the y range they cover.
// A variant without a fit gets a note on warn.
func addVariants(p *plot.Plot, leg *plot.Legend, warn io.Writer, d *document.Document, maxN int) (ymin, ymax float64, err error) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	vs := plotVariants(d)
	for _, v := range vs {
		st := styleOf(v, vs)
		var pts cellPoints
		for _, r := range d.Results {
			if r.Variant != v {
				continue
			}
			y := r.MeanNs
			if d.Config.Robust {
				y = r.MedianNs
			}
			lo, hi := y-r.CILowNs, r.CIHighNs-y
			if r.N < 2 || math.IsNaN(lo) || math.IsNaN(hi) || lo < 0 || hi < 0 {
				lo, hi = 0, 0
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: float64(r.Filters), Y: y})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{lo, hi})
			ymin, ymax = min(ymin, y-lo), max(ymax, y+hi)
		}
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return 0, 0, fmt.Errorf("plot %s: %w", v, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: st.color, Radius: vg.Points(4), Shape: st.shape}
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return 0, 0, fmt.Errorf("plot %s: %w", v, err)
		}
		eb.LineStyle.Color = st.color
		eb.LineStyle.Width = vg.Points(1.2)
		eb.CapWidth = vg.Points(8)
		p.Add(eb, sc)
		leg.Add(measuredName(d, v), sc)

		f := findFit(d, v)
		if f == nil {
			fmt.Fprintf(warn, "note: no fitted line for %s (too few filter counts >= 1)\n", v)
			continue
		}
		if maxN < 1 {
			continue
		}
		start := f.BaselineNs + f.EntryNs + f.PerFilterNs
		end := f.BaselineNs + f.EntryNs + f.PerFilterNs*float64(maxN)
		ln, err := plotter.NewLine(plotter.XYs{{X: 1, Y: start}, {X: float64(maxN), Y: end}})
		if err != nil {
			return 0, 0, fmt.Errorf("plot fit of %s: %w", v, err)
		}
		ln.LineStyle = draw.LineStyle{Color: st.color, Width: vg.Points(2), Dashes: []vg.Length{vg.Points(7), vg.Points(3)}}
		p.Add(ln)
		leg.Add(fitName(d, f), ln)
		ymin, ymax = min(ymin, start, end), max(ymax, start, end)
	}
	return ymin, ymax, nil
}

// sans is the plot's font (Liberation Sans, built into gonum/plot) at size
// points.
func sans(size vg.Length) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, size)
}

// niceTicks puts about n labelled ticks at multiples of 1, 2 or 5 times a
// power of ten, with one unlabelled tick between labels.
type niceTicks struct{ n int }

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: fmt.Sprint(lo)}}
	}
	raw := (hi - lo) / float64(t.n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo/step*2) / 2; i*step <= hi+step*1e-9; i += 0.5 {
		v := i * step
		if v == 0 {
			v = 0 // not -0, which would print as "-0"
		}
		tk := plot.Tick{Value: v}
		if i == math.Trunc(i) {
			tk.Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// childrenPerPoint says how many children each cell has: "5", or "5 to 7"
// when cells differ.
func childrenPerPoint(d *document.Document) string {
	lo, hi := math.MaxInt, 0
	for _, r := range d.Results {
		lo, hi = min(lo, r.N), max(hi, r.N)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// countTicks labels the measured filter counts on the x axis, skipping a
// label that would crowd the previous one (the others keep a minor tick).
func countTicks(counts []int, maxN int) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		last := math.Inf(-1)
		minGap := float64(max(maxN, 1)) / 40
		for _, c := range counts {
			x := float64(c)
			if x < lo || x > hi {
				continue
			}
			t := plot.Tick{Value: x}
			if x-last >= minGap {
				t.Label = fmt.Sprint(c)
				last = x
			}
			ticks = append(ticks, t)
		}
		return ticks
	})
}

// wrapLines wraps each line of s (wrapText), keeping its line breaks.
func wrapLines(s string, sty draw.TextStyle, width vg.Length) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wrapText(l, sty, width)
	}
	return strings.Join(lines, "\n")
}

// wrapText breaks s into lines no wider than width in style sty.
func wrapText(s string, sty draw.TextStyle, width vg.Length) string {
	var lines []string
	var cur string
	for _, word := range strings.Fields(s) {
		try := word
		if cur != "" {
			try = cur + " " + word
		}
		if cur != "" && sty.Width(try) > width {
			lines = append(lines, cur)
			cur = word
			continue
		}
		cur = try
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return strings.Join(lines, "\n")
}
