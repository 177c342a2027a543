package beats

//go:generate go run gen_policies.go

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/input"
	"github.com/seccompbench/seccompbench/filters/internal/suggest"
)

// Policy is a decoded seccomp policy in the schema of Elastic Beats and
// github.com/elastic/go-seccomp-bpf:
//
//	seccomp:                 # optional wrapper key
//	  default_action: errno  # action when no group matches
//	  syscalls:              # groups, tried in order; the first match wins
//	    - action: allow
//	      names: [read, write]
//	      names_with_args:
//	        - name: socket
//	          arguments:     # all must hold (AND); repeated names are ORed
//	            - {position: 0, operation: Equal, value: 1}
//
// JSON with the same keys is accepted too (JSON is YAML). Every element
// keeps the line and column it was read from, for error messages and lint;
// a Policy built in code has zero positions.
type Policy struct {
	// Name is a short label: the source's base name without extension,
	// e.g. "default" for "testdata/policies/default.yaml".
	Name string
	// Source is the file path, or "embedded:default" for Default.
	Source string
	// SHA256 is the hex SHA-256 of the source bytes.
	SHA256 string
	// DefaultAction is the action, as a lower-case go-seccomp-bpf name
	// ("allow", "errno", "kill_process", ...), taken when no group matches.
	DefaultAction string
	// Groups are the syscall groups in file order.
	Groups []Group

	// Pos is where the policy's mapping starts; DefaultActionPos is where
	// the default_action value is.
	Pos, DefaultActionPos Pos
}

// Group is one entry of a policy's syscalls list: an action and the
// syscalls it applies to, unconditionally (Names) or when argument
// conditions hold (NamesWithArgs).
type Group struct {
	// Action is the lower-case action name taken when a syscall matches.
	Action string
	// Names are syscalls matched by number alone.
	Names []Name
	// NamesWithArgs are syscalls matched by number and argument conditions.
	NamesWithArgs []NameWithArgs

	// Pos is where the group's mapping starts; ActionPos is where the
	// action value is.
	Pos, ActionPos Pos
}

// Name is a syscall name as written in a policy, with its position.
type Name struct {
	Name string
	Pos  Pos
}

// NameWithArgs is a syscall matched only when all of Arguments hold.
// Several entries with the same name in one group are alternatives (OR).
type NameWithArgs struct {
	// Name is the syscall name; Pos is where it is written.
	Name string
	Pos  Pos
	// Arguments must all hold for the entry to match.
	Arguments []Argument
}

// Argument is one condition on a syscall argument: args[Position]
// Operation Value, compared as unsigned 64-bit integers (go-seccomp-bpf
// compares the high and low 32-bit halves separately).
type Argument struct {
	// Position is the argument index, 0..5 (seccomp_data.args[6]). Beats
	// YAML spells the key "argument", go-seccomp-bpf's JSON "position";
	// both are accepted. It defaults to 0, as in go-seccomp-bpf.
	Position int
	// Operation is one of go-seccomp-bpf's operations, canonical spelling:
	// Equal, NotEqual, GreaterThan, LessThan, GreaterOrEqual, LessOrEqual,
	// BitsSet, BitsNotSet.
	Operation string
	// Value is the operand; it defaults to 0, as in go-seccomp-bpf.
	Value uint64

	// Pos is where the condition's mapping starts; PositionPos and
	// OperationPos are where those values are.
	Pos, PositionPos, OperationPos Pos
}

// Pos is a 1-based line and column in a policy source. The zero value
// means "unknown" (a policy built in code).
type Pos struct {
	Line, Col int
}

// MaxArgPosition is the highest syscall argument index a condition may
// name: struct seccomp_data has args[6] (include/uapi/linux/seccomp.h).
const MaxArgPosition = filters.MaxArgIndex

// MaxSize is the largest policy source Parse accepts, in bytes: the one
// limit of every input (filters.MaxInputSize).
const MaxSize = filters.MaxInputSize

// Arch is the architecture whose syscall table policy names are
// checked against: x86_64, the architecture this project measures. Note
// that go-seccomp-bpf assembles for runtime.GOARCH (see Compile).
var Arch = arch.X86_64

// ErrBadPolicy is returned (wrapped in a *SourceError) when a policy source
// cannot be decoded or breaks the schema: YAML syntax, unknown keys, wrong
// types, unknown syscalls, actions or operations, argument positions out of
// range, duplicate or unreachable names, or an empty policy.
var ErrBadPolicy = errors.New("invalid seccomp policy")

// Parse decodes a policy from YAML or JSON. name is the source's path
// or label: it becomes SourceError.File, Policy.Source, and (base name
// without extension) Policy.Name. The policy may sit under a top-level
// `seccomp:` key. Every problem is a *SourceError wrapping ErrBadPolicy,
// located at the offending value; structural problems (syntax, unknown keys,
// wrong types) stop decoding at the first, semantic ones (unknown names,
// actions, operations, duplicates) are all reported, joined (the first 20,
// then a count of the rest).
func Parse(name string, data []byte) (*Policy, error) {
	if len(data) > MaxSize {
		return nil, &filters.SourceError{File: name, Err: ErrBadPolicy, Msg: fmt.Sprintf("policy is %d bytes", len(data)),
			Hint: fmt.Sprintf("the limit is %d bytes", MaxSize)}
	}
	p, err := decodePolicy(name, data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	p.Name = filters.BaseName(name)
	p.Source = name
	p.SHA256 = hex.EncodeToString(sum[:])
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p.canonicalize()
	return p, nil
}

// Load reads and decodes the policy file at path (see Parse). Read
// errors wrap the *os.PathError, which names the path; decoding errors are
// *SourceError values whose File is path.
func Load(path string) (*Policy, error) {
	data, err := input.Read(path)
	if err != nil {
		return nil, fmt.Errorf("load policy: %w", err)
	}
	return Parse(path, data)
}

// actionHint lists the actions go-seccomp-bpf understands, in the kernel's
// precedence order.
const actionHint = "want one of kill_process, kill_thread, trap, errno (returns EPERM), trace, log, allow"

// operationHint lists go-seccomp-bpf's argument operations.
const operationHint = "want one of Equal, NotEqual, GreaterThan, LessThan, GreaterOrEqual, LessOrEqual, BitsSet, BitsNotSet"

// Validate checks the policy's semantics and returns every problem found,
// as *SourceError values (wrapping ErrBadPolicy) joined with errors.Join
// (the first 20, then one more saying how many were left out):
// a missing or unknown default_action, no groups, a group without action or
// names, an unknown action or operation, an argument position outside
// 0..MaxArgPosition, a syscall not in PolicyArch's table, a name listed
// unconditionally twice, and a conditional rule that an earlier
// unconditional one makes unreachable. A conditional rule followed by an
// unconditional one for the same name in a later group is allowed (it is
// the fallback). Parse and ToSeccomp call it.
func (p *Policy) Validate() error {
	v := validator{file: p.Source, seen: map[string]seenName{}, hints: map[string]string{}}
	if p.DefaultAction == "" {
		v.add(p.Pos, "", "missing default_action", "add default_action: "+strings.TrimPrefix(actionHint, "want "))
	} else {
		v.action(p.DefaultActionPos, p.DefaultAction)
	}
	if len(p.Groups) == 0 {
		v.add(p.Pos, "", "no syscalls", "add a syscalls list with at least one group {action, names}")
	}
	for gi := range p.Groups {
		g := &p.Groups[gi]
		if g.Action == "" {
			v.add(g.Pos, "", "syscall group has no action", actionHint)
		} else {
			v.action(g.ActionPos, g.Action)
		}
		if len(g.Names)+len(g.NamesWithArgs) == 0 {
			v.add(g.Pos, "", "syscall group has no names", "add names: [...] or names_with_args: [...]")
		}
		for _, n := range g.Names {
			if !v.syscall(n.Pos, n.Name) {
				continue
			}
			if first, ok := v.seen[n.Name]; ok && (!first.cond || first.group == gi) {
				v.add(n.Pos, n.Name, fmt.Sprintf("duplicate syscall %q", n.Name),
					fmt.Sprintf("already listed at %s; the first match wins, so remove one", first.pos))
				continue
			}
			v.seen[n.Name] = seenName{pos: n.Pos, group: gi}
		}
		for _, n := range g.NamesWithArgs {
			if v.syscall(n.Pos, n.Name) {
				if first, ok := v.seen[n.Name]; ok && !first.cond {
					v.add(n.Pos, n.Name, fmt.Sprintf("conditional rule for %q is unreachable", n.Name),
						fmt.Sprintf("%q is matched unconditionally at %s; drop one of the two", n.Name, first.pos))
				} else if !ok {
					v.seen[n.Name] = seenName{pos: n.Pos, group: gi, cond: true}
				}
			}
			if len(n.Arguments) == 0 {
				v.add(n.Pos, n.Name, fmt.Sprintf("names_with_args entry %q has no arguments", n.Name),
					"add arguments: [{position, operation, value}], or list the name under names to match it unconditionally")
			}
			for _, a := range n.Arguments {
				if a.Position < 0 || a.Position > MaxArgPosition {
					v.add(a.PositionPos, fmt.Sprint(a.Position), fmt.Sprintf("argument position %d out of range", a.Position),
						fmt.Sprintf("want 0..%d (seccomp_data has 6 arguments)", MaxArgPosition))
				}
				var op seccomp.Operation
				if a.Operation == "" {
					v.add(a.Pos, "", "argument condition has no operation", operationHint)
				} else if op.Unpack(a.Operation) != nil {
					v.add(a.OperationPos, a.Operation, fmt.Sprintf("unknown operation %q", a.Operation), operationHint)
				}
			}
		}
	}
	if n := len(v.errs) - maxReported; n > 0 {
		v.errs = append(v.errs[:maxReported], &filters.SourceError{File: v.file, Err: ErrBadPolicy, Msg: fmt.Sprintf("%d more problems not shown", n)})
	}
	return errors.Join(v.errs...)
}

// maxReported is the most problems Validate reports one by one.
const maxReported = 20

// seenName records the first rule for a syscall name during Validate.
type seenName struct {
	pos   Pos
	group int
	cond  bool
}

// String returns "line N", or "an earlier rule" for an unknown position.
func (p Pos) String() string {
	if p.Line == 0 {
		return "an earlier rule"
	}
	return fmt.Sprintf("line %d", p.Line)
}

// validator collects PolicyErrors.
type validator struct {
	file  string
	errs  []error
	seen  map[string]seenName
	hints map[string]string // syscallHint results by name
}

func (v *validator) add(pos Pos, value, msg, hint string) {
	v.errs = append(v.errs, &filters.SourceError{File: v.file, Err: ErrBadPolicy, Line: pos.Line, Col: pos.Col, Msg: msg, Value: value, Hint: hint})
}

func (v *validator) action(pos Pos, s string) {
	var a seccomp.Action
	if a.Unpack(s) == nil {
		return
	}
	hint := actionHint
	if strings.EqualFold(s, "user_notif") || strings.EqualFold(s, "user_notify") {
		hint = "go-seccomp-bpf cannot assemble user_notif; " + hint
	}
	v.add(pos, s, fmt.Sprintf("unknown action %q", s), hint)
}

// syscall reports whether name is in PolicyArch's table, recording an error
// with a spelling suggestion if not.
func (v *validator) syscall(pos Pos, name string) bool {
	if _, ok := Arch.SyscallNames[name]; ok {
		return true
	}
	hint, ok := v.hints[name]
	if !ok && len(v.errs) < maxReported {
		hint = syscallHint(name)
		v.hints[name] = hint
	}
	v.add(pos, name, fmt.Sprintf("unknown syscall %q for %s", name, Arch.Name), hint)
	return false
}

// syscallHint suggests the closest x86_64 names, or says which other
// architecture has the name.
func syscallHint(name string) string {
	for _, other := range []*arch.Info{arch.I386, arch.AARCH64, arch.ARM} {
		if _, ok := other.SyscallNames[name]; ok {
			return fmt.Sprintf("%q exists on %s only; x86_64 policies name x86_64 syscalls", name, other.Name)
		}
	}
	if s := suggest.Closest(name, Arch.SyscallNames, 3); len(s) > 0 {
		return fmt.Sprintf("did you mean %s?", quoteJoin(s, " or "))
	}
	return "names come from the x86_64 syscall table (arch/x86/entry/syscalls/syscall_64.tbl)"
}

func quoteJoin(ss []string, sep string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, sep)
}

// canonicalize rewrites actions and operations to go-seccomp-bpf's spelling
// (lower-case actions, CamelCase operations). Call only after Validate.
func (p *Policy) canonicalize() {
	var a seccomp.Action
	_ = a.Unpack(p.DefaultAction)
	p.DefaultAction = a.String()
	for gi := range p.Groups {
		g := &p.Groups[gi]
		_ = a.Unpack(g.Action)
		g.Action = a.String()
		for ni := range g.NamesWithArgs {
			for ai := range g.NamesWithArgs[ni].Arguments {
				arg := &g.NamesWithArgs[ni].Arguments[ai]
				var op seccomp.Operation
				_ = op.Unpack(arg.Operation)
				arg.Operation = string(op)
			}
		}
	}
}

// ToSeccomp validates p (see Validate) and converts it to go-seccomp-bpf's
// policy type. The result assembles for runtime.GOARCH.
func (p *Policy) ToSeccomp() (*seccomp.Policy, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var sp seccomp.Policy
	if err := sp.DefaultAction.Unpack(p.DefaultAction); err != nil {
		return nil, fmt.Errorf("convert policy %q: %w", p.Name, err)
	}
	for _, g := range p.Groups {
		var sg seccomp.SyscallGroup
		if err := sg.Action.Unpack(g.Action); err != nil {
			return nil, fmt.Errorf("convert policy %q: %w", p.Name, err)
		}
		for _, n := range g.Names {
			sg.Names = append(sg.Names, n.Name)
		}
		for _, n := range g.NamesWithArgs {
			nc := seccomp.NameWithConditions{Name: n.Name}
			for _, a := range n.Arguments {
				c := seccomp.Condition{Argument: uint32(a.Position), Value: a.Value}
				if err := c.Operation.Unpack(a.Operation); err != nil {
					return nil, fmt.Errorf("convert policy %q: %w", p.Name, err)
				}
				nc.Conditions = append(nc.Conditions, c)
			}
			sg.NamesWithCondtions = append(sg.NamesWithCondtions, nc)
		}
		sp.Syscalls = append(sp.Syscalls, sg)
	}
	return &sp, nil
}

// Compile validates p and assembles it to a classic BPF program with
// go-seccomp-bpf's seccomp.Policy.Assemble and golang.org/x/net/bpf's
// Assemble. The program checks the audit arch (another arch gets the
// default action), returns ERRNO(ENOSYS) for x32 syscall numbers, then
// walks the groups as a linear chain of compares; "errno" returns EPERM.
// A group of N plain names compiles to N+7 instructions when every jump is
// short (fewer than 256 instructions to skip); longer chains get extra
// return or jump instructions. go-seccomp-bpf assembles for runtime.GOARCH,
// so the same policy compiled on another architecture gives another
// program (names are validated against PolicyArch, x86_64); Compile is
// CompileFor of the host's native ABI (compilefor.go), so on arm64 names
// aarch64 lacks are dropped with a warning rather than failing. Compile does
// not check kernel limits: BuildStack does. Errors are the *SourceError
// values of Validate, or an assembler error wrapped as
// "compile policy NAME: ...".
func (p *Policy) Compile() (*filters.Program, error) {
	return p.CompileFor(compileArch())
}

// defaultPolicySource is the embedded default policy; testdata/policies/
// default.yaml is an identical copy (a test checks it).
//
//go:embed default.yaml
var defaultPolicySource []byte

// DefaultName is the Source of the embedded default policy.
const DefaultName = "embedded:default"

// DefaultBytes returns a copy of the embedded default policy source
// (YAML): an allowlist for a Go network service, default errno.
func DefaultBytes() []byte {
	return append([]byte(nil), defaultPolicySource...)
}

// Default returns a freshly decoded copy of the embedded default
// policy, Name "default", Source DefaultPolicyName. It panics if the
// embedded source is invalid, which a test rules out.
func Default() *Policy {
	p, err := Parse(DefaultName, defaultPolicySource)
	if err != nil {
		panic(fmt.Sprintf("embedded default policy: %v", err))
	}
	p.Name = "default"
	return p
}

// FormatName is the name of this format in the filters/formats table.
const FormatName = "policy"

// LoadSource parses and compiles a policy source (Parse, Compile) into the
// shared loaded shape: one filter, format FormatName. A nil data loads the
// embedded default policy (Default) under name.
func LoadSource(name string, data []byte) (*filters.Source, error) {
	return LoadSourceFor(name, data, nil)
}

// LoadSourceFor is LoadSource compiling with CompileFor(a) (a host whose
// native ABI is a); a nil a means Compile. The program's Warnings name
// the syscalls a lacks, dropped. Errors are Parse's and CompileFor's.
func LoadSourceFor(name string, data []byte, a *filters.Arch) (*filters.Source, error) {
	var pol *Policy
	if data == nil {
		pol = Default()
	} else {
		var err error
		if pol, err = Parse(name, data); err != nil {
			return nil, err
		}
	}
	var p *filters.Program
	var err error
	if a == nil {
		p, err = pol.Compile()
	} else {
		p, err = pol.CompileFor(a)
	}
	if err != nil {
		return nil, err
	}
	return &filters.Source{Name: name, Format: FormatName, Filters: []*filters.Program{p}}, nil
}
