package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintSystemdPerABI: the per-ABI filters systemd installs on purpose
// (each passing the other ABIs' calls) are one info line, not a
// foreign-abi warning per filter (issue 35).
func TestLintSystemdPerABI(t *testing.T) {
	code, out, errOut := runCmd(t, "", "lint", filepath.Join(policiesDir, "hardened.service"), "--arch", "x86_64")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr: %s", code, errOut)
	}
	if got := strings.Count(out, "[foreign-abi]"); got != 0 {
		t.Errorf("%d foreign-abi findings, want 0:\n%s", got, out)
	}
	if got := strings.Count(out, "[per-abi-stack]"); got != 1 {
		t.Errorf("%d per-abi-stack lines, want 1:\n%s", got, out)
	}
	if !strings.Contains(out, "14 filters for x86_64, 10 filters for i386, 10 filters for x32, 1 filter for all ABIs") {
		t.Errorf("per-abi line does not count the filters per ABI:\n%s", out)
	}
}

// TestLintStockUnits lints every unit under /lib/systemd/system that
// has SystemCallFilter= and wants no foreign-abi warning from any. It
// skips only where that directory does not exist.
func TestLintStockUnits(t *testing.T) {
	const dir = "/lib/systemd/system"
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		t.Skipf("%s does not exist", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".service") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte("\nSystemCallFilter=")) {
			continue
		}
		n++
		code, out, errOut := runCmd(t, "", "lint", p)
		if code != 0 && code != 3 {
			t.Errorf("lint %s: exit %d: %s", p, code, errOut)
			continue
		}
		if c := strings.Count(out, "[foreign-abi]"); c != 0 {
			t.Errorf("lint %s: %d foreign-abi warnings, want 0:\n%s", p, c, out)
		}
	}
	t.Logf("%d units with SystemCallFilter= under %s", n, dir)
}

// TestLintUnitSystemdRefuses: a unit systemd 256.2+ refuses to start
// (an allow list giving write an errno, systemd.ErrHandoffWrite) is an
// error finding at its file:line (exit 3), not unreadable input, and the
// rest of the unit is still linted; compile and simulate keep refusing
// it (exit 1) with the same explanation. Under 252 lint has no such
// finding.
func TestLintUnitSystemdRefuses(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "refused.service")
	if err := os.WriteFile(unit, []byte("[Service]\nExecStart=/bin/true\nSystemCallFilter=@system-service\nSystemCallFilter=~write:EROFS\nRestrictNamespaces=yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const why = "invalid systemd unit: systemd fails the unit with EEXIST: SystemCallFilter= gives write the errno EROFS inside an allow list"
	code, out, errs := runCmd(t, "", "lint", unit, "--systemd-version", "257")
	if code != 3 {
		t.Fatalf("lint: exit %d, want 3 (findings); stderr %s", code, errs)
	}
	if !strings.Contains(out, "error: stack [refused-input]: "+unit+":4: "+why) || !strings.Contains(out, "the unit does not start") {
		t.Errorf("lint does not report the refusal at %s:4:\n%s", unit, out)
	}
	for _, rest := range []string{"[per-abi-stack]", "filter 0 (refused/RestrictNamespaces/x86) [directive-cost]", "1 error, "} {
		if !strings.Contains(out, rest) {
			t.Errorf("lint output lacks %q (the rest of the unit linted):\n%s", rest, out)
		}
	}
	for _, args := range [][]string{{"compile", unit}, {"simulate", unit, "--syscall", "read"}} {
		code, _, errs := runCmd(t, "", append(args, "--systemd-version", "257")...)
		if code != 1 || !strings.Contains(errs, unit+":4: "+why) {
			t.Errorf("%s: exit %d, stderr %q; want 1 with the refusal at %s:4", args[0], code, errs, unit)
		}
	}
	code, out, errs = runCmd(t, "", "lint", unit, "--systemd-version", "252")
	if code != 0 || strings.Contains(out, "refused-input") {
		t.Errorf("lint --systemd-version 252: exit %d, want 0 and no refusal\n%s\n%s", code, out, errs)
	}
}
