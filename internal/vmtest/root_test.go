package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDpkgVersions(t *testing.T) {
	const status = `Package: libc6
Status: install ok installed
Priority: optional
Version: 2.41-12
Description: GNU C Library: Shared libraries
 Contains the standard libraries that are used by nearly all programs on
 the system.

Package: systemd
Status: install ok installed
Version: 257.13-1~deb13u1

Package: libseccomp2
Status: deinstall ok config-files
Version: 2.6.0-2
`
	got, err := dpkgVersions(strings.NewReader(status), "status", []string{"systemd", "libseccomp2", "libc6"})
	if err != nil {
		t.Fatal(err)
	}
	// libseccomp2 is only config files: not installed.
	want := map[string]string{"libc6": "2.41-12", "systemd": "257.13-1~deb13u1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	r := debianRoot{Packages: got}
	if r.SystemdMajor() != 257 {
		t.Errorf("SystemdMajor = %d, want 257", r.SystemdMajor())
	}
	_, err = dpkgVersions(strings.NewReader("Package: a\nnot a field\n"), "var/lib/dpkg/status", []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "var/lib/dpkg/status:2:") {
		t.Errorf("error = %v, want one naming var/lib/dpkg/status:2", err)
	}
}

// TestAddRoot builds a small root and checks what addRoot packs: files
// with their modes, links as links, and the skipped directories present
// but empty.
func TestAddRoot(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, perm os.FileMode) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), perm); err != nil {
			t.Fatal(err)
		}
	}
	write("usr/lib/systemd/systemd", "ELF", 0o755)
	write("usr/lib/systemd/system/systemd-logind.service", "[Service]\n", 0o644)
	write("usr/share/doc/systemd/copyright", "text", 0o644)
	write("etc/passwd", "root:x:0:0::/root:/bin/sh\n", 0o644)
	write(rootStamp, "built\n", 0o644)
	for link, target := range map[string]string{"lib": "usr/lib", "etc/os-release": "../usr/lib/os-release"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	fs := newInitramfs()
	if err := addRoot(fs, dir); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := fs.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got := map[string]cpioEntry{}
	for _, e := range readNewc(t, buf.Bytes()) {
		got[e.name] = e
	}
	checks := []struct {
		name string
		mode uint32
		data string
	}{
		{"usr/lib/systemd/systemd", modeReg | 0o755, "ELF"},
		{"etc/passwd", modeReg | 0o644, "root:x:0:0::/root:/bin/sh\n"},
		{"lib", modeLink | 0o777, "usr/lib"},
		{"etc/os-release", modeLink | 0o777, "../usr/lib/os-release"},
		{"usr/lib/systemd/system", modeDir | 0o755, ""},
		{"usr/share/doc", modeDir | 0o755, ""},
	}
	for _, c := range checks {
		e, ok := got[c.name]
		if !ok || e.mode != c.mode || string(e.data) != c.data {
			t.Errorf("%s: present %v, mode %o, data %q; want %o %q", c.name, ok, e.mode, e.data, c.mode, c.data)
		}
	}
	for _, gone := range []string{"usr/lib/systemd/system/systemd-logind.service", "usr/share/doc/systemd", rootStamp} {
		if _, ok := got[gone]; ok {
			t.Errorf("%s packed; addRoot should leave it out", gone)
		}
	}
}

// TestPrepareRootChecks checks that a root given without a suite is
// used as it is, and refused when it has no systemd or no dpkg status.
func TestPrepareRootChecks(t *testing.T) {
	dir := t.TempDir()
	logf := func(string, ...any) {}
	if _, err := prepareRoot(t.Context(), dir, "", logf); err == nil || !strings.Contains(err.Error(), "no systemd") {
		t.Errorf("empty root: error %v, want one saying it has no systemd", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "usr/lib/systemd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "usr/lib/systemd/systemd"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := prepareRoot(t.Context(), dir, "", logf); err == nil || !strings.Contains(err.Error(), "dpkg/status") {
		t.Errorf("root without dpkg status: error %v", err)
	}
	st := filepath.Join(dir, "var/lib/dpkg/status")
	if err := os.MkdirAll(filepath.Dir(st), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st, []byte("Package: systemd\nStatus: install ok installed\nVersion: 257.13-1~deb13u1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := prepareRoot(t.Context(), dir, "", logf)
	if err != nil {
		t.Fatal(err)
	}
	if r.SystemdMajor() != 257 || r.unitDir() != filepath.Join(dir, "usr/lib/systemd/system") || r.logName() != "systemd-root" {
		t.Errorf("root %+v: major %d, unit dir %s, log %s", r, r.SystemdMajor(), r.unitDir(), r.logName())
	}
}
