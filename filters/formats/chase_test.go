package formats_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/formats"
)

// writeFile writes data to root/rel, making its directories.
func writeFile(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// symlink makes root/rel a symlink to target, making its directories.
func symlink(t *testing.T, root, rel, target string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// warned reports whether one of u's warnings names file and says sub.
func warned(u *formats.Unit, file, sub string) bool {
	for _, w := range u.Warnings {
		if w.File == file && strings.Contains(w.Error(), sub) {
			return true
		}
	}
	return false
}

// TestLookupUnitSymlinksInRoot: under --root, symlinks resolve inside
// the root as systemd's chase with CHASE_PREFIX_ROOT does. An absolute
// link to a file only the host has (here a temporary file outside the
// root, named by its absolute host path) is absent inside the root, so
// the next search-path directory's unit is read, with a warning; an
// absolute link whose target the root has reads the root's file; ".."
// does not climb out of the root; a link to /dev/null masks though the
// root has no dev/null.
func TestLookupUnitSymlinksInRoot(t *testing.T) {
	root, host := t.TempDir(), t.TempDir()
	writeFile(t, host, "evil.service", "[Service]\nSystemCallFilter=read\n")
	hostUnit := filepath.Join(host, "evil.service")

	// A link to a host file the root does not have.
	writeFile(t, root, "lib/systemd/system/foo.service", "[Service]\nSystemCallFilter=write\n")
	symlink(t, root, "etc/systemd/system/foo.service", hostUnit)
	u, err := formats.LookupUnit("foo.service", root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "lib/systemd/system/foo.service"); u.Name != want || !strings.Contains(string(u.Data), "=write") {
		t.Errorf("foo.service: read %s %q, want %s (SystemCallFilter=write)", u.Name, u.Data, want)
	}
	if link := filepath.Join(root, "etc/systemd/system/foo.service"); !warned(u, link, "does not exist") {
		t.Errorf("foo.service: no warning naming the dangling %s: %v", link, u.Warnings)
	}

	// What systemctl enable writes: an absolute link into /lib.
	writeFile(t, root, "lib/systemd/system/real.service", "[Service]\nSystemCallFilter=getpid\n")
	symlink(t, root, "etc/systemd/system/alias.service", "/lib/systemd/system/real.service")
	if u, err = formats.LookupUnit("alias.service", root); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(u.Data), "=getpid") || u.Name != filepath.Join(root, "etc/systemd/system/alias.service") {
		t.Errorf("alias.service: read %s %q, want the root's real.service through the link", u.Name, u.Data)
	}

	// ".." stops at the root: the host path this would reach on the
	// host is the temporary file above.
	up := strings.Repeat("../", 12) + strings.TrimPrefix(hostUnit, "/")
	writeFile(t, root, hostUnit, "[Service]\nSystemCallFilter=getuid\n")
	symlink(t, root, "etc/systemd/system/up.service", up)
	if u, err = formats.LookupUnit("up.service", root); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(u.Data), "=getuid") {
		t.Errorf("up.service: read %q, want the root's copy (SystemCallFilter=getuid), not the host's", u.Data)
	}

	// /dev/null inside the root is still a mask.
	symlink(t, root, "etc/systemd/system/masked.service", "/dev/null")
	writeFile(t, root, "lib/systemd/system/masked.service", "[Service]\nSystemCallFilter=write\n")
	if _, err := formats.LookupUnit("masked.service", root); !errors.Is(err, formats.ErrMaskedUnit) {
		t.Errorf("masked.service: err %v, want ErrMaskedUnit", err)
	}

	// A merged-/usr root: lib is a relative link to usr/lib.
	merged := t.TempDir()
	symlink(t, merged, "lib", "usr/lib")
	writeFile(t, merged, "usr/lib/systemd/system/m.service", "[Service]\nSystemCallFilter=getppid\n")
	if u, err = formats.LookupUnit("m.service", merged); err != nil || !strings.Contains(string(u.Data), "=getppid") {
		t.Errorf("m.service in a merged-/usr root: %v %q", err, u.Data)
	}
}

// TestLookupUnitDropInSymlinksInRoot: drop-in links resolve inside the
// root too: one to a host-only file is skipped with a warning (and masks
// nothing), one to the root's own file is read, one to /dev/null masks
// the same name further down the search path.
func TestLookupUnitDropInSymlinksInRoot(t *testing.T) {
	root, host := t.TempDir(), t.TempDir()
	writeFile(t, host, "evil.conf", "[Service]\nSystemCallFilter=read\n")
	writeFile(t, root, "lib/systemd/system/foo.service", "[Service]\nSystemCallFilter=write\n")
	symlink(t, root, "etc/systemd/system/foo.service.d/10-host.conf", filepath.Join(host, "evil.conf"))
	writeFile(t, root, "lib/systemd/system/foo.service.d/10-host.conf", "[Service]\nSystemCallFilter=getuid\n")
	writeFile(t, root, "srv/20.conf", "[Service]\nSystemCallFilter=getpid\n")
	symlink(t, root, "etc/systemd/system/foo.service.d/20-inroot.conf", "/srv/20.conf")
	symlink(t, root, "etc/systemd/system/foo.service.d/30-null.conf", "/dev/null")
	writeFile(t, root, "lib/systemd/system/foo.service.d/30-null.conf", "[Service]\nSystemCallFilter=getppid\n")
	u, err := formats.LookupUnit("foo.service", root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range u.DropIns {
		got = append(got, strings.TrimPrefix(d.Name, root+"/")+"="+strings.TrimSpace(strings.TrimPrefix(string(d.Data), "[Service]\nSystemCallFilter=")))
	}
	want := []string{"lib/systemd/system/foo.service.d/10-host.conf=getuid", "etc/systemd/system/foo.service.d/20-inroot.conf=getpid"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("drop-ins %v, want %v", got, want)
	}
	if link := filepath.Join(root, "etc/systemd/system/foo.service.d/10-host.conf"); !warned(u, link, "does not exist") {
		t.Errorf("no warning naming %s: %v", link, u.Warnings)
	}
}

// TestLookupUnitLoopSkipped: a symlink loop in a search-path directory
// (a unit, a drop-in, a drop-in directory) is skipped with a warning
// naming it, as systemd skips an entry it cannot chase, and the lookup
// carries on; without --root a looping drop-in beside the unit is too.
func TestLookupUnitLoopSkipped(t *testing.T) {
	root := t.TempDir()
	symlink(t, root, "etc/systemd/system/loop.service", "loop.service")
	writeFile(t, root, "lib/systemd/system/loop.service", "[Service]\nSystemCallFilter=write\n")
	symlink(t, root, "lib/systemd/system/loop.service.d/10-loop.conf", "10-loop.conf")
	symlink(t, root, "run/systemd/system/loop.service.d", "loop.service.d")
	writeFile(t, root, "lib/systemd/system/loop.service.d/20-ok.conf", "[Service]\nSystemCallFilter=getpid\n")
	u, err := formats.LookupUnit("loop.service", root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "lib/systemd/system/loop.service"); u.Name != want {
		t.Errorf("read %s, want %s", u.Name, want)
	}
	if len(u.DropIns) != 1 || filepath.Base(u.DropIns[0].Name) != "20-ok.conf" {
		t.Errorf("drop-ins %v, want 20-ok.conf only", u.DropIns)
	}
	for _, p := range []string{"etc/systemd/system/loop.service", "lib/systemd/system/loop.service.d/10-loop.conf", "run/systemd/system/loop.service.d"} {
		if !warned(u, filepath.Join(root, p), "loop") {
			t.Errorf("no warning naming %s as a loop: %v", p, u.Warnings)
		}
	}

	// Without --root: the drop-in directory beside the unit.
	dir := t.TempDir()
	writeFile(t, dir, "x.service", "[Service]\nSystemCallFilter=write\n")
	symlink(t, dir, "x.service.d/10-loop.conf", "10-loop.conf")
	if u, err = formats.LookupUnit(filepath.Join(dir, "x.service"), ""); err != nil {
		t.Fatal(err)
	}
	if len(u.DropIns) != 0 || !warned(u, filepath.Join(dir, "x.service.d/10-loop.conf"), "too many levels") {
		t.Errorf("drop-ins %v, warnings %v: want none, and a warning on the loop", u.DropIns, u.Warnings)
	}
}
