package analysis

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/oci"
	"golang.org/x/net/bpf"
)

// tDenylist is a default-allow policy without an arch check: it kills
// ptrace and denies execve on x86_64 only by number.
func tDenylist(t testing.TB) *filters.Program {
	return filterstest.Asm(t, "denylist",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 101, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 59, SkipTrue: 2},
		filterstest.Ret(filters.ActionAllow, 0),
		filterstest.Ret(filters.ActionKillProcess, 0),
		filterstest.Ret(filters.ActionErrno, 1),
	)
}

// tRuntimeFriendly allows what the Go runtime needs plus getpid, kills
// ptrace, and denies everything else with EPERM; foreign arches are killed
// and x32 gets ENOSYS.
func tRuntimeFriendly(t testing.TB, extra ...bpf.Instruction) *filters.Program {
	allow := []string{"getpid", "futex", "mmap", "munmap", "madvise", "rt_sigreturn", "rt_sigaction",
		"rt_sigprocmask", "sigaltstack", "clone", "rseq", "prlimit64", "sched_yield", "nanosleep",
		"epoll_create1", "epoll_ctl", "epoll_pwait", "eventfd2", "tgkill", "exit_group"}
	insns := []bpf.Instruction{
		filterstest.LdArch(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipTrue: 1},
		filterstest.Ret(filters.ActionKillProcess, 0),
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: filters.X32SyscallBit, SkipFalse: 1},
		filterstest.Ret(filters.ActionErrno, filters.ENOSYS),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 435, SkipFalse: 1}, // clone3
		filterstest.Ret(filters.ActionErrno, filters.ENOSYS),
	}
	insns = append(insns, extra...)
	for i, name := range allow {
		insns = append(insns, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(filters.ArchX86_64.Names[name]), SkipTrue: uint8(len(allow) - i + 1)})
	}
	insns = append(insns,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 101, SkipTrue: 2}, // ptrace
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0),
		filterstest.Ret(filters.ActionKillProcess, 0),
	)
	// Fix the skips: each allow jump lands on ret ALLOW.
	for i := range allow {
		j := insns[8+len(extra)+i].(bpf.JumpIf)
		j.SkipTrue = uint8(len(allow) - i + 1)
		insns[8+len(extra)+i] = j
	}
	return filterstest.Asm(t, "friendly", insns...)
}

type wantFinding struct {
	sev     Severity
	code    string
	syscall string
	filter  int
	msg     string // substring of Message
}

func checkFindings(t *testing.T, got []Finding, want []wantFinding) {
	t.Helper()
	if len(got) != len(want) {
		for _, f := range got {
			t.Logf("got %s %s %s filter %d: %s", f.Severity, f.Code, f.Syscall, f.Filter, f.Message)
		}
		t.Fatalf("got %d findings, want %d", len(got), len(want))
	}
	for i, w := range want {
		f := got[i]
		if f.Severity != w.sev || f.Code != w.code || f.Syscall != w.syscall || f.Filter != w.filter || !strings.Contains(f.Message, w.msg) {
			t.Errorf("finding %d = %s %s %q filter %d: %s\nwant %s %s %q filter %d containing %q", i, f.Severity, f.Code, f.Syscall, f.Filter, f.Message, w.sev, w.code, w.syscall, w.filter, w.msg)
		}
		if f.Hint == "" {
			t.Errorf("finding %d (%s) has no hint", i, f.Code)
		}
	}
}

func TestLint(t *testing.T) {
	friendly := tRuntimeFriendly(t)
	deadErrno := tRuntimeFriendly(t,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 62, SkipFalse: 1}, // kill
		filterstest.Ret(filters.ActionErrno, 1))
	dupRead := tRuntimeFriendly(t,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 39, SkipFalse: 1}, // getpid
		filterstest.Ret(filters.ActionErrno, 5))
	bigErrno := tRuntimeFriendly(t,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 103, SkipFalse: 1}, // syslog
		filterstest.Ret(filters.ActionErrno, 12345))
	killsFutex := filterstest.Asm(t, "kills-futex",
		filterstest.LdArch(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipTrue: 1},
		filterstest.Ret(filters.ActionKillProcess, 0),
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: filters.X32SyscallBit, SkipFalse: 1},
		filterstest.Ret(filters.ActionErrno, filters.ENOSYS),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 202, SkipFalse: 1}, // futex
		filterstest.Ret(filters.ActionKillThread, 0),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 435, SkipFalse: 1}, // clone3
		filterstest.Ret(filters.ActionErrno, filters.ENOSYS),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 62, SkipFalse: 1}, // kill
		filterstest.Ret(filters.ActionTrap, 0),
		filterstest.Ret(filters.ActionAllow, 0),
	)
	invalidP := &filters.Program{Name: "bad", Insns: []bpf.RawInstruction{filterstest.Raw(filters.Ld|filters.W|filters.Abs, 0, 0, 6), filterstest.Raw(filters.Ret|filters.A, 0, 0, 0)}}
	long := &filters.Program{Name: "long", Insns: slices.Repeat([]bpf.RawInstruction{filterstest.Raw(filters.Ret|filters.K, 0, 0, uint32(filters.ActionAllow))}, filters.MaxInsns+1)}
	// 1015 loads and a ret: 1020 eBPF instructions after conversion
	// (Program.EBPFLen), so 32 copies need 32·1024 − 4 = 32764 on the path.
	k1020 := &filters.Program{Name: "k1020", Insns: append(slices.Repeat([]bpf.RawInstruction{filterstest.Raw(0x20, 0, 0, 0)}, 1015), filterstest.Raw(filters.Ret|filters.K, 0, 0, uint32(filters.ActionAllow)))}

	tests := []struct {
		name string
		s    filters.Stack
		opts LintOptions
		want []wantFinding
	}{
		{"runtime-friendly allowlist is clean", filters.Stack{friendly}, LintOptions{Workload: []string{"getpid"}}, nil},
		{"workload killed, denied, unknown", filters.Stack{friendly}, LintOptions{Workload: []string{"ptrace", "close", "nosuch"}}, []wantFinding{
			{SeverityError, LintUnknownSyscall, "nosuch", -1, "not in the x86_64 table"},
			{SeverityError, LintWorkloadKilled, "ptrace", 0, "killed (KILL_PROCESS) by filter 0"},
			{SeverityWarning, LintWorkloadDenied, "close", 0, "errno 1"},
		}},
		{"denylist without arch check is bypassable", filters.Stack{tDenylist(t)}, LintOptions{}, []wantFinding{
			{SeverityError, LintBypassI386, "", 0, "2 syscalls denied on x86_64 are allowed through the i386 ABI"},
			{SeverityError, LintBypassX32, "", 0, "execve, ptrace"},
		}},
		{"dead rule", filters.Stack{deadErrno}, LintOptions{}, []wantFinding{
			{SeverityWarning, LintDeadRule, "kill", 0, "returns ERRNO(1), the same as the default action"},
		}},
		{"errno above MAX_ERRNO", filters.Stack{bigErrno}, LintOptions{}, []wantFinding{
			{SeverityWarning, LintErrnoCapped, "", 0, "returns ERRNO(12345), but the kernel caps the errno at 4095 (MAX_ERRNO): the syscall fails with errno 4095, not 12345"},
		}},
		{"duplicate rule", filters.Stack{dupRead}, LintOptions{}, []wantFinding{
			{SeverityWarning, LintDuplicateRule, "getpid", 0, "instruction 10 of filter 0 (friendly) in compile's listing: the rule for getpid never applies; an earlier rule always decides getpid (ERRNO(5))"},
		}},
		{"runtime needs killed", filters.Stack{killsFutex}, LintOptions{Workload: []string{"kill"}}, []wantFinding{
			{SeverityError, LintRuntimeNeeds, "futex", 0, "futex is killed (KILL_THREAD) by filter 0"},
			{SeverityError, LintWorkloadKilled, "kill", 0, "trapped (TRAP)"},
		}},
		{"runtime needs denied across a stack", filters.Stack{friendly, filterstest.Asm(t, "no-mmap",
			filterstest.LdNr(), bpf.JumpIf{Cond: bpf.JumpEqual, Val: 9, SkipFalse: 1}, filterstest.Ret(filters.ActionErrno, 12), filterstest.Ret(filters.ActionAllow, 0))}, LintOptions{}, []wantFinding{
			{SeverityError, LintInstallDenied, "seccomp", 0, "filter 0 (friendly) returns SECCOMP_RET_ERRNO(1) for seccomp(2); installing filter 2 of 2 would fail"},
			{SeverityWarning, LintRuntimeNeeds, "mmap", 1, "mmap fails with errno 12"},
		}},
		{"defeated cache", filters.Stack{friendly.DefeatCache()}, LintOptions{Workload: []string{"getpid"}}, []wantFinding{
			{SeverityInfo, LintUncached, "", -1, "20 syscalls allowed on x86_64 run the filters on every call (load 20)"},
			{SeverityInfo, LintWorkloadCost, "getpid", 0, "getpid runs the filters on every call"},
		}},
		{"invalid filter", filters.Stack{friendly, invalidP}, LintOptions{Workload: []string{"getpid"}}, []wantFinding{
			{SeverityError, LintInvalid, "", 1, "pc 0: ld [6]: loads must be 4-byte aligned"},
		}},
		{"filter too long", filters.Stack{long}, LintOptions{}, []wantFinding{
			{SeverityError, LintTooLong, "", 0, "4097 instructions"},
		}},
		{"path limit at 33", filters.Stack{k1020}, LintOptions{Count: 33}, []wantFinding{
			{SeverityError, LintPathLimit, "", -1, "33 filters need 33788 instructions"},
		}},
		{"32 fit", filters.Stack{k1020}, LintOptions{Count: 32}, nil},
		{"default-allow without x32 check", filters.Stack{filterstest.Asm(t, "no-x32-check",
			filterstest.LdArch(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipTrue: 1},
			filterstest.Ret(filters.ActionKillProcess, 0),
			filterstest.LdNr(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 336, SkipFalse: 1}, // uprobe: x32 has no such syscall, so no named bypass
			filterstest.Ret(filters.ActionErrno, 1),
			filterstest.Ret(filters.ActionAllow, 0))}, LintOptions{}, []wantFinding{
			{SeverityWarning, LintX32Unhandled, "", 0, "fall through to ALLOW"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Lint(tt.s, tt.opts)
			checkFindings(t, got, tt.want)
			wantErr := false
			for _, w := range tt.want {
				wantErr = wantErr || w.sev == SeverityError
			}
			if HasErrors(got) != wantErr {
				t.Errorf("HasErrors() = %v, want %v", HasErrors(got), wantErr)
			}
		})
	}
}

func TestSeverity(t *testing.T) {
	for s, want := range map[Severity]string{SeverityInfo: "info", SeverityWarning: "warning", SeverityError: "error"} {
		got, err := s.MarshalText()
		if s.String() != want || err != nil || string(got) != want {
			t.Errorf("Severity(%d) = %q/%q, want %q", int(s), s.String(), got, want)
		}
	}
}

// TestLintUserNotif: a filter that can return SECCOMP_RET_USER_NOTIF, which
// run refuses, is an error naming the syscalls it notifies for.
func TestLintUserNotif(t *testing.T) {
	notifyJSON := `{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
"syscalls": [{"names": ["write", "read"], "action": "SCMP_ACT_NOTIFY"}]}`
	oci, err := oci.Parse("notify.json", []byte(notifyJSON), oci.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := len(filters.ArchX86_64.SortedNumbers())
	const hint = "run refuses it: no listener; replace the notify action (e.g. SCMP_ACT_NOTIFY) with allow or errno to measure the policy"
	tests := []struct {
		name    string
		s       filters.Stack
		filter  int
		syscall string
		msg     string // whole message; "" for no finding
	}{
		{"no notify", filters.Stack{tRuntimeFriendly(t)}, 0, "", ""},
		{"raw ret USER_NOTIF", filters.Stack{filterstest.Asm(t, "notify", filterstest.LdNr(), filterstest.Ret(filters.ActionUserNotif, 0))}, 0, "",
			fmt.Sprintf("filter 0 (notify) returns SECCOMP_RET_USER_NOTIF for %d syscalls on x86_64: read, write, open, close, stat, fstat, lstat, poll (+%d more); without a listener they would fail with ENOSYS", all, all-8)},
		{"OCI SCMP_ACT_NOTIFY", filters.Stack{oci}, 0, "",
			"filter 0 (notify) returns SECCOMP_RET_USER_NOTIF for 2 syscalls on x86_64: read, write; without a listener they would fail with ENOSYS"},
		{"one syscall, second filter", filters.Stack{tRuntimeFriendly(t), filterstest.Asm(t, "notify-read",
			filterstest.LdNr(), bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 1}, filterstest.Ret(filters.ActionUserNotif, 0), filterstest.Ret(filters.ActionAllow, 0))}, 1, "read",
			"filter 1 (notify-read) returns SECCOMP_RET_USER_NOTIF for 1 syscall on x86_64: read; without a listener it would fail with ENOSYS"},
		{"argument-dependent", filters.Stack{filterstest.Asm(t, "notify-arg",
			filterstest.LdNr(), bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 3},
			filterstest.LdArg(0, false), bpf.JumpIf{Cond: bpf.JumpEqual, Val: 5, SkipFalse: 1}, filterstest.Ret(filters.ActionUserNotif, 0),
			filterstest.Ret(filters.ActionAllow, 0))}, 0, "",
			"filter 0 (notify-arg) returns SECCOMP_RET_USER_NOTIF at instruction 4 (compile's listing), for no x86_64 syscall with all arguments 0 (other arguments or ABIs may reach it); without a listener the syscall would fail with ENOSYS"},
		{"invalid filter", filters.Stack{&filters.Program{Name: "bad", Insns: []bpf.RawInstruction{
			filterstest.Raw(filters.Ld|filters.W|filters.Abs, 0, 0, 6), filterstest.Raw(filters.Ret|filters.K, 0, 0, uint32(filters.ActionUserNotif))}}}, 0, "",
			"filter 0 (bad) returns SECCOMP_RET_USER_NOTIF at instruction 1 (compile's listing); without a listener the syscall would fail with ENOSYS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Finding
			for _, f := range Lint(tt.s, LintOptions{}) {
				if f.Code == "user-notif" {
					got = append(got, f)
				}
			}
			if tt.msg == "" {
				if len(got) != 0 {
					t.Fatalf("got %d user-notif findings, want none: %+v", len(got), got)
				}
				return
			}
			want := Finding{Severity: SeverityError, Code: "user-notif", Filter: tt.filter, Syscall: tt.syscall, Message: tt.msg, Hint: hint}
			if len(got) != 1 || got[0] != want {
				t.Errorf("got %+v\nwant [%+v]", got, want)
			}
		})
	}
}

// TestLintSourceWarnings: the loader's warnings (Program.Warnings) become
// warning findings, once per distinct program.
func TestLintSourceWarnings(t *testing.T) {
	oci, err := oci.Parse("x.json", []byte(`{"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["notasyscall"], "action": "SCMP_ACT_ERRNO"}]}`), oci.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const hint = "fix the source at the place named; the filter is built as if the item were not there"
	tests := []struct {
		name string
		s    filters.Stack
		want []Finding
	}{
		{"no warnings", filters.Stack{tRuntimeFriendly(t)}, nil},
		{"OCI unknown syscall, cycled", filters.Stack{tRuntimeFriendly(t), oci, oci}, []Finding{{Severity: SeverityWarning, Code: "source-warning", Filter: 1,
			Message: `filter 1 (x): x.json:2:25: syscall "notasyscall" is unknown on every architecture of the profile; runc skips it too`, Hint: hint}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Finding
			for _, f := range Lint(tt.s, LintOptions{}) {
				if f.Code == "source-warning" {
					got = append(got, f)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestLintForeignABI: a filter for i386 only (an AOSP *-x86.policy) is
// named as such when an x86_64 stack is linted; one for x86_64 is not.
func TestLintForeignABI(t *testing.T) {
	only := func(audit uint32) *filters.Program {
		return filterstest.Asm(t, "only",
			filterstest.LdArch(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: audit, SkipTrue: 1},
			filterstest.Ret(filters.ActionKillProcess, 0),
			filterstest.Ret(filters.ActionAllow, 0))
	}
	for audit, want := range map[uint32]bool{filters.AuditArchI386: true, filters.AuditArchX86_64: false} {
		got := false
		for _, f := range Lint(filters.Stack{only(audit)}, LintOptions{}) {
			if f.Code == LintForeignABI {
				got = strings.Contains(f.Message, "written for i386, not x86_64")
			}
		}
		if got != want {
			t.Errorf("audit %#x: foreign-abi finding %v, want %v", audit, got, want)
		}
	}
}

// TestLintRuntimeClone: the runtime-needs check calls clone with the flags
// Go's newosproc and glibc's pthread_create pass, so a policy that allows
// only thread-creating clones (crosvm's common device policy: arg0 &
// CLONE_THREAD) gets no finding, and one that allows Go's flags only is
// told glibc's are killed.
func TestLintRuntimeClone(t *testing.T) {
	names := `"futex", "mmap", "munmap", "madvise", "rt_sigreturn", "rt_sigaction", "rt_sigprocmask", "sigaltstack",
"rseq", "prlimit64", "sched_yield", "nanosleep", "epoll_create1", "epoll_ctl", "epoll_pwait", "eventfd2", "tgkill", "exit_group"`
	for _, tt := range []struct {
		name, clone string
		want        []wantFinding
	}{
		{"thread bit", `{"index": 0, "value": 65536, "valueTwo": 65536, "op": "SCMP_CMP_MASKED_EQ"}`, nil},
		{"go flags only", fmt.Sprintf(`{"index": 0, "value": %d, "op": "SCMP_CMP_EQ"}`, goCloneFlags),
			[]wantFinding{{SeverityError, LintRuntimeNeeds, "clone", 0, "with the flags glibc's pthread_create passes (arg0 0x3d0f00)"}}},
		{"fork only", `{"index": 0, "value": 17, "op": "SCMP_CMP_EQ"}`,
			[]wantFinding{{SeverityError, LintRuntimeNeeds, "clone", 0, "with the flags Go's newosproc passes (arg0 0x50f00)"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `{"defaultAction": "SCMP_ACT_KILL_PROCESS", "architectures": ["SCMP_ARCH_X86_64"], "syscalls": [
{"names": [` + names + `], "action": "SCMP_ACT_ALLOW"},
{"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
{"names": ["clone"], "action": "SCMP_ACT_ALLOW", "args": [` + tt.clone + `]}]}`
			p, err := oci.Parse("p.json", []byte(src), oci.Options{NoENOSYSStub: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []Finding
			for _, f := range Lint(filters.Stack{p}, LintOptions{}) {
				if f.Code == LintRuntimeNeeds {
					got = append(got, f)
				}
			}
			checkFindings(t, got, tt.want)
		})
	}
}

// TestLintPerABIStack: filters for other ABIs that let native calls
// through are by design when the stack also has a filter for the native
// ABI (systemd's per-ABI stacks): one per-abi-stack info, no foreign-abi
// warning. Alone, the same filter is still a surprise worth a warning,
// as is a foreign filter that kills native calls.
func TestLintPerABIStack(t *testing.T) {
	only := func(audit uint32, other filters.Action) *filters.Program {
		return filterstest.Asm(t, "only",
			filterstest.LdArch(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: audit, SkipTrue: 1},
			filterstest.Ret(other, 0),
			filterstest.LdNr(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 39, SkipTrue: 1},
			filterstest.Ret(filters.ActionAllow, 0),
			filterstest.Ret(filters.ActionErrno, 1))
	}
	native := only(filters.AuditArchX86_64, filters.ActionAllow)
	i386Pass := only(filters.AuditArchI386, filters.ActionAllow)
	i386Kill := only(filters.AuditArchI386, filters.ActionKillProcess)
	tests := []struct {
		name                string
		stack               filters.Stack
		wantForeign, wantPA int
	}{
		{"per-ABI stack", filters.Stack{native, i386Pass}, 0, 1},
		{"foreign filter alone", filters.Stack{i386Pass}, 1, 0},
		{"foreign filter kills native calls", filters.Stack{native, i386Kill}, 1, 0},
		{"native only", filters.Stack{native}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			foreign, perABI := 0, 0
			for _, f := range Lint(tt.stack, LintOptions{}) {
				switch f.Code {
				case LintForeignABI:
					foreign++
				case LintPerABI:
					perABI++
					if f.Severity != SeverityInfo || !strings.Contains(f.Message, "1 filter for x86_64, 1 filter for i386") {
						t.Errorf("per-abi finding %+v", f)
					}
				}
			}
			if foreign != tt.wantForeign || perABI != tt.wantPA {
				t.Errorf("foreign-abi %d, per-abi-stack %d; want %d, %d", foreign, perABI, tt.wantForeign, tt.wantPA)
			}
		})
	}
}

// TestLintStackWarnings: a stacked source's own warnings are stack
// findings placed at file:line; one whose ignored item would have denied
// something (FailsOpen) is an error, and so is one the source's consumer
// refuses the input for (Refused).
func TestLintStackWarnings(t *testing.T) {
	allow := filterstest.Asm(t, "allow", filterstest.Ret(filters.ActionAllow, 0))
	ws := []*filters.SourceError{
		{File: "u.service", Line: 3, Msg: `SystemCallFilter: unknown system call "reed", ignoring`, Hint: `did you mean "read"?`},
		{File: "u.service", Line: 4, Msg: `SystemCallFilter: unknown system call "ptrce", ignoring`, Hint: `did you mean "ptrace"?`, FailsOpen: true},
		{File: "u.service", Line: 5, Msg: `SystemCallFilter= gives write the errno EROFS inside an allow list; the unit does not start`, Refused: true},
	}
	checkFindings(t, Lint(filters.Stack{allow}, LintOptions{SourceWarnings: ws}), []wantFinding{
		{SeverityError, LintIgnoredDeny, "", -1, `u.service:4: SystemCallFilter: unknown system call "ptrce", ignoring; the stack lets through what the entry was to deny; did you mean "ptrace"?`},
		{SeverityError, LintRefused, "", -1, `u.service:5: SystemCallFilter= gives write the errno EROFS inside an allow list; the unit does not start`},
		{SeverityWarning, LintSourceWarning, "", -1, `u.service:3: SystemCallFilter: unknown system call "reed", ignoring; did you mean "read"?`},
	})
}

// TestPerABIText: the per-ABI count follows the ABIs the source names
// (systemd's "x86" is i386, "all" the SystemCallArchitectures filter),
// and falls back to Program.ABIs for filters it does not name.
func TestPerABIText(t *testing.T) {
	// argOnly denies clone only for nonzero flags on x86_64: with all
	// arguments 0 it allows everything, so Program.ABIs sees no ABI.
	argOnly := filterstest.Asm(t, "arg-only",
		filterstest.LdArch(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipFalse: 4},
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 56, SkipFalse: 2},
		bpf.LoadAbsolute{Off: 16, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 1},
		filterstest.Ret(filters.ActionAllow, 0),
		filterstest.Ret(filters.ActionErrno, 1))
	if abis := argOnly.ABIs(); len(abis) != 0 {
		t.Fatalf("argOnly.ABIs() = %v, want none (the premise of the test)", abis)
	}
	s := filters.Stack{argOnly, argOnly, argOnly, argOnly, tRuntimeFriendly(t)}
	// The fifth filter is not named: Program.ABIs counts it (x86_64).
	if got, want := perABIText(s, []string{"x86_64", "x86", "x32", "all"}), "2 filters for x86_64, 1 filter for i386, 1 filter for x32, 1 filter for all ABIs"; got != want {
		t.Errorf("with the source's ABIs: %q, want %q", got, want)
	}
	// Judged by verdicts alone, the argument-only filters count for no ABI.
	if got, want := perABIText(s, nil), "1 filter for x86_64"; got != want {
		t.Errorf("without the source's ABIs: %q, want %q", got, want)
	}
}
