package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mkUnitRoot makes a --root tree under a temporary directory: rel maps
// a path below it to a file's content, or to "->TARGET" for a symlink.
func mkUnitRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, data := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(data, "->"); ok {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte(data), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestRootSymlinkStaysInRoot: an absolute unit link in etc/ naming a
// file only the host has (a temporary unit outside the root allowing
// read) is absent inside the root, so compile (--systemd-stack and
// POLICY), simulate and lint read lib/'s unit (allowing write only),
// and warn on stderr naming the link.
func TestRootSymlinkStaysInRoot(t *testing.T) {
	host := mkUnitRoot(t, map[string]string{"evil.service": "[Service]\nSystemCallFilter=read\n"})
	root := mkUnitRoot(t, map[string]string{
		"lib/systemd/system/foo.service": "[Service]\nSystemCallFilter=write\n",
		"etc/systemd/system/foo.service": "->" + filepath.Join(host, "evil.service"),
	})
	link, lib := filepath.Join(root, "etc/systemd/system/foo.service"), filepath.Join(root, "lib/systemd/system/foo.service")
	for _, args := range [][]string{{"compile", "--systemd-stack", "foo.service"}, {"compile", "foo.service"}} {
		code, out, errs := runCmd(t, "", append(args, "--root", root)...)
		if code != 0 || !strings.Contains(out, lib+":") || strings.Contains(out, "evil") || !strings.Contains(errs, "warning: "+link) {
			t.Errorf("%v: exit %d, stderr %s, out:\n%s", args, code, errs, out)
		}
	}
	for sc, want := range map[string]string{"write": "verdict   ALLOW", "read": "verdict   KILL_PROCESS"} {
		code, out, errs := runCmd(t, "", "simulate", "foo.service", "--root", root, "--syscall", sc)
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(errs, "warning: "+link) {
			t.Errorf("simulate --syscall %s: exit %d, stderr %s, out:\n%s", sc, code, errs, out)
		}
	}
}

// TestRootLoopSkipped: a symlink loop in a search-path directory is
// skipped with a warning naming it, and the next directory's unit is
// read (exit 0), as systemd carries on past an entry it cannot chase.
func TestRootLoopSkipped(t *testing.T) {
	root := mkUnitRoot(t, map[string]string{
		"lib/systemd/system/foo.service": "[Service]\nSystemCallFilter=write\n",
		"run/systemd/system/foo.service": "->foo.service",
	})
	code, out, errs := runCmd(t, "", "compile", "--systemd-stack", "foo.service", "--root", root)
	loop := filepath.Join(root, "run/systemd/system/foo.service")
	if code != 0 || !strings.Contains(out, filepath.Join(root, "lib/systemd/system/foo.service")) || !strings.Contains(errs, "warning: "+loop) || !strings.Contains(errs, "loop") {
		t.Errorf("exit %d, stderr %s, out:\n%s", code, errs, out)
	}
}

// TestBareUnitNameNeedsRoot: a bare unit name that is no file says
// that only --root looks it up, in compile (both ways), lint and
// simulate alike.
func TestBareUnitNameNeedsRoot(t *testing.T) {
	const want = "nosuch.service: no such file; a bare unit name is looked up only with --root DIR"
	for _, args := range [][]string{
		{"compile", "--systemd-stack", "nosuch.service"}, {"compile", "nosuch.service"},
		{"lint", "nosuch.service"}, {"simulate", "nosuch.service", "--all"},
	} {
		code, _, errs := runCmd(t, "", args...)
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%v: exit %d, stderr %s; want exit 1 and %q", args, code, errs, want)
		}
	}
}

// TestMaskedUnitSaysMasked: a unit linked to /dev/null is masked in
// every command, by path and (with --root) by name; inside the root,
// /dev/null is a mask though the root has no dev/null.
func TestMaskedUnitSaysMasked(t *testing.T) {
	root := mkUnitRoot(t, map[string]string{
		"lib/systemd/system/x.service": "->/dev/null",
		"lib/systemd/system/y.service": "[Service]\nSystemCallFilter=write\n",
		"etc/systemd/system/y.service": "->/dev/null",
	})
	path := filepath.Join(root, "lib/systemd/system/x.service")
	for _, args := range [][]string{
		{"compile", "--systemd-stack", path}, {"compile", path}, {"lint", path}, {"simulate", path, "--all"},
		{"compile", "y.service", "--root", root}, {"lint", "y.service", "--root", root}, {"simulate", "y.service", "--root", root, "--all"},
	} {
		code, _, errs := runCmd(t, "", args...)
		if code != 1 || !strings.Contains(errs, "masked unit") || strings.Contains(errs, "empty file") {
			t.Errorf("%v: exit %d, stderr %s; want exit 1 and masked unit", args, code, errs)
		}
	}
}
