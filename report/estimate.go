package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// StraceProfileSource is Estimate.Profile.Source for a profile estimate
// --command took itself: the profiled command, as strace -f -c ran it,
// since the summary file is removed when estimate ends:
// "strace of `git status` (not kept)".
func StraceProfileSource(argv []string) string {
	return "strace of `" + text.ShellWords(argv) + "` (not kept)"
}

// EstimatePartialText is the mark of a partial estimate (Estimate.Partial),
// on top of its text, Markdown and HTML and among its JSON warnings.
const EstimatePartialText = "PARTIAL: interrupted while measuring the command; no measured figures"

// SummarizeNames lists names, collapsing runs of one name: "a ×3, b".
func SummarizeNames(names []string) string {
	var parts []string
	for i := 0; i < len(names); {
		j := i
		for j < len(names) && names[j] == names[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", names[i], j-i))
		} else {
			parts = append(parts, names[i])
		}
		i = j
	}
	if len(parts) > 6 {
		parts = append(parts[:6], "…")
	}
	return strings.Join(parts, ", ")
}

// dominant names the syscalls that make up most of the added time (up to
// 80% of it, at most 4), with their share and cache state.
func dominant(sorted []document.EstimateSyscall) string {
	var parts []string
	cum := 0.0
	for _, s := range sorted {
		if s.Share == nil || *s.Share <= 0 || len(parts) == 4 || cum >= 0.8 {
			break
		}
		state := "cached"
		if !s.Cached {
			state = fmt.Sprintf("not cached, %d insns", s.Instructions)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%% (%s)", s.Name, *s.Share*100, state))
		cum += *s.Share
	}
	if len(parts) == 0 {
		return "none: nothing adds time"
	}
	return strings.Join(parts, ", ")
}

// WriteEstimateJSON writes an estimate as indented JSON.
func WriteEstimateJSON(w io.Writer, e *document.Estimate) error {
	e.SchemaVersion, e.Kind = document.ContractVersion, document.KindEstimate
	return document.WriteIndentedJSON(w, e)
}
