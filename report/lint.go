package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// WriteLintJSON writes the findings about stack s as an indented LintDoc.
func WriteLintJSON(w io.Writer, s filters.Stack, findings []analysis.Finding) error {
	doc := document.LintDoc{SchemaVersion: document.ContractVersion, Kind: document.KindLint, Findings: make([]document.LintFinding, 0, len(findings))}
	for _, f := range findings {
		j := document.LintFinding{Severity: f.Severity.String(), Code: f.Code, Filter: f.Filter, Syscall: f.Syscall, Message: f.Message, Hint: f.Hint}
		if f.Filter >= 0 && f.Filter < len(s) {
			j.Policy = s[f.Filter].Source
		}
		doc.Findings = append(doc.Findings, j)
		switch f.Severity {
		case analysis.SeverityError:
			doc.Errors++
		case analysis.SeverityWarning:
			doc.Warnings++
		default:
			doc.Info++
		}
	}
	return document.WriteIndentedJSON(w, doc)
}

// WriteLintText writes each finding with its severity, filter, code and
// hint, then the count per severity.
func WriteLintText(w io.Writer, fs []analysis.Finding) error {
	return WriteLintStackText(w, nil, fs)
}

// WriteLintStackText is WriteLintText naming each finding's filter after
// its index, as s names it (e.g. "filter 28 (unit/SystemCallFilter/x86_64)"
// for a systemd unit's directive filter).
func WriteLintStackText(w io.Writer, s filters.Stack, fs []analysis.Finding) error {
	var b strings.Builder
	counts := map[analysis.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
		where := "stack"
		if f.Filter >= 0 {
			where = fmt.Sprintf("filter %d", f.Filter)
			if f.Filter < len(s) && s[f.Filter].Name != "" {
				where += " (" + s[f.Filter].Name + ")"
			}
		}
		line := fmt.Sprintf("%s: %s [%s]: %s", f.Severity, where, f.Code, withoutWhere(f.Message, where))
		// A finding too long for one sentence names its syscalls on a
		// line of their own.
		if i := strings.LastIndex(line, ": "); utf8.RuneCountInString(line) > MaxSentence && i > 0 && nameList.MatchString(line[i+2:]) {
			line = line[:i] + "\n    syscalls: " + line[i+2:]
		}
		fmt.Fprintf(&b, "%s\n", shortSentences(line))
		fmt.Fprintf(&b, "    hint: %s\n", shortSentencesAfter("hint: ", f.Hint))
	}
	fmt.Fprintf(&b, "%s, %s, %d info\n", text.Plural(counts[analysis.SeverityError], "error"), text.Plural(counts[analysis.SeverityWarning], "warning"), counts[analysis.SeverityInfo])
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write findings: %w", err)
	}
	return nil
}

// nameList matches a finding's list of syscall names, e.g. "ptrace,
// mount (+13 more)".
var nameList = regexp.MustCompile(`^[a-z0-9_]+(, [a-z0-9_]+)*( \(\+\d+ more\))?$`)

// withoutWhere drops where ("filter 0 (name)") from the start of msg when
// msg repeats it, as the findings' messages do so that JSON readers get
// them whole: "filter 0 (x): f.json:1:2: …" becomes "f.json:1:2: …",
// "filter 0 (x) line 8: …" becomes "line 8: …". Other messages are kept.
func withoutWhere(msg, where string) string {
	rest, ok := strings.CutPrefix(msg, where)
	if !ok || where == "stack" {
		return msg
	}
	if r, ok := strings.CutPrefix(rest, ": "); ok {
		return r
	}
	if r, ok := strings.CutPrefix(rest, " line "); ok {
		return "line " + r
	}
	return msg
}
