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

// TestSimulateSystemdVersionNeighbours: for each table from an Ubuntu
// source or upstream tag, a call @system-service gained or lost there is
// allowed by the version that has it and killed by its neighbour:
// fchmodat2 (252 has it, Ubuntu's 249.11 not), landlock_create_ruleset
// (256.17's @default has @sandbox, Ubuntu's 255.4 not), open_tree (258
// moved it from @mount to @file-system).
func TestSimulateSystemdVersionNeighbours(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "svc.service")
	if err := os.WriteFile(unit, []byte("[Service]\nExecStart=/bin/true\nSystemCallFilter=@system-service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ syscall, allow, kill string }{
		{"fchmodat2", "252", "249"},
		{"landlock_create_ruleset", "256", "255"},
		{"open_tree", "258", "257"},
		{"open_tree", "259", "257"},
	} {
		for version, want := range map[string]string{tc.allow: "verdict   ALLOW", tc.kill: "verdict   KILL_PROCESS"} {
			code, out, errs := runCmd(t, "", "simulate", unit, "--syscall", tc.syscall, "--systemd-version", version)
			if code != 0 || !strings.Contains(out, want) || !strings.Contains(errs, "read as systemd "+version+" ") {
				t.Errorf("simulate %s --systemd-version %s: exit %d, want %s\n%s\n%s", tc.syscall, version, code, want, out, errs)
			}
		}
	}
}

// TestSystemdVersionUnknown: a version with no table is a usage error
// listing the tables and the nearest ones.
func TestSystemdVersionUnknown(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "svc.service")
	if err := os.WriteFile(unit, []byte("[Service]\nSystemCallFilter=@system-service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"simulate", "compile", "lint"} {
		args := []string{cmd, unit, "--systemd-version", "261"}
		if cmd == "simulate" {
			args = append(args, "--syscall", "read")
		}
		code, _, errs := runCmd(t, "", args...)
		if code != 2 || !strings.Contains(errs, "--systemd-version 261: no table for 261; tables: 249 252 254 255 256 257 258 259 262; nearest: 259, 262") {
			t.Errorf("%s --systemd-version 261: exit %d, stderr %q; want 2 listing the tables and the nearest ones", cmd, code, errs)
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
	_, out, errs = runCmd(t, "", "compile", unit, "--systemd-version", "255")
	if !strings.Contains(out, "(systemd 255 (Ubuntu 255.4-1ubuntu8 (noble)) groups") {
		t.Errorf("compile --systemd-version 255 header does not name Ubuntu's 255.4:\n%s\n%s", out, errs)
	}
	_, out, errs = runCmd(t, "", "lint", unit, "--systemd-version", "252")
	if !strings.Contains(out+errs, `unknown system call group "@sandbox", ignoring (unknown to systemd 252; systemd 254 adds it)`) {
		t.Errorf("lint --systemd-version 252 does not say who adds @sandbox:\n%s\n%s", out, errs)
	}
}

// TestCompileSystemdStackNamesVersion: compile --systemd-stack's stack
// heading names the systemd version the stack was modeled as, not 252
// whatever --systemd-version says; and the help texts name the flag,
// not a fixed version.
func TestCompileSystemdStackNamesVersion(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "svc.service")
	if err := os.WriteFile(unit, []byte("[Service]\nSystemCallFilter=@system-service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"249", "252", "257", "262"} {
		code, out, errs := runCmd(t, "", "compile", "--systemd-stack", unit, "--systemd-version", v)
		if code != 0 {
			t.Fatalf("compile --systemd-version %s: exit %d\n%s", v, code, errs)
		}
		var head string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, unit+": filters as ") {
				head = l
			}
		}
		want := unit + ": filters as systemd " + v + " installs them on x86_64 (systemd " + v + " ("
		if !strings.HasPrefix(head, want) {
			t.Errorf("compile --systemd-version %s: stack heading %q, want it to start %q\n%s", v, head, want, out)
		}
	}
	for _, cmd := range []string{"compile", "merge", "run", "estimate", "budget", "lint", "simulate"} {
		_, out, _ := runCmd(t, "", cmd, "--help")
		if strings.Contains(out, "systemd 252") {
			t.Errorf("%s --help names systemd 252:\n%s", cmd, out)
		}
		if !strings.Contains(strings.Join(strings.Fields(out), " "), "chosen by --systemd-version") {
			t.Errorf("%s --help does not say --systemd-version chooses the systemd modeled", cmd)
		}
	}
}

// TestEquivSystemdVersionPair: equiv --systemd-version A,B reads the
// first policy as systemd A and the second as B, so one unit compared
// with itself differs between 252 and 257 (257's @system-service allows
// calls 252's kills) and agrees under 257,257; other commands take one
// version only.
func TestEquivSystemdVersionPair(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "svc.service")
	if err := os.WriteFile(unit, []byte("[Service]\nSystemCallFilter=@system-service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "equiv", unit, unit, "--systemd-version", "257,252")
	if code != 3 || !strings.Contains(out, "A gives ALLOW, B gives KILL_PROCESS") {
		t.Errorf("equiv --systemd-version 257,252: exit %d, want 3 with 257 allowing what 252 kills\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "equiv", unit, unit, "--systemd-version", "252,257")
	if code != 3 || !strings.Contains(out, "A gives KILL_PROCESS, B gives ALLOW") {
		t.Errorf("equiv --systemd-version 252,257: exit %d, want 3 with B allowing what A kills\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "equiv", unit, unit, "--systemd-version", "257,257")
	if code != 0 || !strings.Contains(out, "equivalent") {
		t.Errorf("equiv --systemd-version 257,257: exit %d, want 0\n%s\n%s", code, out, errs)
	}
	code, _, errs = runCmd(t, "", "equiv", unit, unit, "--systemd-version", "257,253")
	if code != 2 || !strings.Contains(errs, "no table for 253") {
		t.Errorf("equiv --systemd-version 257,253: exit %d, want 2 naming 253\n%s", code, errs)
	}
	code, _, errs = runCmd(t, "", "compile", unit, "--systemd-version", "257,252")
	if code != 2 || !strings.Contains(errs, "only equiv takes A,B") {
		t.Errorf("compile --systemd-version 257,252: exit %d, want 2 (usage)\n%s", code, errs)
	}
	_, out, _ = runCmd(t, "", "equiv", "--help")
	if !strings.Contains(out, "--systemd-version A,B reads the first policy's units as systemd A") {
		t.Errorf("equiv --help does not document --systemd-version A,B:\n%s", out)
	}
}
