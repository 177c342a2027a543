package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// HTMLFigure is one chart of an HTML report: an SVG document (as
// report/chart writes it; everything before its <svg> element is dropped)
// and a caption in plain text.
type HTMLFigure struct {
	Caption string
	SVG     []byte
}

// HTMLFont is a font the figures' SVG names (font-family), embedded in
// the page as a data URL so that the text of a chart is laid out with the
// metrics it was drawn with, on a machine without that font too.
type HTMLFont struct {
	// Family is the CSS font-family name the SVG uses ("Liberation Sans").
	Family string
	// TTF is the TrueType font file.
	TTF []byte
}

// HTMLCharts is what report/chart gives an HTML report: the figures and
// the fonts their SVG needs.
type HTMLCharts struct {
	Figures []HTMLFigure
	Fonts   []HTMLFont
}

// htmlPage is what htmlTemplate lays out: the title, the parts in order
// (HTML the converters made from escaped text, and figures), the tool and
// the @font-face rules of the figures' fonts.
type htmlPage struct {
	Title    string
	Parts    []template.HTML
	Tool     string
	FontFace template.CSS
}

// htmlTemplate is the page: one file with its CSS inline, no script and
// nothing fetched from the network, readable in any browser and printable.
var htmlTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{.FontFace}}
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "Liberation Sans", sans-serif; color: #1a1a1a; background: #fff; margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem 2rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; border-bottom: 3px solid #d0d7de; padding-bottom: .4rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; color: #003d60; }
h3 { font-size: 1.05rem; }
blockquote { margin: 1rem 0; padding: .6rem 1rem; background: #fff4e5; border-left: 4px solid #E69F00; }
.table { overflow-x: auto; margin: .8rem 0 1.2rem; }
table { border-collapse: collapse; font-size: 13.5px; max-width: 100%; }
th, td { border: 1px solid #d0d7de; padding: .25rem .5rem; text-align: left; vertical-align: top; overflow-wrap: break-word; }
th { background: #f0f4f8; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; overflow-wrap: normal; }
tbody tr:nth-child(even) { background: #fafbfc; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: .9em; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: .8rem; overflow-x: auto; white-space: pre-wrap; }
figure { margin: 1.5rem 0; border: 1px solid #d0d7de; padding: .8rem; }
figure svg { display: block; width: 100%; max-width: 60rem; height: auto; margin: 0 auto; }
figcaption { font-size: 13px; color: #444; margin-top: .5rem; }
footer { margin-top: 3rem; font-size: 12px; color: #666; }
@media print { figure { break-inside: avoid; } }
</style>
</head>
<body>
<main>
{{range .Parts}}{{.}}
{{end}}<footer>Written by {{.Tool}}. This page is one self-contained file: no scripts, nothing loaded from the network.</footer>
</main>
</body>
</html>
`))

// figuresHTML lays figures out, each SVG inline with its caption escaped.
func figuresHTML(charts HTMLCharts) template.HTML {
	var b strings.Builder
	for _, f := range charts.Figures {
		svg := f.SVG
		if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
			svg = svg[i:]
		}
		b.WriteString("<figure>\n")
		// The SVG comes from report/chart (gonum's vgsvg escapes every
		// text it writes), not from a result file.
		b.Write(svg)
		b.WriteString("\n<figcaption>" + template.HTMLEscapeString(f.Caption) + "</figcaption>\n</figure>")
	}
	return template.HTML(b.String())
}

// writeHTMLPage writes the page of title with parts and the fonts of
// charts to w.
func writeHTMLPage(w io.Writer, title, tool string, parts []template.HTML, charts HTMLCharts) error {
	var css strings.Builder
	if len(charts.Figures) > 0 {
		for _, f := range charts.Fonts {
			family := strings.NewReplacer(`"`, "", `\`, "", "<", "", ">", "").Replace(f.Family)
			fmt.Fprintf(&css, "@font-face { font-family: \"%s\"; src: url(data:font/ttf;base64,%s) format(\"truetype\"); }\n",
				family, base64.StdEncoding.EncodeToString(f.TTF))
		}
	}
	return htmlTemplate.Execute(w, htmlPage{Title: title, Parts: parts, Tool: tool, FontFace: template.CSS(css.String())})
}

// WriteHTML writes d as one self-contained HTML page: the sections of the
// Markdown report (runSections, in their order, so every section the text
// and Markdown writers have is on the page too), with the figures of charts
// right after the results table. It returns the first write error.
func WriteHTML(w io.Writer, d *document.Document, charts HTMLCharts) error {
	var parts []template.HTML
	for _, s := range runSections {
		if s.markdown == nil {
			continue
		}
		var b bytes.Buffer
		s.markdown(&errWriter{w: &b}, d)
		parts = append(parts, template.HTML(`<section id="`+s.name+`">`)+mdToHTML(b.String())+"</section>")
		if s.name == "results" && len(charts.Figures) > 0 {
			parts = append(parts, figuresHTML(charts))
		}
	}
	title := "seccompbench: " + PolicyTitle(d) + ", workload " + d.Config.Workload
	return writeHTMLPage(w, title, d.Tool.Name+" "+d.Tool.Version, parts, charts)
}

// WriteComparisonHTML writes c as one self-contained HTML page: the
// sections of its Markdown report (compareSections), with the figures of
// charts before "How to read this". It returns the first write error.
func WriteComparisonHTML(w io.Writer, c *document.Comparison, charts HTMLCharts) error {
	parts := sectionsHTML(compareSections, c, charts, "legend")
	tool := "seccompbench"
	if len(c.Sources) > 0 {
		tool += " (results of " + text.OrDash(c.Sources[0].ToolVersion) + ")"
	}
	return writeHTMLPage(w, "seccompbench comparison", tool, parts, charts)
}

// WriteFleetHTML writes f as one self-contained HTML page: the sections
// of its Markdown report (fleetSections) with the figures of charts after
// the tables, before the warnings. It returns the first write error.
func WriteFleetHTML(w io.Writer, f *document.Fleet, charts HTMLCharts) error {
	parts := sectionsHTML(fleetSections, f, charts, "warnings")
	return writeHTMLPage(w, "seccompbench report: "+text.Plural(FleetResults(f), "result"), "seccompbench report", parts, charts)
}

// WriteEstimateHTML writes e as one self-contained HTML page: the
// sections of its Markdown report (estimateSections: top syscalls, all
// when top is 0), with the figures of charts after the syscalls table. It
// returns the first write error.
func WriteEstimateHTML(w io.Writer, e *document.Estimate, top int, charts HTMLCharts) error {
	parts := sectionsHTML(estimateSections, estimateView{e, top}, charts, "total")
	return writeHTMLPage(w, estimateTitle(e), "seccompbench estimate", parts, charts)
}
