package oci

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// Profile is one input of Intersect: a file name (for errors) and the
// profile's JSON.
type Profile struct {
	Name string
	Data []byte
}

// Inexpressible is a syscall whose intersection the OCI schema cannot
// state exactly. Intersect writes the syscall's strictest possible
// outcome for every argument instead, so the profile stays at least as
// restrictive as the stack.
type Inexpressible struct {
	// Syscall is the name, Reason why the rules cannot be combined,
	// Written the action the profile gives it instead (e.g. "ERRNO(1)").
	Syscall, Reason, Written string
}

// model is a resolved profile: the default action, the architectures
// and each syscall's rules in order.
type model struct {
	def    uint32
	arches []*scmp.Arch
	order  []string
	rules  map[string][]scmp.Rule
	// listener is the inputs' listenerPath and listenerMetadata (where
	// SCMP_ACT_NOTIFY sends its notifications), kept when they agree.
	listener listener
}

// listener is a profile's SCMP_ACT_NOTIFY listener fields.
type listener struct {
	Path     string `json:"listenerPath"`
	Metadata string `json:"listenerMetadata"`
}

// Intersect returns an OCI profile (JSON) that gives every input the
// outcome the stack of profiles gives (index 0 installed first), each
// resolved for opt's capabilities, kernel version and host arch as
// Parse resolves it: the most restrictive action wins, and on a tie of
// actions the newest profile's data (errno), as kernel/seccomp.c:
// seccomp_run_filters decides. Per syscall the rules combine exactly when
// at most one side's rules look at arguments and the combined rules leave
// unmatched arguments to the profile's default action, or when both
// sides' rules give one action each and their conditions conjoin
// (crossRules); otherwise the
// syscall is listed in the second result and written with its strictest
// outcome. The written profile lists no includes or excludes: it is
// resolved already. The caller proves the result (compile it with Parse
// and compare it with the stack).
func Intersect(profiles []Profile, opt Options) ([]byte, []Inexpressible, error) {
	if len(profiles) == 0 {
		return nil, nil, fmt.Errorf("intersect: %w: no profile", ErrBadProfile)
	}
	var acc model
	var lost []Inexpressible
	lis, err := listenerOf(profiles)
	if err != nil {
		return nil, nil, err
	}
	for i, p := range profiles {
		res, err := resolve(p.Name, p.Data, opt)
		if err != nil {
			return nil, nil, err
		}
		m := modelOf(res.f)
		if i == 0 {
			acc = m
			continue
		}
		var l []Inexpressible
		acc, l = combineModels(acc, m)
		lost = append(lost, l...)
	}
	acc.listener = lis
	data, err := acc.json()
	return data, lost, err
}

// listenerOf returns the listener fields the profiles set, and an error
// wrapping ErrBadProfile when two of them set one differently: the
// intersection has one listener, and a notification sent to the wrong
// agent is no intersection.
func listenerOf(profiles []Profile) (listener, error) {
	var out listener
	var from [2]string
	for _, p := range profiles {
		var l listener
		if err := json.Unmarshal(p.Data, &l); err != nil {
			return out, fmt.Errorf("intersect %s: %w: %w", p.Name, ErrBadProfile, err)
		}
		for i, f := range [][2]*string{{&out.Path, &l.Path}, {&out.Metadata, &l.Metadata}} {
			switch {
			case *f[1] == "":
			case *f[0] == "":
				*f[0], from[i] = *f[1], p.Name
			case *f[0] != *f[1]:
				return out, fmt.Errorf("intersect %s: %w: %s is %q in %s but %q here; SCMP_ACT_NOTIFY has one listener per profile, give the inputs the same one",
					p.Name, ErrBadProfile, [...]string{"listenerPath", "listenerMetadata"}[i], *f[0], from[i], *f[1])
			}
		}
	}
	return out, nil
}

func modelOf(f *scmp.Filter) model {
	m := model{def: f.DefAction, arches: f.Arches, rules: map[string][]scmp.Rule{}}
	for _, r := range f.Rules {
		if _, ok := m.rules[r.Syscall]; !ok {
			m.order = append(m.order, r.Syscall)
		}
		m.rules[r.Syscall] = append(m.rules[r.Syscall], r)
	}
	return m
}

// pick is the stack's result of an older and a newer return value: the
// lower action wins, ties go to the newer (kernel/seccomp.c:
// seccomp_run_filters).
func pick(older, newer uint32) uint32 {
	if int32(older&filters.RetActionFull) < int32(newer&filters.RetActionFull) {
		return older
	}
	return newer
}

// uniform reports the action rules give a syscall whatever its
// arguments, def when there are none.
func uniform(rules []scmp.Rule, def uint32) (uint32, bool) {
	if len(rules) == 0 {
		return def, true
	}
	act := rules[0].Action
	for _, r := range rules {
		if r.Action != act || (len(r.Conds) > 0 && act != def) {
			return 0, false
		}
	}
	return act, true
}

// combineModels is the model of stack (a, b), b newer.
func combineModels(a, b model) (model, []Inexpressible) {
	out := model{def: pick(a.def, b.def), rules: map[string][]scmp.Rule{}}
	for _, x := range a.arches {
		if slices.Contains(b.arches, x) {
			out.arches = append(out.arches, x)
		}
	}
	var lost []Inexpressible
	for _, name := range append(slices.Clone(a.order), b.order...) {
		if _, done := out.rules[name]; done {
			continue
		}
		out.order = append(out.order, name)
		rules, reason := combineSyscall(name, a, b, out.def)
		if reason != "" {
			act := strictest(a, b, name)
			rules = []scmp.Rule{{Syscall: name, Action: act}}
			lost = append(lost, Inexpressible{Syscall: name, Reason: reason, Written: filters.RetText(act)})
		}
		out.rules[name] = rules
	}
	return out, lost
}

// combineSyscall combines one syscall's rules of a and b (b newer) under
// the combined default def; a non-empty reason says why it cannot.
func combineSyscall(name string, a, b model, def uint32) ([]scmp.Rule, string) {
	ra, rb := a.rules[name], b.rules[name]
	ua, oka := uniform(ra, a.def)
	ub, okb := uniform(rb, b.def)
	switch {
	case oka && okb:
		return []scmp.Rule{{Syscall: name, Action: pick(ua, ub)}}, ""
	case oka:
		return withUniform(name, rb, b.def, ua, false, def)
	case okb:
		return withUniform(name, ra, a.def, ub, true, def)
	case slices.EqualFunc(ra, rb, sameConds):
		// The same conditions in the same order: the same rules match on
		// both sides, and unmatched arguments fall through to each
		// default, which combine to def.
		out := slices.Clone(ra)
		for i := range out {
			out[i].Action = pick(ra[i].Action, rb[i].Action)
		}
		return out, ""
	}
	if out, ok := crossRules(name, ra, a.def, rb, b.def, def); ok {
		return out, ""
	}
	return nil, "both profiles decide it by its arguments, with different conditions"
}

// maxCrossRules bounds the rules crossRules writes for one syscall.
const maxCrossRules = 64

// crossRules combines two sides whose rules each give one action (xa,
// xb) on conditions, falling through to their defaults da, db (b newer):
// the stack gives pick(xa, xb) where a rule of each side matches, and
// where only one side's does pick(xa, db) or pick(da, xb). When both of
// the latter are the combined default def, one rule per pair of rules,
// its conditions the conjunction of both (OCI ANDs a rule's args), states
// the syscall exactly. A pair that tests one argument index twice with
// different conditions is refused: libseccomp accepts that for some
// operators only, and the caller proves what is written anyway.
func crossRules(name string, ra []scmp.Rule, da uint32, rb []scmp.Rule, db, def uint32) ([]scmp.Rule, bool) {
	xa, oka := oneAction(ra)
	xb, okb := oneAction(rb)
	if !oka || !okb || pick(xa, db) != def || pick(da, xb) != def || len(ra)*len(rb) > maxCrossRules {
		return nil, false
	}
	act := pick(xa, xb)
	if act == def {
		return []scmp.Rule{{Syscall: name, Action: def}}, true
	}
	out := make([]scmp.Rule, 0, len(ra)*len(rb))
	for _, r := range ra {
		for _, q := range rb {
			conds, ok := conjoin(r.Conds, q.Conds)
			if !ok {
				return nil, false
			}
			out = append(out, scmp.Rule{Syscall: name, Action: act, Conds: conds})
		}
	}
	return out, true
}

// oneAction returns the action every rule gives, when they agree.
func oneAction(rules []scmp.Rule) (uint32, bool) {
	if len(rules) == 0 {
		return 0, false
	}
	for _, r := range rules[1:] {
		if r.Action != rules[0].Action {
			return 0, false
		}
	}
	return rules[0].Action, true
}

// conjoin returns the conditions of x and y as one rule's (both must
// hold), or false when they test one argument index differently.
func conjoin(x, y []scmp.Cond) ([]scmp.Cond, bool) {
	out := slices.Clone(x)
	for _, c := range y {
		i := slices.IndexFunc(out, func(o scmp.Cond) bool { return o.Arg == c.Arg })
		switch {
		case i < 0:
			out = append(out, c)
		case out[i] != c:
			return nil, false
		}
	}
	return out, true
}

func sameConds(x, y scmp.Rule) bool {
	return x.Syscall == y.Syscall && slices.Equal(x.Conds, y.Conds)
}

// withUniform combines argument rules rs (falling through to rdef) with a
// uniform action u of the other side (newer when uNewer).
func withUniform(name string, rs []scmp.Rule, rdef, u uint32, uNewer bool, def uint32) ([]scmp.Rule, string) {
	p := func(r uint32) uint32 {
		if uNewer {
			return pick(r, u)
		}
		return pick(u, r)
	}
	fall := p(rdef)
	out := make([]scmp.Rule, 0, len(rs))
	same := true
	for _, r := range rs {
		r.Action = p(r.Action)
		same = same && r.Action == fall
		out = append(out, r)
	}
	switch {
	case same:
		return []scmp.Rule{{Syscall: name, Action: fall}}, ""
	case fall != def:
		return nil, fmt.Sprintf("its arguments decide between actions, and arguments no rule matches would get %s where the profile's default is %s; OCI has no per-syscall default",
			filters.RetText(fall), filters.RetText(def))
	}
	return out, ""
}

// strictest is the most restrictive outcome the stack (a, b) can give
// the syscall for any arguments.
func strictest(a, b model, name string) uint32 {
	acts := func(m model) []uint32 {
		out := []uint32{m.def}
		for _, r := range m.rules[name] {
			out = append(out, r.Action)
		}
		return out
	}
	best := uint32(filters.ActionAllow)
	for _, x := range acts(a) {
		for _, y := range acts(b) {
			best = pick(best, pick(x, y))
		}
	}
	return best
}

// json writes m as an OCI profile: one syscalls entry per rule.
func (m model) json() ([]byte, error) {
	act, errno, err := ociAction(m.def)
	if err != nil {
		return nil, err
	}
	prof := mobyseccomp.Seccomp{LinuxSeccomp: specs.LinuxSeccomp{DefaultAction: act, DefaultErrnoRet: errno,
		ListenerPath: m.listener.Path, ListenerMetadata: m.listener.Metadata}}
	for _, a := range m.arches {
		prof.Architectures = append(prof.Architectures, specs.Arch(a.OCI))
	}
	for _, name := range m.order {
		for _, r := range m.rules[name] {
			act, errno, err := ociAction(r.Action)
			if err != nil {
				return nil, err
			}
			sc := &mobyseccomp.Syscall{LinuxSyscall: specs.LinuxSyscall{Names: []string{name}, Action: act, ErrnoRet: errno}}
			for _, c := range r.Conds {
				sc.Args = append(sc.Args, ociArg(c))
			}
			prof.Syscalls = append(prof.Syscalls, sc)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "\t")
	if err := enc.Encode(prof); err != nil {
		return nil, fmt.Errorf("write profile: %w", err)
	}
	return buf.Bytes(), nil
}

// ociAction is ruleAction's inverse.
func ociAction(ret uint32) (specs.LinuxSeccompAction, *uint, error) {
	data := uint(ret & filters.RetData)
	switch filters.Action(ret & filters.RetActionFull) {
	case filters.ActionKillThread:
		return specs.ActKillThread, nil, nil
	case filters.ActionKillProcess:
		return specs.ActKillProcess, nil, nil
	case filters.ActionTrap:
		return specs.ActTrap, nil, nil
	case filters.ActionErrno:
		return specs.ActErrno, &data, nil
	case filters.ActionTrace:
		return specs.ActTrace, &data, nil
	case filters.ActionAllow:
		return specs.ActAllow, nil, nil
	case filters.ActionLog:
		return specs.ActLog, nil, nil
	case filters.ActionUserNotif:
		return specs.ActNotify, nil, nil
	}
	return "", nil, fmt.Errorf("write profile: return value %#x has no OCI action", ret)
}

// ociArg is ruleConds' inverse for one condition.
func ociArg(c scmp.Cond) specs.LinuxSeccompArg {
	a := specs.LinuxSeccompArg{Index: uint(c.Arg), Value: c.Datum}
	for op, o := range ops {
		if o == c.Op {
			a.Op = op
		}
	}
	if c.Op == scmp.MaskedEQ {
		a.Value, a.ValueTwo = c.Mask, c.Datum
	}
	return a
}
