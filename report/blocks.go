package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/seccompbench/seccompbench/report/internal/text"
)

// section is one section of a report as data: its name (the HTML
// section id) and a function that states its content once, as blocks.
// One list of sections feeds the text writer, the Markdown writer and,
// through the Markdown, the HTML page (writeSectionsText,
// writeSectionsMarkdown, sectionsHTML), so a figure cannot be in one
// format and missing or different in another. The Markdown is the full
// report; the text's default output leaves out what is marked explain
// (sections here, columns in tableBlock) until --explain.
type section[T any] struct {
	name string
	// explain: in text, only with TextOptions.Explain.
	explain bool
	// textOmit: never in text (the title, or warnings the command
	// writes to standard error).
	textOmit bool
	blocks   func(x T) []block
}

// textOpts is how the text writer lays blocks out.
type textOpts struct {
	// explain shows the sections and columns marked explain.
	explain bool
	// wrap wraps prose (not tables) at TextWidth.
	wrap bool
}

// block is one piece of a section: what it says, laid out by text and
// markdown. Each returns its lines with a final newline, or "" when it
// has nothing to show in that format.
type block interface {
	text(o textOpts) string
	markdown() string
}

// writeSectionsText writes the blocks of secs for x as text, a blank
// line between blocks, and returns the first write error.
func writeSectionsText[T any](w io.Writer, secs []section[T], x T, o textOpts) error {
	var parts []string
	for _, s := range secs {
		if s.textOmit || (s.explain && !o.explain) {
			continue
		}
		for _, b := range s.blocks(x) {
			if t := b.text(o); t != "" {
				parts = append(parts, t)
			}
		}
	}
	_, err := io.WriteString(w, strings.Join(parts, "\n"))
	return err
}

// sectionMarkdown is the Markdown of s for x, "" when it has none.
func sectionMarkdown[T any](s section[T], x T) string {
	var parts []string
	for _, b := range s.blocks(x) {
		if m := b.markdown(); m != "" {
			parts = append(parts, m)
		}
	}
	return strings.Join(parts, "\n")
}

// writeSectionsMarkdown writes every section of secs for x as Markdown,
// a blank line between blocks, and returns the first write error.
func writeSectionsMarkdown[T any](w io.Writer, secs []section[T], x T) error {
	var parts []string
	for _, s := range secs {
		if m := sectionMarkdown(s, x); m != "" {
			parts = append(parts, m)
		}
	}
	_, err := io.WriteString(w, strings.Join(parts, "\n"))
	return err
}

// sectionsHTML is the HTML of every section of secs for x, each in a
// <section> with its name as id, with the figures of charts before the
// section named before (at the end when none is).
func sectionsHTML[T any](secs []section[T], x T, charts HTMLCharts, before string) []template.HTML {
	var parts []template.HTML
	placed := len(charts.Figures) == 0
	for _, s := range secs {
		if s.name == before && !placed {
			parts, placed = append(parts, figuresHTML(charts)), true
		}
		if m := sectionMarkdown(s, x); m != "" {
			parts = append(parts, template.HTML(`<section id="`+s.name+`">`)+mdToHTML(m)+"</section>")
		}
	}
	if !placed {
		parts = append(parts, figuresHTML(charts))
	}
	return parts
}

// titleBlock is the report's title: a Markdown heading; the text starts
// with the headline instead.
type titleBlock string

func (t titleBlock) text(textOpts) string { return "" }
func (t titleBlock) markdown() string     { return "# " + mdEscape(string(t)) + "\n" }

// headlineBlock is a command's headline (HeadlineLine).
type headlineBlock []HeadlineLine

func (h headlineBlock) text(textOpts) string {
	var b bytes.Buffer
	writeHeadlineText(&errWriter{w: &b}, h)
	return b.String()
}

func (h headlineBlock) markdown() string {
	var b bytes.Buffer
	writeHeadlineMarkdown(&errWriter{w: &b}, h)
	return strings.TrimSuffix(b.String(), "\n")
}

// headingBlock heads a part of a section: a level-2 Markdown heading, a
// line of its own in text unless textHidden (when the text has only one
// such part and its headline says what it is).
type headingBlock struct {
	title      string
	textHidden bool
}

func (h headingBlock) text(o textOpts) string {
	if h.textHidden {
		return ""
	}
	return prose(h.title, o)
}

func (h headingBlock) markdown() string { return "## " + mdEscape(h.title) + "\n" }

// paraBlock is a paragraph of prose.
type paraBlock string

func (p paraBlock) text(o textOpts) string {
	if p == "" {
		return ""
	}
	return prose(shortSentences(string(p)), o)
}

func (p paraBlock) markdown() string {
	if p == "" {
		return ""
	}
	return mdEscape(shortSentences(string(p))) + "\n"
}

// prose is s as a text line, wrapped at TextWidth when o.wrap.
func prose(s string, o textOpts) string {
	if o.wrap {
		return text.Wrap(s, TextWidth)
	}
	return s + "\n"
}

// listBlock is a titled list (the warnings, how to read a table): in
// text "title:" and indented "- " items, in Markdown a "## Title"
// heading (heading) or a "title:" paragraph, then the items.
type listBlock struct {
	title   string
	heading bool
	items   []string
}

func (l listBlock) text(o textOpts) string {
	if len(l.items) == 0 {
		return ""
	}
	s := l.title + ":\n"
	for _, it := range l.items {
		s += "  - " + shortSentences(it) + "\n"
	}
	if o.wrap {
		return text.Wrap(s, TextWidth)
	}
	return s
}

func (l listBlock) markdown() string {
	if len(l.items) == 0 {
		return ""
	}
	var b strings.Builder
	if l.heading {
		r := []rune(l.title)
		b.WriteString("## " + mdEscape(string(unicode.ToUpper(r[0]))+string(r[1:])) + "\n\n")
	} else {
		b.WriteString(mdEscape(l.title) + ":\n\n")
	}
	for _, it := range l.items {
		b.WriteString("- " + mdEscape(shortSentences(it)) + "\n")
	}
	return b.String()
}

// field is one labelled value of a fieldsBlock; more are further lines
// of it.
type field struct {
	label, value string
	more         []string
}

// fieldsBlock is labelled lines under an optional caption: in text the
// labels padded to width after indent, further lines indented under the
// value; in Markdown a caption paragraph and a list, one item a field.
type fieldsBlock struct {
	caption string
	indent  string
	width   int
	fields  []field
}

func (f fieldsBlock) text(o textOpts) string {
	var b strings.Builder
	if f.caption != "" {
		line := f.caption + "\n"
		if o.wrap {
			line = text.Wrap(line, TextWidth)
		}
		b.WriteString(line)
	}
	pad := f.indent + strings.Repeat(" ", f.width)
	for _, fd := range f.fields {
		head := fmt.Sprintf("%s%-*s", f.indent, f.width, fd.label)
		lines := append([]string{shortSentencesAfter(fd.label+" ", fd.value)}, fd.more...)
		for i, l := range lines {
			parts := []string{l}
			if o.wrap && len([]rune(head+l)) > TextWidth {
				// wrapped under the value column, so the labels stay
				// a column of their own
				parts = text.WrapWords(l, TextWidth-max(len([]rune(head)), len(pad))-2)
			}
			for j, p := range parts {
				switch {
				case i == 0 && j == 0:
					b.WriteString(head + p + "\n")
				case j == 0:
					b.WriteString(pad + p + "\n")
				default:
					b.WriteString(pad + "  " + p + "\n")
				}
			}
		}
	}
	return b.String()
}

func (f fieldsBlock) markdown() string {
	var b strings.Builder
	if f.caption != "" {
		b.WriteString(mdEscape(f.caption) + "\n\n")
	}
	for _, fd := range f.fields {
		b.WriteString("- **" + mdEscape(fd.label) + "** " + mdEscape(fieldSentences(fd)) + "\n")
	}
	return b.String()
}

// column is one column of a tableBlock.
type column struct {
	head string
	// short is the text's default header when it differs (narrower).
	short string
	// num right-aligns the column in Markdown.
	num bool
	// explain: in text, only with --explain; Markdown has every column.
	explain bool
	// elide cuts a cell to this many characters in the text's default
	// output (elideMiddle); 0 keeps it whole.
	elide int
}

// cell is one table cell; strong marks it in Markdown (a significant
// change). tail follows s and is never elided (" (partial)").
type cell struct {
	s, tail string
	strong  bool
}

// tableBlock is a table under an optional caption, with footnotes.
type tableBlock struct {
	// caption is a line above the table (a paragraph in Markdown, a
	// level-2 heading when heading); note is said after it, in text in
	// parentheses on the caption's line, in Markdown as a paragraph.
	caption, note string
	heading       bool
	cols          []column
	rows          [][]cell
	// empty is said instead of a table without rows.
	empty string
	// footer lines follow the table (paragraphs in Markdown).
	footer []string
	// textRight right-aligns every text column; textPad is the spaces
	// between text columns.
	textRight bool
	textPad   int
	// textSplit, when the text's one table would be wider than
	// TextWidth, lays it out as these column groups one after another.
	textSplit [][]int
}

// textCols are the indexes of the columns text shows.
func (t tableBlock) textCols(o textOpts) []int {
	var cols []int
	for i, c := range t.cols {
		if o.explain || !c.explain {
			cols = append(cols, i)
		}
	}
	return cols
}

// textGrid is the text's header and rows, every column.
func (t tableBlock) textGrid(o textOpts) [][]string {
	head := make([]string, len(t.cols))
	for i, c := range t.cols {
		head[i] = c.head
		if c.short != "" && !o.explain {
			head[i] = c.short
		}
	}
	grid := [][]string{head}
	for _, r := range t.rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = c.s + c.tail
			if e := t.cols[i].elide; e > 0 && !o.explain {
				row[i] = text.ElideMiddle(c.s, e) + c.tail
			}
		}
		grid = append(grid, row)
	}
	return grid
}

// layout is the columns cols of grid as aligned text.
func (t tableBlock) layout(grid [][]string, cols []int) string {
	var b strings.Builder
	var flags uint
	if t.textRight {
		flags = tabwriter.AlignRight
	}
	tw := tabwriter.NewWriter(&b, 0, 0, t.textPad, ' ', flags)
	for _, r := range grid {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = r[c]
		}
		line := strings.Join(cells, "\t")
		if t.textRight {
			line += "\t"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	return b.String()
}

func (t tableBlock) text(o textOpts) string {
	var b strings.Builder
	if t.caption != "" {
		c := t.caption
		if t.note != "" {
			c += " (" + t.note + ")"
		}
		b.WriteString(prose(c, o))
	}
	switch grid, cols := t.textGrid(o), t.textCols(o); {
	case len(t.rows) == 0:
		b.WriteString(prose(t.empty, o))
	case t.textSplit != nil && !o.explain && text.MaxLineWidth(t.layout(grid, cols)) > TextWidth:
		for _, part := range t.textSplit {
			b.WriteString(t.layout(grid, part))
		}
	default:
		b.WriteString(t.layout(grid, cols))
	}
	for _, f := range t.footer {
		b.WriteString(prose(f, o))
	}
	return b.String()
}

func (t tableBlock) markdown() string {
	var b strings.Builder
	switch {
	case t.caption != "" && t.heading:
		b.WriteString("## " + mdEscape(t.caption) + "\n\n")
	case t.caption != "":
		b.WriteString(mdEscape(t.caption) + "\n\n")
	}
	if t.note != "" {
		b.WriteString(mdEscape(t.note) + "\n\n")
	}
	if len(t.rows) == 0 {
		b.WriteString(mdEscape(t.empty) + "\n")
	} else {
		t.markdownRows(&b)
	}
	for _, f := range t.footer {
		b.WriteString("\n" + mdEscape(f) + "\n")
	}
	return b.String()
}

// markdownRows writes the table as a pipe table.
func (t tableBlock) markdownRows(b *strings.Builder) {
	head, align := make([]string, len(t.cols)), make([]string, len(t.cols))
	for i, c := range t.cols {
		head[i], align[i] = mdEscape(c.head), "---"
		if c.num {
			align[i] = "--:"
		}
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Join(align, "|") + "|\n")
	for _, r := range t.rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = mdEscape(c.s + c.tail)
			if c.strong {
				cells[i] = "**" + cells[i] + "**"
			}
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

// cells makes plain cells of ss.
func cells(ss ...string) []cell {
	out := make([]cell, len(ss))
	for i, s := range ss {
		out[i] = cell{s: s}
	}
	return out
}

// fieldSentences is a field's value and further lines as prose: a line
// that goes on with "=" or "(" continues the value while the sentence
// stays within MaxSentence, and otherwise, like any other line, starts a
// fact of its own ("= x" as "that is x", "(x)" as "x"); each sentence is
// then cut at its facts (shortSentences).
func fieldSentences(fd field) string {
	v := fd.value
	for _, m := range fd.more {
		cont := strings.HasPrefix(m, "=") || strings.HasPrefix(m, "(")
		switch {
		case cont && len([]rune(fd.label+" "+v+" "+m)) <= MaxSentence:
			v += " " + m
		case strings.HasPrefix(m, "= "):
			v += "; that is " + m[2:]
		case strings.HasPrefix(m, "(") && strings.HasSuffix(m, ")"):
			v += "; " + m[1:len(m)-1]
		default:
			v += "; " + m
		}
	}
	return shortSentencesAfter(fd.label+" ", v)
}
