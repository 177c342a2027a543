package chart

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// newLegend returns an empty legend in the charts' style: 11 pt text,
// 3 pt between entries, thumbnails thumb wide, anchored top left (it is
// drawn into the band under the plot, see legendBand).
func newLegend(thumb vg.Length) plot.Legend {
	leg := plot.NewLegend()
	leg.TextStyle.Font = sans(11)
	leg.Left = true
	leg.Top = true
	leg.Padding = vg.Points(3)
	leg.ThumbnailWidth = thumb
	return leg
}

// legendBand is the strip at the bottom of a chart: the legend, and
// under it a grey 10 pt caption wrapped to the canvas width less 20 pt.
type legendBand struct {
	capSty  draw.TextStyle
	caption string
	// capH is the caption's height and bottom the whole strip's: legend,
	// caption and 24 pt of padding.
	capH, bottom vg.Length
}

// newLegendBand measures the strip that leg and caption need on dc.
func newLegendBand(dc draw.Canvas, leg *plot.Legend, caption string) legendBand {
	b := legendBand{capSty: draw.TextStyle{Color: color.Gray{Y: 0x30}, Font: sans(10), Handler: plot.DefaultTextHandler}}
	b.caption = wrapText(caption, b.capSty, dc.Max.X-dc.Min.X-vg.Points(20))
	legH := leg.Rectangle(dc).Max.Y - leg.Rectangle(dc).Min.Y
	b.capH = b.capSty.Height(b.caption)
	b.bottom = legH + b.capH + vg.Points(24)
	return b
}

// plotArea is dc above the strip, where the plot goes.
func (b legendBand) plotArea(dc draw.Canvas) draw.Canvas {
	return draw.Crop(dc, 0, 0, b.bottom, 0)
}

// draw draws leg 12 pt from dc's left edge at the top of the strip and
// the caption 6 pt above dc's bottom edge.
func (b legendBand) draw(dc draw.Canvas, leg *plot.Legend) {
	leg.Draw(draw.Crop(dc, vg.Points(12), 0, b.capH+vg.Points(14), -(dc.Max.Y - dc.Min.Y - b.bottom + vg.Points(6))))
	dc.FillText(b.capSty, vg.Point{X: dc.Min.X + vg.Points(12), Y: dc.Min.Y + vg.Points(6)}, b.caption)
}
