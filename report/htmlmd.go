package report

import (
	"html/template"
	"strings"
)

// mdToHTML turns the Markdown this package writes (WriteMarkdown, and
// the blocks of blocks.go behind WriteComparisonMarkdown,
// WriteFleetMarkdown and WriteEstimateMarkdown) into HTML: ATX headings,
// paragraphs, "- " lists (with "  - " items nested one deep), "> " quotes, pipe tables with their alignment
// row, fenced code, and the <details><summary> lines of the environment.
// It is no general Markdown parser: it reads the subset these writers
// emit. Every piece of text is HTML-escaped (template.HTMLEscapeString)
// after mdEscape's escapes are undone, so no markup in a result (a policy
// path, a command line) reaches the page as markup.
func mdToHTML(md string) template.HTML {
	var b strings.Builder
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == "":
			i++
		case strings.HasPrefix(l, "```"):
			i = mdCode(&b, lines, i)
		case strings.HasPrefix(l, "#"):
			level := len(l) - len(strings.TrimLeft(l, "#"))
			if level > 6 || !strings.HasPrefix(l[level:], " ") {
				i = mdParagraph(&b, lines, i)
				continue
			}
			tag := "h" + string(rune('0'+level))
			b.WriteString("<" + tag + ">" + mdInline(strings.TrimSpace(l[level:])) + "</" + tag + ">\n")
			i++
		case strings.HasPrefix(l, "<details><summary>") && strings.HasSuffix(l, "</summary>"):
			s := strings.TrimSuffix(strings.TrimPrefix(l, "<details><summary>"), "</summary>")
			b.WriteString("<details><summary>" + mdInline(s) + "</summary>\n")
			i++
		case l == "</details>":
			b.WriteString("</details>\n")
			i++
		case strings.HasPrefix(l, "- "):
			b.WriteString("<ul>\n")
			for i < len(lines) && strings.HasPrefix(lines[i], "- ") {
				b.WriteString("<li>" + mdInline(lines[i][2:]))
				i++
				// "  - " items under an item: its facts, as a nested list.
				if i < len(lines) && strings.HasPrefix(lines[i], "  - ") {
					b.WriteString("\n<ul>\n")
					for ; i < len(lines) && strings.HasPrefix(lines[i], "  - "); i++ {
						b.WriteString("<li>" + mdInline(lines[i][4:]) + "</li>\n")
					}
					b.WriteString("</ul>\n")
				}
				b.WriteString("</li>\n")
			}
			b.WriteString("</ul>\n")
		case strings.HasPrefix(l, "> "):
			b.WriteString("<blockquote>")
			for ; i < len(lines) && strings.HasPrefix(lines[i], "> "); i++ {
				b.WriteString(mdInline(lines[i][2:]) + "\n")
			}
			b.WriteString("</blockquote>\n")
		case strings.HasPrefix(l, "|"):
			i = mdTable(&b, lines, i)
		default:
			i = mdParagraph(&b, lines, i)
		}
	}
	return template.HTML(b.String())
}

// mdCode writes the fenced code block starting at lines[i] and returns the
// index after its closing fence.
func mdCode(b *strings.Builder, lines []string, i int) int {
	b.WriteString("<pre><code>")
	for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		b.WriteString(template.HTMLEscapeString(lines[i]) + "\n")
	}
	b.WriteString("</code></pre>\n")
	return i + 1
}

// mdParagraph writes the lines from i to the next blank line or block
// start as one paragraph and returns the index after them.
func mdParagraph(b *strings.Builder, lines []string, i int) int {
	var words []string
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || (len(words) > 0 && mdBlockStart(l)) {
			break
		}
		words = append(words, mdInline(l))
	}
	b.WriteString("<p>" + strings.Join(words, "\n") + "</p>\n")
	return i
}

// mdBlockStart reports whether l starts a block other than a paragraph.
func mdBlockStart(l string) bool {
	for _, p := range []string{"# ", "## ", "### ", "- ", "> ", "|", "```", "<details>", "</details>"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// mdTable writes the pipe table starting at lines[i] (header, alignment
// row, body) and returns the index after it.
func mdTable(b *strings.Builder, lines []string, i int) int {
	head := mdCells(lines[i])
	i++
	var align []string
	if i < len(lines) && strings.HasPrefix(lines[i], "|") && strings.Trim(lines[i], "|-: ") == "" {
		for _, c := range mdCells(lines[i]) {
			a := ""
			if strings.HasSuffix(c, ":") {
				a = ` class="num"`
			}
			align = append(align, a)
		}
		i++
	}
	cls := func(j int) string {
		if j < len(align) {
			return align[j]
		}
		return ""
	}
	b.WriteString("<div class=\"table\"><table>\n<thead><tr>")
	for j, c := range head {
		b.WriteString("<th" + cls(j) + ">" + mdInline(c) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		b.WriteString("<tr>")
		for j, c := range mdCells(lines[i]) {
			b.WriteString("<td" + cls(j) + ">" + wbr(mdInline(c)) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
	return i
}

// mdCells splits a table row at its unescaped pipes, without the outer
// ones; cells keep their escapes for mdInline.
func mdCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cur strings.Builder
	for k := 0; k < len(row); k++ {
		switch {
		case row[k] == '\\' && k+1 < len(row):
			cur.WriteByte(row[k])
			cur.WriteByte(row[k+1])
			k++
		case row[k] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[k])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// mdInline turns inline Markdown into escaped HTML: `code`, **strong**,
// *emphasis*, links (their label), backslash escapes and the &lt; &gt;
// of mdEscape.
func mdInline(s string) string {
	s = strings.NewReplacer("&lt;", "<", "&gt;", ">").Replace(s)
	var b, text strings.Builder
	flush := func() {
		b.WriteString(template.HTMLEscapeString(text.String()))
		text.Reset()
	}
	strong, em := false, false
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch {
		case c == '\\' && k+1 < len(s) && strings.IndexByte("\\`*_|<>#-[]()!", s[k+1]) >= 0:
			text.WriteByte(s[k+1])
			k++
		case c == '`':
			end := strings.IndexByte(s[k+1:], '`')
			if end < 0 {
				text.WriteByte(c)
				continue
			}
			flush()
			b.WriteString("<code>" + template.HTMLEscapeString(s[k+1:k+1+end]) + "</code>")
			k += end + 1
		case c == '[' && mdLinkEnd(s[k:]) > 0:
			// A link's label only: the pages are files attached to a
			// ticket, where a repository-relative URL leads nowhere, and
			// wbr relies on tags without attributes.
			end := mdLinkEnd(s[k:])
			label := s[k+1 : k+strings.Index(s[k:], "](")]
			flush()
			b.WriteString(mdInline(label))
			k += end - 1
		case c == '*' && k+1 < len(s) && s[k+1] == '*':
			flush()
			b.WriteString(map[bool]string{false: "<strong>", true: "</strong>"}[strong])
			strong = !strong
			k++
		case c == '*' && (em || strings.IndexByte(s[k+1:], '*') >= 0):
			flush()
			b.WriteString(map[bool]string{false: "<em>", true: "</em>"}[em])
			em = !em
		default:
			text.WriteByte(c)
		}
	}
	flush()
	if em {
		b.WriteString("</em>")
	}
	if strong {
		b.WriteString("</strong>")
	}
	return b.String()
}

// mdLinkEnd returns the length of the Markdown link "[label](url)" that
// s starts with, or 0 when s does not start with one.
func mdLinkEnd(s string) int {
	mid := strings.Index(s, "](")
	if mid < 1 || strings.ContainsAny(s[1:mid], "[]\n") {
		return 0
	}
	end := strings.IndexByte(s[mid+2:], ')')
	if end < 0 || strings.ContainsAny(s[mid+2:mid+2+end], " \n") {
		return 0
	}
	return mid + 2 + end + 1
}

// wbr lets a browser break a long token of a table cell
// ("mitigations=auto,nosmt") after its commas and equals signs, so a
// wide table still fits the page; h is mdInline's output, whose tags
// carry no attributes, so neither sign is inside markup.
func wbr(h string) string {
	var b strings.Builder
	for k := 0; k < len(h); k++ {
		b.WriteByte(h[k])
		if (h[k] == ',' || h[k] == '=') && k+1 < len(h) && h[k+1] != ' ' {
			b.WriteString("<wbr>")
		}
	}
	return b.String()
}
