package minijail

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// Toolchain is the minijail compiler whose reading of a policy is modeled.
// The three read one policy differently where a syscall is named twice and
// where a filter ends in "; action":
//
//   - ToolchainC is minijail's C parser (syscall_filter.c) as ChromeOS's
//     minijail0 and libminijail are built: compile_file refuses a syscall
//     named a second time (insert_and_check_duplicate_syscall finds it and
//     filter_options.allow_duplicate_syscalls is false), in one file or
//     across an @include; "expr; return E" allows where expr holds and
//     returns E where it does not (compile_policy_line); an @include may
//     not nest (parse_include_statement: include_level > 0).
//   - ToolchainAndroid is the same parser built with
//     -DALLOW_DUPLICATE_SYSCALLS (Android.bp's libminijail_flags):
//     compile_file then appends a second jump-table entry for the
//     repeated syscall, which the first one shadows, so the first line
//     decides; two lines of one syscall that are both not "1" are still
//     refused (both define the syscall's label, which bpf_resolve_jumps
//     refuses: syscall_filter_unittest.cc duplicate_read_with_args).
//   - ToolchainPython is minijail's tools/compile_seccomp_policy.py, the
//     compiler crosvm's jail/build.rs and ChromeOS's build run:
//     PolicyParser.parse_file (tools/parser.py) appends every line's
//     filters to one list per syscall, in order, across @includes, and
//     compiler.py's compile_filter_statement tries them in order, the
//     first whose expression holds deciding; an unconditional action
//     must come last ("already had an unconditional action applied"
//     otherwise); "expr; action" takes action where expr holds
//     (_parse_single_filter), else the next filter or the default.
type Toolchain int

// The toolchains; ToolchainAuto chooses one per file (DetectToolchain).
const (
	ToolchainAuto Toolchain = iota
	ToolchainC
	ToolchainAndroid
	ToolchainPython
)

// ErrUnknownToolchain is returned by ParseToolchain for a name it does not
// know.
var ErrUnknownToolchain = errors.New("unknown minijail toolchain")

// ToolchainNames are the spellings ParseToolchain accepts, in help order.
var ToolchainNames = []string{"auto", "c", "android", "python"}

// ParseToolchain returns the toolchain called s: "auto" (or ""), "c",
// "android" or "python"; other names give an error wrapping
// ErrUnknownToolchain.
func ParseToolchain(s string) (Toolchain, error) {
	if s == "" {
		return ToolchainAuto, nil
	}
	if i := slices.Index(ToolchainNames, strings.ToLower(s)); i >= 0 {
		return Toolchain(i), nil
	}
	return ToolchainAuto, fmt.Errorf("parse toolchain %q: %w (want %s)", s, ErrUnknownToolchain, strings.Join(ToolchainNames, ", "))
}

// String returns the toolchain's flag spelling.
func (t Toolchain) String() string {
	if t < 0 || int(t) >= len(ToolchainNames) {
		return fmt.Sprintf("Toolchain(%d)", int(t))
	}
	return ToolchainNames[t]
}

// Describe names the toolchain and the source it is modeled on, for notes
// and errors.
func (t Toolchain) Describe() string {
	switch t {
	case ToolchainC:
		return "minijail's C parser as ChromeOS builds it (syscall_filter.c)"
	case ToolchainAndroid:
		return "Android's minijail (syscall_filter.c built with ALLOW_DUPLICATE_SYSCALLS)"
	case ToolchainPython:
		return "minijail's compile_seccomp_policy.py (tools/parser.py, compiler.py; crosvm's and ChromeOS's build)"
	}
	return "minijail (toolchain chosen from the file)"
}

// androidRoots are the absolute directories AOSP policies @include from.
var androidRoots = []string{"/system/", "/apex/", "/vendor/", "/product/", "/odm/", "/system_ext/"}

// DetectToolchain chooses the toolchain for the policy at path with
// content data: ToolchainPython for a crosvm policy (one that @includes
// from /usr/share/policy/crosvm/, or lies in a seccomp/ARCH/ directory as
// crosvm's jail/seccomp/x86_64/ does) or one using what only the Python
// compiler reads (@default, a "{f1, f2}" list of filters);
// ToolchainAndroid for an AOSP policy (one in a
// seccomp_policy/ directory, or that @includes from /system/, /apex/,
// /vendor/, ...); ToolchainC otherwise.
func DetectToolchain(path string, data []byte) Toolchain {
	slash := filepath.ToSlash(path)
	dir := filepath.Base(filepath.Dir(path))
	if filepath.Base(filepath.Dir(filepath.Dir(path))) == "seccomp" && NamedABIWord(dir) {
		return ToolchainPython
	}
	android := strings.Contains(slash, "seccomp_policy/")
	for _, line := range strings.Split(string(data[:min(len(data), 64<<10)]), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "@default"), t == "@denylist":
			return ToolchainPython
		case filterListLine(t):
			return ToolchainPython
		case strings.HasPrefix(t, "@include"):
			arg := strings.TrimSpace(strings.TrimPrefix(t, "@include"))
			if strings.HasPrefix(arg, "/usr/share/policy/crosvm/") {
				return ToolchainPython
			}
			for _, r := range androidRoots {
				android = android || strings.HasPrefix(arg, r)
			}
		}
	}
	if android {
		return ToolchainAndroid
	}
	return ToolchainC
}

// filterListLine reports whether the trimmed line t is "syscall: {...}",
// a list of filters only the Python compiler reads.
func filterListLine(t string) bool {
	_, f, ok := strings.Cut(t, ":")
	return ok && strings.HasPrefix(strings.TrimSpace(f), "{")
}

// filt is one filter of a syscall's list as the Python compiler keeps it:
// an expression (nil: unconditional) and the action taken where it holds.
type filt struct {
	expr [][]Atom
	act  *Action // nil: allow
	at   ocigen.Pos
	rule *Rule
}

// statement is one syscall's rules, in the order the toolchain reads them.
type statement struct {
	sys   string
	rules []*Rule
	// again is the index in Policy.Rules of the second rule, where the
	// syscall is named again; len(Rules) for a syscall named once.
	again int
}

// group returns the rules by syscall, in order of first appearance.
func (p *Policy) group() []*statement {
	var out []*statement
	idx := map[string]int{}
	for i := range p.Rules {
		r := &p.Rules[i]
		j, ok := idx[r.Syscall]
		if !ok {
			j = len(out)
			idx[r.Syscall] = j
			out = append(out, &statement{sys: r.Syscall, again: len(p.Rules)})
		}
		if len(out[j].rules) == 1 {
			out[j].again = i
		}
		out[j].rules = append(out[j].rules, r)
	}
	return out
}

// byRepeat returns sts ordered by where each syscall is named again, so
// that the first repeated line in reading order is the one reported (the
// C parser stops at it).
func byRepeat(sts []*statement) []*statement {
	out := slices.Clone(sts)
	slices.SortStableFunc(out, func(a, b *statement) int { return a.again - b.again })
	return out
}

// simpleAllow reports whether the C parser takes r as a plain allow: its
// filter is the literal "1" (compile_file: streq(policy_line, "1")).
func simpleAllow(r *Rule) bool { return r.Action != nil && r.Action.Word == "1" }

// resolveRepeats applies the toolchain's reading of a repeated syscall to
// st: an error (C; Android where two lines are not "1"), the first line
// with a note (Android), or every line (Python, checked by pythonFilters).
func (p *Policy) resolveRepeats(st *statement, notes *[]string) error {
	if len(st.rules) < 2 {
		return nil
	}
	first, second := st.rules[0], st.rules[1]
	switch p.Toolchain {
	case ToolchainC:
		return errf(second.At, "%s is already filtered at %s:%d:%d: %s refuses a syscall named twice (compile_file: insert_and_check_duplicate_syscall); give --minijail-toolchain python (crosvm, compile_seccomp_policy.py: the lines are tried in order) or android (the first line decides) if the policy is built by one of those",
			st.sys, first.At.File, first.At.Line, first.At.Col, ToolchainC.Describe())
	case ToolchainAndroid:
		n := 0
		for _, r := range st.rules {
			if !simpleAllow(r) {
				n++
			}
		}
		if n > 1 {
			return errf(second.At, "%s is filtered by more than one line that is not \"1\": %s refuses that (both lines define the syscall's jump label); give --minijail-toolchain python if compile_seccomp_policy.py builds the policy",
				st.sys, ToolchainAndroid.Describe())
		}
		for _, r := range st.rules[1:] {
			*notes = append(*notes, ocigen.Warning("", r.At,
				"%s is already filtered at %s:%d:%d; this line is left out, as %s lets the first one decide (compile_file appends a jump-table entry the first one shadows)",
				st.sys, first.At.File, first.At.Line, first.At.Col, ToolchainAndroid.Describe()))
		}
		st.rules = st.rules[:1]
	}
	return nil
}

// pythonFilters returns st's filter list as PolicyParser.parse_file builds
// it: each line's filters in order, a conditional "expr" allowing, "expr;
// action" taking action where expr holds, an action line unconditional;
// an unconditional filter before another is an error.
func pythonFilters(st *statement) ([]filt, error) {
	var out []filt
	for _, r := range st.rules {
		if n := len(out); n > 0 && out[n-1].expr == nil {
			prev := out[n-1].at
			return nil, errf(r.At, "%s already had an unconditional action at %s:%d:%d: %s refuses a filter after it (parse_file: \"already had an unconditional action applied\")",
				st.sys, prev.File, prev.Line, prev.Col, ToolchainPython.Describe())
		}
		if r.Action != nil {
			out = append(out, filt{act: r.Action, at: r.At, rule: r})
			continue
		}
		out = append(out, filt{expr: r.Expr, act: r.Else, at: r.At, rule: r})
	}
	return out, nil
}
