package minijail

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/formattest"
)

// loadReal loads a file of testdata/real with opts, reading includes from
// the disk.
func loadReal(t *testing.T, rel string, opts Options) ([]*filters.Program, []string, error) {
	t.Helper()
	path := filepath.Join("testdata", "real", filepath.FromSlash(rel))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Load(path, data, opts)
}

// TestCrosvmRepeats loads a crosvm device policy that @includes the common
// device policy by its installed path and adds rules for syscalls that
// policy filters (ioctl, prctl, madvise). compile_seccomp_policy.py, which
// crosvm builds with, tries both lines (parser.py parse_file appends
// them; compiler.py compile_filter_statement tries them in order): a
// call only the device's line allows is allowed. The C parser refuses
// the policy; Android's refuses it too (two lines not "1").
func TestCrosvmRepeats(t *testing.T) {
	const rel = "crosvm/seccomp/x86_64/block_device.policy"
	progs, warns, err := loadReal(t, rel, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// How the policy was read is a note, the toolchain first, then the
	// include in line order; nothing is a warning.
	if notes := progs[0].Notes; len(warns) != 0 || len(notes) != 2 || !strings.Contains(notes[0], "compile_seccomp_policy.py") || !strings.Contains(notes[0], "chosen from the file") ||
		!strings.Contains(notes[1], "read from testdata/real/crosvm/seccomp/x86_64/common_device.policy") {
		t.Errorf("warnings %q, notes %q; want no warning, and notes naming the toolchain and the include's file", warns, notes)
	}
	const blkdiscard, fionbio, prSetSeccomp, prSetName, madvWillneed, madvDontneed = 0x1277, 0x5421, 22, 15, 3, 4
	for _, tt := range []struct {
		name string
		args []uint64
		want filters.Action
	}{
		{"ioctl", []uint64{3, blkdiscard}, filters.ActionAllow}, // the device's line only
		{"ioctl", []uint64{3, fionbio}, filters.ActionAllow},    // the common line
		{"ioctl", []uint64{3, 0x5401}, filters.ActionKillProcess},
		{"prctl", []uint64{prSetSeccomp}, filters.ActionAllow},
		{"prctl", []uint64{prSetName}, filters.ActionAllow},
		{"madvise", []uint64{0, 0, madvWillneed}, filters.ActionAllow},
		{"madvise", []uint64{0, 0, madvDontneed}, filters.ActionAllow},
		{"madvise", []uint64{0, 0, 0}, filters.ActionKillProcess},
	} {
		if got, _ := formattest.Verdict(t, progs[0], filters.ArchX86_64, tt.name, tt.args...); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.args, got, tt.want)
		}
	}
	for _, tt := range []struct {
		tc   Toolchain
		want string
	}{
		// The first line naming a syscall again: ioctl at line 11, though
		// common_device.policy names madvise first.
		{ToolchainC, "block_device.policy:11:1: invalid minijail seccomp policy: ioctl is already filtered at testdata/real/crosvm/seccomp/x86_64/common_device.policy:20:1: minijail's C parser"},
		{ToolchainAndroid, `block_device.policy:11:1: invalid minijail seccomp policy: ioctl is filtered by more than one line that is not "1"`},
	} {
		_, _, err := loadReal(t, rel, Options{Toolchain: tt.tc})
		if err == nil || !errors.Is(err, ErrBadPolicy) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--minijail-toolchain python") {
			t.Errorf("%s: error %v, want one containing %q and naming --minijail-toolchain python", tt.tc, err, tt.want)
		}
	}
}

// TestToolchainSemantics checks, on small policies, where the toolchains
// differ: a repeated "1" (Android: the first line decides), "expr; return
// E" (C: E where expr fails; Python: E where it holds, parser.py
// _parse_single_filter and compiler_unittest's "read : arg0 == 0 || arg0
// == 1 ; return 1"), and an action before another line (Python refuses).
func TestToolchainSemantics(t *testing.T) {
	type call struct {
		args []uint64
		want filters.Action
		errn uint16
	}
	tests := []struct {
		name, src string
		tc        Toolchain
		calls     []call
		err       string
	}{
		{"android first decides", "read: arg0 == 0\nread: 1\n", ToolchainAndroid,
			[]call{{[]uint64{0}, filters.ActionAllow, 0}, {[]uint64{1}, filters.ActionKillProcess, 0}}, ""},
		{"python tries both", "read: arg0 == 0\nread: 1\n", ToolchainPython,
			[]call{{[]uint64{0}, filters.ActionAllow, 0}, {[]uint64{1}, filters.ActionAllow, 0}}, ""},
		{"c else errno", "read: arg0 == 0 || arg0 == 1; return 1\n", ToolchainC,
			[]call{{[]uint64{0}, filters.ActionAllow, 0}, {[]uint64{2}, filters.ActionErrno, 1}}, ""},
		{"python errno where it holds", "read: arg0 == 0 || arg0 == 1; return 1\n", ToolchainPython,
			[]call{{[]uint64{0}, filters.ActionErrno, 1}, {[]uint64{1}, filters.ActionErrno, 1}, {[]uint64{2}, filters.ActionKillProcess, 0}}, ""},
		{"python then action", "read: arg0 == 0\nread: return 1\n", ToolchainPython,
			[]call{{[]uint64{0}, filters.ActionAllow, 0}, {[]uint64{5}, filters.ActionErrno, 1}}, ""},
		{"python action first", "read: 1\nread: arg0 == 0\n", ToolchainPython, nil, "already had an unconditional action"},
		{"c repeat", "read: 1\nread: 1\n", ToolchainC, nil, "refuses a syscall named twice"},
		{"c nested include", "@include ./a.policy\n", ToolchainC, nil, "refuses nested includes"},
		{"python filter list", "read: {arg0 == 0, arg0 == 1; return 1}\n", ToolchainPython,
			[]call{{[]uint64{0}, filters.ActionAllow, 0}, {[]uint64{1}, filters.ActionErrno, 1}, {[]uint64{2}, filters.ActionKillProcess, 0}}, ""},
		{"auto filter list", "read: {arg0 == 0, arg0 == 1; return 1}\n", ToolchainAuto,
			[]call{{[]uint64{0}, filters.ActionAllow, 0}, {[]uint64{1}, filters.ActionErrno, 1}}, ""},
		{"c filter list", "read: 1\nwrite: {arg0 == 1, arg0 == 2}\n", ToolchainC, nil, "p.policy:2:8: invalid minijail seccomp policy: write: a {…} list of filters is read only by compile_seccomp_policy.py"},
		{"unclosed filter list", "read: {arg0 == 1, arg0 == 2\n", ToolchainPython, nil, "read: unclosed brace"},
		{"syscall group", "{read, write}: 1\n", ToolchainPython, nil, "p.policy:1:1: invalid minijail seccomp policy: a {…} group of syscalls"},
		{"metadata", "read[arch=x86_64]: 1\n", ToolchainPython, nil, "p.policy:1:1: invalid minijail seccomp policy: \"read[arch=x86_64]\": [ … ] metadata"},
		{"python nested include", "@include ./a.policy\n", ToolchainPython,
			[]call{{nil, filters.ActionAllow, 0}}, ""},
	}
	files := fstest.MapFS{"a.policy": {Data: []byte("@include ./b.policy\n")}, "b.policy": {Data: []byte("read: 1\n")}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			progs, _, err := Load("p.policy", []byte(tt.src), Options{Toolchain: tt.tc, ReadFile: mapRead(files)})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tt.calls {
				got, data := formattest.Verdict(t, progs[0], filters.ArchX86_64, "read", c.args...)
				if got != c.want || got == filters.ActionErrno && data != c.errn {
					t.Errorf("read%v = %v %d, want %v %d", c.args, got, data, c.want, c.errn)
				}
			}
		})
	}
}

func TestDetectToolchain(t *testing.T) {
	for _, tt := range []struct {
		path, src string
		want      Toolchain
	}{
		{"jail/seccomp/aarch64/net_device.policy", "read: 1\n", ToolchainPython},
		{"x.policy", "@include /usr/share/policy/crosvm/common_device.policy\n", ToolchainPython},
		{"x.policy", "@denylist\nbpf: return EPERM\n", ToolchainPython},
		{"frameworks/av/services/mediacodec/seccomp_policy/mediacodec-x86.policy", "read: 1\n", ToolchainAndroid},
		{"x.policy", "@include /system/etc/seccomp_policy/crash_dump.x86.policy\n", ToolchainAndroid},
		{"x.policy", "@include /apex/com.android.media/etc/seccomp_policy/code_coverage.policy\n", ToolchainAndroid},
		{"daemon-arm64.policy", "read: 1\n", ToolchainC},
	} {
		if got := DetectToolchain(tt.path, []byte(tt.src)); got != tt.want {
			t.Errorf("DetectToolchain(%q, %q) = %v, want %v", tt.path, tt.src, got, tt.want)
		}
	}
	if _, err := ParseToolchain("clang"); !errors.Is(err, ErrUnknownToolchain) {
		t.Errorf("ParseToolchain(clang) = %v, want ErrUnknownToolchain", err)
	}
}

// TestARMPrivate: a ChromeOS *-arm.policy naming minijail's ARM_ private
// calls compiles for arm, each at __ARM_NR_BASE + n.
func TestARMPrivate(t *testing.T) {
	progs, _, err := loadReal(t, "chromeos/renderer-arm.policy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, nr := range map[string]int{"set_tls": 0xf0005, "cacheflush": 0xf0002, "breakpoint": 0xf0001, "usr26": 0xf0003, "usr32": 0xf0004} {
		if got, _ := filters.ArchARM.Lookup(name); got != nr {
			t.Errorf("arm %s = %#x, want %#x", name, got, nr)
		}
		if got, _ := formattest.Verdict(t, progs[0], filters.ArchARM, name); got != filters.ActionAllow {
			t.Errorf("arm %s = %v, want ALLOW", name, got)
		}
	}
	if got, _ := formattest.Verdict(t, progs[0], filters.ArchARM, "get_tls"); got != filters.ActionKillProcess {
		t.Errorf("arm get_tls = %v, want KILL_PROCESS (not listed)", got)
	}
	if _, _, err := Load("x.policy", []byte("ARM_set_tls: 1\n"), Options{Arch: filters.ArchAArch64}); err == nil || !strings.Contains(err.Error(), "it is a syscall of arm") {
		t.Errorf("ARM_set_tls on aarch64: error %v, want one naming arm", err)
	}
	// minijail's table has no bare set_tls or cacheflush (gen_syscalls.sh
	// names them from __ARM_NR_*): refused, the hint naming ARM_.
	for _, name := range []string{"set_tls", "cacheflush"} {
		_, _, err := Load("y-arm.policy", []byte("read: 1\n"+name+": 1\n"), Options{})
		if err == nil || !strings.Contains(err.Error(), `y-arm.policy:2:1: invalid minijail seccomp policy: unknown syscall "`+name+`" on arm`) ||
			!strings.Contains(err.Error(), "ARM_"+name) {
			t.Errorf("%s: error %v, want unknown syscall naming ARM_%s", name, err, name)
		}
	}
}

// TestNamedABI: the ABI comes from the file's name or directory, riscv64
// included (never compiled as another ABI); --arch wins with a note.
func TestNamedABI(t *testing.T) {
	for _, tt := range []struct {
		rel  string
		want *filters.Arch
	}{
		{"chromeos/daemon-arm64.policy", filters.ArchAArch64},
		{"crosvm/seccomp/aarch64/common_device.policy", filters.ArchAArch64},
		{"chromeos/renderer-arm.policy", filters.ArchARM},
	} {
		progs, _, err := loadReal(t, tt.rel, Options{Arch: filters.ArchX86_64, ArchDefault: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := progs[0].ABIs(); len(got) != 1 || got[0] != tt.want.Name {
			t.Errorf("%s: ABIs %v, want [%s]", tt.rel, got, tt.want.Name)
		}
	}
	rv, _, err := loadReal(t, "chromeos/daemon-riscv64.policy", Options{Arch: filters.ArchX86_64, ArchDefault: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := rv[0].ABIs(); len(got) != 1 || got[0] != "riscv64" {
		t.Errorf("riscv64 policy: ABIs %v, want [riscv64]", got)
	}
	for _, tt := range []struct {
		name string
		args []uint64
		want filters.Action
	}{
		{"read", nil, filters.ActionAllow},
		{"riscv_flush_icache", nil, filters.ActionAllow},
		{"mmap", []uint64{0, 0, 4}, filters.ActionKillProcess}, // PROT_EXEC
		{"mmap", []uint64{0, 0, 3}, filters.ActionAllow},
		{"clone", []uint64{0x10000}, filters.ActionAllow},
		{"getpid", nil, filters.ActionKillProcess},
	} {
		if got, _ := formattest.Verdict(t, rv[0], filters.ArchRISCV64, tt.name, tt.args...); got != tt.want {
			t.Errorf("riscv64 %s%v = %v, want %v", tt.name, tt.args, got, tt.want)
		}
	}
	// O_DIRECTORY is 0x10000 on x86_64 and 0x4000 on aarch64: riscv64's
	// value is not guessed.
	_, _, err = Load("x-riscv64.policy", []byte("openat: arg2 & O_DIRECTORY\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), `constant "O_DIRECTORY" on riscv64`) {
		t.Errorf("O_DIRECTORY on riscv64: error %v, want a refusal", err)
	}
	if _, _, err := Load("x-riscv64.policy", []byte("renameat: 1\n"), Options{}); err == nil {
		t.Error("renameat loads on riscv64, whose kernel has none")
	}
	_, warns, err := loadReal(t, "chromeos/daemon-arm64.policy", Options{Arch: filters.ArchAArch64})
	if err != nil || len(warns) != 0 {
		t.Errorf("arm64 policy with --arch aarch64: %v %q, want no error or note", err, warns)
	}
	_, warns, err = Load("x-arm64.policy", []byte("read: 1\n"), Options{Arch: filters.ArchX86_64})
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "names the arm64 ABI; compiled for x86_64 as --arch asks") {
		t.Errorf("arm64 name with --arch x86_64: %v %q, want a note", err, warns)
	}
}

// TestAbsoluteIncludes: AOSP's @include /system/etc/seccomp_policy/... is
// found through --include-path or --include-root, and an unresolved one
// names both flags.
func TestAbsoluteIncludes(t *testing.T) {
	const rel = "aosp/mediaextractor/seccomp_policy/mediaextractor-x86.policy"
	dir := filepath.Join("testdata", "real", "aosp", "debuggerd", "seccomp_policy")
	_, _, err := loadReal(t, rel, Options{})
	if !errors.Is(err, ErrIncludeNotFound) || !strings.Contains(err.Error(), "--include-path DIR") || !strings.Contains(err.Error(), "--include-root /system/etc/seccomp_policy=DIR") {
		t.Errorf("no include path: error %v, want ErrIncludeNotFound naming the flags", err)
	}
	for _, opts := range []Options{{IncludePath: []string{dir}}, {IncludeRoots: []IncludeRoot{{Old: "/system/etc/seccomp_policy", New: dir}}}} {
		progs, warns, err := loadReal(t, rel, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(warns, "\n"), "Android's minijail") {
			t.Errorf("warnings %q, want the Android toolchain named", warns)
		}
		// prctl is "1" in the policy and an argument rule in the include:
		// Android's minijail lets the first line decide.
		for _, name := range []string{"prctl", "exit_group", "getuid32"} {
			if got, _ := formattest.Verdict(t, progs[0], filters.ArchI386, name, 99); got != filters.ActionAllow {
				t.Errorf("%s = %v, want ALLOW", name, got)
			}
		}
	}
	if _, err := ParseIncludeRoot("system=x"); err == nil {
		t.Error("ParseIncludeRoot accepts a relative OLD")
	}
}

// TestDetectFromInsideDir reads crosvm policies by their base names from
// inside their directories, as "cd jail/seccomp/aarch64 && seccompbench
// compile net_device.policy" does: the ABI and the toolchain come from
// the directory all the same (Parse makes the path absolute first).
func TestDetectFromInsideDir(t *testing.T) {
	tests := []struct {
		dir, file string
		abi       *filters.Arch
	}{
		{"aarch64", "common_device.policy", filters.ArchAArch64},
		{"x86_64", "block_device.policy", filters.ArchX86_64},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			t.Chdir(filepath.Join("testdata", "real", "crosvm", "seccomp", tt.dir))
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			// The host's ABI as a default must not win over the directory.
			p, err := Parse(tt.file, data, Options{Arch: filters.ArchI386, ArchDefault: true})
			if err != nil {
				t.Fatal(err)
			}
			if p.ABI != tt.abi || p.Toolchain != ToolchainPython || !p.ToolchainDetected {
				t.Errorf("ABI %s, toolchain %s (detected %v); want %s, python, detected", p.ABI.Name, p.Toolchain, p.ToolchainDetected, tt.abi.Name)
			}
		})
	}
}

// TestStdinNoPath checks that a policy read from standard input inside a
// crosvm ABI directory takes neither ABI nor toolchain from that
// directory, and says so in notes.
func TestStdinNoPath(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "real", "crosvm", "seccomp", "aarch64"))
	src := []byte("read: arg0 == 0\nread: 1\n")
	opts := Options{Stdin: true}
	p, err := Parse("stdin", src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if p.ABI != filters.ArchX86_64 || p.Toolchain != ToolchainC {
		t.Errorf("ABI %s, toolchain %s; want x86_64 and c (nothing taken from the directory)", p.ABI.Name, p.Toolchain)
	}
	progs, _, err := Load("stdin", src, Options{Stdin: true, Toolchain: ToolchainAuto, Arch: filters.ArchAArch64, ArchDefault: true})
	if err == nil {
		t.Fatalf("loaded %v; want the C parser's repeated-syscall error", progs)
	}
	progs, _, err = Load("stdin", []byte("read: 1\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(progs[0].Notes, "\n"); !strings.Contains(got, "stdin: read from standard input") || !strings.Contains(got, "compiled for x86_64") {
		t.Errorf("notes %q, want the standard-input ABI note", progs[0].Notes)
	}
}

// TestDotIncludeBase checks where "@include ./x.policy" is read: the C
// parser from the working directory (syscall_filter.c fopens the path as
// written), compile_seccomp_policy.py beside the including file; the C
// model falls back beside the including file, with a note, where the
// working directory has no such file.
func TestDotIncludeBase(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("dir/p.policy", "@include ./x.policy\n")
	write("dir/x.policy", "read: 1\n")
	write("cwd/x.policy", "write: 1\n")
	pol := filepath.Join(root, "dir", "p.policy")
	tests := []struct {
		cwd      string
		tc       Toolchain
		allowed  string
		wantNote bool
	}{
		{"cwd", ToolchainC, "write", false},
		{"cwd", ToolchainPython, "read", false},
		{"", ToolchainC, "read", true}, // root holds no x.policy
		{"dir", ToolchainAndroid, "read", false},
	}
	for _, tt := range tests {
		t.Run(tt.cwd+"/"+tt.tc.String(), func(t *testing.T) {
			t.Chdir(filepath.Join(root, tt.cwd))
			progs, _, err := Load(pol, []byte("@include ./x.policy\n"), Options{Toolchain: tt.tc})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := formattest.Verdict(t, progs[0], filters.ArchX86_64, tt.allowed); got != filters.ActionAllow {
				t.Errorf("%s = %v, want allowed", tt.allowed, got)
			}
			note := strings.Contains(strings.Join(progs[0].Notes, "\n"), "beside the including file")
			if note != tt.wantNote {
				t.Errorf("notes %q, want the beside-the-file note: %v", progs[0].Notes, tt.wantNote)
			}
		})
	}
}

// TestFirstRepeatReported: where several syscalls are named twice, the C
// model reports the first line, in reading order, that names one again
// (ioctl at line 4), not the syscall first named (prctl at line 1).
func TestFirstRepeatReported(t *testing.T) {
	src := "prctl: arg0 == 15\nioctl: arg1 == 0x5421\nread: 1\nioctl: arg1 == 0x1277\nprctl: arg0 == 22\n"
	_, _, err := Load("p.policy", []byte(src), Options{Toolchain: ToolchainC})
	if err == nil || !strings.Contains(err.Error(), "p.policy:4:1: invalid minijail seccomp policy: ioctl is already filtered at p.policy:2:1") {
		t.Errorf("error %v, want the repeated ioctl at line 4", err)
	}
	progs, _, err := Load("p.policy", []byte("prctl: 1\nioctl: 1\nioctl: 1\nprctl: 1\n"), Options{Toolchain: ToolchainAndroid})
	if err != nil {
		t.Fatal(err)
	}
	if w := progs[0].Warnings; len(w) != 2 || !strings.HasPrefix(w[0], "p.policy:3:1: ioctl") || !strings.HasPrefix(w[1], "p.policy:4:1: prctl") {
		t.Errorf("warnings %q, want ioctl's line 3 then prctl's line 4", w)
	}
}

// TestNewerConstants loads a crosvm GPU policy whose prctl line names
// PR_GET_AUXV, which minijail's table has where it is built against Linux
// 6.4 headers or newer, as crosvm's is.
func TestNewerConstants(t *testing.T) {
	progs, _, err := loadReal(t, "crosvm/seccomp/x86_64/gpu_device.policy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	const prGetAuxv, prSetName, prSetSeccomp = 0x41555856, 15, 22
	for _, tt := range []struct {
		args []uint64
		want filters.Action
	}{
		{[]uint64{prGetAuxv}, filters.ActionAllow},
		{[]uint64{prSetName}, filters.ActionAllow},
		{[]uint64{prSetSeccomp}, filters.ActionKillProcess}, // the common policy's line does not allow it
	} {
		if got, _ := formattest.Verdict(t, progs[0], filters.ArchX86_64, "prctl", tt.args...); got != tt.want {
			t.Errorf("prctl%v = %v, want %v", tt.args, got, tt.want)
		}
	}
}
