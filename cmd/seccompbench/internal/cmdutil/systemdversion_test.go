package cmdutil

import (
	"errors"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/systemd"
)

// TestParseSystemdVersion reads the first line of systemd-analyze --version.
func TestParseSystemdVersion(t *testing.T) {
	for in, want := range map[string]int{
		"systemd 252 (252.38-1~deb12u1)\n+PAM +AUDIT\n": 252,
		"systemd 257 (257.13-1~deb13u1)":                257,
		"not systemd\n":                                 0,
	} {
		if got, ok := parseSystemdVersion(in); got != want || ok != (want != 0) {
			t.Errorf("parseSystemdVersion(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
}

// TestSystemdVersionChoice: an explicit version is used or refused as a
// usage error; the default is the host's when it has a table, else the
// newest with a note.
func TestSystemdVersionChoice(t *testing.T) {
	defer func(f func() (int, bool)) { HostSystemdVersion = f }(HostSystemdVersion)
	newest := systemd.NewestVersion()
	for _, tc := range []struct {
		flag, host int
		hostOK     bool
		want       int
		note       string
	}{
		{257, 252, true, 257, ""},
		{0, 252, true, 252, ""},
		{0, 0, false, newest, "no systemd on this host"},
		{0, 251, true, newest, "host's systemd 251 has no table"},
	} {
		HostSystemdVersion = func() (int, bool) { return tc.host, tc.hostOK }
		v, note, err := SystemdVersion(tc.flag)
		if err != nil || v != tc.want || !strings.Contains(note, tc.note) || (tc.note == "") != (note == "") {
			t.Errorf("SystemdVersion(%d) host %d: %d %q %v; want %d %q", tc.flag, tc.host, v, note, err, tc.want, tc.note)
		}
	}
	var fe *FlagError
	if _, _, err := SystemdVersion(253); !errors.As(err, &fe) || err.Error() != "--systemd-version 253: no table for 253; tables: 249 252 254 255 256 257 258 259 262; nearest: 252, 254" {
		t.Errorf("SystemdVersion(253) = %v; want a FlagError listing the tables and the nearest ones", err)
	}
}
