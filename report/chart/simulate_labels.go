package chart

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// raiseForLabels gives p the headroom that names written upwards (in
// sty) above the bars need: it lays the labels out on the data area of
// plotArea, then raises p.Y.Max until the longest ends 8 pt below the
// top, skipping names longer than 90% of the area's height. Three
// rounds, since tick labels and the layout move with Y.Max.
func raiseForLabels(sp *SimulatePlot, p *plot.Plot, plotArea draw.Canvas, sty draw.TextStyle) {
	for range 3 {
		da := p.DataCanvas(plotArea)
		labels := layoutLabels(sp, p, da, sty)
		h := da.Max.Y - da.Min.Y
		for _, l := range labels {
			need := sty.Width(l.text) + vg.Points(8)
			if need < h*0.9 {
				p.Y.Max = max(p.Y.Max, l.base*float64(h)/float64(h-need))
			}
		}
	}
}

// drawBarLabel writes l, the label of bar b, in sty on a white box 1 pt
// larger than the text, 3 pt above its base, on p's data area da; a
// label moved off its bar gets a leader line in the bar's colour.
func drawBarLabel(p *plot.Plot, da draw.Canvas, b SyscallBar, l barLabel, sty draw.TextStyle) {
	trX, trY := p.Transforms(&da)
	leader := draw.LineStyle{Color: classColors[b.class()], Width: vg.Points(0.7)}
	bx, by := trX(float64(l.bar)), trY(float64(b.Instructions))+vg.Points(1)
	lx, ly := trX(l.x), trY(l.base)+vg.Points(3)
	if l.x != float64(l.bar) || l.base > float64(b.Instructions) {
		da.StrokeLines(leader, []vg.Point{{X: bx, Y: by}, {X: bx, Y: ly - vg.Points(3)}, {X: lx, Y: ly - vg.Points(1)}})
	}
	r := sty.Rectangle(l.text)
	bg := []vg.Point{
		{X: lx + r.Min.X - vg.Points(1), Y: ly + r.Min.Y - vg.Points(1)}, {X: lx + r.Max.X + vg.Points(1), Y: ly + r.Min.Y - vg.Points(1)},
		{X: lx + r.Max.X + vg.Points(1), Y: ly + r.Max.Y + vg.Points(1)}, {X: lx + r.Min.X - vg.Points(1), Y: ly + r.Max.Y + vg.Points(1)},
	}
	da.FillPolygon(color.White, bg)
	da.FillText(sty, vg.Point{X: lx, Y: ly}, l.text)
}

// labelText names a bar's syscall as the man pages do, "kill(2)", so it
// never reads as an action, then the verdict when it is not ALLOW and
// the instructions: "kill(2): 118", "ptrace(2) → KILL_PROCESS: 14".
func labelText(b SyscallBar) string {
	name := barName(b)
	if b.Name != "" {
		name += "(2)"
	}
	if !b.Allowed && b.Verdict != "" {
		return fmt.Sprintf("%s → %s: %d", name, b.Verdict, b.Instructions)
	}
	return fmt.Sprintf("%s: %d", name, b.Instructions)
}

func barName(b SyscallBar) string {
	if b.Name == "" {
		return fmt.Sprintf("nr %d", b.Nr)
	}
	return b.Name
}

// barLabel is a name written upwards from (x, base) in data
// coordinates, for the bar at index bar.
type barLabel struct {
	bar     int
	x, base float64
	text    string
}

// layoutLabels names the most expensive uncached allowed syscalls (at
// most maxBarLabels). With a bar every few pixels, neighbours' names
// would overlap, so labels that would touch form a group, spread one text
// height apart and centred on the bars they name (clamped to the plot);
// a group starts above every bar under it or between its labels and
// bars, so its names form one row. The caller draws a leader line from
// each bar to a moved label.
func layoutLabels(sp *SimulatePlot, p *plot.Plot, da draw.Canvas, sty draw.TextStyle) []barLabel {
	pick := labelledBars(sp)
	if len(pick) == 0 {
		return nil
	}
	trX, _ := p.Transforms(&da)
	slot := float64(trX(1) - trX(0)) // points per bar
	gap := float64(sty.Handler.Extents(sty.Font).Height+vg.Points(2)) / max(slot, 1e-9)
	s := labelSpread{pick: pick, gap: gap, lo: -0.5 + gap/2, hi: float64(len(sp.Bars)) - 0.5 - gap/2}
	var out []barLabel
	for _, g := range s.groups() {
		left := min(float64(pick[g.first]), g.start) - gap/2
		right := max(float64(pick[g.first+g.n-1]), g.start+gap*float64(g.n-1)) + gap/2
		base := 0.0
		for j := max(0, int(math.Round(left))); j <= int(math.Round(right)) && j < len(sp.Bars); j++ {
			base = max(base, float64(sp.Bars[j].Instructions))
		}
		for k, i := range pick[g.first : g.first+g.n] {
			out = append(out, barLabel{bar: i, x: g.start + gap*float64(k), base: base, text: labelText(sp.Bars[i])})
		}
	}
	return out
}

// labelledBars returns the indexes, ascending, of the bars of sp that
// get a label: the maxBarLabels most expensive uncached allowed ones,
// and up to maxVerdictLabels others that ran instructions (the most
// expensive of each verdict first, then the rest by cost).
func labelledBars(sp *SimulatePlot) []int {
	var pick, refused []int
	for i, b := range sp.Bars {
		switch c := b.class(); {
		case c == classAllowed:
			pick = append(pick, i)
		case c != classCached && b.Instructions > 0:
			refused = append(refused, i)
		}
	}
	byCost := func(a, b int) int { return sp.Bars[b].Instructions - sp.Bars[a].Instructions }
	slices.SortStableFunc(pick, byCost)
	pick = pick[:min(len(pick), maxBarLabels)]
	// Every other action gets named too: the most expensive bar of each
	// verdict, then others, up to maxVerdictLabels.
	slices.SortStableFunc(refused, byCost)
	var seen []string
	var extra []int
	for _, i := range refused {
		if !slices.Contains(seen, sp.Bars[i].Verdict) {
			seen = append(seen, sp.Bars[i].Verdict)
			extra = append(extra, i)
		}
	}
	for _, i := range refused {
		if len(extra) >= maxVerdictLabels {
			break
		}
		if !slices.Contains(extra, i) {
			extra = append(extra, i)
		}
	}
	pick = append(pick, extra[:min(len(extra), maxVerdictLabels)]...)
	slices.Sort(pick)
	return pick
}

// labelSpread places the labels of the bars pick (ascending indexes)
// along x, in data units: gap apart (one text height), each label's x
// kept within [lo, hi] so it stays on the plot.
type labelSpread struct {
	pick        []int
	gap, lo, hi float64
}

// labelGroup holds the labels of pick[first:first+n]; they sit at x =
// start, start+gap, ...
type labelGroup struct {
	first, n int
	start    float64
}

// place centres g's labels on the mean index of its bars, clamped to
// [s.lo, s.hi].
func (s labelSpread) place(g *labelGroup) {
	var sum float64
	for _, i := range s.pick[g.first : g.first+g.n] {
		sum += float64(i)
	}
	g.start = sum/float64(g.n) - s.gap*float64(g.n-1)/2
	g.start = min(max(g.start, s.lo), max(s.lo, s.hi-s.gap*float64(g.n-1)))
}

// groups adds the labels left to right, each in a group of its own,
// merging the last group into the one before while they overlap and
// placing the merged group again; it returns the groups left to right.
func (s labelSpread) groups() []labelGroup {
	var groups []labelGroup
	for k := range s.pick {
		groups = append(groups, labelGroup{first: k, n: 1})
		s.place(&groups[len(groups)-1])
		// Merge backwards while the last group overlaps the one before.
		for len(groups) > 1 {
			a, b := &groups[len(groups)-2], groups[len(groups)-1]
			if a.start+s.gap*float64(a.n) <= b.start {
				break
			}
			a.n += b.n
			groups = groups[:len(groups)-1]
			s.place(a)
		}
	}
	return groups
}
