package text

import (
	"strings"
)

// WrapWords breaks s into lines of at most width characters at spaces; a
// word longer than width stands alone on its line.
func WrapWords(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			out = append(out, line)
			line = w
		}
	}
	if line != "" || len(out) == 0 {
		out = append(out, line)
	}
	return out
}

// Wrap wraps every line of s at width, keeping a line's leading
// spaces (and two more) on its continuation lines.
func Wrap(s string, width int) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		if len([]rune(line)) <= width {
			b.WriteString(line + "\n")
			continue
		}
		for i, part := range WrapWords(line, width-len(indent)-2) {
			if i == 0 {
				b.WriteString(indent + part + "\n")
				continue
			}
			b.WriteString(indent + "  " + part + "\n")
		}
	}
	return b.String()
}

// ElidePolicyName is elideMiddle for a policy's name, keeping a
// parenthesized note at its end whole ("x.service (systemd unit: stack of
// 29 filters)"): only the name before it is shortened.
func ElidePolicyName(s string, n int) string {
	if i := strings.Index(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		return ElideMiddle(s[:i], n) + s[i:]
	}
	return ElideMiddle(s, n)
}

// ElideMiddle shortens s to at most n characters by replacing its middle
// with "…", keeping its end (a path's base name) whole when it can.
func ElideMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 5 {
		return s
	}
	tail := n / 2
	if i := strings.LastIndex(s, "/"); i >= 0 && len([]rune(s[i:])) < n-4 {
		tail = len([]rune(s[i:]))
	}
	head := n - 1 - tail
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
