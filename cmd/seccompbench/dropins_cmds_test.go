package main

import (
	"strings"
	"testing"
)

// dropinsDir holds units with drop-ins (filters/formats' fixtures).
const dropinsDir = "../../filters/formats/testdata/dropins"

// TestCompileDropIns: compile --systemd-stack reads the unit's drop-ins
// and names the file:line of each directive line, drop-ins included;
// under --root a bare unit name is looked up, and a masked unit fails.
func TestCompileDropIns(t *testing.T) {
	code, out, errs := runCmd(t, "", "compile", "--systemd-stack", dropinsDir+"/logind/systemd-logind.service")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"read from 2 files", "override.conf:5", "SystemCallFilter=@system-service @mount", "MemoryDenyWriteExecute=no"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCmd(t, "", "compile", "--systemd-stack", "foo-bar.service", "--root", dropinsDir+"/root")
	if code != 0 || !strings.Contains(out, "foo-.service.d/05-prefix.conf:2") || strings.Contains(out, "30-x.conf") {
		t.Errorf("--root: exit %d, stderr %s, out:\n%s", code, errs, out)
	}
	code, _, errs = runCmd(t, "", "compile", "--systemd-stack", "masked.service", "--root", dropinsDir+"/root")
	if code != 1 || !strings.Contains(errs, "masked unit") {
		t.Errorf("masked: exit %d, stderr %s", code, errs)
	}
	// simulate reads the drop-ins too: @mount is allowed by override.conf.
	code, out, errs = runCmd(t, "", "simulate", dropinsDir+"/logind/systemd-logind.service", "--syscall", "mount")
	if code != 0 || !strings.Contains(out, "ALLOW") {
		t.Errorf("simulate mount: exit %d, stderr %s, out:\n%s", code, errs, out)
	}
}

// TestPointerFilesCmd: simulate follows a compose file to its profile
// (exit 0, a warning naming the file), and reads an nsjail JSON config's
// Kafel policy rather than taking it for a pointer.
func TestPointerFilesCmd(t *testing.T) {
	const dir = "../../filters/formats/testdata/pointers/"
	code, out, errs := runCmd(t, "", "simulate", dir+"compose.yaml", "--syscall", "mount")
	if code != 0 || !strings.Contains(errs, "docker-compose file") || !strings.Contains(out, "ERRNO") {
		t.Errorf("compose: exit %d, stderr %s, out:\n%s", code, errs, out)
	}
	code, out, errs = runCmd(t, "", "simulate", "../../filters/kafel/testdata/bash-with-fake-geteuid.json", "--syscall", "geteuid")
	if code != 0 || !strings.Contains(out, "verdict   ERRNO(1337)") {
		t.Errorf("nsjail JSON: exit %d, stderr %s, out:\n%s", code, errs, out)
	}
}
