package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// WriteFleetSVG writes the plot of WriteFleetPNG as SVG.
func WriteFleetSVG(w io.Writer, f *report.Fleet) error {
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
func WriteFleetPNG(w io.Writer, f *report.Fleet) error {
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
func fleetPlotHeight(f *report.Fleet) vg.Length {
	return 3.8*vg.Inch + vg.Length(len(report.FleetRowLabels(f)))*0.32*vg.Inch
}

// fleetPoints is one variant's rows: per-filter cost at y = row position.
type fleetPoints struct {
	plotter.XYs
	plotter.XErrors
}

// FleetLegend returns the plot's legend entries, one per variant, in the
// order of every legend ("on", then "defeat").
func FleetLegend(f *report.Fleet) []string {
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

func drawFleet(dc draw.Canvas, f *report.Fleet) error {
	labels := report.FleetRowLabels(f)
	if len(labels) == 0 {
		return fmt.Errorf("plot report: %w", ErrNothingToPlot)
	}
	p := plot.New()
	p.Title.TextStyle.Font = sans(15)
	p.Title.Text = wrapLines(FleetTitle(f), p.Title.TextStyle, dc.Max.X-dc.Min.X-vg.Points(40))
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "ns per op added by each filter (lower is better)"
	p.X.Label.TextStyle.Font = sans(13)
	p.X.Tick.Label.Font = sans(11)
	p.Y.Tick.Label.Font = sans(10)
	p.Add(plotter.NewGrid())

	leg := plot.NewLegend()
	leg.TextStyle.Font = sans(11)
	leg.Padding = vg.Points(3)
	leg.ThumbnailWidth = vg.Points(28)

	n := len(labels)
	// Row i (0 = first) sits at y = n-1-i, so the first row is on top.
	xmin, xmax := 0.0, math.Inf(-1)
	var ticks []plot.Tick
	for i, l := range labels {
		ticks = append(ticks, plot.Tick{Value: float64(n - 1 - i), Label: l})
	}
	legend := FleetLegend(f)
	var seps []float64
	variants := legendOrder(report.FleetVariants(f))
	for vi, v := range variants {
		st := styleOf(v, variants)
		var pts fleetPoints
		row := 0
		for gi, g := range f.Groups {
			if gi > 0 && vi == 0 {
				seps = append(seps, float64(n-row)-0.5)
			}
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
				xmin, xmax = min(xmin, r.PerFilterNs-lo), max(xmax, r.PerFilterNs+hi)
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return fmt.Errorf("plot %s: %w", v, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: st.color, Radius: vg.Points(4), Shape: st.shape}
		eb, err := plotter.NewXErrorBars(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", v, err)
		}
		eb.LineStyle.Color = st.color
		eb.LineStyle.Width = vg.Points(1.2)
		eb.CapWidth = vg.Points(7)
		p.Add(eb, sc)
		leg.Add(legend[vi], sc)
	}
	if math.IsInf(xmax, -1) || xmax <= xmin {
		xmax = xmin + 1
	}
	for _, y := range seps {
		ln, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: y}, {X: xmax * 1.05, Y: y}})
		if err == nil {
			ln.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
			p.Add(ln)
		}
	}
	p.X.Min, p.X.Max = xmin, xmax*1.05
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Marker = niceTicks{n: 8}

	// Caption below the legend: the kernel and CPU of every result.
	capSty := draw.TextStyle{Color: color.Gray{Y: 0x30}, Font: sans(10), Handler: plot.DefaultTextHandler}
	caption := wrapText(FleetCaption(f), capSty, dc.Max.X-dc.Min.X-vg.Points(20))
	capH := capSty.Height(caption)
	legH := leg.Rectangle(dc).Max.Y - leg.Rectangle(dc).Min.Y
	bottom := legH + capH + vg.Points(24)
	p.Draw(draw.Crop(dc, 0, 0, bottom, 0))
	leg.Left = true
	leg.Top = true
	leg.Draw(draw.Crop(dc, vg.Points(12), 0, capH+vg.Points(14), -(dc.Max.Y - dc.Min.Y - bottom + vg.Points(6))))
	dc.FillText(capSty, vg.Point{X: dc.Min.X + vg.Points(12), Y: dc.Min.Y + vg.Points(6)}, caption)
	return nil
}

// FleetTitle is the title of the fleet plot: what is plotted and in which
// unit, and the policies and workload of each group of rows, top to
// bottom.
func FleetTitle(f *report.Fleet) string {
	var groups []string
	for _, g := range f.Groups {
		groups = append(groups, fmt.Sprintf("policy %s, workload %s", g.Policy, g.Workload))
	}
	return fmt.Sprintf("Per-filter cost in ns per op across %s\n%s", report.Plural(report.FleetResults(f), "result"), strings.Join(groups, "; "))
}

// FleetCaption says what each result was measured on: its kernel and
// CPU model, results on the same pair named together.
func FleetCaption(f *report.Fleet) string {
	type machine struct{ kernel, cpu string }
	var order []machine
	names := map[machine][]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rows {
			m := machine{report.OrDash(r.Kernel), report.OrDash(r.CPUModel)}
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
