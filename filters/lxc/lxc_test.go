package lxc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/beats"
	"github.com/seccompbench/seccompbench/filters/internal/formattest"
)

// TestDetect also covers the misdiagnosis case: an LXC policy is text that
// formats.DetectFormat hands to the Beats parser, which fails with a YAML
// error about line 2.
func TestDetect(t *testing.T) {
	for _, f := range formattest.Files(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if got, want := Detect(b), filepath.Base(f) == "lxc.seccomp"; got != want {
			t.Errorf("Detect(%s) = %v, want %v", f, got, want)
		}
	}
	for _, s := range []string{"2\nwhitelist\nread\n", "2\r\nblacklist errno 1\r\n", "1\nallowlist\n0\n"} {
		if !Detect([]byte(s)) {
			t.Errorf("Detect(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"2\n", "2\nread\n", "- 2\n", "default_action: errno\n"} {
		if Detect([]byte(s)) {
			t.Errorf("Detect(%q) = true, want false", s)
		}
	}
	if _, err := beats.Parse("lxc.seccomp", formattest.Read(t, "lxc.seccomp")); err == nil {
		t.Error("the Beats parser accepts lxc.seccomp; the detector order no longer matters")
	}
}

// TestVerdicts checks the example against verdicts worked out by hand: a
// denylist allows what it does not list; x86_64, x86 and x32 are
// filtered; no ENOSYS stub.
func TestVerdicts(t *testing.T) {
	progs, warns, err := Load("lxc.seccomp", formattest.Read(t, "lxc.seccomp"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := progs[0]
	if p.Name != "lxc" {
		t.Errorf("name %q, want lxc", p.Name)
	}
	wantWarns := []string{"lxc.seccomp:19:1: LXC adds the rules under [x86_64] to every architecture it filters on this host (x86_64, x86, x32)"}
	if len(warns) != len(wantWarns) {
		t.Fatalf("warnings %q, want %d", warns, len(wantWarns))
	}
	for i, w := range wantWarns {
		if !strings.HasPrefix(warns[i], w) {
			t.Errorf("warning %q, want prefix %q", warns[i], w)
		}
	}
	x := filters.ArchX86_64
	tests := []struct {
		name  string
		arch  *filters.Arch
		args  []uint64
		want  filters.Action
		errno uint16
	}{
		{"read", x, nil, filters.ActionAllow, 0},
		{"kexec_load", x, nil, filters.ActionErrno, 38},
		{"kexec_load", filters.ArchI386, nil, filters.ActionErrno, 38},
		{"keyctl", filters.ArchX32, nil, filters.ActionErrno, 38},
		{"umount2", x, []uint64{0, 1}, filters.ActionErrno, 13}, // MNT_FORCE
		{"umount2", x, []uint64{0, 3}, filters.ActionErrno, 13}, // MNT_FORCE|MNT_DETACH
		{"umount2", x, []uint64{0, 2}, filters.ActionAllow, 0},  // MNT_DETACH
		{"unshare", x, []uint64{0x10000000}, filters.ActionErrno, 1},
		{"unshare", x, []uint64{0x10020000}, filters.ActionErrno, 1},
		{"unshare", x, []uint64{0x20000}, filters.ActionAllow, 0},
		{"ioctl", x, []uint64{0, 0x5412}, filters.ActionErrno, 1},
		{"ioctl", x, []uint64{0, 0x5401}, filters.ActionAllow, 0},
		{"ioperm", x, nil, filters.ActionKillThread, 0},
		{"ioperm", filters.ArchI386, nil, filters.ActionKillThread, 0}, // [x86_64] rules reach x86 too, as in LXC >= 3.2
		{"pidfd_open", x, nil, filters.ActionAllow, 0},
	}
	for _, tt := range tests {
		act, data := formattest.Verdict(t, p, tt.arch, tt.name, tt.args...)
		if act != tt.want || data != tt.errno {
			t.Errorf("%s %s(%#x) = %v/%d, want %v/%d", tt.arch, tt.name, tt.args, act, data, tt.want, tt.errno)
		}
	}
}

func TestAllowlist(t *testing.T) {
	src := "2\nallowlist errno 1\n[all]\nread\nwrite\nopenat errno 13 [2,0x3,&=,0x1]\nreboot notify\nptrace trap\nkill kill\n"
	progs, warns, err := Load("allow.seccomp", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %q", warns)
	}
	x := filters.ArchX86_64
	for _, tt := range []struct {
		name  string
		args  []uint64
		want  filters.Action
		errno uint16
	}{
		{"read", nil, filters.ActionAllow, 0},
		{"openat", []uint64{0, 0, 1}, filters.ActionErrno, 13}, // O_WRONLY
		{"openat", []uint64{0, 0, 0}, filters.ActionErrno, 1},  // the default
		{"reboot", nil, filters.ActionUserNotif, 0},
		{"ptrace", nil, filters.ActionTrap, 0},
		{"kill", nil, filters.ActionKillThread, 0},
		{"getpid", nil, filters.ActionErrno, 1},
	} {
		if act, data := formattest.Verdict(t, progs[0], x, tt.name, tt.args...); act != tt.want || data != tt.errno {
			t.Errorf("%s(%#x) = %v/%d, want %v/%d", tt.name, tt.args, act, data, tt.want, tt.errno)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"version", "3\ndenylist\n", `p.seccomp:1:1: invalid LXC seccomp policy: first line is "3", want the policy version 2`},
		{"v1", "1\nallowlist\n0\n", "p.seccomp:1:1: invalid LXC seccomp policy: version 1 policies"},
		{"type", "2\ngreylist\n", `p.seccomp:2:1: invalid LXC seccomp policy: Bad seccomp policy style "greylist"`},
		{"default", "2\ndenylist log\n", `p.seccomp:2:10: invalid LXC seccomp policy: unknown action "log"`},
		{"action", "2\ndenylist\n[all]\nmount deny\n", `p.seccomp:4:7: invalid LXC seccomp policy: unknown action "deny"`},
		{"errno", "2\ndenylist\nmount errno EPERM\n", `p.seccomp:3:7: invalid LXC seccomp policy: errno "EPERM": want a number`},
		{"section", "2\ndenylist\n[sparc]\n", "p.seccomp:3:1: invalid LXC seccomp policy: unknown section [sparc]"},
		{"op", "2\ndenylist\n  mount errno 1 [2,1,SCMP_CMP_BITS]\n", `p.seccomp:3:17: invalid LXC seccomp policy: condition [2,1,SCMP_CMP_BITS]: unknown op "SCMP_CMP_BITS"`},
		{"index", "2\ndenylist\nmount errno 1 [6,1,==]\n", `p.seccomp:3:15: invalid LXC seccomp policy: condition [6,1,==]: index "6", want 0 to 5`},
		{"no action", "2\ndenylist\nmount [2,1,==]\n", "p.seccomp:3:7: invalid LXC seccomp policy: condition without an action"},
		{"range", "2\ndenylist\nmadvise errno 1 [2,1,>=] [2,4,<=]\n", "p.seccomp:3:1: invalid LXC seccomp policy: madvise: several conditions on argument 2, not all equalities"},
		{"unclosed", "2\ndenylist\nmount errno 1 [2,1,==\n", "p.seccomp:3:15: invalid LXC seccomp policy: condition \"[2,1,==\" has no closing ]"},
		{"short", "2\n", "p.seccomp:2:1: invalid LXC seccomp policy: no policy type line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load("p.seccomp", []byte(tt.src), Options{})
			if err == nil {
				t.Fatal("no error")
			}
			var se *filters.SourceError
			if !errors.Is(err, ErrBadPolicy) || !errors.As(err, &se) {
				t.Errorf("error %v is no *filters.SourceError wrapping ErrBadPolicy", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestSectionsAsLXC: LXC's own example (doc/examples/seccomp-v2.conf) has
// [x86_64] and [x86] sections; LXC >= 3.2 adds every rule of both to the
// x86_64, x86 and x32 contexts it merges, so a rule under [x86] decides
// the call on x86_64 too, and one note per section header says so.
func TestSectionsAsLXC(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "real", "seccomp-v2.conf"))
	if err != nil {
		t.Fatal(err)
	}
	progs, warns, err := Load("seccomp-v2.conf", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 || !strings.HasPrefix(warns[0], "seccomp-v2.conf:3:1: LXC adds the rules under [x86_64]") ||
		!strings.HasPrefix(warns[1], "seccomp-v2.conf:10:1: LXC adds the rules under [x86]") {
		t.Errorf("warnings %q, want one note per section header", warns)
	}
	src := "2\nallowlist trap\n[x86_64]\nread\nwrite\n[x86]\ngetpid\n"
	progs2, _, err := Load("s.conf", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		p    *filters.Program
		arch *filters.Arch
		name string
		want filters.Action
	}{
		{progs[0], filters.ArchX86_64, "mount", filters.ActionAllow},
		{progs[0], filters.ArchI386, "read", filters.ActionAllow},
		{progs[0], filters.ArchX86_64, "getpid", filters.ActionTrap},
		{progs2[0], filters.ArchX86_64, "getpid", filters.ActionAllow}, // [x86] reaches x86_64
		{progs2[0], filters.ArchI386, "write", filters.ActionAllow},    // [x86_64] reaches x86
		{progs2[0], filters.ArchX32, "getpid", filters.ActionAllow},
		{progs2[0], filters.ArchX32, "getppid", filters.ActionTrap},
	} {
		if got, _ := formattest.Verdict(t, tt.p, tt.arch, tt.name); got != tt.want {
			t.Errorf("%s %s %s = %v, want %v", tt.p.Name, tt.arch, tt.name, got, tt.want)
		}
	}
}

func TestNearMiss(t *testing.T) {
	for s, want := range map[string]bool{"2\ngreylist\n": true, "1\nread\n": true, "2\n": false, "2\n\n": false, "20\nx\n": false} {
		if got := NearMiss([]byte(s)); got != want {
			t.Errorf("NearMiss(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestLintAgreesX32: LXC's deny list filters x32 as an architecture of
// its own, so lint must not claim the x32 bit goes unchecked while the
// filter denies kexec_load there.
func TestLintAgreesX32(t *testing.T) {
	progs, _, err := Load("lxc.seccomp", formattest.Read(t, "lxc.seccomp"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if act, _ := formattest.Verdict(t, progs[0], filters.ArchX32, "kexec_load"); act != filters.ActionErrno {
		t.Fatalf("x32 kexec_load = %v, want ERRNO", act)
	}
	for _, f := range analysis.Lint(filters.Stack{progs[0]}, analysis.LintOptions{}) {
		if f.Code == analysis.LintX32Unhandled || f.Code == analysis.LintBypassX32 {
			t.Errorf("lint: %s: %s", f.Code, f.Message)
		}
	}
}
