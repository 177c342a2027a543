package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpioEntry is one entry read back by readNewc.
type cpioEntry struct {
	name         string
	mode         uint32
	data         []byte
	rmajor, rmin uint32
}

// readNewc parses a newc archive independently of the writer: 110-byte
// headers, names and data padded to 4 bytes, ending at TRAILER!!!.
func readNewc(t *testing.T, b []byte) []cpioEntry {
	t.Helper()
	var out []cpioEntry
	off := 0
	pad := func(n int) int { return (n + 3) &^ 3 }
	for {
		if off+110 > len(b) {
			t.Fatalf("truncated header at %d", off)
		}
		h := b[off : off+110]
		if string(h[:6]) != "070701" {
			t.Fatalf("bad magic %q at %d", h[:6], off)
		}
		field := func(i int) uint32 {
			v, err := strconv.ParseUint(string(h[6+8*i:14+8*i]), 16, 32)
			if err != nil {
				t.Fatalf("field %d at %d: %v", i, off, err)
			}
			return uint32(v)
		}
		mode, size, rmaj, rmin, namesize := field(1), int(field(6)), field(9), field(10), int(field(11))
		name := string(b[off+110 : off+110+namesize-1])
		if b[off+110+namesize-1] != 0 {
			t.Fatalf("name %q not NUL-terminated", name)
		}
		off = pad(off + 110 + namesize)
		data := b[off : off+size]
		off = pad(off + size)
		if name == "TRAILER!!!" {
			if off != len(b) {
				t.Errorf("%d bytes after the trailer", len(b)-off)
			}
			return out
		}
		out = append(out, cpioEntry{name, mode, data, rmaj, rmin})
	}
}

func TestInitramfs(t *testing.T) {
	src := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(src, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fs := newInitramfs()
	fs.Dir("proc")
	fs.CharDev("dev/console", 5, 1)
	fs.File("/vmtest/plan.json", []byte(`{"steps":[]}`), 0o644)
	if err := fs.Copy("vmtest/runner/runner.test", src); err != nil {
		t.Fatal(err)
	}
	if err := fs.Copy("init", filepath.Dir(src)); err == nil {
		t.Error("Copy of a directory succeeded")
	}
	var buf bytes.Buffer
	n, err := fs.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) || n%4 != 0 {
		t.Errorf("WriteTo returned %d for %d bytes; want equal and a multiple of 4", n, buf.Len())
	}
	got := readNewc(t, buf.Bytes())
	var names []string
	for _, e := range got {
		names = append(names, e.name)
	}
	want := []string{"dev", "dev/console", "proc", "vmtest", "vmtest/plan.json", "vmtest/runner", "vmtest/runner/runner.test"}
	if !slices.Equal(names, want) {
		t.Fatalf("names %q, want %q (parents first, sorted)", names, want)
	}
	byName := map[string]cpioEntry{}
	for _, e := range got {
		byName[e.name] = e
	}
	checks := []struct {
		name string
		mode uint32
		data string
	}{
		{"dev", modeDir | 0o755, ""},
		{"dev/console", modeChar | 0o600, ""},
		{"vmtest/plan.json", modeReg | 0o644, `{"steps":[]}`},
		{"vmtest/runner/runner.test", modeReg | 0o755, "#!/bin/true\n"},
	}
	for _, c := range checks {
		e := byName[c.name]
		if e.mode != c.mode || string(e.data) != c.data {
			t.Errorf("%s: mode %o data %q; want %o %q", c.name, e.mode, e.data, c.mode, c.data)
		}
	}
	if c := byName["dev/console"]; c.rmajor != 5 || c.rmin != 1 {
		t.Errorf("dev/console is %d:%d, want 5:1", c.rmajor, c.rmin)
	}
	// Same inputs, same bytes (mtime 0, sorted entries).
	var again bytes.Buffer
	if _, err := fs.WriteTo(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two writes of the same archive differ")
	}
	// Cross-check with GNU cpio when it is installed.
	if path, err := exec.LookPath("cpio"); err == nil {
		cmd := exec.Command(path, "-t", "--quiet")
		cmd.Stdin = bytes.NewReader(buf.Bytes())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("cpio -t: %v", err)
		}
		if got := strings.Fields(string(out)); !slices.Equal(got, want) {
			t.Errorf("cpio -t lists %q, want %q", got, want)
		}
	}
}

func TestVersionLess(t *testing.T) {
	names := []string{
		"linux-image-6.1.0-57-cloud-amd64",
		"linux-image-6.1.0-9-cloud-amd64",
		"linux-image-6.1.0-47-cloud-amd64",
	}
	slices.SortFunc(names, func(a, b string) int {
		if versionLess(a, b) {
			return -1
		}
		if versionLess(b, a) {
			return 1
		}
		return 0
	})
	if names[2] != "linux-image-6.1.0-57-cloud-amd64" || names[0] != "linux-image-6.1.0-9-cloud-amd64" {
		t.Errorf("sorted %q", names)
	}
}

func TestMatrixPatterns(t *testing.T) {
	tests := []struct {
		kernel, pkg string
		match       bool
	}{
		{"6.1", "linux-image-6.1.0-57-cloud-amd64", true},
		{"6.1", "linux-image-6.1.0-57-cloud-amd64-unsigned", false},
		{"6.1", "linux-image-6.1.0-57-cloud-amd64-dbg", false},
		{"6.12", "linux-image-6.12.117+deb12-cloud-amd64", true},
		{"5.10", "linux-image-5.10.0-46-cloud-amd64", true},
		{"6.1-arm64", "linux-image-6.1.0-57-cloud-arm64", true},
		{"6.1-arm64", "linux-image-6.1.0-57-cloud-amd64", false},
	}
	for _, tt := range tests {
		k, err := lookupKernel(tt.kernel)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Package.MatchString(tt.pkg); got != tt.match {
			t.Errorf("%s matches %s = %v, want %v", tt.kernel, tt.pkg, got, tt.match)
		}
	}
	if _, err := lookupKernel("4.19"); err == nil {
		t.Error("lookupKernel(4.19) succeeded")
	}
}

func TestQemuArgs(t *testing.T) {
	tests := []struct {
		arch, bin, console string
	}{
		{"amd64", "qemu-system-x86_64", "console=ttyS0"},
		{"arm64", "qemu-system-aarch64", "console=ttyAMA0"},
	}
	for _, tt := range tests {
		bin, args, err := qemuArgs(tt.arch, accelTCG, "/k", "/i", 512, 2)
		if err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(args, " ")
		for _, want := range []string{tt.console, "-no-reboot", "-kernel /k", "-initrd /i", "-m 512", "panic=-1"} {
			if !strings.Contains(joined, want) {
				t.Errorf("%s: args %q lack %q", tt.arch, joined, want)
			}
		}
		if bin != tt.bin {
			t.Errorf("%s: bin %s, want %s", tt.arch, bin, tt.bin)
		}
	}
	if _, _, err := qemuArgs("mips", accelTCG, "/k", "/i", 512, 1); err == nil {
		t.Error("qemuArgs(mips) succeeded")
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr bool
		kernels int
	}{
		{nil, false, len(Matrix)},
		{[]string{"-kernels", "6.1"}, false, 1},
		{[]string{"-kernels", "6.1,nope"}, true, 0},
		{[]string{"extra"}, true, 0},
		{[]string{"-kernels", ""}, true, 0},
		{[]string{"-systemd-suite", "sid"}, true, 0},
		{[]string{"-systemd-suite", "trixie", "-runtimes"}, true, 0},
	}
	for _, tt := range tests {
		o, err := parseFlags(tt.args, &bytes.Buffer{})
		if (err != nil) != tt.wantErr {
			t.Errorf("parseFlags(%q) error %v, want error %v", tt.args, err, tt.wantErr)
			continue
		}
		if err == nil && len(o.kernels) != tt.kernels {
			t.Errorf("parseFlags(%q): %d kernels, want %d", tt.args, len(o.kernels), tt.kernels)
		}
	}
}

// TestParseFlagsSystemdRoot checks that -systemd-suite and -systemd-root
// imply -systemd and where the suite's root goes by default.
func TestParseFlagsSystemdRoot(t *testing.T) {
	o, err := parseFlags([]string{"-systemd-suite", "trixie", "-cache", "/c", "-kernels", "6.1"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.systemd || o.systemdRoot != "/c/roots/trixie" {
		t.Errorf("-systemd-suite trixie: systemd %v, root %q; want true, /c/roots/trixie", o.systemd, o.systemdRoot)
	}
	o, err = parseFlags([]string{"-systemd-root", "/r", "-kernels", "6.1"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.systemd || o.systemdRoot != "/r" || o.systemdSuite != "" {
		t.Errorf("-systemd-root /r: systemd %v, root %q, suite %q", o.systemd, o.systemdRoot, o.systemdSuite)
	}
}

// TestBootTimeout checks that boot kills its process (group) when the
// timeout passes, and says so.
func TestBootTimeout(t *testing.T) {
	var log bytes.Buffer
	err := boot(t.Context(), "sh", []string{"-c", "echo started; sleep 30"}, 300*time.Millisecond, 0, false, &log)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("boot error = %v, want a timeout", err)
	}
	if !strings.Contains(log.String(), "started") {
		t.Errorf("log %q", log.String())
	}
}

// TestInitramfsSymlink checks a symbolic link's newc entry: type
// S_IFLNK and the target as its data, without a NUL.
func TestInitramfsSymlink(t *testing.T) {
	fs := newInitramfs()
	fs.Symlink("/lib64", "usr/lib64")
	fs.Symlink("usr/lib/os-release", "../../etc/os-release")
	var buf bytes.Buffer
	if _, err := fs.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got := map[string]cpioEntry{}
	for _, e := range readNewc(t, buf.Bytes()) {
		got[e.name] = e
	}
	for name, target := range map[string]string{"lib64": "usr/lib64", "usr/lib/os-release": "../../etc/os-release"} {
		e, ok := got[name]
		if !ok {
			t.Errorf("no entry %s", name)
			continue
		}
		if e.mode != 0o120777 {
			t.Errorf("%s: mode %o, want 120777 (S_IFLNK)", name, e.mode)
		}
		if string(e.data) != target {
			t.Errorf("%s: target %q, want %q", name, e.data, target)
		}
	}
	if e := got["usr/lib"]; e.mode != modeDir|0o755 {
		t.Errorf("parent usr/lib: mode %o, want a directory", e.mode)
	}
}
