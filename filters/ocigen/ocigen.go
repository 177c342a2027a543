// Package ocigen turns a seccomp policy written in another format into an
// OCI seccomp profile and compiles it with oci.Parse, keeping the
// source positions: every error and warning ParseOCI reports about the
// generated profile is moved back to the line of the source that produced
// the offending entry.
//
// The format packages (filters/kubernetes, filters/firecracker,
// filters/lxc, filters/minijail) build a Profile entry by entry, then call
// Compile. The generated JSON has one syscall name per entry and one entry
// per line, so a ParseOCI position maps back by line alone; one name per
// entry compiles exactly as the same names grouped, since ParseOCI makes
// each name its own rule either way (filters/oci.go: resolveOCI).
package ocigen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/srcpos"
	"github.com/seccompbench/seccompbench/filters/oci"
)

// Pos is a 1-based line and column in a policy source; 0 means unknown.
// File, when set, names a source other than the one being compiled (a
// base profile's or an included file). It is the position type of the
// source reader (filters/internal/srcpos) that the format packages share.
type Pos = srcpos.Pos

// in returns p's file, or file when p names none.
func in(p Pos, file string) string {
	if p.File != "" {
		return p.File
	}
	return file
}

// Errorf returns a *filters.SourceError for file at p whose Err wraps
// sentinel with the formatted message.
func Errorf(file string, p Pos, sentinel error, format string, args ...any) error {
	return &filters.SourceError{File: in(p, file), Line: p.Line, Col: p.Col,
		Err: fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)}
}

// Warning formats a warning the way filters.Program.Warnings holds them:
// "file:line:col: msg" (position parts left out when unknown).
func Warning(file string, p Pos, format string, args ...any) string {
	return (&filters.SourceError{File: in(p, file), Line: p.Line, Col: p.Col, Err: fmt.Errorf(format, args...)}).Error()
}

// Profile is an OCI seccomp profile generated from another format, with
// where each part came from.
type Profile struct {
	// Name names the program compiled from the profile (Program.Name),
	// e.g. the profile's metadata.name or a Firecracker thread category.
	Name string
	// Seccomp is the profile. Syscalls has one name per entry (Add
	// keeps it so); defaultAction, defaultErrnoRet and architectures are
	// set by the format package.
	Seccomp mobyseccomp.Seccomp
	// DefaultAt is where the default action is written, for errors about
	// the profile's first line.
	DefaultAt Pos
	// At[i] is where Seccomp.Syscalls[i] is written.
	At []Pos
	// Warnings are what the conversion could not express exactly, as
	// "file:line:col: message"; Compile puts them first in
	// Program.Warnings.
	Warnings []string
}

// Add appends one entry per name of s, each with s's action, errnoRet and
// arguments, located at at.
func (p *Profile) Add(at Pos, action specs.LinuxSeccompAction, errnoRet *uint, args []specs.LinuxSeccompArg, names ...string) {
	for _, n := range names {
		sc := &mobyseccomp.Syscall{LinuxSyscall: specs.LinuxSyscall{
			Names: []string{n}, Action: action, ErrnoRet: errnoRet, Args: args,
		}}
		p.Seccomp.Syscalls = append(p.Seccomp.Syscalls, sc)
		p.At = append(p.At, at)
	}
}

// headerLines is how many lines JSON writes before the first entry.
const headerLines = 1

// JSON returns the profile as JSON: the top-level keys on line 1, syscall
// entry i on line 2+i, and the closing brackets on the last line.
func (p *Profile) JSON() ([]byte, error) {
	head := p.Seccomp
	head.Syscalls = nil
	h, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("marshal profile %q: %w", p.Name, err)
	}
	// h ends with `"syscalls":null}`: reopen it as a list.
	h = bytes.TrimSuffix(h, []byte("null}"))
	var b bytes.Buffer
	b.Write(h)
	b.WriteString("[\n")
	for i, sc := range p.Seccomp.Syscalls {
		e, err := json.Marshal(sc)
		if err != nil {
			return nil, fmt.Errorf("marshal profile %q: syscalls[%d]: %w", p.Name, i, err)
		}
		b.Write(e)
		if i < len(p.Seccomp.Syscalls)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes(), nil
}

// pos maps a line of the JSON to the source position it came from.
func (p *Profile) pos(line int) Pos {
	if i := line - headerLines - 1; i >= 0 && i < len(p.At) {
		return p.At[i]
	}
	return p.DefaultAt
}

// Compile compiles the profile with oci.Parse under opt. file names
// the source and src is its content (hashed into Program.SourceSHA256).
// The program is named p.Name and its Warnings are p.Warnings followed by
// ParseOCI's, relocated to the source. A ParseOCI error comes back as a
// *filters.SourceError for file, at the source position, wrapping both
// sentinel and the OCI error.
func (p *Profile) Compile(file string, src []byte, sentinel error, opt oci.Options) (*filters.Program, error) {
	data, err := p.JSON()
	if err != nil {
		return nil, err
	}
	prog, err := oci.Parse(file, data, opt)
	if err != nil {
		var se *filters.SourceError
		if !errors.As(err, &se) {
			return nil, fmt.Errorf("compile %q: %w: %w", p.Name, sentinel, err)
		}
		at := p.pos(se.Line)
		return nil, &filters.SourceError{File: in(at, file), Line: at.Line, Col: at.Col,
			Err: fmt.Errorf("%w: the OCI profile generated for %q: %w", sentinel, p.Name, se.Err)}
	}
	sum := sha256.Sum256(src)
	prog.Name = p.Name
	prog.Source = file
	prog.SourceSHA256 = hex.EncodeToString(sum[:])
	warns := append([]string(nil), p.Warnings...)
	for _, w := range prog.Warnings {
		warns = append(warns, p.relocate(file, w))
	}
	prog.Warnings = warns
	return prog, nil
}

// relocate rewrites a ParseOCI warning "file:line:col: msg" about the
// generated JSON to the source position of that line.
func (p *Profile) relocate(file, w string) string {
	rest, ok := strings.CutPrefix(w, file+":")
	if !ok {
		return w
	}
	ls, rest, ok := strings.Cut(rest, ":")
	line, err := strconv.Atoi(ls)
	if !ok || err != nil {
		return w
	}
	if _, after, ok := strings.Cut(rest, ":"); ok {
		if _, err := strconv.Atoi(rest[:len(rest)-len(after)-1]); err == nil {
			rest = after
		}
	}
	return Warning(file, p.pos(line), "%s", strings.TrimPrefix(rest, " "))
}

// BaseName returns a path's last element without its extension: the
// name of the program compiled from a single-filter file.
func BaseName(path string) string {
	b := filepath.Base(path)
	if ext := filepath.Ext(b); ext != "" && ext != b {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// Collect returns every warning of progs once, in order: the second
// result of the format packages' Load functions.
func Collect(progs []*filters.Program) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range progs {
		for _, w := range p.Warnings {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// MergeArgs ANDs conditions the way a format that ANDs every condition of
// a rule means them, for an OCI profile, where runc ORs the conditions of
// one entry that test the same argument (oci.Parse splits them
// into one rule each). Conditions on distinct arguments are kept as they
// are. Several conditions on one argument are merged when each is an
// equality, exact or masked (SCMP_CMP_EQ v is SCMP_CMP_MASKED_EQ with mask
// all ones): (a&m1)==v1 && (a&m2)==v2 is (a&(m1|m2))==(v1|v2) when v1 and
// v2 agree on the bits both masks test, and never true when they do not
// (ok false: the rule can never match). Any other pair on one argument
// cannot be expressed; MergeArgs then returns the argument index as
// conflict (else -1).
func MergeArgs(args []specs.LinuxSeccompArg) (out []specs.LinuxSeccompArg, ok bool, conflict int) {
	type mv struct{ mask, val uint64 }
	masked := func(a specs.LinuxSeccompArg) (mv, bool) {
		switch a.Op {
		case specs.OpEqualTo:
			return mv{^uint64(0), a.Value}, true
		case specs.OpMaskedEqual:
			return mv{a.Value, a.ValueTwo & a.Value}, true
		}
		return mv{}, false
	}
	count := map[uint]int{}
	for _, a := range args {
		count[a.Index]++
	}
	merged := map[uint]*mv{}
	for _, a := range args {
		if count[a.Index] == 1 {
			out = append(out, a)
			continue
		}
		m, isEq := masked(a)
		if !isEq {
			return nil, false, int(a.Index)
		}
		prev := merged[a.Index]
		if prev == nil {
			merged[a.Index] = &m
			out = append(out, specs.LinuxSeccompArg{Index: a.Index}) // filled below
			continue
		}
		both := prev.mask & m.mask
		if prev.val&both != m.val&both {
			return nil, false, -1
		}
		prev.mask |= m.mask
		prev.val |= m.val
	}
	for i, a := range out {
		m := merged[a.Index]
		if m == nil || count[a.Index] == 1 {
			continue
		}
		if m.mask == ^uint64(0) {
			out[i] = specs.LinuxSeccompArg{Index: a.Index, Op: specs.OpEqualTo, Value: m.val}
		} else {
			out[i] = specs.LinuxSeccompArg{Index: a.Index, Op: specs.OpMaskedEqual, Value: m.mask, ValueTwo: m.val}
		}
	}
	return out, true, -1
}
