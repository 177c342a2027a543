package cmdutil

import (
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters/systemd"
)

// ChosenSystemd names, in help texts, the systemd whose filters a unit
// is modeled as: the version SystemdVersion resolves --systemd-version to.
const ChosenSystemd = "the systemd version chosen by --systemd-version (default: this host's, else the newest)"

// AddSystemdVersionFlag adds --systemd-version to fl, stored in
// lf.SystemdVersion; "A,B" (lf.SystemdVersionB = B) is accepted only
// when lf.SystemdVersionPair is set when the flags are parsed (equiv).
func AddSystemdVersionFlag(fl *pflag.FlagSet, lf *LoadFlags) {
	fl.Var(&systemdVersionValue{lf}, "systemd-version", "systemd units: read them as systemd `N` does (its system call groups and @known list): "+
		strings.Trim(fmt.Sprint(systemd.Versions()), "[]")+", each from that release's Debian or Ubuntu source package or upstream stable tag (default: this host's systemd, else the newest)")
}

// systemdVersionValue is --systemd-version's pflag.Value: a major
// version, or with LoadFlags.SystemdVersionPair two, "A,B".
type systemdVersionValue struct{ lf *LoadFlags }

// String gives the version(s) set, "0" for none.
func (v *systemdVersionValue) String() string {
	if v.lf == nil {
		return "0"
	}
	if v.lf.SystemdVersionB != 0 {
		return fmt.Sprintf("%d,%d", v.lf.SystemdVersion, v.lf.SystemdVersionB)
	}
	return strconv.Itoa(v.lf.SystemdVersion)
}

// Set parses "N", or "A,B" where the command takes a pair.
func (v *systemdVersionValue) Set(s string) error {
	first, second, pair := strings.Cut(s, ",")
	if pair && !v.lf.SystemdVersionPair {
		return fmt.Errorf("%q: one version (only equiv takes A,B)", s)
	}
	a, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return fmt.Errorf("%q: not a systemd major version such as 257", s)
	}
	b := 0
	if pair {
		if b, err = strconv.Atoi(strings.TrimSpace(second)); err != nil || b == 0 {
			return fmt.Errorf("%q: want A,B, two systemd major versions such as 257,252", s)
		}
	}
	v.lf.SystemdVersion, v.lf.SystemdVersionB = a, b
	return nil
}

// Type names the value in messages.
func (v *systemdVersionValue) Type() string { return "int" }

// HostSystemdVersion returns the major version of this host's systemd
// from the first line of `systemd-analyze --version` ("systemd 252
// (252.38-1~deb12u1)"), and false if there is none. Tests replace it.
var HostSystemdVersion = func() (int, bool) {
	out, err := exec.Command("systemd-analyze", "--version").Output()
	if err != nil {
		return 0, false
	}
	return parseSystemdVersion(string(out))
}

var systemdVersionLine = regexp.MustCompile(`^systemd (\d+)\b`)

// parseSystemdVersion reads the major version from `systemd-analyze
// --version` output.
func parseSystemdVersion(out string) (int, bool) {
	first, _, _ := strings.Cut(out, "\n")
	m := systemdVersionLine.FindStringSubmatch(strings.TrimSpace(first))
	if m == nil {
		return 0, false
	}
	v, err := strconv.Atoi(m[1])
	return v, err == nil
}

// SystemdVersion resolves --systemd-version v for systemd.Options: v
// itself if a table exists (a *FlagError listing the tables and the
// nearest ones if not: exit 2); for 0, this host's systemd when a table exists for it,
// else the newest table, with a note saying so.
func SystemdVersion(v int) (version int, note string, err error) {
	known := systemd.Versions()
	has := func(v int) bool { return slices.Contains(known, v) }
	if v != 0 {
		if !has(v) {
			return 0, "", FlagErrorf("--systemd-version %d: %s", v, systemd.NoTableText(v))
		}
		return v, "", nil
	}
	if h, ok := HostSystemdVersion(); ok {
		if has(h) {
			return h, "", nil
		}
		n := systemd.NewestVersion()
		return n, fmt.Sprintf("this host's systemd %d has no table, so the newest; --systemd-version chooses", h), nil
	}
	n := systemd.NewestVersion()
	return n, "no systemd on this host, so the newest table; --systemd-version chooses", nil
}
