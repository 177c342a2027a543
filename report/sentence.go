package report

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSentence is the most characters (runes) one rendered sentence of a
// report has (issue #46): a longer statement is cut into one sentence per
// fact (shortSentences) or worded as several.
const MaxSentence = 200

// facts cuts s at its top-level "; " (outside parentheses and brackets)
// into the facts it joins.
func facts(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			if depth > 0 {
				depth--
			}
		case ';':
			if depth == 0 && i+1 < len(s) && s[i+1] == ' ' {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 2
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// asSentence makes s a sentence: its first letter capitalised when its
// first word is an English word (not a syscall, file or flag name: only
// letters, hyphens and apostrophes, and not one of codeWords), and a full
// stop at the end unless it ends in one.
func asSentence(s string, codeWords ...string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	first, _, _ := strings.Cut(s, " ")
	first = strings.TrimRight(first, ":,")
	word := first != ""
	for _, r := range first {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' {
			word = false
		}
	}
	for _, c := range codeWords {
		if first == c {
			word = false
		}
	}
	if word {
		r, n := utf8.DecodeRuneInString(s)
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

// shortSentences returns s with every sentence longer than MaxSentence
// runes cut at its top-level "; " into one sentence per fact; s is
// returned as is when it is short. Code words are not capitalised.
func shortSentences(s string, codeWords ...string) string {
	return shortSentencesAfter("", s, codeWords...)
}

// shortSentencesAfter is shortSentences for s printed after label (a
// headline's or a field's), which counts towards the first sentence.
func shortSentencesAfter(label, s string, codeWords ...string) string {
	if utf8.RuneCountInString(label+s) <= MaxSentence {
		return s
	}
	fs := facts(s)
	if len(fs) < 2 {
		return s
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		if i == 0 {
			// The first fact keeps its case: it may follow a label.
			parts[i] = strings.TrimSuffix(f, ".") + "."
			continue
		}
		parts[i] = asSentence(f, codeWords...)
	}
	return strings.Join(parts, " ")
}

// Warning is the line a command prints on standard error for warning w:
// "warning: " and w, its facts one sentence each when the line would
// otherwise hold a sentence longer than MaxSentence characters.
func Warning(w string) string {
	return "warning: " + shortSentencesAfter("warning: ", w)
}
