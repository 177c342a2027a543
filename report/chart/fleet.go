package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// WriteFleetSVG writes the plot of WriteFleetPNG as SVG.
func WriteFleetSVG(w io.Writer, f *document.Fleet) error {
	c := vgsvg.New(PlotWidth, fleetPlotHeight(f))
	if err := drawFleet(draw.New(c), f); err != nil {
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// WriteFleetPNG draws one row per result and variant (FleetRowLabels, top
// to bottom, groups separated by a line): the per-filter cost as a point
// with its confidence interval as a horizontal bar, coloured and shaped by
// variant as in WritePNG, on one ns axis starting at 0 (or below, when an
// interval does). The legend names each variant and what the bars are.
// Errors wrap ErrNothingToPlot or come from drawing and writing.
func WriteFleetPNG(w io.Writer, f *document.Fleet) error {
	c := vgimg.NewWith(vgimg.UseWH(PlotWidth, fleetPlotHeight(f)), vgimg.UseDPI(PNGDPI))
	if err := drawFleet(draw.New(c), f); err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("write png: %w", err)
	}
	return nil
}

// fleetPlotHeight grows with the rows: 0.32 inch each, 3.8 inches at
// least for title, axis, legend and caption.
func fleetPlotHeight(f *document.Fleet) vg.Length {
	return 3.8*vg.Inch + vg.Length(len(report.FleetRowLabels(f)))*0.32*vg.Inch
}

// fleetPoints is one variant's rows: per-filter cost at y = row position.
type fleetPoints struct {
	plotter.XYs
	plotter.XErrors
}

// FleetLegend returns the plot's legend entries, one per variant, in the
// order of every legend ("on", then "defeat").
func FleetLegend(f *document.Fleet) []string {
	var out []string
	conf := 0.95
	for _, g := range f.Groups {
		for _, r := range g.Rows {
			conf = r.Confidence
		}
	}
	for _, v := range legendOrder(report.FleetVariants(f)) {
		out = append(out, fmt.Sprintf("%s: per-filter cost, bars = %.0f%% CI", report.VariantLabel(v), conf*100))
	}
	return out
}

// drawFleet draws f on dc as WriteFleetPNG describes: a row per result
// and variant, the legend and the caption (the kernel and CPU of every
// result) below. Errors wrap ErrNothingToPlot or come from plotting.
func drawFleet(dc draw.Canvas, f *document.Fleet) error {
	labels := report.FleetRowLabels(f)
	if len(labels) == 0 {
		return fmt.Errorf("plot report: %w", ErrNothingToPlot)
	}
	p := newFleetPlot(dc, f)
	leg := newLegend(vg.Points(28))
	n := len(labels)
	xmin, xmax, err := addFleetVariants(p, &leg, f, n)
	if err != nil {
		return err
	}
	if math.IsInf(xmax, -1) || xmax <= xmin {
		xmax = xmin + 1
	}
	addFleetSeparators(p, f, n, xmin, xmax*1.05)
	p.X.Min, p.X.Max = xmin, xmax*1.05
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	var ticks []plot.Tick
	for i, l := range labels {
		ticks = append(ticks, plot.Tick{Value: float64(n - 1 - i), Label: l})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Marker = niceTicks{n: 8}
	band := newLegendBand(dc, &leg, FleetCaption(f))
	p.Draw(band.plotArea(dc))
	band.draw(dc, &leg)
	return nil
}

// newFleetPlot returns the fleet plot with its title (wrapped to dc's
// width less 40 pt), the x axis label, fonts and the grid, and nothing
// plotted yet.
func newFleetPlot(dc draw.Canvas, f *document.Fleet) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font = sans(15)
	p.Title.Text = wrapLines(FleetTitle(f), p.Title.TextStyle, dc.Max.X-dc.Min.X-vg.Points(40))
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "ns per op added by each filter (lower is better)"
	p.X.Label.TextStyle.Font = sans(13)
	p.X.Tick.Label.Font = sans(11)
	p.Y.Tick.Label.Font = sans(10)
	p.Add(plotter.NewGrid())
	return p
}

// addFleetVariants adds to p and leg, variant by variant in legend
// order, the rows of f (n in all) as points with their confidence
// intervals. It returns the x range (ns) the points and intervals span,
// from 0 or below; xmax is -Inf when there is no point.
func addFleetVariants(p *plot.Plot, leg *plot.Legend, f *document.Fleet, n int) (xmin, xmax float64, err error) {
	xmin, xmax = 0.0, math.Inf(-1)
	legend := FleetLegend(f)
	variants := legendOrder(report.FleetVariants(f))
	for vi, v := range variants {
		pts := fleetVariantPoints(f, v, n)
		for i, xy := range pts.XYs {
			xmin, xmax = min(xmin, xy.X-pts.XErrors[i].Low), max(xmax, xy.X+pts.XErrors[i].High)
		}
		if len(pts.XYs) == 0 {
			continue
		}
		st := styleOf(v, variants)
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return 0, 0, fmt.Errorf("plot %s: %w", v, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: st.color, Radius: vg.Points(4), Shape: st.shape}
		eb, err := plotter.NewXErrorBars(pts)
		if err != nil {
			return 0, 0, fmt.Errorf("plot %s: %w", v, err)
		}
		eb.LineStyle.Color = st.color
		eb.LineStyle.Width = vg.Points(1.2)
		eb.CapWidth = vg.Points(7)
		p.Add(eb, sc)
		leg.Add(legend[vi], sc)
	}
	return xmin, xmax, nil
}

// fleetVariantPoints returns the rows of f with variant v: per-filter
// cost (ns) at y = n-1-row, so that the first of the n rows is on top,
// with the confidence interval's arms (0 when unknown or inverted).
func fleetVariantPoints(f *document.Fleet, v string, n int) fleetPoints {
	var pts fleetPoints
	row := 0
	for _, g := range f.Groups {
		for _, r := range g.Rows {
			y := float64(n - 1 - row)
			row++
			if r.Variant != v {
				continue
			}
			lo, hi := r.PerFilterNs-r.PerFilterCILowNs, r.PerFilterCIHighNs-r.PerFilterNs
			if math.IsNaN(lo) || math.IsNaN(hi) || lo < 0 || hi < 0 {
				lo, hi = 0, 0
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: r.PerFilterNs, Y: y})
			pts.XErrors = append(pts.XErrors, struct{ Low, High float64 }{lo, hi})
		}
	}
	return pts
}

// addFleetSeparators adds to p a dashed grey line from x0 to x1 (ns)
// between each group of f's n rows and the next.
func addFleetSeparators(p *plot.Plot, f *document.Fleet, n int, x0, x1 float64) {
	row := 0
	for gi, g := range f.Groups {
		if gi > 0 {
			y := float64(n-row) - 0.5
			ln, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
			if err == nil {
				ln.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
				p.Add(ln)
			}
		}
		row += len(g.Rows)
	}
}

// FleetTitle is the title of the fleet plot: what is plotted and in which
// unit, and the policies and workload of each group of rows, top to
// bottom.
func FleetTitle(f *document.Fleet) string {
	var groups []string
	for _, g := range f.Groups {
		groups = append(groups, fmt.Sprintf("policy %s, workload %s", g.Policy, g.Workload))
	}
	return fmt.Sprintf("Per-filter cost in ns per op across %s\n%s", text.Plural(report.FleetResults(f), "result"), strings.Join(groups, "; "))
}

// FleetCaption says what each result was measured on: its kernel and
// CPU model, results on the same pair named together.
func FleetCaption(f *document.Fleet) string {
	type machine struct{ kernel, cpu string }
	var order []machine
	names := map[machine][]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rows {
			m := machine{text.OrDash(r.Kernel), text.OrDash(r.CPUModel)}
			if _, ok := names[m]; !ok {
				order = append(order, m)
			}
			if !slices.Contains(names[m], r.Result) {
				names[m] = append(names[m], r.Result)
			}
		}
	}
	var parts []string
	for _, m := range order {
		parts = append(parts, fmt.Sprintf("%s on kernel %s, %s", strings.Join(names[m], ", "), m.kernel, m.cpu))
	}
	return "Measured: " + strings.Join(parts, "; ") + ". Rows between dashed lines measured the same policies and workload."
}
