package report

// Clause is one statement of a variant's explanation (Meaning): a code
// that docs/json.md defines, the figures and syscall names the statement
// needs, and, in memory only, its English wording. The JSON carries the
// code and the figures; the wording is rendered from the document by
// Explain, so a reader of schema 2 and 3 files gets the same text.
type Clause struct {
	// Code names the statement (docs/json.md, "Meaning codes").
	Code string `json:"code"`
	// Figures are the numbers the statement needs, by name; a name ending
	// in _ns is in ns per op, _pct in percent, and an undefined one is
	// null.
	Figures map[string]*float64 `json:"figures,omitempty"`
	// Syscalls names the syscalls the statement is about (cache codes);
	// Uncached the workload's syscalls that every filter runs for.
	Syscalls []string `json:"syscalls,omitempty"`
	Uncached []string `json:"uncached,omitempty"`
	text     string
}

// newClause returns the clause code worded as text, with figures given as
// name, value pairs.
func newClause(code, text string, figs ...any) Clause {
	c := Clause{Code: code, text: text}
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
		c.Figures[figs[i].(string)] = Nullable(v)
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

// Layout is how a meaning is laid out: its sentences run together on one
// line (inline) when there are at most MaxInlineFacts, or, with more, one
// list item each (items, inline "").
func (m Meaning) Layout() (inline string, items []string) {
	if len(m.Sentences) > MaxInlineFacts {
		return "", m.Sentences
	}
	return m.Text, nil
}
