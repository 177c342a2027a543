// Package kafel reads Kafel policies (github.com/google/kafel), the
// seccomp language of nsjail (--seccomp_policy FILE, --seccomp_string),
// and nsjail's configs (config.proto in protobuf text or JSON: its
// seccomp_string lines, seccomp_policy_file, seccomp_log and
// seccomp_unotify), and compiles them into the project's libseccomp-shaped
// rule model (filters/scmp) with first-match-wins rule lists
// (scmp.Filter.Ordered).
//
// The language, as google/kafel src/lexer.l and src/parser.y define it:
// statements at file scope form the policy compiled; "POLICY name { ... }"
// defines a policy that "USE name" pastes in place (a policy used a
// second time adds nothing, range_rules.c); "DEFAULT action" once, KILL
// when absent; "#define NAME number"; action blocks ALLOW, LOG, KILL
// (= KILL_THREAD, DENY), KILL_PROCESS, USER_NOTIF, ERRNO(n), TRAP(n),
// TRACE(n) holding syscall rules "name", "name { expr }", "SYSCALL[n]",
// "name(a, b) { ... }" (arguments declared by the rule), with "ON arch"
// guards. Expressions are comparisons (== != < <= > >=, unsigned) of
// arguments, constants and "&"/"|" of them, joined by && || ! and "," (an
// || of lowest precedence). The first rule that matches decides; a
// syscall no rule matches gets DEFAULT. Syscall and argument names are
// Kafel's own table's (ztables.go: "newfstat", "newstat", "fd", ...).
//
// The filter is Kafel's shape: a check that seccomp_data.arch is the
// target's AUDIT_ARCH (KILL otherwise), then the rules.
//
// What differs from Kafel (each is the rule model's, documented in
// docs/kafel.md): an argument compared with another argument, and an
// ordering comparison (< <= > >=) of a masked argument, are refused;
// "#include" is refused, since nsjail gives Kafel no search path;
// brackets nested deeper than MaxNesting are refused. As in
// Kafel, a comparison on an argument its table declares 4 bytes wide tests
// the low word only (scmp.Cond.Low32) unless a literal needs 64 bits. As in Kafel's filter,
// an x86_64 syscall number with the x32 bit set matches no rule and gets
// DEFAULT (scmp.Filter.NoX32Split).
package kafel

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// Format names, as Source.Format spells them.
const (
	// FormatName is a Kafel policy file.
	FormatName = "kafel"
	// NsjailFormatName is an nsjail config.
	NsjailFormatName = "nsjail"
)

// ErrBadPolicy is wrapped by every error about a Kafel policy's content.
var ErrBadPolicy = errors.New("invalid Kafel policy")

// Options choose how a policy is compiled.
type Options struct {
	// Arch is the ABI nsjail and Kafel were built for: Kafel compiles
	// for its build architecture (KAFEL_DEFAULT_TARGET_ARCH). nil means
	// x86_64.
	Arch *filters.Arch
	// ReadFile reads an nsjail config's seccomp_policy_file (a path
	// resolved against the config's directory); nil refuses one.
	ReadFile func(path string) ([]byte, error)
}

// target returns Kafel's table for o.Arch.
func (o Options) target() (*archTable, error) {
	a := o.Arch
	if a == nil {
		a = filters.ArchX86_64
	}
	t := tableFor(a)
	if t == nil {
		return nil, fmt.Errorf("no Kafel syscall table for %s (Kafel has x86_64, i386, aarch64, arm, riscv64, mips, mips64 and m68k; no x32)", a.Name)
	}
	return t, nil
}

// Compile parses a Kafel policy and returns its filter for o's
// architecture. Errors are *filters.SourceError values at the file's
// line and column, wrapping ErrBadPolicy.
func Compile(name string, src []byte, o Options) (*scmp.Filter, error) {
	return compileAt(name, string(src), o, nil)
}

// locator maps a line and column of the text Kafel read to the file and
// position shown in errors (nsjail's seccomp_string lines live in the
// config file); nil means the text is the file.
type locator func(line, col int) (file string, l, c int)

func compileAt(name, src string, o Options, loc locator) (*scmp.Filter, error) {
	wrap := func(err error) error {
		var pe *posError
		if errors.As(err, &pe) {
			file, l, c := name, pe.line, pe.col
			if loc != nil {
				file, l, c = loc(l, c)
			}
			return &filters.SourceError{File: file, Line: l, Col: c, Err: ErrBadPolicy, Msg: pe.msg}
		}
		return &filters.SourceError{File: name, Err: fmt.Errorf("%w: %w", ErrBadPolicy, err)}
	}
	t, err := o.target()
	if err != nil {
		return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: %w", ErrBadPolicy, err)}
	}
	f, err := Parse(src)
	if err != nil {
		return nil, wrap(err)
	}
	rules, names, err := f.rules(t)
	if err != nil {
		return nil, wrap(err)
	}
	arch := &scmp.Arch{Name: t.name, Audit: t.audit, Bits: t.bits, Table: names}
	return &scmp.Filter{
		DefAction: f.Default,
		// Kafel's filter kills a process of another architecture
		// (codegen.c: compile_policy_impl, ACTION_KILL).
		BadArch:    uint32(filters.ActionKillThread),
		Arches:     []*scmp.Arch{arch},
		Rules:      rules,
		Ordered:    true,
		NoX32Split: true,
	}, nil
}

// Load compiles a Kafel policy file into a Source of one filter.
func Load(name string, data []byte, o Options) (*filters.Source, error) {
	flt, err := Compile(name, data, o)
	if err != nil {
		return nil, err
	}
	insns, err := flt.Compile()
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	return &filters.Source{Name: name, Format: FormatName, Filters: []*filters.Program{filters.SourceProgram(name, data, insns)}}, nil
}

var (
	kafelPolicy = regexp.MustCompile(`(?m)^\s*POLICY\s+[A-Za-z][A-Za-z0-9_]*\s*\{`)
	kafelUse    = regexp.MustCompile(`(?m)^\s*USE\s+[A-Za-z][A-Za-z0-9_]*(\s*,\s*[A-Za-z][A-Za-z0-9_]*)*\s+DEFAULT\s+[A-Z]+`)
	kafelBlock  = regexp.MustCompile(`(?m)^\s*(ALLOW|LOG|KILL|KILL_THREAD|KILL_PROCESS|DENY|USER_NOTIF|(ERRNO|TRAP|TRACE)\s*\(\s*[0-9a-fx]+\s*\))\s*\{`)
	// A line of Kafel's preprocessor: #include of quoted names, as
	// google/kafel's test/testdata/short_loop.policy is one, or #define.
	kafelInclude = regexp.MustCompile(`^#include(\s+"[^"\n]*")+\s*;?$`)
	kafelDefine  = regexp.MustCompile(`^#define\s+[A-Za-z][A-Za-z0-9_]*\s+-?[0-9][0-9A-Za-z]*$`)
	kafelDefault = regexp.MustCompile(`(?m)^\s*DEFAULT\s+(ALLOW|LOG|KILL|KILL_THREAD|KILL_PROCESS|DENY|USER_NOTIF|(ERRNO|TRAP|TRACE)\s*\(\s*[0-9a-fx]+\s*\))\s*$`)
)

// Detect reports whether text data is a Kafel policy: a line opening
// "POLICY name {", "USE name DEFAULT ACTION", an action block
// ("ERRNO(1) {") or a "DEFAULT ACTION" line, in its first 64 KiB; or a
// file of #include lines only (with "//" comments and #define lines), so
// that it gets Kafel's refusal of #include rather than another format's
// complaints.
func Detect(data []byte) bool {
	if len(data) > 64<<10 {
		data = data[:64<<10]
	}
	if bytes.IndexByte(data, 0) >= 0 || bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return false
	}
	if DetectNsjail(data) {
		// An nsjail config holds Kafel in its seccomp_string values (often
		// across lines, POLICY and USE included); it is a config, not a
		// policy file.
		return false
	}
	return kafelPolicy.Match(data) || kafelUse.Match(data) || kafelBlock.Match(data) && kafelDefault.Match(data) || includesOnly(data)
}

// includesOnly reports whether every non-blank line of data is a Kafel
// #include or #define line or a "//" comment, with at least one #include.
func includesOnly(data []byte) bool {
	include := false
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0, bytes.HasPrefix(line, []byte("//")), kafelDefine.Match(line):
		case kafelInclude.Match(line):
			include = true
		default:
			return false
		}
	}
	return include
}
