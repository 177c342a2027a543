// Package prose cuts a rendered report (text, Markdown or HTML) into the
// sentences a reader reads, so tests can hold every renderer to a limit
// on sentence length (issue #46: no sentence over 200 characters). Tables,
// aligned fields, code and markup are not prose and are left out; a
// headline or list item without a full stop is one sentence.
package prose

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// MaxSentence is the most characters (runes) a rendered sentence may
// have.
const MaxSentence = 200

// Format is how a rendered document is written.
type Format int

// The formats Sentences reads.
const (
	// Text is the plain text output: tables and aligned "key  value"
	// fields (a run of two spaces inside a line) are left out, and a line
	// indented deeper than the one before continues it (wrapped prose).
	Text Format = iota
	// Markdown: table rows ("|"), fenced code and headings' markup are
	// left out; paragraphs and list items are units.
	Markdown
	// HTML: tables, code, style, script and SVG are left out; block
	// elements (p, li, h1–h6, dd, dt, figcaption, div, section) are units.
	HTML
)

// Sentences returns the sentences of doc, a document rendered in format
// f: its prose cut into units (paragraphs, list items, headline lines)
// and each unit cut after ".", "!" or "?" followed by a space, except
// after an abbreviation ("e.g.", "i.e."); "1.5", "[1.2, 3.4]", "run.json"
// and "ns/op" have no space after their dots and do not end a sentence.
func Sentences(doc string, f Format) []string {
	var units []string
	switch f {
	case Markdown:
		units = markdownUnits(doc)
	case HTML:
		units = htmlUnits(doc)
	default:
		units = textUnits(doc)
	}
	var out []string
	for _, u := range units {
		out = append(out, split(u)...)
	}
	return out
}

// Long returns the sentences of doc longer than MaxSentence runes.
func Long(doc string, f Format) []string {
	var out []string
	for _, s := range Sentences(doc, f) {
		if utf8.RuneCountInString(s) > MaxSentence {
			out = append(out, s)
		}
	}
	return out
}

// aligned matches a line laid out in columns: a run of two or more spaces
// after its first non-space character (tabwriter output).
var aligned = regexp.MustCompile(`\S {2,}\S`)

// labelled matches a line that starts with its own label ("hint: ").
var labelled = regexp.MustCompile(`^[a-z]+: `)

// textUnits cuts plain text into units: a blank line, a table row or a
// line no deeper indented than the one before ends a unit.
func textUnits(doc string) []string {
	var units []string
	cur, curIndent := "", -1
	flush := func() {
		if s := strings.TrimSpace(cur); s != "" {
			units = append(units, s)
		}
		cur, curIndent = "", -1
	}
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		switch {
		case trimmed == "" || aligned.MatchString(trimmed) || strings.Contains(trimmed, "\t"):
			flush()
		case cur != "" && indent > curIndent && !strings.HasPrefix(trimmed, "- ") && !labelled.MatchString(trimmed):
			cur += " " + trimmed
		default:
			flush()
			cur, curIndent = trimmed, indent
		}
	}
	flush()
	return units
}

// mdLink is a Markdown link or image; its text stays.
var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// markdownUnits cuts Markdown into paragraphs and list items, leaving out
// tables, fenced code and HTML lines, with emphasis, code spans and link
// targets removed.
func markdownUnits(doc string) []string {
	var units []string
	cur := ""
	flush := func() {
		if s := strings.TrimSpace(cur); s != "" {
			units = append(units, mdPlain(s))
		}
		cur = ""
	}
	fence := false
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush()
			fence = !fence
		case fence:
		case trimmed == "" || strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, "<"):
			flush()
		case strings.HasPrefix(trimmed, "#"):
			flush()
			cur = strings.TrimLeft(trimmed, "# ")
			flush()
		case listItem(trimmed):
			flush()
			cur = strings.TrimSpace(strings.TrimLeft(trimmed, "-*+0123456789."))
		default:
			cur += " " + trimmed
		}
	}
	flush()
	return units
}

// listItem reports whether a Markdown line starts a list item.
func listItem(l string) bool {
	if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "+ ") {
		return true
	}
	i := strings.IndexFunc(l, func(r rune) bool { return r < '0' || r > '9' })
	return i > 0 && strings.HasPrefix(l[i:], ". ")
}

// mdPlain removes Markdown markup from one unit: links keep their text,
// emphasis, code-span backticks and escapes go.
func mdPlain(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", "`", "", `\*`, "*", `\_`, "_", `\[`, "[", `\]`, "]", `\|`, "|", `\<`, "<", `\>`, ">", `\\`, `\`).Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// skipped are the HTML elements whose content is not prose.
var skipped = map[string]bool{"table": true, "pre": true, "code": true, "style": true, "script": true, "svg": true, "head": true}

// blocks are the HTML elements that start and end a unit.
var blocks = map[string]bool{"p": true, "li": true, "ul": true, "ol": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"dd": true, "dt": true, "dl": true, "figcaption": true, "figure": true, "div": true, "section": true, "br": true, "body": true, "main": true, "header": true, "footer": true, "nav": true, "details": true, "summary": true, "blockquote": true}

// htmlUnits cuts an HTML page into the text of its block elements,
// leaving out what skipped names.
func htmlUnits(doc string) []string {
	z := html.NewTokenizer(strings.NewReader(doc))
	var units []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if s := strings.Join(strings.Fields(cur.String()), " "); s != "" {
			units = append(units, s)
		}
		cur.Reset()
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			flush()
			return units
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			if skipped[string(name)] && tt != html.SelfClosingTagToken {
				if tt == html.StartTagToken {
					depth++
				} else if depth > 0 {
					depth--
				}
				flush()
			}
			if blocks[string(name)] {
				flush()
			}
		case html.TextToken:
			if depth == 0 {
				cur.Write(z.Text())
			}
		}
	}
}

// abbreviations end in a full stop that does not end a sentence even
// before a capital.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "cf.", "Fig.", "No."}

// split cuts one unit into sentences.
func split(u string) []string {
	u = strings.Join(strings.Fields(u), " ")
	var out []string
	start := 0
	rs := []rune(u)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '.' && rs[i] != '!' && rs[i] != '?' {
			continue
		}
		if i+2 >= len(rs) || rs[i+1] != ' ' {
			continue
		}
		head := string(rs[start : i+1])
		if abbreviation(head) {
			continue
		}
		out = append(out, strings.TrimSpace(head))
		start = i + 2
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

// abbreviation reports whether s ends in one of abbreviations.
func abbreviation(s string) bool {
	for _, a := range abbreviations {
		if strings.HasSuffix(s, " "+a) || s == a || strings.HasSuffix(s, "("+a) {
			return true
		}
	}
	return false
}
