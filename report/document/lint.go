package document

// LintFinding is one finding in `lint --format json`; Policy is the source
// of the filter the finding is about, if any. Severity is "info",
// "warning" or "error" (filters/analysis.Severity as text).
type LintFinding struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Filter   int    `json:"filter"`
	Policy   string `json:"policy,omitempty"`
	Syscall  string `json:"syscall,omitempty"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
}

// LintDoc is the `lint --format json` document (kind "lint").
type LintDoc struct {
	SchemaVersion int  `json:"schema_version"`
	Kind          Kind `json:"kind"`
	// Findings are in the order lint found them ([] for none).
	Findings []LintFinding `json:"findings"`
	// Errors, Warnings and Info count the findings per severity; the exit
	// code is 3 when Errors > 0.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Info     int `json:"info"`
}
