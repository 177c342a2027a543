package minijail

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/formattest"
)

// TestDetect also checks that a Beats YAML policy, whose lines are
// "key: value" too, is not taken for a minijail one.
func TestDetect(t *testing.T) {
	for _, f := range formattest.Files(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if got, want := Detect(b), filepath.Ext(f) == ".policy"; got != want {
			t.Errorf("Detect(%s) = %v, want %v", f, got, want)
		}
	}
	for _, s := range []string{"read: 1\n", "# c\n\nopenat: arg2 == 0\n", "@include ./a.policy\n", "ptrace: return EPERM\n", "kill: kill-thread\n", "@denylist\n# c\n\nbpf: return EPERM\n"} {
		if !Detect([]byte(s)) {
			t.Errorf("Detect(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"default_action: errno\nsyscalls: []\n", "seccomp:\n  default_action: allow\n", "read: true\n", ""} {
		if Detect([]byte(s)) {
			t.Errorf("Detect(%q) = true, want false", s)
		}
	}
}

// TestVerdicts checks the example (and its include) against verdicts
// worked out by hand from the policy text.
func TestVerdicts(t *testing.T) {
	name := formattest.Path(t, "chrome-renderer.policy")
	data := formattest.Read(t, "chrome-renderer.policy")
	progs, warns, err := Load(name, data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := progs[0]
	if p.Name != "chrome-renderer" {
		t.Errorf("name %q", p.Name)
	}
	// @frequency is valid minijail: a note (Program.Notes), not a warning;
	// so is where "./minijail/common.policy" was read (the C parser reads
	// it from the working directory, the test's is another), in line order.
	if len(warns) != 0 || len(p.Warnings) != 0 || len(p.Notes) != 2 ||
		!strings.HasPrefix(p.Notes[0], name+":4:1: @include ./minijail/common.policy read from "+filepath.Join(filepath.Dir(name), "minijail", "common.policy")+", beside the including file") ||
		!strings.HasPrefix(p.Notes[1], name+":5:1: @frequency ./renderer.frequency ignored") {
		t.Errorf("warnings %q, notes %q; want no warning, the include and the @frequency notes", warns, p.Notes)
	}
	x := filters.ArchX86_64
	tests := []struct {
		name  string
		arch  *filters.Arch
		args  []uint64
		want  filters.Action
		errno uint16
	}{
		{"read", x, nil, filters.ActionAllow, 0}, // included
		{"madvise", x, []uint64{0, 4096, 4}, filters.ActionAllow, 0},
		{"madvise", x, []uint64{0, 4096, 3}, filters.ActionKillProcess, 0},
		{"openat", x, []uint64{0, 0, 0x80000}, filters.ActionAllow, 0},        // O_RDONLY|O_CLOEXEC
		{"openat", x, []uint64{0, 0, 1}, filters.ActionErrno, 13},             // O_WRONLY
		{"openat", x, []uint64{0, 0, 0x42}, filters.ActionErrno, 13},          // O_RDWR|O_CREAT
		{"mmap", x, []uint64{0, 4096, 3, 0x22}, filters.ActionAllow, 0},       // rw
		{"mmap", x, []uint64{0, 4096, 5, 0x2}, filters.ActionAllow, 0},        // r-x
		{"mmap", x, []uint64{0, 4096, 7, 0x22}, filters.ActionKillProcess, 0}, // rwx
		{"mprotect", x, []uint64{0, 4096, 1}, filters.ActionAllow, 0},
		{"mprotect", x, []uint64{0, 4096, 4}, filters.ActionKillProcess, 0},
		{"ioctl", x, []uint64{0, 0x5401}, filters.ActionAllow, 0},
		{"ioctl", x, []uint64{0, 0x5412}, filters.ActionErrno, 25},  // TIOCSTI: ENOTTY
		{"socket", x, []uint64{1, 0x80001}, filters.ActionAllow, 0}, // SOCK_STREAM|SOCK_CLOEXEC
		{"socket", x, []uint64{1, 5}, filters.ActionAllow, 0},
		{"socket", x, []uint64{1, 2}, filters.ActionKillProcess, 0}, // SOCK_DGRAM
		{"socket", x, []uint64{2, 1}, filters.ActionKillProcess, 0}, // AF_INET
		{"prctl", x, []uint64{38}, filters.ActionAllow, 0},          // on the continuation line
		{"prctl", x, []uint64{4}, filters.ActionKillProcess, 0},
		{"clone", x, []uint64{0x3d0f00}, filters.ActionAllow, 0},
		{"clone", x, []uint64{0x1200011}, filters.ActionKillProcess, 0},
		{"ptrace", x, nil, filters.ActionErrno, 1},
		{"execve", x, nil, filters.ActionKillProcess, 0},
		{"read", filters.ArchI386, nil, filters.ActionKillThread, 0},
	}
	for _, tt := range tests {
		act, d := formattest.Verdict(t, p, tt.arch, tt.name, tt.args...)
		if act != tt.want || d != tt.errno {
			t.Errorf("%s %s(%#x) = %v/%d, want %v/%d", tt.arch, tt.name, tt.args, act, d, tt.want, tt.errno)
		}
	}
}

func mapRead(m fstest.MapFS) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) { return fs.ReadFile(m, filepath.ToSlash(p)) }
}

func TestErrors(t *testing.T) {
	files := fstest.MapFS{
		"dir/a.policy":   {Data: []byte("read: 1\n@include ./b.policy\n")},
		"dir/b.policy":   {Data: []byte("write: 1\n@include ./a.policy\n")},
		"dir/bad.policy": {Data: []byte("write: 1\nopenat: arg2 == O_SYNCHRONOUS\n")},
	}
	tests := []struct{ name, src, want string }{
		{"constant", "openat: arg2 == O_RDONLY|O_BOGUS\n", `p.policy:1:26: invalid minijail seccomp policy: unknown constant "O_BOGUS"`},
		{"syscall", "read: 1\nreadd: 1\n", `p.policy:2:1: invalid minijail seccomp policy: unknown syscall "readd" on x86_64`},
		{"arg", "read: arg6 == 1\n", `p.policy:1:7: invalid minijail seccomp policy: "arg6": want arg0 to arg5`},
		{"op", "read: arg0 =~ 1\n", `p.policy:1:12: invalid minijail seccomp policy: unexpected "="`},
		{"action", "read: arg0 == 1; return\n", "p.policy:1:24: invalid minijail seccomp policy: missing value"},
		{"word", "read: deny\n", `p.policy:1:7: invalid minijail seccomp policy: unknown action "deny"`},
		{"getuid32", "getuid32: 1\n", `p.policy:1:1: invalid minijail seccomp policy: unknown syscall "getuid32" on x86_64 (it is a syscall of i386 and arm: is the policy for that ABI? give --arch i386)`},
		{"paren", "mmap: arg2 in ~(PROT_EXEC|PROT_WRITE\n", `invalid minijail seccomp policy: unclosed parenthesis`},
		{"range", "madvise: arg2 >= 1 && arg2 <= 4\n", "p.policy:1:10: invalid minijail seccomp policy: madvise: conditions on arg2 ANDed"},
		{"continued", "prctl: arg0 == 1 || \\\n  arg0 == PR_BOGUS\n", `p.policy:2:11: invalid minijail seccomp policy: unknown constant "PR_BOGUS"`},
		{"missing include", "@include ./nope.policy\n", "p.policy:1:1: invalid minijail seccomp policy: @include ./nope.policy: included policy not found: no file nope.policy or dir/nope.policy"},
		{"implicit relative include", "@include a.policy\n", "p.policy:1:1: invalid minijail seccomp policy: @include a.policy: an implicit relative path, which minijail refuses"},
		{"parent include", "@include ../a.policy\n", "write @include ./../a.policy"},
		{"nested", "@include ./a.policy\n", "dir/a.policy:2:1: invalid minijail seccomp policy: @include in an included file: minijail's C parser as ChromeOS builds it (syscall_filter.c) refuses nested includes"},
		{"in include", "@include ./bad.policy\n", `dir/bad.policy:2:17: invalid minijail seccomp policy: unknown constant "O_SYNCHRONOUS"`},
		{"directive", "@default kill\n", "p.policy:1:1: invalid minijail seccomp policy: unknown directive @default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load("dir/p.policy", []byte(tt.src), Options{ReadFile: mapRead(files)})
			if err == nil {
				t.Fatal("no error")
			}
			var se *filters.SourceError
			if !errors.Is(err, ErrBadPolicy) || !errors.As(err, &se) {
				t.Errorf("error %v is no *filters.SourceError wrapping ErrBadPolicy", err)
			}
			got := strings.ReplaceAll(err.Error(), "dir/p.policy", "p.policy")
			if !strings.Contains(got, tt.want) {
				t.Errorf("error = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestElseAction checks "; return" against the clauses' allow, and that a
// clause that can never hold is dropped with a warning.
func TestElseAction(t *testing.T) {
	src := "fcntl: arg1 == F_GETFL || arg1 == F_SETFD && arg2 == FD_CLOEXEC; return EINVAL\nkill: arg1 & 0\nwrite: arg0 == 1 && arg0 == 2 || arg0 == 2\n"
	progs, warns, err := Load("e.policy", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 || !strings.HasPrefix(warns[0], "e.policy:2:7: arg1 & 0 never holds") || !strings.HasPrefix(warns[1], "e.policy:3:8: write: a clause can never hold") {
		t.Errorf("warnings %q", warns)
	}
	x := filters.ArchX86_64
	for _, tt := range []struct {
		name  string
		args  []uint64
		want  filters.Action
		errno uint16
	}{
		{"fcntl", []uint64{3, 3}, filters.ActionAllow, 0},
		{"fcntl", []uint64{3, 2, 1}, filters.ActionAllow, 0},
		{"fcntl", []uint64{3, 2, 0}, filters.ActionErrno, 22},
		{"fcntl", []uint64{3, 4, 0}, filters.ActionErrno, 22},
		{"kill", []uint64{1, 9}, filters.ActionKillProcess, 0},
		{"write", []uint64{2}, filters.ActionAllow, 0},
		{"write", []uint64{1}, filters.ActionKillProcess, 0},
	} {
		if act, d := formattest.Verdict(t, progs[0], x, tt.name, tt.args...); act != tt.want || d != tt.errno {
			t.Errorf("%s(%#x) = %v/%d, want %v/%d", tt.name, tt.args, act, d, tt.want, tt.errno)
		}
	}
}

// TestDenylist: a "@denylist" policy (the shape of ChromeOS's
// policies/cros_default_v0.policy) allows what it does not list, and
// refuses lines that do not return an errno, as minijail's tools/parser.py
// does.
func TestDenylist(t *testing.T) {
	src := "@denylist\n# a default runtime policy\n\nbpf: return EPERM\nptrace: return EACCES\n"
	progs, warns, err := Load("deny.policy", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "deny.policy:1:1: @denylist: a deny list") {
		t.Errorf("warnings %q, want the @denylist note", warns)
	}
	x := filters.ArchX86_64
	for _, tt := range []struct {
		name  string
		want  filters.Action
		errno uint16
	}{
		{"bpf", filters.ActionErrno, 1},
		{"ptrace", filters.ActionErrno, 13},
		{"read", filters.ActionAllow, 0},
		{"execve", filters.ActionAllow, 0},
	} {
		if act, d := formattest.Verdict(t, progs[0], x, tt.name); act != tt.want || d != tt.errno {
			t.Errorf("%s = %v/%d, want %v/%d", tt.name, act, d, tt.want, tt.errno)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{"@denylist\nbpf: kill\n", `deny.policy:2:6: invalid minijail seccomp policy: bpf: a @denylist policy must return an errno on every line (minijail tools/parser.py), not "kill"`},
		{"@denylist\nioctl: arg1 == 0x5401\n", `deny.policy:2:1: invalid minijail seccomp policy: ioctl: argument expressions in a @denylist policy are not modeled`},
		{"@denylist now\nbpf: return EPERM\n", `deny.policy:1:1: invalid minijail seccomp policy: @denylist takes no argument, not "now"`},
	} {
		_, _, err := Load("deny.policy", []byte(tt.src), Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrBadPolicy) {
			t.Errorf("Load(%q) = %v, want an ErrBadPolicy containing %q", tt.src, err, tt.want)
		}
	}
}

// TestABIs loads AOSP's mediacodec-x86.policy (a faithful minimal copy):
// its name makes it an i386 policy, so its i386 names load, the filter
// checks AUDIT_ARCH_I386 only, and the repeated lines are warnings, as
// Android's minijail (ALLOW_DUPLICATE_SYSCALLS) takes them.
func TestABIs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "real", "mediacodec-x86.policy"))
	if err != nil {
		t.Fatal(err)
	}
	progs, warns, err := Load("mediacodec-x86.policy", data, Options{Toolchain: ToolchainAndroid})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "_llseek is already filtered at mediacodec-x86.policy:9:1") ||
		!strings.Contains(warns[1], "gettid is already filtered") {
		t.Errorf("warnings %q, want the two repeated lines", warns)
	}
	if n := progs[0].Notes; len(n) != 1 || !strings.Contains(n[0], "read as Android's minijail") {
		t.Errorf("notes %q, want the toolchain named", n)
	}
	for _, tt := range []struct {
		arch *filters.Arch
		name string
		want filters.Action
	}{
		{filters.ArchI386, "getuid32", filters.ActionAllow},
		{filters.ArchI386, "mmap2", filters.ActionAllow},
		{filters.ArchI386, "getuid", filters.ActionKillProcess},
		{filters.ArchX86_64, "read", filters.ActionKillThread}, // another ABI: the bad-arch action
	} {
		if got, _ := formattest.Verdict(t, progs[0], tt.arch, tt.name); got != tt.want {
			t.Errorf("%s %s = %v, want %v", tt.arch, tt.name, got, tt.want)
		}
	}
	// The same file named otherwise loads for i386 with Options.Arch, and
	// an arm policy for arm.
	if _, _, err := Load("p.policy", data, Options{Arch: filters.ArchI386, Toolchain: ToolchainAndroid}); err != nil {
		t.Errorf("Arch i386: %v", err)
	}
	if _, _, err := Load("p.policy", data, Options{Toolchain: ToolchainAndroid}); err == nil {
		t.Error("an i386 policy loads as x86_64")
	}
	arm, _, err := Load("q-arm.policy", []byte("getuid32: 1\nopenat: arg2 & O_DIRECTORY\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// O_DIRECTORY is 0x4000 on arm, 0x10000 on x86.
	if got, _ := formattest.Verdict(t, arm[0], filters.ArchARM, "openat", 0, 0, 0x4000); got != filters.ActionAllow {
		t.Errorf("arm openat(O_DIRECTORY=0x4000) = %v, want ALLOW", got)
	}
	if got, _ := formattest.Verdict(t, arm[0], filters.ArchARM, "openat", 0, 0, 0x10000); got != filters.ActionKillProcess {
		t.Errorf("arm openat(0x10000) = %v, want KILL_PROCESS", got)
	}
}

// TestSignalsAndConstants: the constant classes of minijail's table
// (signals, errnos, mmap and open flags) with parentheses.
func TestSignalsAndConstants(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "real", "signals-amd64.policy"))
	if err != nil {
		t.Fatal(err)
	}
	progs, _, err := Load("signals-amd64.policy", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := filters.ArchX86_64
	for _, tt := range []struct {
		name  string
		args  []uint64
		want  filters.Action
		errno uint16
	}{
		{"tgkill", []uint64{1, 2, 6}, filters.ActionAllow, 0}, // SIGABRT
		{"tgkill", []uint64{1, 2, 9}, filters.ActionKillProcess, 0},
		{"kill", []uint64{1, 15}, filters.ActionAllow, 0}, // SIGTERM
		{"kill", []uint64{1, 9}, filters.ActionAllow, 0},  // SIGKILL
		{"kill", []uint64{1, 10}, filters.ActionKillProcess, 0},
		{"rt_sigaction", []uint64{31}, filters.ActionKillProcess, 0}, // SIGSYS
		{"rt_sigaction", []uint64{2}, filters.ActionAllow, 0},
		{"mmap", []uint64{0, 0, 3}, filters.ActionAllow, 0},
		{"mmap", []uint64{0, 0, 4}, filters.ActionKillProcess, 0},   // PROT_EXEC
		{"openat", []uint64{0, 0, 0x10000}, filters.ActionAllow, 0}, // O_DIRECTORY
		{"openat", []uint64{0, 0, 0}, filters.ActionErrno, 2},       // ENOENT
	} {
		if act, data := formattest.Verdict(t, progs[0], x, tt.name, tt.args...); act != tt.want || data != tt.errno {
			t.Errorf("%s(%#x) = %v/%d, want %v/%d", tt.name, tt.args, act, data, tt.want, tt.errno)
		}
	}
	for _, tt := range []struct {
		abi  *filters.Arch
		name string
		want uint64
	}{
		{filters.ArchX86_64, "SIGABRT", 6}, {filters.ArchARM, "SIGBUS", 7}, {filters.ArchI386, "SIGSYS", 31},
		{filters.ArchX86_64, "EACCES", 13}, {filters.ArchX86_64, "O_DIRECTORY", 0x10000},
		{filters.ArchAArch64, "O_DIRECTORY", 0x4000}, {filters.ArchX86_64, "MAP_32BIT", 0x40},
		{filters.ArchX86_64, "FIONREAD", 0x541b}, {filters.ArchX86_64, "PR_SET_NAME", 15},
		{filters.ArchX86_64, "CLONE_NEWUSER", 0x10000000}, {filters.ArchX86_64, "RLIMIT_NOFILE", 7},
		// Newer than the generated headers (crosvm's gpu_common.policy).
		{filters.ArchX86_64, "PR_GET_AUXV", 1096112214}, {filters.ArchAArch64, "PR_GET_AUXV", 0x41555856},
		{filters.ArchARM, "PR_GET_AUXV", 0x41555856}, {filters.ArchRISCV64, "PR_GET_AUXV", 0x41555856},
		{filters.ArchI386, "PR_SET_MDWE", 65},
		// Zero on arm (its compiler's ".space 4", armZero).
		{filters.ArchARM, "O_RDONLY", 0}, {filters.ArchARM, "PROT_NONE", 0}, {filters.ArchARM, "SEEK_SET", 0},
		{filters.ArchARM, "CLONE_CLEAR_SIGHAND", 0}, {filters.ArchARM, "PROT_READ", 1},
	} {
		if got, ok := constant(tt.abi, tt.name); !ok || got != tt.want {
			t.Errorf("constant(%s, %s) = %#x, %v; want %#x", tt.abi, tt.name, got, ok, tt.want)
		}
	}
	for _, name := range []string{"MAP_32BIT", "REG_EFL", "ARCH_SET_FS", "SO_RCVTIMEO"} {
		if v, ok := constant(filters.ArchARM, name); ok {
			t.Errorf("arm has %s = %#x; want it absent", name, v)
		}
	}
}
