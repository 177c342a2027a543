// Package lxc reads LXC and Incus seccomp policies (the "version 2" text
// format of lxc.seccomp.profile, lxc/src/lxc/seccomp.c: parse_config_v2)
// and compiles one to a seccomp filter by way of an OCI profile
// (oci.Parse).
//
//	2
//	denylist errno 38         # or allowlist; blacklist/whitelist are old names
//	reject_force_umount
//	[all]
//	kexec_load errno 1
//	mount errno 1 [2,0x1000,SCMP_CMP_MASKED_EQ,0x1000]
//
// Line 1 is the version, line 2 the policy type with an optional default
// action; then come [arch] sections and one rule per line: a syscall name,
// an optional action, and up to six argument conditions
// [index,value,op] or [index,value,SCMP_CMP_MASKED_EQ,mask].
//
// Mapping, as LXC does it on an x86_64 host (filters x86_64, x86 and x32):
//
//   - actions: kill → SCMP_ACT_KILL (KILL_THREAD), errno N → SCMP_ACT_ERRNO
//     with errnoRet N, allow → SCMP_ACT_ALLOW, trap → SCMP_ACT_TRAP,
//     notify → SCMP_ACT_NOTIFY (USER_NOTIF);
//   - a denylist's default (for unlisted syscalls) is allow and a rule
//     without an action kills; an allowlist's default is kill and a rule
//     without an action allows; an action after the policy type replaces
//     the default;
//   - ops: SCMP_CMP_NE/LT/LE/EQ/GE/GT/MASKED_EQ, also spelled != < <= == >=
//     > &=; [i,v,SCMP_CMP_MASKED_EQ,m] is (arg & m) == v (LXC passes the
//     mask first), and a MASKED_EQ without a mask has mask 0, as in LXC;
//   - reject_force_umount is umount2 with arg1 & MNT_FORCE (1) set →
//     ERRNO(EACCES);
//   - several conditions of a rule on one argument are ANDed; equalities
//     are merged (ocigen.MergeArgs), anything else is an error.
//
// Architecture sections are modeled as LXC reads them
// (src/lxc/seccomp.c: parse_config_v2): LXC builds one libseccomp context
// per architecture of the host (x86_64, x86 and x32 on x86_64; aarch64
// and arm on aarch64) and merges them into one filter, but since LXC 3.2
// (commit 3e9671a15, which reverted per-architecture rules) it adds every
// rule to every one of those contexts, whichever section of this host's
// architectures ([x86_64], [amd64], [x86], [i386], [x32]) it is in; a name
// an architecture lacks is skipped there. A note at each such section
// header says so. Sections of other hosts' architectures ([arm] on
// x86_64, [ppc64le], [s390x]...) are skipped, as LXC skips them. LXC 3.0
// and 3.1 did add a section's rules to its architecture only; that is not
// modeled. Version 1 policies (syscall numbers) are refused. LXC installs its filter without
// runc's ENOSYS stub, so none is modeled, whatever Options.OCI says.
package lxc

import (
	"bufio"
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// ErrBadPolicy is returned, wrapped in a *filters.SourceError naming the
// file, line and column, when an LXC seccomp policy cannot be read.
var ErrBadPolicy = errors.New("invalid LXC seccomp policy")

// MaxSize is the largest policy Parse accepts, in bytes.
const MaxSize = filters.MaxInputSize

// Policy is one LXC seccomp policy file.
type Policy struct {
	File    string
	Version int
	// Denylist is true for denylist/blacklist, false for
	// allowlist/whitelist.
	Denylist bool
	// Default is the action after the policy type, nil when absent.
	Default *Action
	ListAt  ocigen.Pos
	Rules   []Rule
	// Sections are the architecture section headers, in order.
	Sections []Section
}

// Section is one [arch] header: the architecture it selects (as the
// sections table names it) and where it is written.
type Section struct {
	Arch string
	At   ocigen.Pos
}

// Action is one LXC action.
type Action struct {
	// Word is the action as written: "kill", "errno", "allow", "trap",
	// "notify".
	Word  string
	OCI   specs.LinuxSeccompAction
	Errno *uint
	At    ocigen.Pos
}

// Rule is one rule line.
type Rule struct {
	// Syscall is the name; "reject_force_umount" stays as written.
	Syscall string
	// Section is the [arch] section the rule is in, lower case, "all"
	// before any.
	Section string
	At      ocigen.Pos
	// Action is nil when the line has none (the policy type decides).
	Action *Action
	Args   []specs.LinuxSeccompArg
}

var listWords = []string{"denylist", "allowlist", "blacklist", "whitelist"}

// Detect reports whether data is an LXC seccomp policy: its first line is
// "1" or "2" and its second starts with denylist, allowlist, blacklist or
// whitelist. No YAML, JSON, unit file or BPF starts that way.
func Detect(data []byte) bool {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	v := string(bytes.TrimSpace(first))
	if v != "1" && v != "2" {
		return false
	}
	second, _, _ := bytes.Cut(rest, []byte("\n"))
	second = bytes.TrimSpace(second)
	for _, w := range listWords {
		if bytes.HasPrefix(second, []byte(w)) {
			return true
		}
	}
	return false
}

// NearMiss reports whether data starts as an LXC policy does, a first
// line "1" or "2" and a second line, without Detect's policy type: such a
// file gets LXC's own error (Parse) rather than another format's.
func NearMiss(data []byte) bool {
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	v := string(bytes.TrimSpace(first))
	return ok && (v == "1" || v == "2") && len(bytes.TrimSpace(rest)) > 0
}

func errf(file string, at ocigen.Pos, format string, args ...any) error {
	return ocigen.Errorf(file, at, ErrBadPolicy, format, args...)
}

// sections maps the section names LXC knows (either case) to the
// architecture they select; Incus-style aliases amd64 and i386 too.
var sections = map[string]string{
	"all": "all", "x86": "x86", "i386": "x86", "x32": "x32", "x86_64": "x86_64", "amd64": "x86_64",
	"arm": "arm", "arm64": "aarch64", "ppc64le": "ppc64le", "ppc64": "ppc64", "ppc": "ppc",
	"mips64": "mips64", "mips64n32": "mips64n32", "mips": "mips", "mipsel64": "mipsel64",
	"mipsel64n32": "mipsel64n32", "mipsel": "mipsel", "s390x": "s390x", "s390": "s390",
}

// Parse reads a policy. Errors are *filters.SourceError values wrapping
// ErrBadPolicy, located at the offending word.
func Parse(name string, data []byte) (*Policy, error) {
	if len(data) > MaxSize {
		return nil, errf(name, ocigen.Pos{}, "file is %d bytes, above the limit of %d", len(data), MaxSize)
	}
	p := &Policy{File: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxSize)
	line := 0
	section := "all"
	for sc.Scan() {
		line++
		raw := sc.Text()
		text := strings.TrimRight(raw, " \t\r")
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		text = strings.TrimLeft(text, " \t")
		at := ocigen.Pos{Line: line, Col: indent + 1}
		switch {
		case line == 1:
			switch text {
			case "2":
				p.Version = 2
				continue
			case "1":
				return nil, errf(name, at, "version 1 policies (an allowlist of syscall numbers) are not supported; write version 2 with names")
			}
			return nil, errf(name, at, "first line is %q, want the policy version 2", text)
		case line == 2:
			if err := p.listLine(name, at, text); err != nil {
				return nil, err
			}
			continue
		case text == "" || text[0] == '#':
			continue
		case text[0] == '[':
			s, ok := strings.CutSuffix(text, "]")
			s = strings.ToLower(strings.TrimPrefix(s, "["))
			arch, known := sections[s]
			if !ok || !known {
				return nil, errf(name, at, "unknown section %s; want [all], [x86_64], [x86], [x32], [arm64], [arm], ...", text)
			}
			section = arch
			p.Sections = append(p.Sections, Section{Arch: arch, At: at})
			continue
		}
		r, err := parseRule(name, at, text)
		if err != nil {
			return nil, err
		}
		r.Section = section
		p.Rules = append(p.Rules, r)
	}
	if err := sc.Err(); err != nil {
		return nil, errf(name, ocigen.Pos{Line: line + 1}, "read: %v", err)
	}
	if line < 2 {
		return nil, errf(name, ocigen.Pos{Line: line + 1, Col: 1}, "no policy type line; want denylist or allowlist after the version")
	}
	return p, nil
}

// listLine reads line 2: the policy type and an optional default action.
func (p *Policy) listLine(file string, at ocigen.Pos, text string) error {
	if strings.Contains(text, "debug") {
		return errf(file, at, "\"debug\" is not implemented by LXC either")
	}
	word, rest, _ := strings.Cut(text, " ")
	if !slices.Contains(listWords, word) {
		return errf(file, at, "Bad seccomp policy style %q (LXC's words): want denylist or allowlist (or blacklist, whitelist), optionally followed by a default action", text)
	}
	p.Denylist = word == "denylist" || word == "blacklist"
	p.ListAt = at
	rest = strings.TrimLeft(rest, " ")
	if rest == "" || rest[0] == '#' {
		return nil
	}
	col := at.Col + len(text) - len(rest)
	a, tail, err := parseAction(file, ocigen.Pos{Line: at.Line, Col: col}, rest)
	if err != nil {
		return err
	}
	if tail = strings.TrimSpace(tail); tail != "" && tail[0] != '#' {
		return errf(file, ocigen.Pos{Line: at.Line, Col: col + len(rest) - len(tail)}, "unexpected %q after the default action", tail)
	}
	p.Default = a
	return nil
}

// parseAction reads an action at the start of s and returns the rest.
func parseAction(file string, at ocigen.Pos, s string) (*Action, string, error) {
	word, rest, _ := strings.Cut(s, " ")
	a := &Action{Word: word, At: at}
	switch word {
	case "kill":
		a.OCI = specs.ActKill
	case "allow":
		a.OCI = specs.ActAllow
	case "trap":
		a.OCI = specs.ActTrap
	case "notify":
		a.OCI = specs.ActNotify
	case "errno":
		rest = strings.TrimLeft(rest, " ")
		n, tail, _ := strings.Cut(rest, " ")
		v, err := strconv.ParseUint(n, 10, 16)
		if err != nil {
			return nil, "", errf(file, at, "errno %q: want a number from 0 to %d", n, filters.RetData)
		}
		u := uint(v)
		a.OCI, a.Errno, rest = specs.ActErrno, &u, tail
	default:
		return nil, "", errf(file, at, "unknown action %q; want kill, errno N, allow, trap or notify", word)
	}
	return a, rest, nil
}

var lxcOps = map[string]specs.LinuxSeccompOperator{
	"SCMP_CMP_NE": specs.OpNotEqual, "!=": specs.OpNotEqual,
	"SCMP_CMP_LT": specs.OpLessThan, "<": specs.OpLessThan,
	"SCMP_CMP_LE": specs.OpLessEqual, "<=": specs.OpLessEqual,
	"SCMP_CMP_EQ": specs.OpEqualTo, "==": specs.OpEqualTo,
	"SCMP_CMP_GE": specs.OpGreaterEqual, ">=": specs.OpGreaterEqual,
	"SCMP_CMP_GT": specs.OpGreaterThan, ">": specs.OpGreaterThan,
	"SCMP_CMP_MASKED_EQ": specs.OpMaskedEqual, "&=": specs.OpMaskedEqual,
}

// parseRule reads one rule line: name [action] [cond]...
func parseRule(file string, at ocigen.Pos, text string) (Rule, error) {
	name, rest, _ := strings.Cut(text, " ")
	r := Rule{Syscall: name, At: at}
	col := func(s string) ocigen.Pos { return ocigen.Pos{Line: at.Line, Col: at.Col + len(text) - len(s)} }
	rest = strings.TrimLeft(rest, " ")
	if rest != "" && rest[0] != '#' && rest[0] != '[' {
		a, tail, err := parseAction(file, col(rest), rest)
		if err != nil {
			return r, err
		}
		r.Action, rest = a, strings.TrimLeft(tail, " ")
	} else if rest != "" && rest[0] == '[' {
		return r, errf(file, col(rest), "condition without an action: LXC reads the word after the name as the action; write e.g. %q", name+" errno 1 "+rest)
	}
	for rest != "" && rest[0] != '#' {
		if rest[0] != '[' {
			return r, errf(file, col(rest), "unexpected %q; want a condition [index,value,op] or [index,value,op,mask]", rest)
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return r, errf(file, col(rest), "condition %q has no closing ]", rest)
		}
		if len(r.Args) == 6 {
			return r, errf(file, col(rest), "more than 6 conditions; LXC reads 6")
		}
		a, err := parseCond(file, col(rest), rest[1:end])
		if err != nil {
			return r, err
		}
		r.Args = append(r.Args, a)
		rest = strings.TrimLeft(rest[end+1:], " ")
	}
	if name == "reject_force_umount" && (r.Action != nil || len(r.Args) > 0) {
		return r, errf(file, at, "reject_force_umount takes no action or condition")
	}
	return r, nil
}

func parseCond(file string, at ocigen.Pos, s string) (specs.LinuxSeccompArg, error) {
	var a specs.LinuxSeccompArg
	f := strings.Split(s, ",")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	if len(f) != 3 && len(f) != 4 {
		return a, errf(file, at, "condition [%s]: want [index,value,op] or [index,value,op,mask]", s)
	}
	idx, err := strconv.ParseUint(f[0], 0, 8)
	if err != nil || idx > filters.MaxArgIndex {
		return a, errf(file, at, "condition [%s]: index %q, want 0 to 5", s, f[0])
	}
	v, err := strconv.ParseUint(f[1], 0, 64)
	if err != nil {
		return a, errf(file, at, "condition [%s]: value %q is no unsigned 64-bit number", s, f[1])
	}
	op, ok := lxcOps[f[2]]
	if !ok {
		return a, errf(file, at, "condition [%s]: unknown op %q; want SCMP_CMP_NE, _LT, _LE, _EQ, _GE, _GT, _MASKED_EQ or != < <= == >= > &=", s, f[2])
	}
	var mask uint64
	if len(f) == 4 {
		if mask, err = strconv.ParseUint(f[3], 0, 64); err != nil {
			return a, errf(file, at, "condition [%s]: mask %q is no unsigned 64-bit number", s, f[3])
		}
	}
	a = specs.LinuxSeccompArg{Index: uint(idx), Op: op, Value: v}
	if op == specs.OpMaskedEqual {
		a.Value, a.ValueTwo = mask, v
	}
	return a, nil
}

// hostArches are the architectures LXC filters on each supported host
// (parse_config_v2: the native context plus the compat ones), as OCI
// names and section names.
var hostArches = map[string][][2]string{
	"x86_64":  {{"SCMP_ARCH_X86_64", "x86_64"}, {"SCMP_ARCH_X86", "x86"}, {"SCMP_ARCH_X32", "x32"}},
	"aarch64": {{"SCMP_ARCH_AARCH64", "aarch64"}, {"SCMP_ARCH_ARM", "arm"}},
}

// ToOCI converts the policy to an OCI profile for a host of arch
// ("x86_64", the default, or "aarch64"; "amd64" and "arm64" too).
func (p *Policy) ToOCI(arch string) (*ocigen.Profile, error) {
	switch arch {
	case "", "amd64":
		arch = "x86_64"
	case "arm64":
		arch = "aarch64"
	}
	host, ok := hostArches[arch]
	if !ok {
		return nil, errf(p.File, ocigen.Pos{}, "host arch %q: want x86_64 or aarch64", arch)
	}
	def := &Action{Word: "kill", OCI: specs.ActKill, At: p.ListAt}
	ruleDef := &Action{Word: "allow", OCI: specs.ActAllow, At: p.ListAt}
	if p.Denylist {
		def, ruleDef = &Action{Word: "allow", OCI: specs.ActAllow, At: p.ListAt}, &Action{Word: "kill", OCI: specs.ActKill, At: p.ListAt}
	}
	if p.Default != nil {
		def = p.Default
	}
	out := &ocigen.Profile{Name: "lxc", DefaultAt: def.At}
	out.Seccomp.DefaultAction = def.OCI
	out.Seccomp.DefaultErrnoRet = def.Errno
	var names []string
	for _, h := range host {
		out.Seccomp.Architectures = append(out.Seccomp.Architectures, specs.Arch(h[0]))
		names = append(names, h[1])
	}
	for _, s := range p.Sections {
		if s.Arch != "all" && slices.Contains(names, s.Arch) {
			out.Warnings = append(out.Warnings, ocigen.Warning(p.File, s.At,
				"LXC adds the rules under [%s] to every architecture it filters on this host (%s), not to %s alone (src/lxc/seccomp.c: parse_config_v2 since LXC 3.2); modeled so",
				s.Arch, strings.Join(names, ", "), s.Arch))
		}
	}
	for _, r := range p.Rules {
		if r.Section != "all" && !slices.Contains(names, r.Section) {
			continue // another host's architecture: LXC skips it too
		}
		if r.Syscall == "reject_force_umount" {
			eacces := uint(13)
			out.Add(r.At, specs.ActErrno, &eacces, []specs.LinuxSeccompArg{{Index: 1, Op: specs.OpMaskedEqual, Value: 1, ValueTwo: 1}}, "umount2")
			continue
		}
		act := r.Action
		if act == nil {
			act = ruleDef
		}
		if act.OCI == def.OCI && (act.Errno == nil) == (def.Errno == nil) && (act.Errno == nil || *act.Errno == *def.Errno) {
			out.Warnings = append(out.Warnings, ocigen.Warning(p.File, r.At,
				"rule for %s has the default action %s: libseccomp refuses such a rule (EACCES) and LXC then fails to load the policy; left out", r.Syscall, act.Word))
			continue
		}
		for _, a := range r.Args {
			if a.Op == specs.OpMaskedEqual && a.Value == 0 {
				out.Warnings = append(out.Warnings, ocigen.Warning(p.File, r.At,
					"SCMP_CMP_MASKED_EQ on argument %d of %s has mask 0, as LXC reads a missing mask: it matches every call when the value is 0 and none otherwise", a.Index, r.Syscall))
			}
		}
		args, ok, conflict := ocigen.MergeArgs(r.Args)
		if conflict >= 0 {
			return nil, errf(p.File, r.At, "%s: several conditions on argument %d, not all equalities: they are ANDed, which an OCI profile cannot express (runc ORs conditions on one argument)", r.Syscall, conflict)
		}
		if !ok {
			out.Warnings = append(out.Warnings, ocigen.Warning(p.File, r.At, "rule for %s can never match (its conditions on one argument contradict each other); left out", r.Syscall))
			continue
		}
		out.Add(r.At, act.OCI, act.Errno, args, r.Syscall)
	}
	return out, nil
}

// Options say how to compile a policy.
type Options struct {
	// OCI.Arch picks the host (x86_64 or aarch64); NoENOSYSStub is
	// forced on, as LXC adds no such stub.
	OCI oci.Options
}

// Load parses and compiles a policy to one program named after the
// file's base name. Its Warnings hold what the conversion and ParseOCI
// found; the second result lists them again, once each.
func Load(name string, data []byte, opts Options) ([]*filters.Program, []string, error) {
	p, err := Parse(name, data)
	if err != nil {
		return nil, nil, err
	}
	prof, err := p.ToOCI(opts.OCI.Arch)
	if err != nil {
		return nil, nil, err
	}
	prof.Name = ocigen.BaseName(name)
	opt := opts.OCI
	opt.NoENOSYSStub = true
	prog, err := prof.Compile(name, data, ErrBadPolicy, opt)
	if err != nil {
		return nil, nil, err
	}
	progs := []*filters.Program{prog}
	return progs, ocigen.Collect(progs), nil
}
