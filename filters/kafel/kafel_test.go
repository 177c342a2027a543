package kafel

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

const (
	allow  = filters.ActionAllow
	errno  = filters.ActionErrno
	killT  = filters.ActionKillThread
	killP  = filters.ActionKillProcess
	notify = filters.ActionUserNotif
)

func readFile(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func loadNsjail(t *testing.T, file string) *filters.Source {
	t.Helper()
	src, err := LoadNsjail("testdata/"+file, readFile(t, file), Options{ReadFile: os.ReadFile})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func loadKafel(t *testing.T, text string) filters.Stack {
	t.Helper()
	src, err := Load("inline.kafel", []byte(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return src.Stack()
}

// TestBashFakeGeteuid: nsjail's bash-with-fake-geteuid config, in text
// and in JSON, gives Kafel's verdicts: geteuid fails with 1337, ptrace
// and sched_setaffinity with EPERM, syslog kills the process, the rest
// is allowed (DEFAULT ALLOW).
func TestBashFakeGeteuid(t *testing.T) {
	for _, f := range []string{"bash-with-fake-geteuid.cfg", "bash-with-fake-geteuid.json"} {
		t.Run(f, func(t *testing.T) {
			src := loadNsjail(t, f)
			if src.Format != NsjailFormatName || len(src.Filters) != 1 || src.Stacked {
				t.Fatalf("source %+v, want one nsjail filter", src)
			}
			filterstest.RunVerdicts(t, src.Stack(), []filterstest.VerdictCase{
				{Name: "geteuid", Syscall: "geteuid", Action: errno, Data: 1337},
				{Name: "ptrace", Syscall: "ptrace", Action: errno, Data: 1},
				{Name: "sched_setaffinity", Syscall: "sched_setaffinity", Action: errno, Data: 1},
				{Name: "syslog", Syscall: "syslog", Action: killP},
				{Name: "read", Syscall: "read", Action: allow},
				{Name: "getuid", Syscall: "getuid", Action: allow},
				{Name: "i386 is another arch: KILL", Arch: filters.ArchI386, Syscall: "read", Action: killT},
			})
		})
	}
}

// TestImagemagick: an allow-list over many seccomp_string lines with
// Kafel's names (newstat is stat, newfstat fstat), DEFAULT KILL_PROCESS.
func TestImagemagick(t *testing.T) {
	src := loadNsjail(t, "imagemagick-convert.cfg")
	filterstest.RunVerdicts(t, src.Stack(), []filterstest.VerdictCase{
		{Name: "read", Syscall: "read", Action: allow},
		{Name: "newstat is stat", Syscall: "stat", Action: allow},
		{Name: "newfstat is fstat", Syscall: "fstat", Action: allow},
		{Name: "madvise, last name", Syscall: "madvise", Action: allow},
		{Name: "socket not listed", Syscall: "socket", Action: killP},
		{Name: "ptrace not listed", Syscall: "ptrace", Action: killP},
	})
}

// TestUnotify: seccomp_unotify makes nsjail install its USER_NOTIF
// filter first (DEFAULT ALLOW), then the policy; the kernel takes the
// most restrictive verdict of the two.
func TestUnotify(t *testing.T) {
	src := loadNsjail(t, "home-documents-unotify.cfg")
	if !src.Stacked || len(src.Filters) != 2 || src.Filters[0].Name != "home-documents-unotify/unotify" {
		t.Fatalf("filters %v, want the unotify filter then the policy", src.Filters)
	}
	if n := src.Filters[1].Notes; len(n) != 1 || !strings.Contains(n[0], "SECCOMP_FILTER_FLAG_LOG") {
		t.Errorf("notes %q, want the seccomp_log one", n)
	}
	filterstest.RunVerdicts(t, src.Stack(), []filterstest.VerdictCase{
		{Name: "openat notified", Syscall: "openat", Action: notify},
		{Name: "connect notified", Syscall: "connect", Action: notify},
		{Name: "newfstatat notified", Syscall: "newfstatat", Action: notify},
		{Name: "read allowed by both", Syscall: "read", Action: allow},
		{Name: "ptrace killed by the policy", Syscall: "ptrace", Action: killP},
		{Name: "process_vm_writev killed", Syscall: "process_vm_writev", Action: killP},
	})
	filterstest.RunVerdicts(t, filters.Stack{src.Filters[0]}, []filterstest.VerdictCase{
		{Name: "unotify alone allows ptrace", Syscall: "ptrace", Action: allow},
	})
}

// TestServerPolicy: a seccomp_policy_file with POLICY/USE, #define,
// masks, argument tests and every action, first match winning.
func TestServerPolicy(t *testing.T) {
	src := loadNsjail(t, "server-file.cfg")
	const hi = 1 << 32
	filterstest.RunVerdicts(t, src.Stack(), []filterstest.VerdictCase{
		{Name: "read (stdio used twice)", Syscall: "read", Action: allow},
		{Name: "write stdout", Syscall: "write", Args: []uint64{1}, Action: allow},
		{Name: "write fd 3: DEFAULT KILL", Syscall: "write", Args: []uint64{3}, Action: killT},
		{Name: "write fd is 4 bytes: Kafel tests the low word", Syscall: "write", Args: []uint64{hi | 1}, Action: allow},
		{Name: "writev fd is 8 bytes: both words", Syscall: "writev", Args: []uint64{hi | 1}, Action: killT},
		{Name: "mmap PROT_EXEC", Syscall: "mmap", Args: []uint64{0, 4096, 5}, Action: killP},
		{Name: "mmap rw", Syscall: "mmap", Args: []uint64{0, 4096, 3}, Action: allow},
		{Name: "mprotect PROT_EXEC", Syscall: "mprotect", Args: []uint64{0, 4096, 4}, Action: killP},
		{Name: "mprotect r", Syscall: "mprotect", Args: []uint64{0, 4096, 1}, Action: allow},
		{Name: "socket inet stream", Syscall: "socket", Args: []uint64{2, 1, 0}, Action: allow},
		{Name: "socket inet6 stream", Syscall: "socket", Args: []uint64{10, 1, 0}, Action: allow},
		{Name: "socket inet dgram: ERRNO(97)", Syscall: "socket", Args: []uint64{2, 2, 0}, Action: errno, Data: 97},
		{Name: "socket unix dgram", Syscall: "socket", Args: []uint64{1, 2, 0}, Action: allow},
		{Name: "sendto flags 0", Syscall: "sendto", Args: []uint64{3, 0, 0, 0}, Action: allow},
		{Name: "sendto MSG_DONTWAIT", Syscall: "sendto", Args: []uint64{3, 0, 0, 0x40}, Action: killT},
		{Name: "openat O_RDONLY", Syscall: "openat", Args: []uint64{0, 0, 0}, Action: allow},
		{Name: "openat O_WRONLY", Syscall: "openat", Args: []uint64{0, 0, 1}, Action: errno, Data: 1},
		{Name: "openat O_RDWR|O_CREAT", Syscall: "openat", Args: []uint64{0, 0, 0o102}, Action: errno, Data: 1},
		{Name: "SYSCALL[39] is getpid", Syscall: "getpid", Action: allow},
		{Name: "ioctl TCGETS: LOG", Syscall: "ioctl", Args: []uint64{0, 0x5401}, Action: filters.ActionLog},
		{Name: "ioctl other: ERRNO(38) after it", Syscall: "ioctl", Args: []uint64{0, 0x5402}, Action: errno, Data: 38},
		{Name: "ptrace: TRACE(7)", Syscall: "ptrace", Action: filters.ActionTrace, Data: 7},
		{Name: "connect: USER_NOTIF", Syscall: "connect", Action: notify},
		{Name: "geteuid: DEFAULT KILL", Syscall: "geteuid", Action: killT},
	})
}

// TestSemantics: first match wins even for a rule whose action is the
// default; DEFAULT is KILL when absent; numbers in every notation;
// negation, masks, declared arguments and ON guards.
func TestSemantics(t *testing.T) {
	s := loadKafel(t, `
#define SIXTEEN 0x10
ERRNO(1) { read { fd == 0 } },
ALLOW { read },
KILL { write { fd == 2 } },
ALLOW { write, close { !(fd == 1) && fd < SIXTEEN } },
ERRNO(2) { close },
ERRNO(3) { dup { fildes == 010 || fildes == 0b101 } },
ERRNO(4) { dup },
ALLOW { lseek { (whence & 0x3) == 1 }, ptrace(a, b) { b == 42 } },
ERRNO(5) { lseek { (whence & 0x1) == 3 } },
ERRNO(6) { lseek { (whence & 0x1) != 3 } },
ALLOW { getpid ON aarch64, getppid ON { x86_64, arm } },
ERRNO(7) { kill { pid == -1 } }
`)
	filterstest.RunVerdicts(t, s, []filterstest.VerdictCase{
		{Name: "read fd 0: first rule", Syscall: "read", Args: []uint64{0}, Action: errno, Data: 1},
		{Name: "read fd 5: second", Syscall: "read", Args: []uint64{5}, Action: allow},
		{Name: "write fd 2: KILL before ALLOW, though KILL is DEFAULT", Syscall: "write", Args: []uint64{2}, Action: killT},
		{Name: "write fd 1", Syscall: "write", Args: []uint64{1}, Action: allow},
		{Name: "close fd 3", Syscall: "close", Args: []uint64{3}, Action: allow},
		{Name: "close fd 1: negated", Syscall: "close", Args: []uint64{1}, Action: errno, Data: 2},
		{Name: "close fd 16: not below SIXTEEN", Syscall: "close", Args: []uint64{16}, Action: errno, Data: 2},
		{Name: "close fd is 4 bytes: high word ignored by != and <", Syscall: "close", Args: []uint64{1<<32 | 3}, Action: allow},
		{Name: "close high word set, low word 1: negated ==", Syscall: "close", Args: []uint64{1<<32 | 1}, Action: errno, Data: 2},
		{Name: "close high word set, low word 20", Syscall: "close", Args: []uint64{1<<32 | 20}, Action: errno, Data: 2},
		{Name: "dup octal 010", Syscall: "dup", Args: []uint64{8}, Action: errno, Data: 3},
		{Name: "dup binary 0b101", Syscall: "dup", Args: []uint64{5}, Action: errno, Data: 3},
		{Name: "dup 10", Syscall: "dup", Args: []uint64{10}, Action: errno, Data: 4},
		{Name: "lseek mask match", Syscall: "lseek", Args: []uint64{0, 0, 5}, Action: allow},
		{Name: "lseek value outside the mask never equals, so != holds", Syscall: "lseek", Args: []uint64{0, 0, 3}, Action: errno, Data: 6},
		{Name: "ptrace declared b", Syscall: "ptrace", Args: []uint64{0, 42}, Action: allow},
		{Name: "ptrace b 41: DEFAULT KILL", Syscall: "ptrace", Args: []uint64{0, 41}, Action: killT},
		{Name: "getpid guarded to aarch64", Syscall: "getpid", Action: killT},
		{Name: "getppid on x86_64", Syscall: "getppid", Action: allow},
		{Name: "kill -1 is 64-bit", Syscall: "kill", Args: []uint64{^uint64(0)}, Action: errno, Data: 7},
		{Name: "kill low word only -1", Syscall: "kill", Args: []uint64{0xffffffff}, Action: killT},
		{Name: "not named: DEFAULT is KILL when absent", Syscall: "getuid", Action: killT},
	})
	s = loadKafel(t, "ALLOW { read } ERRNO(5) { read, write } DEFAULT ERRNO(9)")
	filterstest.RunVerdicts(t, s, []filterstest.VerdictCase{
		{Name: "unconditional first wins", Syscall: "read", Action: allow},
		{Name: "write", Syscall: "write", Action: errno, Data: 5},
		{Name: "DEFAULT ERRNO(9)", Syscall: "open", Action: errno, Data: 9},
	})
}

// TestAarch64: the ABI chooses Kafel's table and the arch check.
func TestAarch64(t *testing.T) {
	src, err := Load("a.kafel", []byte("ALLOW { read, newfstatat } DEFAULT ERRNO(1)"), Options{Arch: filters.ArchAArch64})
	if err != nil {
		t.Fatal(err)
	}
	a := filters.ArchAArch64
	filterstest.RunVerdicts(t, src.Stack(), []filterstest.VerdictCase{
		{Name: "read", Arch: a, Syscall: "read", Action: allow},
		{Name: "fstatat", Arch: a, Syscall: "newfstatat", Action: allow},
		{Name: "write", Arch: a, Syscall: "write", Action: errno, Data: 1},
		{Name: "x86_64 killed", Syscall: "read", Action: killT},
	})
	if _, err := Load("a.kafel", []byte("ALLOW { open } DEFAULT KILL"), Options{Arch: filters.ArchAArch64}); err == nil {
		t.Error("open on aarch64 compiled; Kafel's aarch64 table has no open")
	}
}

// TestErrors: every refusal names the file, line and column and what
// is wrong.
func TestErrors(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"arg against arg", "ALLOW {\n  write { fd == count }\n}", "inline.kafel:2:11: argument `fd' compared with argument `count'"},
		{"unknown syscall", "ALLOW {\n  read, fstat\n}", "inline.kafel:2:9: Undefined identifier `fstat'"},
		{"did you mean", "ALLOW { fstat }", "newfstat"},
		{"include", "ALLOW { read }\n  #include \"base.policy\"\n", "inline.kafel:2:3: #include \"base.policy\": no include search path"},
		{"syntax", "ALLOW { read\nDEFAULT KILL", "inline.kafel:2:1: syntax error, unexpected DEFAULT"},
		{"errno range", "ERRNO(70000) { read }", "inline.kafel:1:7: Errno value 70000 out of range"},
		{"undefined policy", "USE nope DEFAULT KILL", "inline.kafel:1:5: Undefined policy `nope'"},
		{"undefined argument", "ALLOW { write { fdd == 1 } }", "inline.kafel:1:17: Undefined identifier `fdd'"},
		{"default twice", "DEFAULT KILL\nDEFAULT ALLOW", "inline.kafel:2:1: Redefinition of default action"},
		{"masked ordering", "ALLOW { write { (fd & 3) > 1 } }", "ordering comparison of a masked argument"},
		{"bad char", "ALLOW { read } @", "inline.kafel:1:16: unexpected char `@'"},
		{"comment", "ALLOW { read } /* open", "inline.kafel:1:16: unterminated comment"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("inline.kafel", []byte(tt.src), Options{})
			var se *filters.SourceError
			if !errors.As(err, &se) || !errors.Is(err, ErrBadPolicy) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want a *SourceError wrapping ErrBadPolicy containing %q", err, tt.want)
			}
		})
	}
}

// TestNsjailErrors: a seccomp_string's error is placed in the config, at
// the string's line; nsjail's own refusals are kept.
func TestNsjailErrors(t *testing.T) {
	for _, tt := range []struct{ name, cfg, want string }{
		{"in a seccomp_string", "name: \"x\"\nseccomp_string: \"ALLOW {\"\nseccomp_string: \"  read, bogus\"\nseccomp_string: \"}\"\n",
			"x.cfg:3:26: Undefined identifier `bogus'"},
		{"both", "seccomp_string: \"ALLOW { read }\"\nseccomp_policy_file: \"p.kafel\"\n", "x.cfg:2: both seccomp_policy_file and seccomp_string"},
		{"config syntax", "name: \"x\"\nseccomp_string: \"ALLOW { read }\n", "x.cfg:2:17: nsjail config: unterminated string"},
		// nsjail's own configs write one seccomp_string across lines.
		{"in a string across lines", "name: \"x\"\nseccomp_string: \"\n\tALLOW {\n\t\tread, bogus\n\t}\n\"\n",
			"x.cfg:4:9: Undefined identifier `bogus'"},
		{"after a string across lines", "description: \"a\nb\"\nseccomp_string: \"ALLOW { bogus }\"\n",
			"x.cfg:3:26: Undefined identifier `bogus'"},
		// A string that runs on: the rest of the line is read as fields.
		{"string runs on", "name: \"x\nseccomp_string: \"ALLOW { write } DEFAULT KILL\n",
			"x.cfg:2:18: nsjail config: unknown field \"ALLOW\": not a field of nsjail's config.proto"},
		{"unknown field", "name: \"x\"\nseccomp_strings: \"ALLOW { read }\"\n", "x.cfg:2:1: nsjail config: unknown field \"seccomp_strings\""},
		{"scalar without colon", "name \"x\"\nseccomp_string: \"ALLOW { read }\"\n", "x.cfg:1:6: nsjail config: field name: expected ':' before its value \"x\""},
		{"nested field without value", "mount {\n  dst: \"/\"\n  is_bind\n}\nseccomp_string: \"ALLOW { read }\"\n", "x.cfg:3:3: nsjail config: field is_bind has no value"},
		{"nested scalar without colon", "mount { dst \"/\" }\n", "x.cfg:1:13: nsjail config: field dst: expected ':'"},
		{"nested name not snake case", "mount { Dst: \"/\" }\n", "x.cfg:1:9: nsjail config: bad field name \"Dst\""},
		{"unterminated message", "mount {\n  dst: \"/\"\n", "x.cfg:1:7: nsjail config: unterminated message"},
		{"policy file unreadable", "seccomp_policy_file: \"/nonexistent/p.kafel\"\n", "x.cfg:1: seccomp_policy_file \"/nonexistent/p.kafel\": open /nonexistent/p.kafel: no such file or directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadNsjail("x.cfg", []byte(tt.cfg), Options{ReadFile: os.ReadFile})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// TestDetect: the testdata are detected as their formats, and not as the
// other one.
func TestDetect(t *testing.T) {
	for _, f := range []string{"bash-with-fake-geteuid.cfg", "bash-with-fake-geteuid.json", "imagemagick-convert.cfg", "home-documents-unotify.cfg", "server-file.cfg"} {
		if b := readFile(t, f); !DetectNsjail(b) || Detect(b) {
			t.Errorf("%s: DetectNsjail %v, Detect %v; want an nsjail config only", f, DetectNsjail(b), Detect(b))
		}
	}
	if b := readFile(t, "server.kafel"); !Detect(b) || DetectNsjail(b) {
		t.Errorf("server.kafel not detected as Kafel only")
	}
	// Only #include lines, as google/kafel's test/testdata/short_loop.policy.
	for _, s := range []string{"#include \"short_loop_b.policy\"\n", "// base\n#include \"a.policy\" \"b.policy\";\n\n#define X 1\n"} {
		if !Detect([]byte(s)) || DetectNsjail([]byte(s)) {
			t.Errorf("%q not detected as Kafel only", s)
		}
	}
	for _, s := range []string{"read: 1\n", "{\"defaultAction\": \"SCMP_ACT_ERRNO\"}", "[Service]\nSystemCallFilter=read\n",
		"#include \"x.policy\"\nseccomp:\n  default_action: errno\n"} {
		if Detect([]byte(s)) || DetectNsjail([]byte(s)) {
			t.Errorf("%q detected", s)
		}
	}
}

// TestX32Bit: Kafel's filter tests no x32 bit: an x32 number on
// AUDIT_ARCH_X86_64 matches no rule and gets DEFAULT, whatever it is.
func TestX32Bit(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want filters.Action
	}{{"ALLOW { read } DEFAULT ALLOW", allow}, {"ALLOW { read } DEFAULT ERRNO(1)", errno}} {
		prog := loadKafel(t, tt.src)[0]
		for _, nr := range []int32{filters.X32SyscallBit, filters.X32SyscallBit | 1} {
			res, err := filters.Emulate(prog, filters.SeccompData{Nr: nr, Arch: filters.AuditArchX86_64})
			if err != nil || res.Action != tt.want {
				t.Errorf("%q, nr %#x: %v (%v), want %v", tt.src, nr, res.Action, err, tt.want)
			}
		}
	}
}

// nestedWrite is a policy allowing write(1, ...) with its condition
// inside depth pairs of parentheses.
func nestedWrite(depth int) string {
	return "POLICY p { ALLOW { write { " + strings.Repeat("(", depth) + "fd == 1" + strings.Repeat(")", depth) + " } } } USE p DEFAULT KILL"
}

// TestNesting: parentheses nested up to MaxNesting (less the policy's
// two braces) still compile to the right filter; deeper is refused at
// the bracket that passes the cap, at its line and column.
func TestNesting(t *testing.T) {
	prog := loadKafel(t, nestedWrite(MaxNesting-3))[0]
	for _, tt := range []struct {
		fd   uint64
		want filters.Action
	}{{1, allow}, {2, killT}} {
		d := filters.SeccompData{Nr: 1, Arch: filters.AuditArchX86_64}
		d.Args[0] = tt.fd
		if res, err := filters.Emulate(prog, d); err != nil || res.Action != tt.want {
			t.Errorf("write(%d): %v (%v), want %v", tt.fd, res.Action, err, tt.want)
		}
	}
	for _, depth := range []int{MaxNesting - 2, 20000, 100000} {
		_, err := Load("inline.kafel", []byte(nestedWrite(depth)), Options{})
		// "POLICY p { ALLOW { write { " puts the first '(' at column 28;
		// two braces come before it.
		want := fmt.Sprintf("inline.kafel:1:%d: brackets nested deeper than %d", 28+MaxNesting-3, MaxNesting)
		if err == nil || !errors.Is(err, ErrBadPolicy) || err.Error() != want {
			t.Errorf("depth %d: err %v, want %q", depth, err, want)
		}
	}
}

// TestParenthesesBacktrack: a '(' that opens a boolean expression around
// value parentheses reads the same as without the outer ones.
func TestParenthesesBacktrack(t *testing.T) {
	for _, src := range []string{
		"ALLOW { write { ((((fd)) == 1) && (((count & 1)) == 0)) } } DEFAULT KILL",
		"ALLOW { write { !!!((((fd)) != 1) || !((count & 1) == 0)) } } DEFAULT KILL",
	} {
		prog := loadKafel(t, src)[0]
		for _, tt := range []struct {
			fd, count uint64
			want      filters.Action
		}{{1, 2, allow}, {1, 3, killT}, {2, 2, killT}} {
			d := filters.SeccompData{Nr: 1, Arch: filters.AuditArchX86_64}
			d.Args[0], d.Args[2] = tt.fd, tt.count
			if res, err := filters.Emulate(prog, d); err != nil || res.Action != tt.want {
				t.Errorf("%s: write(%d, _, %d): %v (%v), want %v", src, tt.fd, tt.count, res.Action, err, tt.want)
			}
		}
	}
}

// TestNsjailNoPolicy: a config without seccomp_string,
// seccomp_policy_file or "seccomp_unotify: true" is an error wrapping
// ErrNoPolicy, not a source of no filter.
func TestNsjailNoPolicy(t *testing.T) {
	for _, cfg := range []string{"name: \"x\"\nmount { dst: \"/\" }\n", "seccomp_unotify: false\n", `{"name": "x"}`} {
		src, err := LoadNsjail("x.cfg", []byte(cfg), Options{})
		if !errors.Is(err, ErrNoPolicy) || !strings.Contains(err.Error(), "x.cfg") {
			t.Errorf("%q: %v, %v; want an error naming x.cfg wrapping ErrNoPolicy", cfg, src, err)
		}
	}
}
