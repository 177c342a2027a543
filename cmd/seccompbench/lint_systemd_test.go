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
