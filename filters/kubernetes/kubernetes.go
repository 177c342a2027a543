// Package kubernetes reads the SeccompProfile objects of the Kubernetes
// Security Profiles Operator (apiVersion
// security-profiles-operator.x-k8s.io/v1, v1beta1 or v1alpha1, kind
// SeccompProfile) and compiles one to a seccomp filter by way of an OCI
// profile (oci.Parse).
//
// A profile's spec is OCI-shaped and maps one to one: defaultAction,
// architectures, syscalls[{names, action, errnoRet, args[{index, value,
// valueTwo, op}]}] become the OCI profile's fields, so every action and
// operator means what it means to runc (SCMP_ACT_KILL is KILL_THREAD,
// SCMP_ACT_ERRNO without errnoRet is EPERM, SCMP_CMP_MASKED_EQ is
// (arg & value) == valueTwo, ...; see oci.Parse). The operator
// hands the profile to the container runtime through the kubelet, so runc's
// -ENOSYS stub is modeled unless Options.OCI.NoENOSYSStub says otherwise.
//
// baseProfileName names another SeccompProfile (by metadata.name) whose
// syscalls the profile extends. It is resolved within the same file or
// among Options.Bases, recursively; the profile's own entries come first
// and its defaultAction is the one used; architectures are the union.
// Bases the operator would pull itself ("runc:v1.1.5", "oci://...") are
// not modeled: give their profile as an extra input instead.
//
// Not modeled, each with a warning: listenerPath, listenerMetadata and
// flags (recorded nowhere, as in oci.Parse); disabled profiles are
// compiled all the same. Also not modeled: a profile's status and the ProfileBinding/ProfileRecording objects
// a file may also hold (documents of other kinds are skipped).
package kubernetes

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/srcpos"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// Group is the API group of the Security Profiles Operator's objects.
const Group = "security-profiles-operator.x-k8s.io"

// Kind is the kind of the objects this package reads.
const Kind = "SeccompProfile"

// ErrBadProfile is returned, wrapped in a *filters.SourceError naming the
// file, line and column, when a SeccompProfile cannot be decoded, breaks
// the schema, cannot be selected, or names a base profile that is not
// given.
var ErrBadProfile = errors.New("invalid Kubernetes SeccompProfile")

// MaxSize is the largest file Parse accepts, in bytes.
const MaxSize = filters.MaxInputSize

// Document is one file of SeccompProfile objects.
type Document struct {
	// File is the source name.
	File string
	// Profiles are the file's SeccompProfile objects, in order.
	Profiles []*Profile
}

// Profile is one SeccompProfile object.
type Profile struct {
	// File is the source the profile was read from.
	File string
	// APIVersion is e.g. "security-profiles-operator.x-k8s.io/v1beta1".
	APIVersion string
	// Name and Namespace are the object's metadata.
	Name, Namespace string
	// At is where the object starts.
	At ocigen.Pos
	// DefaultAction is spec.defaultAction, e.g. "SCMP_ACT_ERRNO".
	DefaultAction string
	DefaultAt     ocigen.Pos
	// DefaultErrnoRet is spec.defaultErrnoRet, nil if absent.
	DefaultErrnoRet *uint
	// Architectures are spec.architectures (SCMP_ARCH_*), with where
	// each is written.
	Architectures []string
	ArchAt        []ocigen.Pos
	// Syscalls are spec.syscalls.
	Syscalls []Syscall
	// BaseProfileName is spec.baseProfileName, "" if absent.
	BaseProfileName string
	BaseAt          ocigen.Pos
	// Disabled is spec.disabled.
	Disabled bool
	// Unmodeled are the spec keys that are read but not modeled
	// (flags, listenerPath, listenerMetadata), with where each is.
	Unmodeled   []string
	UnmodeledAt []ocigen.Pos
}

// Syscall is one entry of spec.syscalls.
type Syscall struct {
	Names    []string
	NamesAt  []ocigen.Pos
	Action   string
	ErrnoRet *uint
	Args     []specs.LinuxSeccompArg
	At       ocigen.Pos
}

// Detect reports whether data holds a SeccompProfile: a line
// "kind: SeccompProfile" (or the JSON spelling) and the operator's API
// group. Beats and OCI policies have neither.
func Detect(data []byte) bool {
	if len(data) > MaxSize {
		data = data[:MaxSize]
	}
	return bytes.Contains(data, []byte(Group+"/")) &&
		(bytes.Contains(data, []byte("kind: "+Kind)) || bytes.Contains(data, []byte(`"kind": "`+Kind+`"`)) ||
			bytes.Contains(data, []byte(`"kind":"`+Kind+`"`)))
}

// Parse decodes every SeccompProfile document of a YAML (or JSON) file,
// and every item of a List document (what `kubectl get seccompprofiles -o
// yaml` prints). Documents of other kinds are skipped; a file without any
// SeccompProfile is an error. Errors are *filters.SourceError values
// wrapping ErrBadProfile, located at the offending value.
func Parse(name string, data []byte) (*Document, error) {
	if len(data) > MaxSize {
		return nil, ocigen.Errorf(name, ocigen.Pos{}, ErrBadProfile, "file is %d bytes, above the limit of %d", len(data), MaxSize)
	}
	docs, err := parseDocs(name, data)
	if err != nil {
		return nil, err
	}
	d := &Document{File: name}
	kinds := []string{}
	for i := 0; i < len(docs); i++ {
		n := docs[i]
		if n.Kind != srcpos.Map {
			return nil, ocigen.Errorf(name, n.At, ErrBadProfile, "a document is a %s, want a Kubernetes object (a mapping)", n.Kind.YAMLName())
		}
		kind := n.Get("kind")
		if items := n.Get("items"); kind != nil && strings.HasSuffix(kind.Str, "List") && items != nil {
			// kubectl get -o yaml: a List whose items are the objects.
			if err := want(name, items, "seq", "items"); err != nil {
				return nil, err
			}
			docs = slices.Insert(docs, i+1, items.Vals...)
			continue
		}
		if kind == nil || kind.Str != Kind {
			if kind != nil {
				kinds = append(kinds, kind.Str)
			}
			continue
		}
		p, err := decodeProfile(name, n)
		if err != nil {
			return nil, err
		}
		d.Profiles = append(d.Profiles, p)
	}
	if len(d.Profiles) == 0 {
		msg := "no SeccompProfile object"
		if len(kinds) > 0 {
			msg += "; the file holds " + strings.Join(kinds, ", ")
		}
		return nil, ocigen.Errorf(name, ocigen.Pos{Line: 1, Col: 1}, ErrBadProfile, "%s", msg)
	}
	return d, nil
}

// decoder helpers, each returning a located error.

func want(file string, n *srcpos.Node, kind, what string) error {
	if n.Kind.YAMLName() == kind {
		return nil
	}
	names := map[string]string{"map": "a mapping", "seq": "a list", "str": "a string", "int": "an integer", "bool": "true or false", "null": "nothing"}
	return ocigen.Errorf(file, n.At, ErrBadProfile, "%s is %s, want %s", what, names[n.Kind.YAMLName()], names[kind])
}

func checkKeys(file string, n *srcpos.Node, what string, allowed ...string) error {
	for i, k := range n.Keys {
		if !slices.Contains(allowed, k) {
			return ocigen.Errorf(file, n.KeyAt[i], ErrBadProfile, "unknown key %q in %s; want one of %s", k, what, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func str(file string, n *srcpos.Node, what string) (string, error) {
	if n.Kind == srcpos.Num || n.Kind == srcpos.Bool {
		return n.Str, nil
	}
	if err := want(file, n, "str", what); err != nil {
		return "", err
	}
	return n.Str, nil
}

func number(file string, n *srcpos.Node, what string, max uint64) (uint64, error) {
	if n.Kind != srcpos.Num {
		return 0, ocigen.Errorf(file, n.At, ErrBadProfile, "%s is %q, want an integer", what, n.Str)
	}
	v, err := strconv.ParseUint(strings.ReplaceAll(n.Str, "_", ""), 0, 64)
	if err != nil || v > max {
		return 0, ocigen.Errorf(file, n.At, ErrBadProfile, "%s %s: want an integer from 0 to %d", what, n.Str, max)
	}
	return v, nil
}

// decodeProfile reads one SeccompProfile object n of file: its
// apiVersion, metadata and spec, in that order, so the first error is
// the one nearest the top of the object.
func decodeProfile(file string, n *srcpos.Node) (*Profile, error) {
	if err := checkKeys(file, n, "the object", "apiVersion", "kind", "metadata", "spec", "status"); err != nil {
		return nil, err
	}
	p := &Profile{File: file, At: n.At}
	if err := decodeAPIVersion(file, n, p); err != nil {
		return nil, err
	}
	if err := decodeMetadata(file, n, p); err != nil {
		return nil, err
	}
	spec, err := specOf(file, n, p.Name)
	if err != nil {
		return nil, err
	}
	for _, step := range []func(string, *srcpos.Node, *Profile) error{
		decodeDefault, decodeArchitectures, decodeOptions, decodeSyscalls,
	} {
		if err := step(file, spec, p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// decodeAPIVersion sets p.APIVersion from n's apiVersion, which must
// be one of the operator's versions of the SeccompProfile kind.
func decodeAPIVersion(file string, n *srcpos.Node, p *Profile) error {
	av := n.Get("apiVersion")
	if av == nil {
		return ocigen.Errorf(file, n.At, ErrBadProfile, "SeccompProfile without apiVersion; want %s/v1", Group)
	}
	p.APIVersion = av.Str
	// v1 is what the operator's own examples use since 2024
	// (examples/seccompprofile.yaml); v1beta1 and v1alpha1 came before.
	if p.APIVersion != Group+"/v1" && p.APIVersion != Group+"/v1beta1" && p.APIVersion != Group+"/v1alpha1" {
		return ocigen.Errorf(file, av.At, ErrBadProfile, "apiVersion %q: want %s/v1, /v1beta1 or /v1alpha1", av.Str, Group)
	}
	return nil
}

// decodeMetadata sets p.Name (required) and p.Namespace (optional)
// from n's metadata map.
func decodeMetadata(file string, n *srcpos.Node, p *Profile) error {
	md := n.Get("metadata")
	if md == nil {
		return ocigen.Errorf(file, n.At, ErrBadProfile, "SeccompProfile without metadata.name")
	}
	if err := want(file, md, "map", "metadata"); err != nil {
		return err
	}
	nm := md.Get("name")
	if nm == nil || nm.Str == "" {
		return ocigen.Errorf(file, md.At, ErrBadProfile, "SeccompProfile without metadata.name")
	}
	p.Name = nm.Str
	if ns := md.Get("namespace"); ns != nil {
		p.Namespace = ns.Str
	}
	return nil
}

// specOf returns n's spec map, the object named name, after checking
// that it has only the keys the operator's CRD defines.
func specOf(file string, n *srcpos.Node, name string) (*srcpos.Node, error) {
	spec := n.Get("spec")
	if spec == nil {
		return nil, ocigen.Errorf(file, n.At, ErrBadProfile, "SeccompProfile %q has no spec", name)
	}
	if err := want(file, spec, "map", "spec"); err != nil {
		return nil, err
	}
	if err := checkKeys(file, spec, "spec", "defaultAction", "defaultErrnoRet", "architectures", "syscalls",
		"baseProfileName", "flags", "listenerPath", "listenerMetadata", "disabled"); err != nil {
		return nil, err
	}
	return spec, nil
}

// decodeDefault sets p.DefaultAction (required) and p.DefaultErrnoRet
// (optional, an errno from 0 to filters.RetData) from spec.
func decodeDefault(file string, spec *srcpos.Node, p *Profile) error {
	da := spec.Get("defaultAction")
	if da == nil {
		return ocigen.Errorf(file, spec.At, ErrBadProfile, "spec of %q has no defaultAction", p.Name)
	}
	var err error
	if p.DefaultAction, err = str(file, da, "spec.defaultAction"); err != nil {
		return err
	}
	p.DefaultAt = da.At
	if err := checkAction(file, da.At, p.DefaultAction); err != nil {
		return err
	}
	if e := spec.Get("defaultErrnoRet"); e != nil {
		v, err := number(file, e, "spec.defaultErrnoRet", filters.RetData)
		if err != nil {
			return err
		}
		u := uint(v)
		p.DefaultErrnoRet = &u
	}
	return nil
}

// decodeArchitectures appends spec.architectures to p.Architectures,
// each one of supportedArches.
func decodeArchitectures(file string, spec *srcpos.Node, p *Profile) error {
	return eachItem(file, spec.Get("architectures"), "spec.architectures", func(_ int, it *srcpos.Node) error {
		s, err := str(file, it, "an architecture")
		if err != nil {
			return err
		}
		if !slices.Contains(supportedArches, s) {
			return ocigen.Errorf(file, it.At, ErrBadProfile, "architecture %q: want one of %s (no other syscall table here)", s, strings.Join(supportedArches, ", "))
		}
		p.Architectures = append(p.Architectures, s)
		p.ArchAt = append(p.ArchAt, it.At)
		return nil
	})
}

// eachItem calls one with the index and node of each item of n, the
// list named what in messages, stopping at the first error; an absent
// (nil) or null n has no items.
func eachItem(file string, n *srcpos.Node, what string, one func(i int, it *srcpos.Node) error) error {
	if n == nil || n.Kind == srcpos.Null {
		return nil
	}
	if err := want(file, n, "seq", what); err != nil {
		return err
	}
	for i, it := range n.Vals {
		if err := one(i, it); err != nil {
			return err
		}
	}
	return nil
}

// decodeOptions sets p.BaseProfileName and p.Disabled from spec and
// lists in p.Unmodeled the non-null spec keys read but not modeled.
func decodeOptions(file string, spec *srcpos.Node, p *Profile) error {
	if b := spec.Get("baseProfileName"); b != nil {
		var err error
		if p.BaseProfileName, err = str(file, b, "spec.baseProfileName"); err != nil {
			return err
		}
		p.BaseAt = b.At
	}
	if d := spec.Get("disabled"); d != nil {
		p.Disabled = d.Str == "true"
	}
	for i, k := range spec.Keys {
		if (k == "flags" || k == "listenerPath" || k == "listenerMetadata") && spec.Vals[i].Kind != srcpos.Null {
			p.Unmodeled = append(p.Unmodeled, k)
			p.UnmodeledAt = append(p.UnmodeledAt, spec.KeyAt[i])
		}
	}
	return nil
}

// decodeSyscalls appends each entry of spec.syscalls to p.Syscalls.
func decodeSyscalls(file string, spec *srcpos.Node, p *Profile) error {
	return eachItem(file, spec.Get("syscalls"), "spec.syscalls", func(i int, it *srcpos.Node) error {
		sc, err := decodeSyscall(file, it, i)
		if err != nil {
			return err
		}
		p.Syscalls = append(p.Syscalls, sc)
		return nil
	})
}

// supportedArches are the architectures oci.Parse has syscall
// tables for.
var supportedArches = []string{"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"}

var actions = []string{"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
	"SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY"}

var ops = []string{"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"}

func checkAction(file string, at ocigen.Pos, a string) error {
	if !slices.Contains(actions, a) {
		return ocigen.Errorf(file, at, ErrBadProfile, "unknown action %q; want one of %s", a, strings.Join(actions, ", "))
	}
	return nil
}

// decodeSyscall reads n, entry i of spec.syscalls: its names, action,
// errnoRet and args.
func decodeSyscall(file string, n *srcpos.Node, i int) (Syscall, error) {
	what := fmt.Sprintf("spec.syscalls[%d]", i)
	sc := Syscall{At: n.At}
	if err := want(file, n, "map", what); err != nil {
		return sc, err
	}
	if err := checkKeys(file, n, what, "names", "action", "errnoRet", "args"); err != nil {
		return sc, err
	}
	if err := decodeNames(file, n, what, &sc); err != nil {
		return sc, err
	}
	if err := decodeAction(file, n, what, &sc); err != nil {
		return sc, err
	}
	err := eachItem(file, n.Get("args"), what+".args", func(j int, a *srcpos.Node) error {
		arg, err := decodeArg(file, a, fmt.Sprintf("%s.args[%d]", what, j))
		if err != nil {
			return err
		}
		sc.Args = append(sc.Args, arg)
		return nil
	})
	return sc, err
}

// decodeNames sets sc.Names from n's names, a non-empty list of
// non-empty syscall names; what names n in messages.
func decodeNames(file string, n *srcpos.Node, what string, sc *Syscall) error {
	names := n.Get("names")
	if names == nil || names.Kind != srcpos.Seq || len(names.Vals) == 0 {
		return ocigen.Errorf(file, n.At, ErrBadProfile, "%s has no names; want a list of syscall names", what)
	}
	for _, it := range names.Vals {
		s, err := str(file, it, what+": a name")
		if err != nil {
			return err
		}
		if s == "" {
			return ocigen.Errorf(file, it.At, ErrBadProfile, "%s: empty syscall name", what)
		}
		sc.Names = append(sc.Names, s)
		sc.NamesAt = append(sc.NamesAt, it.At)
	}
	return nil
}

// decodeAction sets sc.Action (required) and sc.ErrnoRet (optional,
// from 0 to filters.RetData, only with SCMP_ACT_ERRNO or
// SCMP_ACT_TRACE) from n; what names n in messages.
func decodeAction(file string, n *srcpos.Node, what string, sc *Syscall) error {
	act := n.Get("action")
	if act == nil {
		return ocigen.Errorf(file, n.At, ErrBadProfile, "%s has no action", what)
	}
	var err error
	if sc.Action, err = str(file, act, what+".action"); err != nil {
		return err
	}
	if err := checkAction(file, act.At, sc.Action); err != nil {
		return err
	}
	if e := n.Get("errnoRet"); e != nil {
		v, err := number(file, e, what+".errnoRet", filters.RetData)
		if err != nil {
			return err
		}
		if sc.Action != "SCMP_ACT_ERRNO" && sc.Action != "SCMP_ACT_TRACE" {
			return ocigen.Errorf(file, e.At, ErrBadProfile, "%s: errnoRet is only allowed with SCMP_ACT_ERRNO and SCMP_ACT_TRACE, not %s", what, sc.Action)
		}
		u := uint(v)
		sc.ErrnoRet = &u
	}
	return nil
}

// decodeArg reads a, one argument comparison named w in messages: its
// index (0 to filters.MaxArgIndex), value, valueTwo and op.
func decodeArg(file string, a *srcpos.Node, w string) (specs.LinuxSeccompArg, error) {
	var arg specs.LinuxSeccompArg
	if err := want(file, a, "map", w); err != nil {
		return arg, err
	}
	if err := checkKeys(file, a, w, "index", "value", "valueTwo", "op"); err != nil {
		return arg, err
	}
	idx := a.Get("index")
	if idx == nil {
		return arg, ocigen.Errorf(file, a.At, ErrBadProfile, "%s has no index", w)
	}
	v, err := number(file, idx, w+".index", filters.MaxArgIndex)
	if err != nil {
		return arg, err
	}
	arg.Index = uint(v)
	for _, f := range []struct {
		key string
		dst *uint64
	}{{"value", &arg.Value}, {"valueTwo", &arg.ValueTwo}} {
		if x := a.Get(f.key); x != nil {
			if *f.dst, err = number(file, x, w+"."+f.key, ^uint64(0)); err != nil {
				return arg, err
			}
		}
	}
	op := a.Get("op")
	if op == nil {
		return arg, ocigen.Errorf(file, a.At, ErrBadProfile, "%s has no op", w)
	}
	s, err := str(file, op, w+".op")
	if err != nil {
		return arg, err
	}
	if !slices.Contains(ops, s) {
		return arg, ocigen.Errorf(file, op.At, ErrBadProfile, "%s: unknown op %q; want one of %s", w, s, strings.Join(ops, ", "))
	}
	arg.Op = specs.LinuxSeccompOperator(s)
	return arg, nil
}

// Names returns the metadata.name of every profile, in file order.
func (d *Document) Names() []string {
	out := make([]string, len(d.Profiles))
	for i, p := range d.Profiles {
		out[i] = p.Name
	}
	return out
}

// Select returns the profile named name ("name" or "namespace/name"), or
// the only one when name is "". With several profiles and no name, or a
// name no profile has, the error lists the names there are.
func (d *Document) Select(name string) (*Profile, error) {
	if name == "" {
		if len(d.Profiles) == 1 {
			return d.Profiles[0], nil
		}
		return nil, ocigen.Errorf(d.File, ocigen.Pos{}, ErrBadProfile, "the file holds %d SeccompProfiles (%s); choose one by name", len(d.Profiles), strings.Join(d.Names(), ", "))
	}
	if p := d.find(name); p != nil {
		return p, nil
	}
	return nil, ocigen.Errorf(d.File, ocigen.Pos{}, ErrBadProfile, "no SeccompProfile named %q; the file holds %s", name, strings.Join(d.Names(), ", "))
}

func (d *Document) find(name string) *Profile {
	for _, p := range d.Profiles {
		if p.Name == name || p.Namespace != "" && p.Namespace+"/"+p.Name == name {
			return p
		}
	}
	return nil
}

// ToOCI converts p to an OCI profile, resolving its base profile (and
// theirs) among the profiles of docs (p's own file first). It returns a
// *filters.SourceError wrapping ErrBadProfile when a base is missing,
// pulled by the operator itself, or part of a cycle.
func ToOCI(p *Profile, docs ...*Document) (*ocigen.Profile, error) {
	out := &ocigen.Profile{Name: p.Name, DefaultAt: p.DefaultAt}
	out.Seccomp.DefaultAction = specs.LinuxSeccompAction(p.DefaultAction)
	out.Seccomp.DefaultErrnoRet = p.DefaultErrnoRet
	chain := []*Profile{}
	for cur := p; cur != nil; {
		if slices.Contains(chain, cur) {
			return nil, ocigen.Errorf(cur.File, cur.BaseAt, ErrBadProfile, "base profiles form a cycle through %q", cur.Name)
		}
		chain = append(chain, cur)
		if cur.BaseProfileName == "" {
			break
		}
		base := cur.BaseProfileName
		if strings.HasPrefix(base, "oci://") || strings.Contains(base, ":") {
			return nil, ocigen.Errorf(cur.File, cur.BaseAt, ErrBadProfile, "base profile %q is one the operator pulls itself; give its SeccompProfile as extra input and name it by metadata.name", base)
		}
		var next *Profile
		for _, d := range docs {
			if next = d.find(base); next != nil {
				break
			}
		}
		if next == nil {
			return nil, ocigen.Errorf(cur.File, cur.BaseAt, ErrBadProfile, "base profile %q is neither in this file nor among the extra inputs", base)
		}
		cur = next
	}
	if p.Disabled {
		out.Warnings = append(out.Warnings, ocigen.Warning(p.File, p.DefaultAt,
			"profile %q has spec.disabled: true; the operator does not install it, but it is compiled here all the same", p.Name))
	}
	for i, k := range p.Unmodeled {
		out.Warnings = append(out.Warnings, ocigen.Warning(p.File, p.UnmodeledAt[i],
			"spec.%s is not modeled: the filter is compiled without it", k))
	}
	// Entries: the profile's own first, then each base's, so that its own
	// unconditional entry decides a name a base also lists.
	own := map[string]string{}
	for _, c := range chain {
		for _, a := range c.Architectures {
			if !slices.Contains(out.Seccomp.Architectures, specs.Arch(a)) {
				out.Seccomp.Architectures = append(out.Seccomp.Architectures, specs.Arch(a))
			}
		}
		for _, sc := range c.Syscalls {
			for k, n := range sc.Names {
				if prev, ok := own[n]; ok && c != p && prev != sc.Action && len(sc.Args) == 0 {
					out.Warnings = append(out.Warnings, ocigen.Warning(c.File, sc.NamesAt[k],
						"base profile %q gives %s %s, but %q already gave it %s, which wins", c.Name, n, sc.Action, p.Name, prev))
				}
				if _, ok := own[n]; !ok && c == p && len(sc.Args) == 0 {
					own[n] = sc.Action
				}
				at := sc.NamesAt[k]
				if c.File != p.File {
					at.File = c.File
				}
				out.Add(at, specs.LinuxSeccompAction(sc.Action), sc.ErrnoRet, sc.Args, n)
			}
		}
	}
	return out, nil
}

// Options say which profile to load and how to resolve it.
type Options struct {
	// Name selects a profile by metadata.name (or "namespace/name");
	// "" takes the file's only profile.
	Name string
	// Bases are extra files (name → content) holding base profiles,
	// looked up by metadata.name after the file itself, in name order.
	Bases map[string][]byte
	// OCI resolves the generated OCI profile (caps, kernel version, host
	// arch, runc's ENOSYS stub).
	OCI oci.Options
}

// Load parses the file, selects one profile (Options.Name), resolves its
// base profiles and compiles it. It returns one program, named after the
// profile, whose Warnings hold what the conversion and ParseOCI found; the
// second result lists them again, once each. Errors are
// *filters.SourceError values wrapping ErrBadProfile.
func Load(name string, data []byte, opts Options) ([]*filters.Program, []string, error) {
	d, err := Parse(name, data)
	if err != nil {
		return nil, nil, err
	}
	p, err := d.Select(opts.Name)
	if err != nil {
		return nil, nil, err
	}
	docs := []*Document{d}
	keys := make([]string, 0, len(opts.Bases))
	for k := range opts.Bases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		bd, err := Parse(k, opts.Bases[k])
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, bd)
	}
	prof, err := ToOCI(p, docs...)
	if err != nil {
		return nil, nil, err
	}
	prog, err := prof.Compile(name, data, ErrBadProfile, opts.OCI)
	if err != nil {
		return nil, nil, err
	}
	progs := []*filters.Program{prog}
	return progs, ocigen.Collect(progs), nil
}
