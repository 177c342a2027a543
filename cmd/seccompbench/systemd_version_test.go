package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateSystemdVersion: a SystemCallFilter=@system-service unit
// allows the calls systemd 257's groups added and kills them with
// systemd 252's groups, and the verdict names the version used.
func TestSimulateSystemdVersion(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "svc.service")
	if err := os.WriteFile(unit, []byte("[Service]\nExecStart=/bin/true\nSystemCallFilter=@system-service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{"mseal", "listmount", "getxattrat", "landlock_create_ruleset", "seccomp"} {
		for _, tc := range []struct{ version, want string }{
			{"257", "verdict   ALLOW"},
			{"252", "verdict   KILL_PROCESS"},
		} {
			code, out, errs := runCmd(t, "", "simulate", unit, "--syscall", sc, "--systemd-version", tc.version)
			if code != 0 {
				t.Fatalf("simulate %s --systemd-version %s: exit %d, stderr %s", sc, tc.version, code, errs)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("simulate %s --systemd-version %s: want %s, got\n%s", sc, tc.version, tc.want, out)
			}
			if !strings.Contains(errs, "read as systemd "+tc.version+" ") {
				t.Errorf("simulate %s --systemd-version %s: stderr does not name the version:\n%s", sc, tc.version, errs)
			}
		}
	}
}

// TestSystemdVersionUnknown: a version with no table is a usage error
// listing the known ones.
func TestSystemdVersionUnknown(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "svc.service")
	if err := os.WriteFile(unit, []byte("[Service]\nSystemCallFilter=@system-service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"simulate", "compile", "lint"} {
		args := []string{cmd, unit, "--systemd-version", "200"}
		if cmd == "simulate" {
			args = append(args, "--syscall", "read")
		}
		code, _, errs := runCmd(t, "", args...)
		if code != 2 || !strings.Contains(errs, "known: 252 254 257 262") {
			t.Errorf("%s --systemd-version 200: exit %d, stderr %q; want 2 listing the known versions", cmd, code, errs)
		}
	}
}

// TestCompileLintSystemdVersion: compile's header and lint's unknown-group
// finding name the version, and lint says which later version adds it
// (@sandbox: Debian's 254.26 has it).
func TestCompileLintSystemdVersion(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "svc.service")
	if err := os.WriteFile(unit, []byte("[Service]\nSystemCallFilter=~@sandbox\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errs := runCmd(t, "", "compile", unit, "--systemd-version", "257")
	if !strings.Contains(out, "(systemd 257 (Debian 257.13-1~deb13u1 (trixie)) groups") {
		t.Errorf("compile --systemd-version 257 header does not name 257:\n%s\n%s", out, errs)
	}
	_, out, errs = runCmd(t, "", "lint", unit, "--systemd-version", "252")
	if !strings.Contains(out+errs, `unknown system call group "@sandbox", ignoring (unknown to systemd 252; systemd 254 adds it)`) {
		t.Errorf("lint --systemd-version 252 does not say who adds @sandbox:\n%s\n%s", out, errs)
	}
}
