// Package firecracker reads the JSON filters of Firecracker's seccompiler
// (resources/seccomp/*.json in Firecracker; seccompiler-bin compiles them)
// and compiles each thread category's filter by way of an OCI profile
// (oci.Parse).
//
// A file maps thread categories ("vmm", "api", "vcpu") to a filter:
//
//	{"vmm": {"default_action": "trap", "filter_action": "allow",
//	         "filter": [{"syscall": "read"},
//	                    {"syscall": "ioctl", "args": [{"index": 1,
//	                      "type": "dword", "op": "eq", "val": 44672}]}]}}
//
// A call whose syscall has an entry with no args, or one whose args all
// hold, gets filter_action; any other call gets default_action. This is
// an OCI profile with defaultAction and one entry per rule, so:
//
//   - actions: "allow" → SCMP_ACT_ALLOW, {"errno": N} (also "errno(N)") →
//     SCMP_ACT_ERRNO with errnoRet N, "kill_thread" → SCMP_ACT_KILL_THREAD,
//     "kill_process" → SCMP_ACT_KILL_PROCESS, "trap" → SCMP_ACT_TRAP,
//     "log" → SCMP_ACT_LOG, {"trace": N} → SCMP_ACT_TRACE with errnoRet N
//     (the SECCOMP_RET_DATA the tracer sees);
//   - qword conditions compare all 64 bits, as OCI's do on x86_64: eq, ne,
//     lt, le, gt, ge map to SCMP_CMP_EQ..GE and {"masked_eq": M} to
//     SCMP_CMP_MASKED_EQ with mask M;
//   - dword conditions load only the low 32 bits of the argument. eq and
//     masked_eq stay exact (a mask of 0xffffffff, or M's low half); ne,
//     lt, le, gt and ge cannot be expressed on the low half in OCI and are
//     compared on all 64 bits, with a warning naming the line: the verdict
//     differs only for calls whose argument has high bits set;
//   - several conditions of one rule on one argument are ANDed by
//     seccompiler but ORed by runc; equalities are merged exactly
//     (ocigen.MergeArgs), anything else is an error.
//
// A filter checks one architecture, the one seccompiler-bin's
// --target-arch names (src/seccompiler/src/lib.rs: compile_bpf adds only
// it to the libseccomp context). The JSON does not name it; Firecracker
// names its files after the target (resources/seccomp/
// x86_64-unknown-linux-musl.json, aarch64-unknown-linux-musl.json), so the
// file name decides (ArchFromName), then Options.OCI.Arch (--arch), then
// x86_64; a note says when the name and --arch disagree.
//
// Not modeled: seccompiler's own program layout and its arch check, which
// kills the process (SECCOMP_RET_KILL_PROCESS) for a foreign
// architecture where the OCI model returns SCMP_ACT_KILL (KILL_THREAD);
// the "comment" fields. runc's ENOSYS stub is never added (Firecracker
// installs its filters itself), whatever Options.OCI says.
package firecracker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/srcpos"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// ErrBadFilter is returned, wrapped in a *filters.SourceError naming the
// file, line and column, when a seccompiler JSON file cannot be decoded,
// breaks the schema, or uses a condition the OCI model cannot express.
var ErrBadFilter = errors.New("invalid Firecracker seccomp filter")

// MaxSize is the largest file Parse accepts, in bytes.
const MaxSize = filters.MaxInputSize

// Document is one seccompiler JSON file.
type Document struct {
	File string
	// Threads are the thread categories, in file order.
	Threads []*Thread
}

// Thread is one thread category's filter.
type Thread struct {
	Name string
	At   ocigen.Pos
	// DefaultAction and FilterAction are the OCI actions (and errnoRet
	// data) of default_action and filter_action.
	DefaultAction, FilterAction Action
	Rules                       []Rule
}

// Action is a seccompiler action as an OCI action plus its data (errno
// or trace message; nil when the action has none).
type Action struct {
	OCI  specs.LinuxSeccompAction
	Data *uint
	At   ocigen.Pos
}

// Rule is one entry of a filter list.
type Rule struct {
	Syscall string
	At      ocigen.Pos
	Conds   []Cond
}

// Cond is one argument condition.
type Cond struct {
	Index uint
	// Dword reports "type": "dword": only the low 32 bits are compared.
	Dword bool
	// Op is "eq", "ne", "lt", "le", "gt", "ge" or "masked_eq".
	Op   string
	Mask uint64 // for masked_eq
	Val  uint64
	At   ocigen.Pos
}

// Detect reports whether data is a seccompiler JSON file: a JSON object
// one of whose values is an object with a "filter_action" or "filter"
// key. Beats JSON policies (default_action and syscalls, at the top or
// under "seccomp") and OCI profiles have neither at that depth. Only the
// first 64 KiB are read; a syntax error after such a key still counts.
func Detect(data []byte) bool {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	dec := json.NewDecoder(io.LimitReader(bytes.NewReader(t), 64<<10))
	type frame struct{ obj, wantKey bool }
	var stack []frame
	// valueDone marks the end of a value in the enclosing container.
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				stack = append(stack, frame{obj: v == '{', wantKey: v == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return false
			}
			valueDone()
		case string:
			top := &stack[len(stack)-1]
			if top.obj && top.wantKey {
				if len(stack) == 2 && stack[0].obj && (v == "filter_action" || v == "filter") {
					return true
				}
				top.wantKey = false
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// Parse decodes a seccompiler JSON file. Errors are *filters.SourceError
// values wrapping ErrBadFilter, located at the offending value.
func Parse(name string, data []byte) (*Document, error) {
	if len(data) > MaxSize {
		return nil, ocigen.Errorf(name, ocigen.Pos{}, ErrBadFilter, "file is %d bytes, above the limit of %d", len(data), MaxSize)
	}
	top, err := parseJSON(name, data)
	if err != nil {
		return nil, err
	}
	if top.Kind != srcpos.Map {
		return nil, ocigen.Errorf(name, top.At, ErrBadFilter, "the file is a JSON %s, want an object of thread categories", top.Kind.JSONName())
	}
	if len(top.Keys) == 0 {
		return nil, ocigen.Errorf(name, top.At, ErrBadFilter, "no thread category; want e.g. \"vmm\", \"api\", \"vcpu\"")
	}
	d := &Document{File: name}
	for i, k := range top.Keys {
		th, err := decodeThread(name, k, top.KeyAt[i], top.Vals[i])
		if err != nil {
			return nil, err
		}
		d.Threads = append(d.Threads, th)
	}
	return d, nil
}

func errf(file string, at ocigen.Pos, format string, args ...any) error {
	return ocigen.Errorf(file, at, ErrBadFilter, format, args...)
}

func checkKeys(file string, v *srcpos.Node, what string, allowed ...string) error {
	for i, k := range v.Keys {
		if !slices.Contains(allowed, k) {
			return errf(file, v.KeyAt[i], "unknown key %q in %s; want %s", k, what, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func decodeThread(file, name string, at ocigen.Pos, v *srcpos.Node) (*Thread, error) {
	if v.Kind != srcpos.Map {
		return nil, errf(file, v.At, "thread %q is a JSON %s, want an object with default_action, filter_action and filter", name, v.Kind.JSONName())
	}
	if err := checkKeys(file, v, fmt.Sprintf("thread %q", name), "default_action", "filter_action", "filter"); err != nil {
		return nil, err
	}
	th := &Thread{Name: name, At: at}
	for _, f := range []struct {
		key string
		dst *Action
	}{{"default_action", &th.DefaultAction}, {"filter_action", &th.FilterAction}} {
		a := v.Get(f.key)
		if a == nil {
			return nil, errf(file, at, "thread %q has no %s", name, f.key)
		}
		act, err := decodeAction(file, a)
		if err != nil {
			return nil, err
		}
		*f.dst = act
	}
	fl := v.Get("filter")
	if fl == nil {
		return nil, errf(file, at, "thread %q has no filter list", name)
	}
	if fl.Kind != srcpos.Seq {
		return nil, errf(file, fl.At, "filter of thread %q is a JSON %s, want a list", name, fl.Kind.JSONName())
	}
	for _, r := range fl.Vals {
		rule, err := decodeRule(file, r)
		if err != nil {
			return nil, err
		}
		th.Rules = append(th.Rules, rule)
	}
	return th, nil
}

const actionHint = `want "allow", {"errno": N}, "kill_thread", "kill_process", "trap", "log" or {"trace": N}`

func decodeAction(file string, v *srcpos.Node) (Action, error) {
	a := Action{At: v.At}
	data := func(n *srcpos.Node, what string) (*uint, error) {
		x, err := strconv.ParseUint(n.Str, 10, 64)
		if n.Kind != srcpos.Num || err != nil || x > filters.RetData {
			return nil, errf(file, n.At, "%s value %s: want an integer from 0 to %d", what, n.Str, filters.RetData)
		}
		u := uint(x)
		return &u, nil
	}
	switch v.Kind.JSONName() {
	case "string":
		switch v.Str {
		case "allow":
			a.OCI = specs.ActAllow
		case "kill_thread":
			a.OCI = specs.ActKillThread
		case "kill_process":
			a.OCI = specs.ActKillProcess
		case "trap":
			a.OCI = specs.ActTrap
		case "log":
			a.OCI = specs.ActLog
		default:
			n, ok := strings.CutPrefix(v.Str, "errno(")
			if n, ok2 := strings.CutSuffix(n, ")"); ok && ok2 {
				d, err := data(&srcpos.Node{Kind: srcpos.Num, Str: strings.TrimSpace(n), At: v.At}, "errno")
				if err != nil {
					return a, err
				}
				a.OCI, a.Data = specs.ActErrno, d
				return a, nil
			}
			return a, errf(file, v.At, "unknown action %q; %s", v.Str, actionHint)
		}
		return a, nil
	case "object":
		if len(v.Keys) == 1 && (v.Keys[0] == "errno" || v.Keys[0] == "trace") {
			d, err := data(v.Vals[0], v.Keys[0])
			if err != nil {
				return a, err
			}
			a.OCI, a.Data = specs.ActErrno, d
			if v.Keys[0] == "trace" {
				a.OCI = specs.ActTrace
			}
			return a, nil
		}
	}
	return a, errf(file, v.At, "action is a JSON %s; %s", v.Kind.JSONName(), actionHint)
}

func decodeRule(file string, v *srcpos.Node) (Rule, error) {
	r := Rule{At: v.At}
	if v.Kind != srcpos.Map {
		return r, errf(file, v.At, "filter entry is a JSON %s, want {\"syscall\": NAME, \"args\": [...]}", v.Kind.JSONName())
	}
	if err := checkKeys(file, v, "a filter entry", "syscall", "args", "comment"); err != nil {
		return r, err
	}
	sc := v.Get("syscall")
	if sc == nil || sc.Kind != srcpos.Str || sc.Str == "" {
		return r, errf(file, v.At, "filter entry without a syscall name")
	}
	r.Syscall, r.At = sc.Str, sc.At
	args := v.Get("args")
	if args == nil || args.Kind == srcpos.Null {
		return r, nil
	}
	if args.Kind != srcpos.Seq {
		return r, errf(file, args.At, "args of %s is a JSON %s, want a list", r.Syscall, args.Kind.JSONName())
	}
	if len(args.Vals) == 0 {
		return r, errf(file, args.At, "args of %s is empty; leave it out to match every call", r.Syscall)
	}
	for _, a := range args.Vals {
		c, err := decodeCond(file, r.Syscall, a)
		if err != nil {
			return r, err
		}
		r.Conds = append(r.Conds, c)
	}
	return r, nil
}

func decodeCond(file, sys string, v *srcpos.Node) (Cond, error) {
	c := Cond{At: v.At}
	if v.Kind != srcpos.Map {
		return c, errf(file, v.At, "condition of %s is a JSON %s, want {\"index\", \"type\", \"op\", \"val\"}", sys, v.Kind.JSONName())
	}
	if err := checkKeys(file, v, "a condition", "index", "type", "op", "val", "comment"); err != nil {
		return c, err
	}
	num := func(key string, max uint64) (uint64, error) {
		n := v.Get(key)
		if n == nil {
			return 0, errf(file, v.At, "condition of %s has no %s", sys, key)
		}
		x, err := strconv.ParseUint(n.Str, 10, 64)
		if n.Kind != srcpos.Num || err != nil || x > max {
			return 0, errf(file, n.At, "%s %s of a condition of %s: want an integer from 0 to %d", key, n.Str, sys, max)
		}
		return x, nil
	}
	idx, err := num("index", filters.MaxArgIndex)
	if err != nil {
		return c, err
	}
	c.Index = uint(idx)
	typ := v.Get("type")
	if typ == nil || typ.Kind != srcpos.Str || typ.Str != "dword" && typ.Str != "qword" {
		at := v.At
		if typ != nil {
			at = typ.At
		}
		return c, errf(file, at, "condition of %s: want \"type\": \"dword\" or \"qword\"", sys)
	}
	c.Dword = typ.Str == "dword"
	max := ^uint64(0)
	if c.Dword {
		max = 0xffffffff
	}
	if c.Val, err = num("val", max); err != nil {
		return c, err
	}
	op := v.Get("op")
	switch {
	case op == nil:
		return c, errf(file, v.At, "condition of %s has no op", sys)
	case op.Kind == srcpos.Str && slices.Contains([]string{"eq", "ne", "lt", "le", "gt", "ge"}, op.Str):
		c.Op = op.Str
		return c, nil
	case op.Kind == srcpos.Map && len(op.Keys) == 1 && op.Keys[0] == "masked_eq":
		m := op.Vals[0]
		x, err := strconv.ParseUint(m.Str, 10, 64)
		if m.Kind != srcpos.Num || err != nil || x > max {
			return c, errf(file, m.At, "masked_eq mask %s: want an integer from 0 to %d", m.Str, max)
		}
		c.Op, c.Mask = "masked_eq", x
		return c, nil
	}
	return c, errf(file, op.At, "unknown op in a condition of %s; want \"eq\", \"ne\", \"lt\", \"le\", \"gt\", \"ge\" or {\"masked_eq\": MASK}", sys)
}

var qwordOps = map[string]specs.LinuxSeccompOperator{
	"eq": specs.OpEqualTo, "ne": specs.OpNotEqual, "lt": specs.OpLessThan, "le": specs.OpLessEqual,
	"gt": specs.OpGreaterThan, "ge": specs.OpGreaterEqual, "masked_eq": specs.OpMaskedEqual,
}

// ToOCI converts one thread's filter to an OCI profile (see the package
// documentation for the mapping). Its warnings name the dword conditions
// compared on all 64 bits and rules that can never match; a rule with
// conditions on one argument that cannot be merged is an error.
func (d *Document) ToOCI(th *Thread) (*ocigen.Profile, error) {
	out := &ocigen.Profile{Name: th.Name, DefaultAt: th.DefaultAction.At}
	out.Seccomp.DefaultAction = th.DefaultAction.OCI
	out.Seccomp.DefaultErrnoRet = th.DefaultAction.Data
	act := th.FilterAction
	for _, r := range th.Rules {
		var args []specs.LinuxSeccompArg
		for _, c := range r.Conds {
			a := specs.LinuxSeccompArg{Index: c.Index, Op: qwordOps[c.Op], Value: c.Val}
			switch {
			case c.Op == "masked_eq":
				a.Value, a.ValueTwo = c.Mask, c.Val
			case c.Dword && c.Op == "eq":
				a.Op, a.Value, a.ValueTwo = specs.OpMaskedEqual, 0xffffffff, c.Val
			case c.Dword:
				out.Warnings = append(out.Warnings, ocigen.Warning(d.File, c.At,
					"dword %s on argument %d of %s is compared on all 64 bits here (OCI has no 32-bit %s); calls whose argument has any of its high 32 bits set may get another verdict",
					c.Op, c.Index, r.Syscall, c.Op))
			}
			args = append(args, a)
		}
		merged, ok, conflict := ocigen.MergeArgs(args)
		if conflict >= 0 {
			return nil, errf(d.File, r.At, "%s: several conditions on argument %d, not all equalities: seccompiler ANDs them, an OCI profile cannot (runc ORs conditions on one argument)", r.Syscall, conflict)
		}
		if !ok {
			out.Warnings = append(out.Warnings, ocigen.Warning(d.File, r.At, "rule for %s can never match (its conditions on one argument contradict each other); left out", r.Syscall))
			continue
		}
		out.Add(r.At, act.OCI, act.Data, merged, r.Syscall)
	}
	return out, nil
}

// ArchFromName returns the target architecture a Firecracker file name
// names ("x86_64" or "aarch64", as in aarch64-unknown-linux-musl.json),
// or "" when it names none.
func ArchFromName(path string) string {
	b := filepath.Base(path)
	switch {
	case strings.Contains(b, "aarch64") || strings.Contains(b, "arm64"):
		return "aarch64"
	case strings.Contains(b, "x86_64") || strings.Contains(b, "amd64"):
		return "x86_64"
	}
	return ""
}

// Options say which thread's filter to load and how to compile it.
type Options struct {
	// Thread selects one thread category ("vmm", "api", "vcpu"); ""
	// loads every one.
	Thread string
	// OCI resolves the generated profile (host arch, ...);
	// NoENOSYSStub is forced on.
	OCI oci.Options
}

// Load parses the file and compiles the filter of every thread category,
// in file order, or of Options.Thread only. Each program is named after
// its category; its Warnings hold what the conversion and ParseOCI found,
// and the second result lists them again, once each.
func Load(name string, data []byte, opts Options) ([]*filters.Program, []string, error) {
	d, err := Parse(name, data)
	if err != nil {
		return nil, nil, err
	}
	threads := d.Threads
	if opts.Thread != "" {
		threads = nil
		var names []string
		for _, th := range d.Threads {
			names = append(names, th.Name)
			if th.Name == opts.Thread {
				threads = append(threads, th)
			}
		}
		if threads == nil {
			return nil, nil, errf(name, ocigen.Pos{}, "no thread category %q; the file has %s", opts.Thread, strings.Join(names, ", "))
		}
	}
	opt := opts.OCI
	opt.NoENOSYSStub = true
	var note string
	switch fa := ArchFromName(name); {
	case fa != "" && opt.Arch == "":
		opt.Arch = fa
	case fa != "" && fa != opt.Arch:
		note = ocigen.Warning(name, ocigen.Pos{}, "the file name names %s, but the filters are compiled for %s as --arch says", fa, opt.Arch)
	case opt.Arch == "":
		opt.Arch = "x86_64"
	}
	target := map[string]specs.Arch{"x86_64": specs.ArchX86_64, "aarch64": specs.ArchAARCH64}[opt.Arch]
	var progs []*filters.Program
	for _, th := range threads {
		prof, err := d.ToOCI(th)
		if err != nil {
			return nil, nil, err
		}
		if target != "" {
			prof.Seccomp.Architectures = []specs.Arch{target}
		}
		if note != "" {
			prof.Warnings = append([]string{note}, prof.Warnings...)
		}
		p, err := prof.Compile(name, data, ErrBadFilter, opt)
		if err != nil {
			return nil, nil, err
		}
		progs = append(progs, p)
	}
	return progs, ocigen.Collect(progs), nil
}
