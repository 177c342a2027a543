package beats

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/oci"
	"golang.org/x/net/bpf"
)

// policiesDir holds the project's sample policies.
var policiesDir = filterstest.PoliciesDir

// summarize renders a policy's meaning (no positions, names or hashes) so
// that decoded policies can be compared as strings.
func summarize(p *Policy) string {
	var b strings.Builder
	b.WriteString("default=" + p.DefaultAction)
	for _, g := range p.Groups {
		b.WriteString(" | " + g.Action + ":")
		for _, n := range g.Names {
			b.WriteString(" " + n.Name)
		}
		for _, n := range g.NamesWithArgs {
			b.WriteString(" " + n.Name + "(")
			for i, a := range n.Arguments {
				if i > 0 {
					b.WriteString(" && ")
				}
				fmt.Fprintf(&b, "arg%d %s %#x", a.Position, a.Operation, a.Value)
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

func TestParsePolicyDecoding(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "yaml block",
			src:  "default_action: errno\nsyscalls:\n  - action: allow\n    names:\n      - read\n      - write\n",
			want: "default=errno | allow: read write",
		},
		{
			name: "yaml under seccomp key",
			src:  "seccomp:\n  default_action: allow\n  syscalls:\n    - action: kill_process\n      names: [ptrace]\n",
			want: "default=allow | kill_process: ptrace",
		},
		{
			name: "json",
			src:  `{"default_action": "errno", "syscalls": [{"action": "allow", "names": ["getpid"], "names_with_args": [{"name": "socket", "arguments": [{"position": 0, "operation": "Equal", "value": 2}]}]}]}`,
			want: "default=errno | allow: getpid socket(arg0 Equal 0x2)",
		},
		{
			name: "json under seccomp key, tab indented",
			src:  "{\n\t\"seccomp\": {\n\t\t\"default_action\": \"log\",\n\t\t\"syscalls\": [{\"action\": \"trap\", \"names\": [\"bpf\"]}]\n\t}\n}\n",
			want: "default=log | trap: bpf",
		},
		{
			name: "case-insensitive action and operation are canonicalized",
			src:  "default_action: ERRNO\nsyscalls:\n- action: Allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {position: 0, operation: lessthan, value: 1024}\n",
			want: "default=errno | allow: dup(arg0 LessThan 0x400)",
		},
		{
			name: "beats spelling argument, hex and octal values, defaults",
			src: "default_action: allow\nsyscalls:\n- action: errno\n  names_with_args:\n  - name: clone\n    arguments:\n" +
				"    - {argument: 0, operation: BitsSet, value: 0x10000000}\n  - name: umask\n    arguments:\n    - {operation: GreaterThan, value: 0o777}\n" +
				"  - name: kill\n    arguments:\n    - {position: 1, operation: Equal}\n",
			want: "default=allow | errno: clone(arg0 BitsSet 0x10000000) umask(arg0 GreaterThan 0x1ff) kill(arg1 Equal 0x0)",
		},
		{
			name: "several conditions and groups",
			src: "default_action: errno\nsyscalls:\n- action: allow\n  names_with_args:\n  - name: mmap\n    arguments:\n" +
				"    - {position: 2, operation: BitsNotSet, value: 4}\n    - {position: 5, operation: LessOrEqual, value: 18446744073709551615}\n" +
				"- action: trace\n  names: [mmap]\n",
			want: "default=errno | allow: mmap(arg2 BitsNotSet 0x4 && arg5 LessOrEqual 0xffffffffffffffff) | trace: mmap",
		},
		{
			name: "anchors and aliases",
			src:  "default_action: errno\nsyscalls:\n- action: &a allow\n  names: &n [getpid, getuid]\n- action: *a\n  names: [umask]\n",
			want: "default=errno | allow: getpid getuid | allow: umask",
		},
		{
			name: "null names_with_args next to names",
			src:  "default_action: errno\nsyscalls:\n- action: allow\n  names: [close]\n  names_with_args:\n",
			want: "default=errno | allow: close",
		},
		{
			name: "leading comment and document marker",
			src:  "# comment\n---\ndefault_action: errno\nsyscalls: [{action: allow, names: [read]}]\n",
			want: "default=errno | allow: read",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("dir/test.policy.yaml", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := summarize(p); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if p.Name != "test.policy" || p.Source != "dir/test.policy.yaml" {
				t.Errorf("Name, Source = %q, %q; want %q, %q", p.Name, p.Source, "test.policy", "dir/test.policy.yaml")
			}
			if len(p.SHA256) != 64 {
				t.Errorf("SHA256 = %q, want 64 hex digits", p.SHA256)
			}
		})
	}
}

func TestParsePolicyPositions(t *testing.T) {
	src := "seccomp:\n" + // 1
		"  default_action: errno\n" + // 2
		"  syscalls:\n" + // 3
		"    - action: allow\n" + // 4
		"      names: [read,  write]\n" + // 5
		"      names_with_args:\n" + // 6
		"        - name: socket\n" + // 7
		"          arguments:\n" + // 8
		"            - position: 1\n" + // 9
		"              operation: Equal\n" // 10
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	a := g.NamesWithArgs[0].Arguments[0]
	tests := []struct {
		name      string
		got, want Pos
	}{
		{"policy", p.Pos, Pos{2, 3}},
		{"default_action", p.DefaultActionPos, Pos{2, 19}},
		{"group", g.Pos, Pos{4, 7}},
		{"group action", g.ActionPos, Pos{4, 15}},
		{"names[0]", g.Names[0].Pos, Pos{5, 15}},
		{"names[1]", g.Names[1].Pos, Pos{5, 22}},
		{"names_with_args[0]", g.NamesWithArgs[0].Pos, Pos{7, 17}},
		{"argument", a.Pos, Pos{9, 15}},
		{"position", a.PositionPos, Pos{9, 25}},
		{"operation", a.OperationPos, Pos{10, 26}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s at %+v, want %+v", tt.name, tt.got, tt.want)
		}
	}
}

// policyErr returns the first *SourceError in err.
func policyErr(t *testing.T, err error) *filters.SourceError {
	t.Helper()
	if err == nil {
		t.Fatal("got no error")
	}
	if !errors.Is(err, ErrBadPolicy) {
		t.Fatalf("error %v does not wrap ErrBadPolicy", err)
	}
	var pe *filters.SourceError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is no *SourceError", err)
	}
	return pe
}

const header = "default_action: errno\nsyscalls:\n"

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		value     string
		msg       string // substring of Msg
		hint      string // substring of Hint
	}{
		{"syntax", "default_action: errno\nsyscalls: [\n", 2, 11, "", "parse YAML/JSON: sequence end token ']' not found", ""},
		{"duplicate key", "default_action: errno\ndefault_action: allow\n", 2, 1, "", `mapping key "default_action" already defined`, ""},
		{"empty", "", 1, 1, "", "empty policy", "want default_action and syscalls"},
		{"only comments", "# nothing\n", 1, 1, "", "empty policy", ""},
		{"two documents", header + "- {action: allow, names: [read]}\n---\ndefault_action: allow\n", 5, 1, "", "more than one YAML document", ""},
		{"not a mapping", "- read\n", 1, 1, "", "policy must be a mapping, not a list", "want keys"},
		{"unknown top key", "default_action: errno\nsycalls: []\n", 2, 1, "sycalls", `unknown key "sycalls" in policy`, `did you mean "syscalls"?`},
		{"dotted beats key", "seccomp.default_action: errno\n", 1, 1, "seccomp.default_action", "unknown key", `write "default_action" nested under a seccomp: key`},
		{"oci key", `{"defaultAction": "SCMP_ACT_ERRNO"}`, 1, 2, "defaultAction", `unknown key "defaultAction"`, "looks like an OCI/Docker seccomp profile; this schema wants seccomp, default_action, syscalls"},
		{"seccomp next to policy keys", "seccomp:\n  default_action: errno\nsyscalls: []\n", 3, 1, "syscalls", `key "syscalls" next to a seccomp: key`, ""},
		{"empty seccomp", "seccomp:\n", 1, 1, "", "empty policy under seccomp:", ""},
		{"unknown group key", header + "- action: allow\n  name: [read]\n", 4, 3, "name", `unknown key "name" in syscall group`, `did you mean "names"?`},
		{"unknown argument key", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {position: 0, op: Equal}\n", 7, 21, "op", `unknown key "op" in argument condition`, "want position, argument, operation, value"},
		{"names is a string", header + "- action: allow\n  names: read\n", 4, 10, "read", "names must be a list, not a string", "[read, write]"},
		{"name is an integer", header + "- action: allow\n  names: [39]\n", 4, 11, "39", "syscall name must be a string, not an integer", ""},
		{"action is a list", header + "- action: [allow]\n  names: [read]\n", 3, 11, "", "action must be a string, not a list", "want one of kill_process"},
		{"group is a string", header + "- allow\n", 3, 3, "allow", "syscall group must be a mapping, not a string", "want keys action, names, names_with_args"},
		{"tag", header + "- action: !!str allow\n  names: [read]\n", 3, 11, "!!str", "YAML tag !!str is not supported", ""},
		{"unknown alias", header + "- action: *nope\n  names: [read]\n", 3, 11, "nope", "alias *nope refers to no earlier anchor", ""},
		{"unknown syscall", header + "- action: allow\n  names:\n  - read\n  - gettpid\n", 6, 5, "gettpid", `unknown syscall "gettpid" for x86_64`, `did you mean "getpid" or "getppid" or "gettid"?`},
		{"syscall of another arch", header + "- action: allow\n  names: [socketcall]\n", 4, 11, "socketcall", `unknown syscall "socketcall"`, "exists on i386 only"},
		{"unknown syscall, no suggestion", header + "- action: allow\n  names: [frobnicate_everything]\n", 4, 11, "frobnicate_everything", "unknown syscall", "syscall_64.tbl"},
		{"unknown conditional syscall", header + "- action: allow\n  names_with_args:\n  - name: sockett\n    arguments: [{operation: Equal}]\n", 5, 11, "sockett", `unknown syscall "sockett"`, `did you mean "socket"?`},
		{"bad default action", "default_action: deny\nsyscalls: [{action: allow, names: [read]}]\n", 1, 17, "deny", `unknown action "deny"`, "want one of kill_process, kill_thread, trap, errno (returns EPERM), trace, log, allow"},
		{"bad group action", header + "- action: alow\n  names: [read]\n", 3, 11, "alow", `unknown action "alow"`, "want one of"},
		{"user_notif", header + "- action: user_notif\n  names: [read]\n", 3, 11, "user_notif", `unknown action "user_notif"`, "go-seccomp-bpf cannot assemble user_notif"},
		{"bad operation", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - position: 0\n      operation: Less\n", 8, 18, "Less", `unknown operation "Less"`, "want one of Equal, NotEqual, GreaterThan, LessThan, GreaterOrEqual, LessOrEqual, BitsSet, BitsNotSet"},
		{"missing operation", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {position: 0, value: 3}\n", 7, 7, "", "argument condition has no operation", "want one of Equal"},
		{"position 6", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {position: 6, operation: Equal}\n", 7, 18, "6", "argument position 6 out of range", "want 0..5"},
		{"argument -1", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {argument: -1, operation: Equal}\n", 7, 18, "-1", "argument argument -1 out of range", "want 0..5"},
		{"position string", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {position: first, operation: Equal}\n", 7, 18, "first", "position must be an integer, not a string first", ""},
		{"position and argument", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {position: 0, argument: 0, operation: Equal}\n", 7, 21, "argument", `both "position" and "argument" given`, "give one"},
		{"negative value", header + "- action: allow\n  names_with_args:\n  - name: openat\n    arguments:\n    - {position: 0, operation: Equal, value: -100}\n", 7, 46, "-100", "value -100 is negative", "write -100 as 0xffffffffffffff9c"},
		{"value over 64 bits", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {operation: Equal, value: 18446744073709551616}\n", 7, 33, "18446744073709551616", "value 18446744073709551616: does not fit in 64 bits (max 18446744073709551615)", ""},
		{"float value", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - {operation: Equal, value: 1.5}\n", 7, 33, "1.5", "value must be an integer, not a float 1.5", ""},
		{"missing default_action", "syscalls:\n- action: allow\n  names: [read]\n", 1, 1, "", "missing default_action", "add default_action: one of"},
		{"missing default_action under seccomp", "seccomp:\n  syscalls:\n  - action: allow\n    names: [read]\n", 2, 3, "", "missing default_action", ""},
		{"no syscalls", "default_action: errno\n", 1, 1, "", "no syscalls", "add a syscalls list"},
		{"empty syscalls", "default_action: errno\nsyscalls: []\n", 1, 1, "", "no syscalls", ""},
		{"group without action", header + "- names: [read]\n", 3, 3, "", "syscall group has no action", "want one of"},
		{"group without names", header + "- action: allow\n", 3, 3, "", "syscall group has no names", "add names: [...] or names_with_args: [...]"},
		{"names_with_args without arguments", header + "- action: allow\n  names_with_args:\n  - name: dup\n", 5, 11, "dup", `names_with_args entry "dup" has no arguments`, "list the name under names"},
		{"names_with_args without name", header + "- action: allow\n  names_with_args:\n  - arguments: [{operation: Equal}]\n", 5, 5, "", "names_with_args entry has no name", "add name: SYSCALL"},
		{"duplicate name in group", header + "- action: allow\n  names:\n  - read\n  - write\n  - read\n", 7, 5, "read", `duplicate syscall "read"`, "already listed at line 5"},
		{"duplicate name across groups", header + "- action: allow\n  names: [read]\n- action: errno\n  names: [read]\n", 6, 11, "read", `duplicate syscall "read"`, "already listed at line 4"},
		{"conditional after plain", header + "- action: allow\n  names: [dup]\n- action: errno\n  names_with_args:\n  - name: dup\n    arguments: [{operation: Equal}]\n", 7, 11, "dup", `conditional rule for "dup" is unreachable`, `"dup" is matched unconditionally at line 4`},
		// go-seccomp-bpf checks a group's names before its names_with_args,
		// whatever their order in the file.
		{"plain after conditional in the same group", header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments: [{operation: Equal}]\n  names: [dup]\n", 5, 11, "dup", `conditional rule for "dup" is unreachable`, `"dup" is matched unconditionally at line 7`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tt.src))
			pe := policyErr(t, err)
			if pe.File != "bad.yaml" || pe.Line != tt.line || pe.Col != tt.col {
				t.Errorf("at %s:%d:%d, want bad.yaml:%d:%d (%v)", pe.File, pe.Line, pe.Col, tt.line, tt.col, err)
			}
			if pe.Value != tt.value {
				t.Errorf("Value = %q, want %q", pe.Value, tt.value)
			}
			if !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("Msg = %q, want it to contain %q", pe.Msg, tt.msg)
			}
			if !strings.Contains(pe.Hint, tt.hint) {
				t.Errorf("Hint = %q, want it to contain %q", pe.Hint, tt.hint)
			}
			if prefix := fmt.Sprintf("bad.yaml:%d:%d: ", tt.line, tt.col); !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), prefix)
			}
		})
	}
}

// TestParsePolicyWideIntegers checks the whole message for integers the
// YAML parser cannot hold in 64 bits: one statement, no contradiction.
func TestParsePolicyWideIntegers(t *testing.T) {
	arg := func(cond string) string {
		return header + "- action: allow\n  names_with_args:\n  - name: dup\n    arguments:\n    - " + cond + "\n"
	}
	tests := []struct {
		name, src, want string
	}{
		{"decimal", arg("{operation: Equal, value: 99999999999999999999}"),
			"bad.yaml:7:33: value 99999999999999999999: does not fit in 64 bits (max 18446744073709551615)"},
		{"hex", arg("{operation: Equal, value: 0x1ffffffffffffffff}"),
			"bad.yaml:7:33: value 0x1ffffffffffffffff: does not fit in 64 bits (max 18446744073709551615)"},
		{"json", `{"default_action": "errno", "syscalls": [{"action": "allow", "names_with_args": [{"name": "dup", "arguments": [{"operation": "Equal", "value": 99999999999999999999}]}]}]}`,
			"bad.yaml:1:144: value 99999999999999999999: does not fit in 64 bits (max 18446744073709551615)"},
		{"negative", arg("{operation: Equal, value: -99999999999999999999}"),
			"bad.yaml:7:33: value -99999999999999999999 is negative; values are unsigned 64-bit, from 0 to 18446744073709551615"},
		{"position", arg("{position: 99999999999999999999, operation: Equal}"),
			"bad.yaml:7:18: position 99999999999999999999: does not fit in 64 bits (max 18446744073709551615)"},
		{"quoted number is still a string", arg("{operation: Equal, value: \"12\"}"),
			"bad.yaml:7:33: value must be an integer, not a string 12; want an unsigned 64-bit integer, e.g. 42 or 0x10000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tt.src))
			policyErr(t, err)
			if got := err.Error(); got != tt.want {
				t.Errorf("error = %q\nwant      %q", got, tt.want)
			}
		})
	}
}

func TestPolicyErrorFormat(t *testing.T) {
	tests := []struct {
		name string
		err  *filters.SourceError
		want string
	}{
		{"full", &filters.SourceError{File: "a.yaml", Line: 3, Col: 7, Msg: `unknown action "x"`, Value: "x", Hint: "want allow"}, `a.yaml:3:7: unknown action "x"; want allow`},
		{"no hint", &filters.SourceError{File: "a.yaml", Line: 1, Col: 1, Msg: "empty policy"}, "a.yaml:1:1: empty policy"},
		{"no position", &filters.SourceError{File: "a.yaml", Msg: "too big"}, "a.yaml: too big"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParsePolicyReportsAllSemanticErrors(t *testing.T) {
	src := "default_action: deny\n" + // 1
		"syscalls:\n" + // 2
		"- action: allow\n" + // 3
		"  names: [read, raed, write, read]\n" + // 4
		"- action: permit\n" + // 5
		"  names_with_args:\n" + // 6
		"  - name: dup\n" + // 7
		"    arguments: [{operation: Equals}]\n" // 8
	_, err := Parse("many.yaml", []byte(src))
	policyErr(t, err)
	want := []string{
		`many.yaml:1:17: unknown action "deny"; want one of kill_process, kill_thread, trap, errno (returns EPERM), trace, log, allow`,
		`many.yaml:4:17: unknown syscall "raed" for x86_64; did you mean "read"?`,
		`many.yaml:4:30: duplicate syscall "read"; already listed at line 4; the first match wins, so remove one`,
		`many.yaml:5:11: unknown action "permit"; want one of kill_process, kill_thread, trap, errno (returns EPERM), trace, log, allow`,
		`many.yaml:8:29: unknown operation "Equals"; want one of Equal, NotEqual, GreaterThan, LessThan, GreaterOrEqual, LessOrEqual, BitsSet, BitsNotSet`,
	}
	if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParsePolicySizeLimit(t *testing.T) {
	data := bytes.Repeat([]byte("#"), MaxSize+1)
	pe := policyErr(t, func() error { _, err := Parse("big.yaml", data); return err }())
	if pe.Line != 0 || !strings.Contains(pe.Hint, "16777216 bytes") {
		t.Errorf("got %v, want a size error without position", pe)
	}
}

func TestValidateCodeBuiltPolicy(t *testing.T) {
	p := &Policy{Name: "code", Source: "code", DefaultAction: "errno", Groups: []Group{
		{Action: "allow", Names: []Name{{Name: "getpid"}, {Name: "nosuch"}}},
	}}
	_, err := p.ToSeccomp()
	pe := policyErr(t, err)
	if got, want := pe.Error(), `code: unknown syscall "nosuch" for x86_64`; !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want prefix %q", got, want)
	}
	p.Groups[0].Names = p.Groups[0].Names[:1]
	p.Groups[0].NamesWithArgs = []NameWithArgs{{Name: "dup", Arguments: []Argument{{Position: 7, Operation: "Equal"}}}}
	_, err = p.Compile()
	if pe := policyErr(t, err); pe.Msg != "argument position 7 out of range" {
		t.Errorf("got %q, want the position error", pe.Msg)
	}
}

func TestToSeccomp(t *testing.T) {
	p, err := Parse("t.yaml", []byte("default_action: kill_process\nsyscalls:\n- action: allow\n  names: [read]\n  names_with_args:\n"+
		"  - name: dup\n    arguments: [{position: 0, operation: LessThan, value: 1024}, {position: 1, operation: BitsSet, value: 0x80}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := p.ToSeccomp()
	if err != nil {
		t.Fatal(err)
	}
	g := sp.Syscalls[0]
	got := fmt.Sprintf("%s %s %v", sp.DefaultAction, g.Action, g.Names)
	for _, c := range g.NamesWithCondtions {
		got += " " + c.Name
		for _, a := range c.Conditions {
			got += fmt.Sprintf(" [%d %s %d]", a.Argument, a.Operation, a.Value)
		}
	}
	if want := "kill_process allow [read] dup [0 LessThan 1024] [1 BitsSet 128]"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// plainList returns a policy source allowing the first n x86_64 syscalls by
// number, default errno.
func plainList(n int) []byte {
	var b strings.Builder
	b.WriteString("default_action: errno\nsyscalls:\n- action: allow\n  names:\n")
	for nr, i := 0, 0; i < n; nr++ {
		if name, ok := Arch.SyscallNumbers[nr]; ok {
			fmt.Fprintf(&b, "  - %s\n", name)
			i++
		}
	}
	return []byte(b.String())
}

func TestCompilePlainListLength(t *testing.T) {
	// go-seccomp-bpf: ld arch, jne arch, ld nr, jge x32, ret ENOSYS, one
	// jeq per name, ret action, ret default = N+7. When the arch check would
	// skip more than 255 instructions (N > 251) it becomes jeq+ja (+1); when
	// the first name's jump to the action would skip more than 255 (N > 256)
	// the assembler inserts a copy of the action's ret (+1 more).
	tests := []struct{ names, want int }{
		{1, 8}, {2, 9}, {100, 107}, {251, 258}, {252, 260}, {256, 264}, {257, 266}, {300, 309},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.names), func(t *testing.T) {
			p, err := Parse("plain.yaml", plainList(tt.names))
			if err != nil {
				t.Fatal(err)
			}
			prog, err := p.Compile()
			if err != nil {
				t.Fatal(err)
			}
			if got := prog.Len(); got != tt.want {
				t.Errorf("%d names: %d instructions, want %d", tt.names, got, tt.want)
			}
		})
	}
}

func TestCompileMinimalExact(t *testing.T) {
	prog, err := mustLoad(t, "minimal.yaml").Compile()
	if err != nil {
		t.Fatal(err)
	}
	want := []bpf.RawInstruction{
		{Op: 0x20, K: 4},                           // ld [4] (arch)
		{Op: 0x15, Jf: 5, K: 0xc000003e},           // jne AUDIT_ARCH_X86_64 → ret default
		{Op: 0x20, K: 0},                           // ld [0] (nr)
		{Op: 0x35, Jf: 1, K: 0x40000000},           // jge __X32_SYSCALL_BIT
		{Op: 0x06, K: 0x00050026},                  // ret ERRNO(ENOSYS)
		{Op: 0x15, Jf: 1, K: 101},                  // jeq ptrace
		{Op: 0x06, K: 0x00050001},                  // ret ERRNO(EPERM)
		{Op: 0x06, K: uint32(filters.ActionAllow)}, // ret ALLOW (default)
	}
	if fmt.Sprint(prog.Insns) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", prog.Insns, want)
	}
	if prog.Name != "minimal" || prog.Source != filepath.Join(policiesDir, "minimal.yaml") || len(prog.SourceSHA256) != 64 {
		t.Errorf("metadata Name=%q Source=%q SHA=%q", prog.Name, prog.Source, prog.SourceSHA256)
	}
}

func mustLoad(t *testing.T, name string) *Policy {
	t.Helper()
	p, err := Load(filepath.Join(policiesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSamplePolicies(t *testing.T) {
	// Lengths are golden: update them when a sample policy changes.
	tests := []struct {
		file    string
		insns   int
		maxFits int // MaxStackCount: n·(EBPFLen+4) − 4 ≤ 32768
	}{
		{"minimal.yaml", 8, 1724},
		{"denylist.yaml", 45, 574},
		{"args-workload.yaml", 89, 324},
		{"default.yaml", 160, 190},
		{"default.json", 160, 190},
		{"large-allowlist.yaml", 309, 102},
		{"pathological.yaml", 923, 31}, // written by mkcorpus.go
		{"positions.yaml", 281, 111},   // estimate validation (docs/estimate.md)
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			prog, err := mustLoad(t, tt.file).Compile()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d instructions", tt.file, prog.Len())
			if prog.Len() != tt.insns {
				t.Errorf("%d instructions, want %d", prog.Len(), tt.insns)
			}
			if prog.Len() > filters.MaxInsns {
				t.Errorf("%d instructions exceed BPF_MAXINSNS", prog.Len())
			}
			if got := filters.MaxStackCount([]*filters.Program{prog}); got != tt.maxFits {
				t.Errorf("MaxStackCount = %d, want %d", got, tt.maxFits)
			}
			if want := strings.TrimSuffix(tt.file, filepath.Ext(tt.file)); prog.Name != want {
				t.Errorf("Name = %q, want %q", prog.Name, want)
			}
		})
	}
	// Every policy-format sample is in the table (other formats have their
	// own tests).
	for _, name := range samplePolicyFiles(t) {
		found := false
		for _, tt := range tests {
			found = found || tt.file == filepath.Base(name)
		}
		if !found {
			t.Errorf("%s is not in the table", name)
		}
	}
}

// samplePolicyFiles returns the .yaml and .json files under policiesDir
// that DetectFormat sees as Policy.
func samplePolicyFiles(t testing.TB) []string {
	var out []string
	for _, pat := range []string{"*.yaml", "*.json"} {
		names, err := filepath.Glob(filepath.Join(policiesDir, pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			// OCI, Kubernetes and Firecracker files share the extensions.
			if !oci.Detect(data) && !bytes.Contains(data, []byte("security-profiles-operator.x-k8s.io/")) && !bytes.Contains(data, []byte(`"filter_action"`)) {
				out = append(out, name)
			}
		}
	}
	return out
}

func TestLargeAllowlistStack(t *testing.T) {
	prog, err := mustLoad(t, "large-allowlist.yaml").Compile()
	if err != nil {
		t.Fatal(err)
	}
	names := 0
	for _, g := range mustLoad(t, "large-allowlist.yaml").Groups {
		names += len(g.Names)
	}
	if names != 300 {
		t.Fatalf("large-allowlist has %d names, want 300", names)
	}
	// The path counts converted eBPF lengths (317 for these 309
	// instructions) +4, but not for the newest filter (kernel/seccomp.c:
	// seccomp_attach_filter): 321·32 − 4 = 10268 ≤ 32768: 32 copies fit;
	// 102 is the most, 103 copies need 321·103 − 4 = 33059.
	if s, err := filters.BuildStack([]*filters.Program{prog}, 32); err != nil || s.PathLength() != 10268 {
		t.Errorf("BuildStack(32): path %d, err %v; want 10268, nil", s.PathLength(), err)
	}
	if _, err := filters.BuildStack([]*filters.Program{prog}, 102); err != nil {
		t.Errorf("BuildStack(102): %v", err)
	}
	_, err = filters.BuildStack([]*filters.Program{prog}, 103)
	var le *filters.LimitError
	if !errors.As(err, &le) || !errors.Is(err, filters.ErrLimit) {
		t.Fatalf("BuildStack(103) = %v, want a *LimitError", err)
	}
	if got := *le; got != (filters.LimitError{Limit: "MAX_INSNS_PER_PATH", Have: 33059, Max: 32768, Count: 103, MaxCount: 102}) {
		t.Errorf("got %+v", got)
	}
}

func TestStackLimitsSynthetic(t *testing.T) {
	prog := func(n int) *filters.Program {
		return &filters.Program{Name: fmt.Sprintf("p%d", n), Insns: make([]bpf.RawInstruction, n)}
	}
	tests := []struct {
		name     string
		progs    []*filters.Program
		count    int
		limit    string // "" = fits
		have     int
		maxCount int
	}{
		// prog(n) converts to n+3 eBPF instructions (prologue + n loads).
		{"1017 x 32 fits exactly", []*filters.Program{prog(1017)}, 32, "", 0, 0},
		{"1018 x 32 is over", []*filters.Program{prog(1018)}, 32, "MAX_INSNS_PER_PATH", 32*1025 - 4, 31},
		// The kernel counts +4 only for filters already attached: 12 x
		// (2724+3) + 11·4 = 32768 fits exactly, 12 x 2725 does not.
		{"2724 x 12 fits exactly", []*filters.Program{prog(2724)}, 12, "", 0, 0},
		{"2725 x 12 is over", []*filters.Program{prog(2725)}, 12, "MAX_INSNS_PER_PATH", 32780, 11},
		{"4096 alone fits", []*filters.Program{prog(4096)}, 1, "", 0, 0},
		{"4096 x 8 is over", []*filters.Program{prog(4096)}, 8, "MAX_INSNS_PER_PATH", 8*4103 - 4, 7},
		{"4097 breaks BPF_MAXINSNS", []*filters.Program{prog(4097)}, 1, "BPF_MAXINSNS", 4097, 0},
		{"cycled 4000+8 x 17 is over", []*filters.Program{prog(4000), prog(8)}, 17, "MAX_INSNS_PER_PATH", 9*4007 + 8*15 - 4, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := filters.BuildStack(tt.progs, tt.count)
			if tt.limit == "" {
				if err != nil {
					t.Fatalf("BuildStack: %v", err)
				}
				return
			}
			var le *filters.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("BuildStack = %v, want a *LimitError", err)
			}
			if le.Limit != tt.limit || le.Have != tt.have || le.MaxCount != tt.maxCount {
				t.Errorf("got %s have %d maxCount %d; want %s %d %d", le.Limit, le.Have, le.MaxCount, tt.limit, tt.have, tt.maxCount)
			}
		})
	}
}

func TestDefaultPolicyCopiesIdentical(t *testing.T) {
	copyBytes, err := os.ReadFile(filepath.Join(policiesDir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(DefaultBytes(), copyBytes) {
		t.Errorf("filters/default.yaml and %s/default.yaml differ: run go generate ./filters/...", policiesDir)
	}
	// The JSON copy compiles to the same program.
	y, err := Default().Compile()
	if err != nil {
		t.Fatal(err)
	}
	j, err := mustLoad(t, "default.json").Compile()
	if err != nil {
		t.Fatal(err)
	}
	if y.SHA256() != j.SHA256() {
		t.Errorf("default.json compiles to %s, default.yaml to %s", j.SHA256(), y.SHA256())
	}
}

func TestDefaultPolicy(t *testing.T) {
	p := Default()
	if p.Name != "default" || p.Source != DefaultName || p.DefaultAction != "errno" {
		t.Errorf("Name=%q Source=%q DefaultAction=%q", p.Name, p.Source, p.DefaultAction)
	}
	plain := map[string]bool{}
	cond := map[string]bool{}
	for _, g := range p.Groups {
		if g.Action != "allow" {
			t.Errorf("group at line %d has action %q; the default policy only allows", g.Pos.Line, g.Action)
		}
		for _, n := range g.Names {
			plain[n.Name] = true
		}
		for _, n := range g.NamesWithArgs {
			cond[n.Name] = true
		}
	}
	if len(plain) < 90 || len(plain) > 120 {
		t.Errorf("%d plain names, want about 100", len(plain))
	}
	// The mix workload's syscalls must be plain so the action cache serves
	// them; the rest is what the Go runtime and the harness call.
	for _, name := range []string{
		"close", "dup", "getpid", "getuid", "umask",
		"read", "write", "dup3", "getppid", "mmap", "munmap", "madvise", "mprotect", "brk", "futex",
		"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "clone", "clone3", "execve",
		"exit", "exit_group", "gettid", "tgkill", "sched_yield", "sched_getaffinity", "sched_setaffinity",
		"nanosleep", "clock_gettime", "clock_nanosleep", "epoll_create1", "epoll_ctl", "epoll_pwait",
		"epoll_wait", "eventfd2", "pipe2", "openat", "fcntl", "fstat", "newfstatat", "prctl", "seccomp",
		"prlimit64", "getrandom", "rseq", "uname", "readlinkat", "set_robust_list", "set_tid_address",
		"arch_prctl", "wait4", "waitid", "pidfd_open",
		"connect", "accept4", "bind", "listen", "sendto", "recvfrom", "setsockopt", "getsockopt",
		"getsockname", "getpeername", "shutdown",
	} {
		if !plain[name] {
			t.Errorf("%s is not allowed by name", name)
		}
	}
	for _, name := range []string{"socket", "ioctl", "kill"} {
		if !cond[name] || plain[name] {
			t.Errorf("%s should be allowed only with argument rules", name)
		}
	}
}

// Audit arches (include/uapi/linux/audit.h).
const (
	auditArchX86_64 = 0xc000003e
	auditArchI386   = 0x40000003
)

// runVM runs prog in golang.org/x/net/bpf's VM on a seccomp_data. The VM
// loads 32-bit words big-endian while go-seccomp-bpf's filter expects the
// kernel's little-endian layout, so every 4-byte word is stored byte-swapped:
// each load then sees the value the kernel would.
func runVM(t *testing.T, prog *filters.Program, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, filters.SeccompDataSize)
	binary.BigEndian.PutUint32(data[filters.OffsetNr:], nr)
	binary.BigEndian.PutUint32(data[filters.OffsetArch:], arch)
	for i, a := range args {
		off := filters.OffsetArgs + 8*i
		binary.BigEndian.PutUint32(data[off:], uint32(a))
		binary.BigEndian.PutUint32(data[off+4:], uint32(a>>32))
	}
	insns, ok := bpf.Disassemble(prog.Insns)
	if !ok {
		t.Fatalf("%s: not all instructions decode", prog.Name)
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatalf("%s: NewVM: %v", prog.Name, err)
	}
	ret, err := vm.Run(data)
	if err != nil {
		t.Fatalf("%s: Run: %v", prog.Name, err)
	}
	return uint32(ret)
}

func TestCompiledVerdicts(t *testing.T) {
	const (
		allow  = uint32(filters.ActionAllow)
		eperm  = uint32(filters.ActionErrno) | 1
		enosys = uint32(filters.ActionErrno) | 38
	)
	nr := func(name string) uint32 { return uint32(Arch.SyscallNames[name]) }
	programs := map[string]*filters.Program{}
	for _, f := range []string{"default.yaml", "args-workload.yaml", "denylist.yaml", "minimal.yaml"} {
		prog, err := mustLoad(t, f).Compile()
		if err != nil {
			t.Fatal(err)
		}
		programs[f] = prog
	}
	tests := []struct {
		policy string
		arch   uint32
		call   string
		nr     uint32
		args   []uint64
		want   uint32
	}{
		{"default.yaml", auditArchX86_64, "getpid", nr("getpid"), nil, allow},
		{"default.yaml", auditArchX86_64, "shutdown (last plain name)", nr("shutdown"), nil, allow},
		{"default.yaml", auditArchX86_64, "ptrace", nr("ptrace"), nil, eperm},
		{"default.yaml", auditArchX86_64, "socket(AF_INET)", nr("socket"), []uint64{2}, allow},
		{"default.yaml", auditArchX86_64, "socket(AF_INET6)", nr("socket"), []uint64{10}, allow},
		{"default.yaml", auditArchX86_64, "socket(AF_PACKET)", nr("socket"), []uint64{17}, eperm},
		{"default.yaml", auditArchX86_64, "socket(AF_INET | 1<<32)", nr("socket"), []uint64{2 | 1<<32}, eperm},
		{"default.yaml", auditArchX86_64, "ioctl(0, TCGETS)", nr("ioctl"), []uint64{0, 0x5401}, allow},
		{"default.yaml", auditArchX86_64, "ioctl(0, TIOCSTI)", nr("ioctl"), []uint64{0, 0x5412}, eperm},
		{"default.yaml", auditArchX86_64, "kill(1, 0)", nr("kill"), []uint64{1, 0}, allow},
		{"default.yaml", auditArchX86_64, "kill(1, SIGKILL)", nr("kill"), []uint64{1, 9}, eperm},
		{"default.yaml", auditArchX86_64, "x32 read", 0x40000000, nil, enosys},
		{"default.yaml", auditArchI386, "i386 getpid", 20, nil, eperm},
		{"args-workload.yaml", auditArchX86_64, "dup(5)", nr("dup"), []uint64{5}, allow},
		{"args-workload.yaml", auditArchX86_64, "dup(4096)", nr("dup"), []uint64{4096}, eperm},
		{"args-workload.yaml", auditArchX86_64, "close(1023)", nr("close"), []uint64{1023}, allow},
		{"args-workload.yaml", auditArchX86_64, "getpid(garbage)", nr("getpid"), []uint64{0xdeadbeefcafe}, allow},
		{"args-workload.yaml", auditArchX86_64, "getuid", nr("getuid"), nil, allow},
		{"args-workload.yaml", auditArchX86_64, "umask(022)", nr("umask"), []uint64{0o22}, allow},
		{"args-workload.yaml", auditArchX86_64, "umask(01000)", nr("umask"), []uint64{0o1000}, eperm},
		{"args-workload.yaml", auditArchX86_64, "futex", nr("futex"), nil, allow},
		{"denylist.yaml", auditArchX86_64, "getpid", nr("getpid"), nil, allow},
		{"denylist.yaml", auditArchX86_64, "bpf", nr("bpf"), nil, eperm},
		{"denylist.yaml", auditArchX86_64, "clone(CLONE_NEWUSER)", nr("clone"), []uint64{0x10000000 | 17}, eperm},
		{"denylist.yaml", auditArchX86_64, "clone(SIGCHLD)", nr("clone"), []uint64{17}, allow},
		{"denylist.yaml", auditArchI386, "i386 ptrace bypasses the denylist", 26, nil, allow},
		{"minimal.yaml", auditArchX86_64, "ptrace", nr("ptrace"), nil, eperm},
		{"minimal.yaml", auditArchX86_64, "getpid", nr("getpid"), nil, allow},
	}
	for _, tt := range tests {
		t.Run(tt.policy+"/"+tt.call, func(t *testing.T) {
			if got := runVM(t, programs[tt.policy], tt.arch, tt.nr, tt.args...); got != tt.want {
				ga, gd := filters.SplitRet(got)
				wa, wd := filters.SplitRet(tt.want)
				t.Errorf("got %s(%d), want %s(%d)", ga, gd, wa, wd)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	_, err := Load(missing)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Load(missing) = %v, want ErrNotExist naming the path", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(header+"- action: allow\n  names: [nope]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	if pe := policyErr(t, err); pe.File != bad || pe.Line != 4 {
		t.Errorf("Load(bad) = %v, want an error at %s:4", err, bad)
	}
}

func TestParsePolicyLongUnknownName(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	_, err := Parse("long.yaml", []byte(header+"- action: allow\n  names: ["+long+"]\n"))
	if pe := policyErr(t, err); pe.Value != long || pe.Hint == "" {
		t.Errorf("got Value of %d bytes, Hint %q", len(pe.Value), pe.Hint)
	}
}

func TestParsePolicyCapsReportedErrors(t *testing.T) {
	src := header + "- action: allow\n  names: [" + strings.Repeat("nope, ", 5000) + "]\n"
	_, err := Parse("many.yaml", []byte(src))
	policyErr(t, err)
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 21 || lines[20] != "many.yaml: 4980 more problems not shown" {
		t.Errorf("got %d lines, last %q; want 21, the last counting 4980 more", len(lines), lines[len(lines)-1])
	}
}

// Deep nesting is refused before goccy/go-yaml parses it (its memory grows
// with the square of the depth), with the position of the first level too
// deep; ordinary policies pass the check.
func TestCheckNesting(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		msg       string
	}{
		{"flow brackets", strings.Repeat("[", 65) + strings.Repeat("]", 65), 1, 65, "nested more than 64 levels"},
		{"brackets in quotes and comments", "a: \"" + strings.Repeat("[", 100) + "\" # " + strings.Repeat("{", 100) + "\nb: 1\n", 0, 0, ""},
		{"compact sequences", "x:\n" + strings.Repeat("- ", 65) + "a\n", 2, 129, "nested sequence entries"},
		{"indentation", "x:\n" + strings.Repeat(" ", 129) + "a: 1\n", 2, 129, "indented more than 128"},
		{"default policy", string(DefaultBytes()), 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, col, msg := checkNesting([]byte(tt.in))
			if line != tt.line || col != tt.col || !strings.Contains(msg, tt.msg) || (tt.msg == "") != (msg == "") {
				t.Errorf("got %d:%d %q, want %d:%d %q", line, col, msg, tt.line, tt.col, tt.msg)
			}
		})
	}
}

// Syscalls newer than go-seccomp-bpf's tables (Linux 6.16-6.18) are known
// to policies as they are to the emulator.
func TestPolicyNewerSyscalls(t *testing.T) {
	for _, name := range []string{"uprobe", "file_getattr", "file_setattr"} {
		t.Run(name, func(t *testing.T) {
			pol, err := Parse("p.yaml", []byte("default_action: errno\nsyscalls:\n  - action: allow\n    names: ["+name+"]\n"))
			if err != nil {
				t.Fatal(err)
			}
			p, err := pol.Compile()
			if err != nil {
				t.Fatal(err)
			}
			nr, _ := filters.ArchX86_64.Lookup(name)
			res, err := filters.Emulate(p, filters.ArchX86_64.Data(nr))
			if err != nil || res.Action != filters.ActionAllow {
				t.Errorf("%s (nr %d): %v %v, want allow", name, nr, res.Action, err)
			}
		})
	}
}
