package document

// Clause is one statement of a variant's explanation (Meaning): a code
// that docs/json.md defines, the figures and syscall names the statement
// needs. The JSON carries the code and the figures; the English wording
// is report's (report.Clause), rendered from the document by
// report.Explain, so a reader of schema 2 and 3 files gets the same text.
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
}
