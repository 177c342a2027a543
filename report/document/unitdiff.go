package document

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
