package chart

import (
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// EstimateLegendUncached and EstimateLegendCached are the estimate plot's
// legend entries: the two kinds of syscall, in the colours and glyphs of
// the run plot's defeat and on variants.
const (
	EstimateLegendUncached = "not cached: every filter runs (entry + per filter × filters + per instruction × instructions)"
	EstimateLegendCached   = "cached: the action cache allows it without running a filter"
)

// estimateRows is how many syscalls the estimate plot shows at most.
const estimateRows = 20

// EstimateBars returns the syscalls the estimate plot shows, top to
// bottom: the first estimateRows of e (already sorted by total added
// time) with a per-call estimate, at most top when top > 0.
func EstimateBars(e *document.Estimate, top int) []document.EstimateSyscall {
	n := estimateRows
	if top > 0 {
		n = min(n, top)
	}
	var out []document.EstimateSyscall
	for _, s := range e.Syscalls {
		if s.AddedNs != nil && len(out) < n {
			out = append(out, s)
		}
	}
	return out
}

// EstimateTitle is the estimate plot's title: what is plotted and in which
// unit, the profile, and the stack with its cache mode.
func EstimateTitle(e *document.Estimate) string {
	var names []string
	for _, s := range e.Stack {
		names = append(names, s.Name)
	}
	cache := "action cache on"
	if e.Cache == "defeat" {
		cache = "action cache defeated"
	}
	return fmt.Sprintf("Predicted time the filters add per call, in ns, per syscall\nprofile %s; stack %s (%s), %s",
		e.Profile.Source, text.Plural(len(e.Stack), "filter"), report.SummarizeNames(names), cache)
}

// EstimateCaption says where the model's figures were measured: the
// calibration and its kernel and CPU.
func EstimateCaption(e *document.Estimate) string {
	on := e.Model.MeasuredOn
	if on == "" {
		on = "a kernel and CPU the estimate does not record"
	}
	return fmt.Sprintf("Model: %s, measured on %s. Points: the prediction per call with all arguments 0; bars: its %.0f%% interval (calibration uncertainty only).",
		e.Model.Source, on, e.Model.Confidence*100)
}

// WriteEstimateSVG draws one row per syscall of EstimateBars: the added
// time per call as a point with its confidence interval as a horizontal
// bar, coloured and shaped as the run plot's on (cached) and defeat (not
// cached) variants. Errors wrap ErrNothingToPlot or come from drawing and
// writing.
func WriteEstimateSVG(w io.Writer, e *document.Estimate, top int) error {
	bars := EstimateBars(e, top)
	if len(bars) == 0 {
		return fmt.Errorf("plot estimate: %w", ErrNothingToPlot)
	}
	c := vgsvg.New(PlotWidth, 3.4*vg.Inch+vg.Length(len(bars))*0.28*vg.Inch)
	if err := drawEstimate(draw.New(c), e, bars); err != nil {
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

func drawEstimate(dc draw.Canvas, e *document.Estimate, bars []document.EstimateSyscall) error {
	p := plot.New()
	p.Title.TextStyle.Font = sans(15)
	p.Title.Text = wrapLines(EstimateTitle(e), p.Title.TextStyle, dc.Max.X-dc.Min.X-vg.Points(40))
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "ns added per call (lower is better)"
	p.X.Label.TextStyle.Font = sans(13)
	p.X.Tick.Label.Font = sans(11)
	p.Y.Tick.Label.Font = sans(11)
	p.Add(plotter.NewGrid())
	leg := newLegend(vg.Points(28))

	n := len(bars)
	var ticks []plot.Tick
	xmin, xmax := 0.0, math.Inf(-1)
	for _, cached := range []bool{false, true} {
		var pts fleetPoints
		for i, s := range bars {
			if cached == s.Cached {
				lo, hi := ciArms(*s.AddedNs, s.AddedLowNs, s.AddedHighNs)
				pts.XYs = append(pts.XYs, plotter.XY{X: *s.AddedNs, Y: float64(n - 1 - i)})
				pts.XErrors = append(pts.XErrors, struct{ Low, High float64 }{lo, hi})
				xmin, xmax = min(xmin, *s.AddedNs-lo), max(xmax, *s.AddedNs+hi)
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		st, name := namedStyles["defeat"], EstimateLegendUncached
		if cached {
			st, name = namedStyles["on"], EstimateLegendCached
		}
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return fmt.Errorf("plot estimate: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: st.color, Radius: vg.Points(4), Shape: st.shape}
		eb, err := plotter.NewXErrorBars(pts)
		if err != nil {
			return fmt.Errorf("plot estimate: %w", err)
		}
		eb.LineStyle.Color, eb.LineStyle.Width, eb.CapWidth = st.color, vg.Points(1.2), vg.Points(7)
		p.Add(eb, sc)
		leg.Add(name, sc)
	}
	for i, s := range bars {
		ticks = append(ticks, plot.Tick{Value: float64(n - 1 - i), Label: fmt.Sprintf("%s (%s)", s.Name, text.Plural(s.Calls, "call"))})
	}
	if math.IsInf(xmax, -1) || xmax <= xmin {
		xmax = xmin + 1
	}
	p.X.Min, p.X.Max = xmin, xmax*1.05
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Marker = niceTicks{n: 8}

	band := newLegendBand(dc, &leg, strings.TrimSpace(EstimateCaption(e)))
	p.Draw(band.plotArea(dc))
	band.draw(dc, &leg)
	return nil
}

// ciArms are the lengths of an interval's arms below and above x, 0 when
// a bound is missing or on the wrong side.
func ciArms(x float64, lo, hi *float64) (float64, float64) {
	if lo == nil || hi == nil {
		return 0, 0
	}
	l, h := x-*lo, *hi-x
	if math.IsNaN(l) || math.IsNaN(h) || l < 0 || h < 0 {
		return 0, 0
	}
	return l, h
}
