package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// SettingDiffsOf converts systemd.SettingsDiff's answer.
func SettingDiffsOf(ds []systemd.SettingDiff) []document.SettingDiff {
	var out []document.SettingDiff
	val := func(v string, set bool) *string {
		if !set {
			return nil
		}
		return &v
	}
	for _, d := range ds {
		out = append(out, document.SettingDiff{Key: d.Key, A: val(d.A, d.ASet), B: val(d.B, d.BSet), OtherEffects: d.Effects})
	}
	return out
}

// writeSettingDiffs writes equiv's note on the units' settings outside
// seccomp: one line per differing directive, after the verdict.
func writeSettingDiffs(w io.Writer, ds []document.SettingDiff) error {
	if len(ds) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("note: the units also differ outside seccomp (the verdict above is about their filters only):\n")
	unset := func(v *string) string {
		switch {
		case v == nil:
			return "unset"
		case *v == "":
			return "empty"
		}
		return *v
	}
	for _, d := range ds {
		fmt.Fprintf(&b, "  %s: A %s, B %s", d.Key, unset(d.A), unset(d.B))
		if d.OtherEffects != "" {
			fmt.Fprintf(&b, " (outside seccomp: %s)", d.OtherEffects)
		}
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, text.Wrap(b.String(), TextWidth)); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}
