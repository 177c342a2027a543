package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/filters/systemd"
)

// SettingDiff is one exec setting outside seccomp in which the two
// systemd units given to `equiv` differ (systemd.SettingsDiff): a
// directive that changes what the service may do without changing its
// filters, or the non-seccomp part of one that installs filters.
type SettingDiff struct {
	// Key is the directive, e.g. "ProtectSystem".
	Key string `json:"key"`
	// A and B are its values in each unit ("" for an empty assignment),
	// null where the unit never sets it.
	A *string `json:"a"`
	B *string `json:"b"`
	// OtherEffects is, for a directive that also installs filters, what
	// it does outside seccomp (systemd.OtherEffects); "" otherwise.
	OtherEffects string `json:"other_effects,omitempty"`
}

// SettingDiffsOf converts systemd.SettingsDiff's answer.
func SettingDiffsOf(ds []systemd.SettingDiff) []SettingDiff {
	var out []SettingDiff
	val := func(v string, set bool) *string {
		if !set {
			return nil
		}
		return &v
	}
	for _, d := range ds {
		out = append(out, SettingDiff{Key: d.Key, A: val(d.A, d.ASet), B: val(d.B, d.BSet), OtherEffects: d.Effects})
	}
	return out
}

// writeSettingDiffs writes equiv's note on the units' settings outside
// seccomp: one line per differing directive, after the verdict.
func writeSettingDiffs(w io.Writer, ds []SettingDiff) error {
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
	if _, err := io.WriteString(w, wrapText(b.String(), TextWidth)); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}
