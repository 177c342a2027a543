package chart

import (
	"image/color"
	"slices"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"gonum.org/v1/plot/vg/draw"

	"github.com/seccompbench/seccompbench/report"
)

// The one colour and marker scheme of every chart: a measured variant has
// the same colour and glyph in the run plot (WriteSVG), the fleet plot
// (WriteFleetSVG) and the HTML report's figures, whatever order the
// variants were measured or listed in; simulate's bars use the same two
// colours for what the action cache serves and for the uncached calls
// whose filters run. Colours are Okabe and Ito's colour-blind-safe set;
// shapes differ too, so a grey print still tells the variants apart.
var (
	// colorCached is the action cache serving the workload: run's "on"
	// variant (filters as installed, cache on).
	colorCached = color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF} // blue
	// colorDefeated is every filter running on every call: run's
	// "defeat" variant and simulate's allowed, uncached syscalls.
	colorDefeated = color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF} // vermillion
)

// variantStyle is how one variant looks in every chart.
type variantStyle struct {
	color color.RGBA
	shape draw.GlyphDrawer
}

// namedStyles fixes the style of the variants seccompbench measures, by
// name (kernel/seccomp.c: the action cache is on, or defeated).
var namedStyles = map[string]variantStyle{
	"on":     {colorCached, draw.CircleGlyph{}},
	"defeat": {colorDefeated, draw.PyramidGlyph{}},
}

// otherStyles are for variants without a fixed style (results written by
// other versions), in order of first appearance.
var otherStyles = []variantStyle{
	{color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}, draw.BoxGlyph{}},   // bluish green
	{color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}, draw.RingGlyph{}},  // reddish purple
	{color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, draw.CrossGlyph{}}, // orange
}

// styleOf returns the style of variant v; others lists the chart's
// variants in order, so a variant without a fixed style gets the same
// style in every chart of the same variants.
func styleOf(v string, others []string) variantStyle {
	if st, ok := namedStyles[v]; ok {
		return st
	}
	i := 0
	for _, o := range others {
		if o == v {
			break
		}
		if _, ok := namedStyles[o]; !ok {
			i++
		}
	}
	return otherStyles[i%len(otherStyles)]
}

// legendOrder orders variants as every legend lists them: "on", then
// "defeat", then the others in their order.
func legendOrder(vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, named := range []string{"on", "defeat"} {
		if slices.Contains(vs, named) {
			out = append(out, named)
		}
	}
	for _, v := range vs {
		if _, ok := namedStyles[v]; !ok {
			out = append(out, v)
		}
	}
	return out
}

// VariantColor returns the colour of variant v in every chart, as the
// "#RRGGBB" that SVG output carries; others are the chart's variants in
// order (they matter only for a variant other than "on" and "defeat").
// Tests and docs use it to find a variant's marks.
func VariantColor(v string, others []string) string {
	c := styleOf(v, others).color
	return hexColor(c)
}

// hexColor writes c as SVG does: "#RRGGBB".
func hexColor(c color.RGBA) string {
	const digits = "0123456789ABCDEF"
	b := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, x := range []uint8{c.R, c.G, c.B} {
		b[1+2*i], b[2+2*i] = digits[x>>4], digits[x&15]
	}
	return string(b)
}

// SVGFonts are the fonts the SVG of every chart names in its text
// (font-family "Liberation Sans", the font gonum/plot measures the text
// with): a page that shows the SVG embeds them, so labels keep the width
// they were laid out for where the font is not installed.
func SVGFonts() []report.HTMLFont {
	return []report.HTMLFont{{Family: "Liberation Sans", TTF: liberationsansregular.TTF}}
}
