package report

import "github.com/seccompbench/seccompbench/report/document"

// Clause is a document.Clause with its English wording, which stays in
// memory: the JSON carries the code and the figures, and Explain renders
// the wording again from the document.
type Clause struct {
	document.Clause
	text string
}

// docClauses returns the document's part of cs.
func docClauses(cs []Clause) []document.Clause {
	out := make([]document.Clause, len(cs))
	for i, c := range cs {
		out[i] = c.Clause
	}
	return out
}

// newClause returns the clause code worded as text, with figures given as
// name, value pairs.
func newClause(code, text string, figs ...any) Clause {
	c := Clause{Clause: document.Clause{Code: code}, text: text}
	for i := 0; i+1 < len(figs); i += 2 {
		if c.Figures == nil {
			c.Figures = map[string]*float64{}
		}
		var v float64
		switch x := figs[i+1].(type) {
		case float64:
			v = x
		case int:
			v = float64(x)
		}
		c.Figures[figs[i].(string)] = document.Nullable(v)
	}
	return c
}

// Text is the clause's wording ("" for a clause read from JSON: Explain
// renders it again from the document).
func (c Clause) Text() string { return c.text }

// renderClauses is the one place clauses become sentences: each fact of
// a clause (its wording cut at the top-level "; ", facts) is one
// sentence, capitalised unless it starts with a syscall name the clause
// names, ending with a full stop.
func renderClauses(cs []Clause) []string {
	var out []string
	for _, c := range cs {
		if c.text == "" {
			continue
		}
		code := append(append([]string{}, c.Syscalls...), c.Uncached...)
		for _, f := range facts(c.text) {
			out = append(out, asSentence(f, code...))
		}
	}
	return out
}

// MaxInlineFacts is the most sentences a meaning runs together on its
// line; with more, each is an item of a list under the variant.
const MaxInlineFacts = 3

// meaningLayout is how a meaning is laid out: its sentences run together
// on one line (inline) when there are at most MaxInlineFacts, or, with
// more, one list item each (items, inline "").
func meaningLayout(m document.Meaning) (inline string, items []string) {
	if len(m.Sentences) > MaxInlineFacts {
		return "", m.Sentences
	}
	return m.Text, nil
}
