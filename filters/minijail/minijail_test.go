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
	if len(warns) != 1 || !strings.HasPrefix(warns[0], name+":5:1: @frequency ./renderer.frequency ignored") {
		t.Errorf("warnings %q, want the @frequency note", warns)
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
		"dir/a.policy":   {Data: []byte("read: 1\n@include b.policy\n")},
		"dir/b.policy":   {Data: []byte("write: 1\n@include a.policy\n")},
		"dir/bad.policy": {Data: []byte("write: 1\nopenat: arg2 == O_SYNCHRONOUS\n")},
	}
	tests := []struct{ name, src, want string }{
		{"constant", "openat: arg2 == O_RDONLY|O_BOGUS\n", `p.policy:1:26: invalid minijail seccomp policy: unknown constant "O_BOGUS"`},
		{"syscall", "read: 1\nreadd: 1\n", `p.policy:2:1: invalid minijail seccomp policy: unknown syscall "readd" on x86_64`},
		{"arg", "read: arg6 == 1\n", `p.policy:1:7: invalid minijail seccomp policy: "arg6": want arg0 to arg5`},
		{"op", "read: arg0 =~ 1\n", `p.policy:1:12: invalid minijail seccomp policy: unexpected "="`},
		{"action", "read: arg0 == 1; return\n", "p.policy:1:24: invalid minijail seccomp policy: missing value"},
		{"word", "read: deny\n", `p.policy:1:7: invalid minijail seccomp policy: unknown action "deny"`},
		{"duplicate", "read: 1\n\nread: 1\n", "p.policy:3:1: invalid minijail seccomp policy: read is already filtered at p.policy:1:1"},
		{"range", "madvise: arg2 >= 1 && arg2 <= 4\n", "p.policy:1:10: invalid minijail seccomp policy: madvise: conditions on arg2 ANDed"},
		{"continued", "prctl: arg0 == 1 || \\\n  arg0 == PR_BOGUS\n", `p.policy:2:11: invalid minijail seccomp policy: unknown constant "PR_BOGUS"`},
		{"missing include", "@include ./nope.policy\n", "p.policy:1:1: invalid minijail seccomp policy: @include dir/nope.policy: open dir/nope.policy: file does not exist"},
		{"cycle", "@include a.policy\n", "dir/b.policy:2:1: invalid minijail seccomp policy: @include dir/a.policy forms a cycle"},
		{"in include", "@include bad.policy\n", `dir/bad.policy:2:17: invalid minijail seccomp policy: unknown constant "O_SYNCHRONOUS"`},
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
