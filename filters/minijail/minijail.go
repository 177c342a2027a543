// Package minijail reads minijail seccomp policies (the .policy files of
// ChromeOS and Android) and compiles one to a seccomp filter by way of an
// OCI profile (oci.Parse).
//
//	# renderer.policy
//	@include ./common.policy
//	read: 1
//	openat: arg2 in O_RDONLY|O_CLOEXEC|O_NONBLOCK; return EACCES
//	mmap: arg2 in ~PROT_EXEC || arg3 & MAP_FIXED
//	prctl: arg0 == PR_SET_NAME || arg0 == PR_GET_NAME
//	ptrace: return EPERM
//
// Each line is "syscall: filter", where filter is an action or an
// argument expression optionally followed by "; action". A call of a
// listed syscall whose expression holds is allowed; one whose expression
// does not gets the action after ";" or, without one, the default action;
// an unlisted syscall gets the default: the process is killed
// (SCMP_ACT_KILL_PROCESS: minijail uses SECCOMP_RET_KILL_PROCESS where
// the kernel has it).
//
// Mapping to the OCI profile:
//
//   - actions: "1" and "allow" → SCMP_ACT_ALLOW, "return E" →
//     SCMP_ACT_ERRNO with errnoRet E (a number or an errno name), "kill"
//     and "kill-process" → SCMP_ACT_KILL_PROCESS, "kill-thread" →
//     SCMP_ACT_KILL_THREAD, "trap", "trace", "log", "user-notify" →
//     SCMP_ACT_TRAP, _TRACE, _LOG, _NOTIFY;
//   - "argN == v", "!=", "<", "<=", ">", ">=" → SCMP_CMP_EQ, NE, LT, LE, GT,
//     GE on argument N; "argN & M" (some bit of M set) → one rule per bit b
//     of M with SCMP_CMP_MASKED_EQ (b, b), ORed; "argN in M" (no bit
//     outside M set) → SCMP_CMP_MASKED_EQ (^M, 0);
//   - "||" of "&&" clauses → one OCI entry per clause (a product over the
//     "&" expansions), equalities on one argument merged exactly
//     (ocigen.MergeArgs); other conditions ANDed on one argument are an
//     error, as runc would OR them;
//   - "; action" → an entry after the clauses, conditioned on arg0 >= 0
//     (always true), with that action: our OCI compiler tries a
//     syscall's conditional rules in order, so the clauses' allow wins
//     where one holds. (libseccomp may order overlapping rules otherwise:
//     the generated profile is for this tool, not for runc.)
//   - values: numbers (decimal, 0x hex, 0 octal), the named constants
//     minijail's table has, with the values of the policy's ABI (see
//     constant: errnos, signals such as SIGABRT, open, mmap, socket,
//     prctl, clone, ioctl, resource and the other classes of its headers),
//     "|" to OR them, "~" to complement, parentheses to group, all as wide
//     as the ABI's unsigned long (32 bits on i386 and arm);
//   - "@include PATH": PATH starts with "/" or "./" (minijail refuses
//     others); "./x" is read as the Toolchain reads it (the C parser
//     relative to the working directory, falling back beside the
//     including file with a note; the Python compiler beside the
//     including file), an absolute PATH through Options.IncludeRoots,
//     Options.IncludePath and beside the including file
//     (includeCandidates), with a note naming the file read; cycles and
//     missing files are errors naming the line; "@frequency PATH" is
//     accepted and ignored, with a note (it only orders minijail's own
//     binary tree);
//   - "syscall: {f1, f2}", compile_seccomp_policy.py's list of filters,
//     as that many lines naming the syscall (ToolchainPython only).
//
// A policy is compiled for one ABI, as minijail compiles it for the one it
// was built for (its filter checks that AUDIT_ARCH only): Options.Arch
// when the user chose it, or the one the file name or directory names
// (NamedABI, of the absolute path; none for Options.Stdin), or Options.Arch's default, or x86_64 (chooseABI). A policy
// for i386 or arm is a filter for a 32-bit process: it checks
// AUDIT_ARCH_I386 or AUDIT_ARCH_ARM, names that ABI's syscalls
// (getuid32, mmap2, _llseek, ARM_set_tls) and compares 32-bit arguments.
//
// A syscall filtered twice, and "expr; action", are read as the
// Toolchain reads them (see Toolchain): minijail's C parser refuses the
// repeat, Android's build of it lets the first line decide, and
// compile_seccomp_policy.py keeps every line in order.
//
// Not modeled: minijail's program layout and its bad-architecture action
// (a foreign architecture is killed there; the OCI model returns
// SCMP_ACT_KILL, KILL_THREAD); syscall numbers in place of names;
// "{a, b}: filter" groups of syscalls and "[...]" metadata of
// compile_seccomp_policy.py (errors), argument expressions in a @denylist
// policy; runc's ENOSYS stub is never added, whatever Options.OCI says.
//
// "@denylist" (ChromeOS's policies/cros_default_v0.policy) makes the
// policy a deny list, as minijail's tools/compile_seccomp_policy.py
// --denylist compiles it: unlisted syscalls are allowed and every line
// must be "syscall: return ERRNO" (tools/parser.py refuses other actions
// there); minijail0's own C parser does not read the directive, which a
// note in the warnings says.
package minijail

import (
	"errors"
	"fmt"
	"math/bits"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/input"
	"github.com/seccompbench/seccompbench/filters/internal/suggest"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// ErrBadPolicy is returned, wrapped in a *filters.SourceError naming the
// file, line and column, when a minijail policy cannot be read or uses
// what the OCI model cannot express.
var ErrBadPolicy = errors.New("invalid minijail seccomp policy")

// MaxSize is the largest policy file Parse reads, in bytes; MaxIncludeDepth
// is how deep @include may nest; MaxRules is how many OCI entries one
// syscall's expression may expand to.
const (
	MaxSize         = filters.MaxInputSize
	MaxIncludeDepth = 16
	MaxRules        = 256
)

// Policy is a policy file with its includes resolved.
type Policy struct {
	File string
	// Rules are the syscall lines, in order, included ones in place.
	Rules []Rule
	// Notes are what may need fixing but does not stop the policy
	// (a file name naming another ABI than --arch), as warnings.
	Notes []string
	// Info says how the policy was read, with nothing to fix: valid
	// directives left out of the model ("@frequency"), where an @include
	// was read from, the ABI of standard input; in reading order. Load
	// makes them the program's Notes, after ToolchainNote.
	Info []string
	// Denylist is set by a "@denylist" line: unlisted syscalls are
	// allowed, and every rule must return an errno.
	Denylist bool
	// ABI is the ABI the policy is compiled for (Options.Arch or the file
	// name's), whose syscall names and constants it uses.
	ABI *filters.Arch
	// Toolchain is the compiler whose reading is modeled (never
	// ToolchainAuto: Parse resolves it); ToolchainDetected says
	// DetectToolchain chose it.
	Toolchain         Toolchain
	ToolchainDetected bool
	stdin             bool // read from standard input (Options.Stdin)
}

// Rule is one "syscall: filter" line.
type Rule struct {
	Syscall string
	At      ocigen.Pos // At.File is set when the line is in an included file
	// Action is the action of a filter that is one, nil when the filter
	// is an expression.
	Action *Action
	// Expr is the expression: clauses ORed, atoms of each ANDed.
	Expr [][]Atom
	// Else is the action after ";", nil when absent.
	Else *Action
}

// Atom is one comparison "argN op value".
type Atom struct {
	Arg   int
	Op    string // "==", "!=", "<", "<=", ">", ">=", "&", "in"
	Value uint64
	At    ocigen.Pos
}

// Action is one minijail action.
type Action struct {
	Word  string
	OCI   specs.LinuxSeccompAction
	Errno *uint
	At    ocigen.Pos
}

// Detect reports whether data is a minijail policy: its first line that
// is not blank, a comment or an @directive is "name: filter" where name is
// a syscall name of x86_64, i386, aarch64 or arm and filter starts with "1", "return", an action
// word or "arg" followed by a digit; or data consists of @include lines
// only. A Beats YAML policy's first key is default_action or seccomp, no
// syscall.
func Detect(data []byte) bool {
	name, f, sawDirective, ok := firstRule(data)
	if !ok {
		return sawDirective
	}
	return anySyscall(name) && filterStart(f)
}

// firstRule returns the syscall name and filter of data's first line that
// is not blank, a comment or an @include/@frequency/@denylist directive,
// whether such directives came before it, and false when there is no
// "name: filter" line first (or none at all).
func firstRule(data []byte) (name, filter string, sawDirective, ok bool) {
	for _, line := range strings.Split(string(data[:min(len(data), 64<<10)]), "\n") {
		t := strings.TrimSpace(line)
		if i := strings.IndexByte(t, '#'); i >= 0 {
			t = strings.TrimSpace(t[:i])
		}
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "@include ") || strings.HasPrefix(t, "@frequency ") || t == "@denylist" {
			sawDirective = true
			continue
		}
		name, filter, ok = strings.Cut(t, ":")
		return strings.TrimSpace(name), strings.TrimSpace(filter), sawDirective, ok
	}
	return "", "", sawDirective, false
}

// filterStart reports whether f starts as a minijail filter does: "1",
// "return", an action word or "arg" and a digit.
func filterStart(f string) bool {
	return f == "1" || strings.HasPrefix(f, "return ") || actionWords[f] != "" ||
		len(f) > 3 && strings.HasPrefix(f, "arg") && f[3] >= '0' && f[3] <= '5'
}

// abis are the ABIs minijail policies are written for.
var abis = []*filters.Arch{filters.ArchX86_64, filters.ArchI386, filters.ArchAArch64, filters.ArchARM, filters.ArchRISCV64}

// anySyscall reports whether name is a syscall of one of abis.
func anySyscall(name string) bool {
	for _, a := range abis {
		if _, ok := kernelName(a, name); ok {
			return true
		}
	}
	return false
}

// kernelName returns the name abi's table has for the syscall a policy
// names name, and whether it has one. minijail's table (gen_syscalls.sh)
// names the ARM private syscalls of arch/arm/include/uapi/asm/unistd.h,
// __ARM_NR_BASE (0x0f0000) + 1 to 6, with an "ARM_" prefix
// (ARM_breakpoint, ARM_cacheflush, ARM_usr26, ARM_usr32, ARM_set_tls,
// ARM_get_tls), where the kernel's and libseccomp's tables say
// breakpoint, cacheflush, ...; minijail's table has no such bare name,
// so neither has a policy (armPrivateHint says what to write).
func kernelName(abi *filters.Arch, name string) (string, bool) {
	if n, ok := abi.Lookup(name); ok {
		return name, abi != filters.ArchARM || n < armPrivateBase
	}
	if k, ok := strings.CutPrefix(name, "ARM_"); ok && abi == filters.ArchARM {
		if n, ok := abi.Lookup(k); ok && n >= armPrivateBase {
			return k, true
		}
	}
	return "", false
}

// armPrivateBase is the first number of the ARM private syscalls
// (filters.ARMPrivateBase).
const armPrivateBase = filters.ARMPrivateBase

// NearMiss reports whether data almost is a minijail policy: its first
// line that is not blank or a comment is "word: ..." with a lower-case
// word that no ABI has as a syscall but one is close to (a typo) and a filter
// Detect would accept, or an @include or @frequency directive. Such a file
// gets minijail's own error (unknown syscall, did you mean), not another
// format's.
func NearMiss(data []byte) bool {
	name, f, sawDirective, ok := firstRule(data)
	if !ok || sawDirective || name == "" || strings.ToLower(name) != name || strings.ContainsAny(name, " \t\"'") ||
		len(suggest.Closest(name, filters.ArchX86_64.Names, 1)) == 0 {
		return false
	}
	return filterStart(f)
}

var actionWords = map[string]specs.LinuxSeccompAction{
	"1": specs.ActAllow, "allow": specs.ActAllow, "kill": specs.ActKillProcess, "kill-process": specs.ActKillProcess,
	"kill-thread": specs.ActKillThread, "trap": specs.ActTrap, "trace": specs.ActTrace, "log": specs.ActLog,
	"user-notify": specs.ActNotify,
}

// Options say how to read and compile a policy.
type Options struct {
	// ReadFile reads @include files; nil means reading the file under the one input size limit (filters.MaxInputSize).
	ReadFile func(path string) ([]byte, error)
	// OCI resolves the generated profile; NoENOSYSStub is forced on, and
	// its Arch is replaced by the policy's ABI.
	OCI oci.Options
	// Arch is the ABI the policy is for; nil means the one the file name
	// names (NamedABI), else x86_64. x32 is refused: minijail has no x32
	// build.
	Arch *filters.Arch
	// ArchDefault says Arch is a default (the host's ABI), not the user's
	// choice: a file name that names an ABI then wins (chooseABI).
	ArchDefault bool
	// Toolchain is the compiler to model (--minijail-toolchain);
	// ToolchainAuto chooses by DetectToolchain.
	Toolchain Toolchain
	// IncludePath are directories searched, by base name, for an
	// absolute @include (--include-path); IncludeRoots remap absolute
	// @include prefixes (--include-root). See includeCandidates.
	IncludePath  []string
	IncludeRoots []IncludeRoot
	// Stdin says the policy was read from standard input: its name is
	// no path, so neither the ABI nor the toolchain is taken from one.
	Stdin bool
}

// parser reads one policy and its includes.
type parser struct {
	read  func(string) ([]byte, error)
	opts  Options
	stack []string // files being read, outermost first
	out   *Policy
}

// posOf is the position naming a whole file.
func posOf(file string) ocigen.Pos { return ocigen.Pos{File: file} }

func errf(at ocigen.Pos, format string, args ...any) error {
	return ocigen.Errorf("", at, ErrBadPolicy, format, args...)
}

// Parse reads a policy named name with content data, and the files it
// includes through opts.ReadFile. Errors are *filters.SourceError values
// wrapping ErrBadPolicy, naming the file (an included one where the
// problem is there), line and column.
func Parse(name string, data []byte, opts Options) (*Policy, error) {
	read := opts.ReadFile
	if read == nil {
		read = input.Read
	}
	where := detectPath(name, opts)
	abi, note, err := chooseABI(where, opts)
	if err != nil {
		return nil, err
	}
	if abi == filters.ArchX32 {
		return nil, errf(posOf(name), "no x32 policies: minijail is built for x86_64, i386, aarch64 or arm; give --arch x86_64 or i386")
	}
	tc := opts.Toolchain
	if tc == ToolchainAuto {
		tc = DetectToolchain(where, data)
	}
	p := &parser{read: read, opts: opts, out: &Policy{File: name, ABI: abi, Toolchain: tc, ToolchainDetected: opts.Toolchain == ToolchainAuto, stdin: opts.Stdin}}
	if note != "" {
		p.out.Notes = append(p.out.Notes, ocigen.Warning("", posOf(name), "%s", note))
	} else if opts.Stdin && (opts.Arch == nil || opts.ArchDefault) {
		p.out.Info = append(p.out.Info, ocigen.Warning("", posOf(name),
			"read from standard input: no file or directory name to take the ABI from; compiled for %s (give --arch to choose another)", abi.Name))
	}
	if err := p.file(name, data); err != nil {
		return nil, err
	}
	return p.out, nil
}

// detectPath is the path the ABI and the toolchain are taken from: name
// made absolute, so that "net_device.policy" read inside
// jail/seccomp/aarch64/ names its directory as "aarch64/net_device.policy"
// does; "" for standard input, which has no path.
func detectPath(name string, opts Options) string {
	if opts.Stdin {
		return ""
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

// file parses one file's lines, joining those ending in a backslash.
func (p *parser) file(name string, data []byte) error {
	if len(data) > MaxSize {
		return errf(ocigen.Pos{File: name}, "file is %d bytes, above the limit of %d", len(data), MaxSize)
	}
	p.stack = append(p.stack, filepath.Clean(name))
	defer func() { p.stack = p.stack[:len(p.stack)-1] }()
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		// A logical line and, per byte of it, the physical column:
		// continuation lines keep their own line numbers.
		var text strings.Builder
		var pos []ocigen.Pos
		for {
			l := strings.TrimSuffix(lines[i], "\r")
			cont := strings.HasSuffix(l, "\\")
			l = strings.TrimSuffix(l, "\\")
			for c := range len(l) {
				pos = append(pos, ocigen.Pos{File: name, Line: i + 1, Col: c + 1})
			}
			text.WriteString(l)
			if !cont || i+1 >= len(lines) {
				break
			}
			text.WriteByte(' ')
			pos = append(pos, ocigen.Pos{File: name, Line: i + 2, Col: 1})
			i++
		}
		end := ocigen.Pos{File: name, Line: i + 1, Col: len(lines[i]) + 1}
		at := func(off int) ocigen.Pos {
			if off < len(pos) {
				return pos[off]
			}
			return end
		}
		if err := p.line(name, text.String(), at); err != nil {
			return err
		}
	}
	return nil
}

// line parses one logical line; at maps a byte offset to its position.
func (p *parser) line(name, text string, at func(int) ocigen.Pos) error {
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	off := len(text) - len(strings.TrimLeft(text, " \t"))
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if text[0] == '@' {
		dir, arg, _ := strings.Cut(text, " ")
		arg = strings.TrimSpace(arg)
		switch dir {
		case "@include":
			return p.include(name, arg, at(off))
		case "@frequency":
			p.out.Info = append(p.out.Info, ocigen.Warning("", at(off),
				"@frequency %s ignored: it only orders minijail's own binary tree; the OCI model has its own layout", arg))
			return nil
		case "@denylist":
			if arg != "" {
				return errf(at(off), "@denylist takes no argument, not %q", arg)
			}
			if !p.out.Denylist {
				p.out.Notes = append(p.out.Notes, ocigen.Warning("", at(off),
					"@denylist: a deny list (unlisted syscalls allowed), as minijail's compile_seccomp_policy.py --denylist compiles it; minijail0 itself does not read this directive"))
			}
			p.out.Denylist = true
			return nil
		}
		return errf(at(off), "unknown directive %s; want @include, @frequency or @denylist", dir)
	}
	colon := strings.IndexByte(text, ':')
	if colon < 0 {
		return errf(at(off), "%q is no \"syscall: filter\" line", text)
	}
	sys := strings.TrimSpace(text[:colon])
	if strings.HasPrefix(sys, "{") {
		return errf(at(off), "a {…} group of syscalls (compile_seccomp_policy.py's \"{read, write}: filter\") is not supported; write one line per syscall")
	}
	if strings.Contains(sys, "[") {
		return errf(at(off), "%q: [ … ] metadata after a syscall name (compile_seccomp_policy.py's \"read[arch=…]\") is not supported; write the policy for one ABI", sys)
	}
	abi := p.out.ABI
	if k, ok := kernelName(abi, sys); ok {
		sys = k
	} else {
		hint := p.abiHint(sys)
		if n, ok := abi.Lookup(sys); ok && abi == filters.ArchARM && n >= armPrivateBase {
			hint = fmt.Sprintf(" (minijail's table names the ARM private syscall %#x ARM_%s, as gen_syscalls.sh takes it from __ARM_NR_%s)", n, sys, sys)
		}
		if c := suggest.Closest(sys, abi.Names, 1); hint == "" && len(c) > 0 {
			hint = fmt.Sprintf(" (did you mean %s?)", c[0])
		}
		return errf(at(off), "unknown syscall %q on %s%s", sys, abi.Name, hint)
	}
	r := Rule{Syscall: sys, At: at(off)}
	ts, err := tokenize(text[colon+1:], off+colon+1, at)
	if err != nil {
		return err
	}
	if len(ts) > 0 && ts[0].s == "{" {
		return p.filterList(r, ts, at(off+len(text)))
	}
	e := &exprParser{toks: ts, end: at(off + len(text)), abi: abi}
	if err := e.filter(&r); err != nil {
		return err
	}
	p.out.Rules = append(p.out.Rules, r)
	return nil
}

// filterList parses "syscall: {f1, f2, ...}", a list of filters only
// compile_seccomp_policy.py reads (parser.py parse_filter): it appends
// them in order, as it appends the filters of lines naming the syscall
// again, so each becomes a rule of its own. ts starts with "{"; end is
// the line's end.
func (p *parser) filterList(r Rule, ts []token, end ocigen.Pos) error {
	if p.out.Toolchain != ToolchainPython {
		return errf(ts[0].at, "%s: a {…} list of filters is read only by compile_seccomp_policy.py (parser.py parse_filter), not by %s; give --minijail-toolchain python, or write one line per filter",
			r.Syscall, p.out.Toolchain.Describe())
	}
	start := 1
	for i := 1; i < len(ts); i++ {
		if ts[i].s != "," && ts[i].s != "}" {
			continue
		}
		one := r
		e := &exprParser{toks: ts[start:i], end: ts[i].at, abi: p.out.ABI}
		if err := e.filter(&one); err != nil {
			return err
		}
		p.out.Rules = append(p.out.Rules, one)
		start = i + 1
		if ts[i].s == "}" {
			if i+1 < len(ts) {
				return errf(ts[i+1].at, "unexpected %q after the list of filters", ts[i+1].s)
			}
			return nil
		}
	}
	return errf(ts[0].at, "%s: unclosed brace: the list of filters has no \"}\" before %d:%d", r.Syscall, end.Line, end.Col)
}

// abiHint says which other ABI has sys, for an unknown-syscall error:
// a 32-bit policy read for x86_64 names getuid32.
func (p *parser) abiHint(sys string) string {
	var other []string
	for _, a := range abis {
		if _, ok := kernelName(a, sys); ok && a != p.out.ABI {
			other = append(other, a.Name)
		}
	}
	if len(other) == 0 {
		return ""
	}
	return fmt.Sprintf(" (it is a syscall of %s: is the policy for that ABI? give --arch %s)", strings.Join(other, " and "), other[0])
}

// include reads an included file (includeCandidates says where). The C
// toolchains refuse an @include in an included file
// (parse_include_statement: include_level > 0).
func (p *parser) include(from, path string, at ocigen.Pos) error {
	if path == "" {
		return errf(at, "@include without a path")
	}
	if len(p.stack) > 1 && p.out.Toolchain != ToolchainPython {
		return errf(at, "@include in an included file: %s refuses nested includes (parse_include_statement); give --minijail-toolchain python if compile_seccomp_policy.py builds the policy", p.out.Toolchain.Describe())
	}
	if implicitRelative(path) {
		return errf(at, "@include %s: an implicit relative path, which minijail refuses (syscall_filter.c parse_include_statement: \"implicit relative path not supported\"; compile_seccomp_policy.py: \"invalid include path\"); write @include ./%s (read from the working directory by the C parser, beside the including file by compile_seccomp_policy.py) or an absolute path",
			path, strings.TrimPrefix(path, "./"))
	}
	if len(p.stack) >= MaxIncludeDepth {
		return errf(at, "@include nests deeper than %d files", MaxIncludeDepth)
	}
	found, data, err := p.readInclude(from, path, at)
	if err != nil {
		return err
	}
	clean := filepath.Clean(found)
	if slices.Contains(p.stack, clean) {
		return errf(at, "@include %s forms a cycle: %s", path, strings.Join(append(slices.Clone(p.stack), clean), " → "))
	}
	if found != path && filepath.IsAbs(path) {
		p.out.Info = append(p.out.Info, ocigen.Warning("", at, "@include %s read from %s", path, found))
	}
	return p.file(found, data)
}

// token is one word or operator of a filter, with its position.
type token struct {
	s  string
	at ocigen.Pos
}

var operators = []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "&", "|", "~", ";", "(", ")", "{", "}", ","}

func isWord(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func tokenize(s string, base int, at func(int) ocigen.Pos) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case isWord(c):
			j := i
			for j < len(s) && isWord(s[j]) {
				j++
			}
			out = append(out, token{s[i:j], at(base + i)})
			i = j
			continue
		}
		ok := false
		for _, op := range operators {
			if strings.HasPrefix(s[i:], op) {
				out = append(out, token{op, at(base + i)})
				i += len(op)
				ok = true
				break
			}
		}
		if !ok {
			return nil, errf(at(base+i), "unexpected %q", string(c))
		}
	}
	return out, nil
}

// exprParser parses a filter's tokens.
type exprParser struct {
	toks []token
	i    int
	end  ocigen.Pos
	abi  *filters.Arch // whose constants and word width apply
}

func (e *exprParser) peek() string {
	if e.i < len(e.toks) {
		return e.toks[e.i].s
	}
	return ""
}

func (e *exprParser) pos() ocigen.Pos {
	if e.i < len(e.toks) {
		return e.toks[e.i].at
	}
	return e.end
}

func (e *exprParser) next() token {
	t := token{"", e.end}
	if e.i < len(e.toks) {
		t = e.toks[e.i]
		e.i++
	}
	return t
}

func (e *exprParser) filter(r *Rule) error {
	if e.peek() == "" {
		return errf(e.pos(), "%s: empty filter; want 1, return ERRNO, or an argument expression", r.Syscall)
	}
	if !strings.HasPrefix(e.peek(), "arg") {
		a, err := e.action()
		if err != nil {
			return err
		}
		r.Action = a
		return e.done()
	}
	for {
		var clause []Atom
		for {
			a, err := e.atom()
			if err != nil {
				return err
			}
			clause = append(clause, a)
			if e.peek() != "&&" {
				break
			}
			e.next()
		}
		r.Expr = append(r.Expr, clause)
		if e.peek() != "||" {
			break
		}
		e.next()
	}
	if e.peek() == ";" {
		e.next()
		a, err := e.action()
		if err != nil {
			return err
		}
		r.Else = a
	}
	return e.done()
}

func (e *exprParser) done() error {
	if e.peek() != "" {
		return errf(e.pos(), "unexpected %q", e.peek())
	}
	return nil
}

func (e *exprParser) action() (*Action, error) {
	t := e.next()
	a := &Action{Word: t.s, At: t.at}
	if t.s == "return" {
		at := e.pos()
		v, err := e.value()
		if err != nil {
			return nil, err
		}
		if v > filters.RetData {
			return nil, errf(at, "return %d: want an errno from 0 to %d", v, filters.RetData)
		}
		u := uint(v)
		a.OCI, a.Errno = specs.ActErrno, &u
		return a, nil
	}
	act, ok := actionWords[t.s]
	if !ok {
		return nil, errf(t.at, "unknown action %q; want 1, allow, return ERRNO, kill, kill-process, kill-thread, trap, trace, log or user-notify", t.s)
	}
	a.OCI = act
	return a, nil
}

func (e *exprParser) atom() (Atom, error) {
	t := e.next()
	a := Atom{At: t.at}
	n, ok := strings.CutPrefix(t.s, "arg")
	idx, err := strconv.Atoi(n)
	if !ok || err != nil || idx < 0 || idx > filters.MaxArgIndex {
		return a, errf(t.at, "%q: want arg0 to arg5", t.s)
	}
	a.Arg = idx
	op := e.next()
	switch op.s {
	case "==", "!=", "<", "<=", ">", ">=", "&", "in":
		a.Op = op.s
	default:
		return a, errf(op.at, "after %s: want ==, !=, <, <=, >, >=, & or in, not %q", t.s, op.s)
	}
	a.Value, err = e.value()
	return a, err
}

// value parses term ("|" term)*, a term being ~term, a number, a name or
// "(" value ")" (minijail util.c: parse_constant).
func (e *exprParser) value() (uint64, error) {
	var v uint64
	for {
		t, err := e.term()
		if err != nil {
			return 0, err
		}
		v |= t
		if e.peek() != "|" {
			return v, nil
		}
		e.next()
	}
}

func (e *exprParser) term() (uint64, error) {
	t := e.next()
	if t.s == "~" {
		v, err := e.term()
		return truncate(e.abi, ^v), err
	}
	if t.s == "(" {
		v, err := e.value()
		if err != nil {
			return 0, err
		}
		if c := e.next(); c.s != ")" {
			return 0, errf(c.at, "unclosed parenthesis: want ), not %q", c.s)
		}
		return v, nil
	}
	if t.s == "" {
		return 0, errf(t.at, "missing value")
	}
	if c := t.s[0]; c >= '0' && c <= '9' {
		v, err := strconv.ParseUint(t.s, 0, 64)
		if err != nil {
			return 0, errf(t.at, "%q is no unsigned 64-bit number", t.s)
		}
		if is32(e.abi) && v > 0xffffffff {
			return 0, errf(t.at, "%s does not fit the 32-bit unsigned long of %s", t.s, e.abi.Name)
		}
		return v, nil
	}
	v, ok := constant(e.abi, t.s)
	if !ok && e.abi == filters.ArchRISCV64 {
		return 0, errf(t.at, "constant %q on riscv64: this tool has no riscv64 constant table and takes only names whose x86_64 and aarch64 values agree (riscv64 uses the kernel's generic headers); write the number instead", t.s)
	}
	if !ok {
		return 0, errf(t.at, "unknown constant %q on %s: minijail's table (its C library's and the kernel's headers) has no such name; write the number instead", t.s, e.abi.Name)
	}
	return v, nil
}

// ToOCI converts the policy to an OCI profile for the policy's ABI only
// (see the package documentation). A clause that cannot be expressed is an error; one that
// can never hold is left out with a warning; Policy.Notes come first
// among the warnings.
func (p *Policy) ToOCI() (*ocigen.Profile, error) {
	out := &ocigen.Profile{Name: ocigen.BaseName(p.File), DefaultAt: ocigen.Pos{File: p.File, Line: 1, Col: 1}}
	out.Seccomp.DefaultAction = specs.ActKillProcess
	out.Seccomp.Architectures = []specs.Arch{specs.Arch(ociArch(p.ABI)[0])}
	out.Warnings = append(out.Warnings, p.Notes...)
	if p.Denylist {
		out.Seccomp.DefaultAction = specs.ActAllow
		for _, r := range p.Rules {
			if r.Action == nil {
				return nil, errf(r.At, "%s: argument expressions in a @denylist policy are not modeled; give \"%s: return ERRNO\"", r.Syscall, r.Syscall)
			}
			if r.Action.OCI != specs.ActErrno {
				return nil, errf(r.Action.At, "%s: a @denylist policy must return an errno on every line (minijail tools/parser.py), not %q", r.Syscall, r.Action.Word)
			}
		}
	}
	sts := p.group()
	for _, st := range byRepeat(sts) {
		if err := p.resolveRepeats(st, &out.Warnings); err != nil {
			return nil, err
		}
	}
	for _, st := range sts {
		var err error
		if p.Toolchain == ToolchainPython {
			err = p.emitPython(out, st)
		} else {
			err = p.emitC(out, st.rules[0])
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ToolchainNote is the note naming the toolchain modeled, for a policy
// the toolchains read differently (a repeated syscall and not the C
// parser, or "expr; action" and the Python compiler), "" for one they
// all read alike.
func (p *Policy) ToolchainNote() string {
	repeats := slices.ContainsFunc(p.group(), func(st *statement) bool { return len(st.rules) > 1 })
	if !(repeats && p.Toolchain != ToolchainC || p.Toolchain == ToolchainPython && p.hasElse()) {
		return ""
	}
	how := "chosen from the file's path and content"
	switch {
	case !p.ToolchainDetected:
		how = "as --minijail-toolchain asks"
	case p.File == "" || p.stdin:
		how = "chosen from the content only (standard input has no path)"
	}
	return ocigen.Warning("", posOf(p.File),
		"read as %s reads it where minijail's toolchains differ (repeated syscalls, \"expr; action\"), %s; --minijail-toolchain c, android or python models another", p.Toolchain.Describe(), how)
}

// hasElse reports whether some line ends in "; action".
func (p *Policy) hasElse() bool {
	return slices.ContainsFunc(p.Rules, func(r Rule) bool { return r.Else != nil })
}

// always is the condition of a rule that must hold for every call
// (arg0 >= 0): our OCI compiler tries a syscall's conditional rules in
// order, so such a rule after the others acts where none holds.
var always = []specs.LinuxSeccompArg{{Index: 0, Op: specs.OpGreaterEqual, Value: 0}}

// emitC adds one line as the C parser compiles it (compile_policy_line):
// an action, or the expression allowing and the action after ";" where
// it does not hold.
func (p *Policy) emitC(out *ocigen.Profile, r *Rule) error {
	if r.Action != nil {
		out.Add(r.At, r.Action.OCI, r.Action.Errno, nil, r.Syscall)
		return nil
	}
	entries, err := exprEntries(out, r.Syscall, r.Expr)
	if err != nil {
		return err
	}
	for _, args := range entries {
		out.Add(r.At, specs.ActAllow, nil, args, r.Syscall)
	}
	if r.Else != nil && r.Else.OCI != specs.ActKillProcess {
		out.Add(r.Else.At, r.Else.OCI, r.Else.Errno, always, r.Syscall)
	}
	return nil
}

// emitPython adds a syscall's filter list as compile_filter_statement
// compiles it: each expression's action where it holds, in order, then
// the unconditional action (the default when there is none).
func (p *Policy) emitPython(out *ocigen.Profile, st *statement) error {
	fs, err := pythonFilters(st)
	if err != nil {
		return err
	}
	conditional := false
	for _, f := range fs {
		act, errno, at := specs.ActAllow, (*uint)(nil), f.at
		if f.act != nil {
			act, errno, at = f.act.OCI, f.act.Errno, f.act.At
		}
		if f.expr == nil {
			switch {
			case !conditional:
				out.Add(at, act, errno, nil, st.sys)
			case act != specs.ActKillProcess:
				out.Add(at, act, errno, always, st.sys)
			}
			continue
		}
		entries, err := exprEntries(out, st.sys, f.expr)
		if err != nil {
			return err
		}
		for _, args := range entries {
			out.Add(f.at, act, errno, args, st.sys)
		}
		conditional = true
	}
	return nil
}

// exprEntries returns the OCI conditions, one entry per alternative, of
// an expression (see the package documentation); clauses that never hold
// are left out with a warning on out.
func exprEntries(out *ocigen.Profile, sys string, expr [][]Atom) ([][]specs.LinuxSeccompArg, error) {
	var entries [][]specs.LinuxSeccompArg
	for _, clause := range expr {
		alts := [][]specs.LinuxSeccompArg{nil}
		for _, a := range clause {
			opts := atomArgs(a)
			if len(opts) == 0 {
				out.Warnings = append(out.Warnings, ocigen.Warning("", a.At, "arg%d & 0 never holds; the clause is left out", a.Arg))
			}
			if len(alts)*len(opts) > MaxRules {
				return nil, errf(a.At, "%s: the expression expands to more than %d OCI rules", sys, MaxRules)
			}
			var next [][]specs.LinuxSeccompArg
			for _, base := range alts {
				for _, o := range opts {
					next = append(next, append(slices.Clone(base), o))
				}
			}
			alts = next
		}
		for _, conds := range alts {
			merged, ok, conflict := ocigen.MergeArgs(conds)
			if conflict >= 0 {
				return nil, errf(clause[0].At, "%s: conditions on arg%d ANDed with &&, not all equalities or masks: an OCI profile cannot express that (runc ORs conditions on one argument)", sys, conflict)
			}
			if !ok {
				out.Warnings = append(out.Warnings, ocigen.Warning("", clause[0].At, "%s: a clause can never hold (its conditions on one argument contradict each other); left out", sys))
				continue
			}
			entries = append(entries, merged)
		}
		if len(entries) > MaxRules {
			return nil, errf(clause[0].At, "%s: the expression expands to more than %d OCI rules", sys, MaxRules)
		}
	}
	return entries, nil
}

// ociArch returns the OCI architecture name and the oci.Options.Arch
// spelling of abi.
func ociArch(abi *filters.Arch) [2]string {
	switch abi {
	case filters.ArchI386:
		return [2]string{"SCMP_ARCH_X86", "x86"}
	case filters.ArchAArch64:
		return [2]string{"SCMP_ARCH_AARCH64", "aarch64"}
	case filters.ArchARM:
		return [2]string{"SCMP_ARCH_ARM", "arm"}
	case filters.ArchRISCV64:
		return [2]string{"SCMP_ARCH_RISCV64", "riscv64"}
	}
	return [2]string{"SCMP_ARCH_X86_64", "x86_64"}
}

// atomArgs returns the OCI conditions, ORed, that one atom is.
func atomArgs(a Atom) []specs.LinuxSeccompArg {
	i := uint(a.Arg)
	switch a.Op {
	case "&":
		var out []specs.LinuxSeccompArg
		for m := a.Value; m != 0; m &= m - 1 {
			b := uint64(1) << bits.TrailingZeros64(m)
			out = append(out, specs.LinuxSeccompArg{Index: i, Op: specs.OpMaskedEqual, Value: b, ValueTwo: b})
		}
		return out
	case "in":
		return []specs.LinuxSeccompArg{{Index: i, Op: specs.OpMaskedEqual, Value: ^a.Value, ValueTwo: 0}}
	}
	ops := map[string]specs.LinuxSeccompOperator{"==": specs.OpEqualTo, "!=": specs.OpNotEqual, "<": specs.OpLessThan,
		"<=": specs.OpLessEqual, ">": specs.OpGreaterThan, ">=": specs.OpGreaterEqual}
	return []specs.LinuxSeccompArg{{Index: i, Op: ops[a.Op], Value: a.Value}}
}

// Load parses a policy (reading its includes) and compiles it to one
// program named after the file's base name. Its Notes say how the policy
// was read (ToolchainNote, then Policy.Info); its Warnings hold
// Policy.Notes and what the conversion and ParseOCI found; the second
// result lists the warnings again, once each.
func Load(name string, data []byte, opts Options) ([]*filters.Program, []string, error) {
	p, err := Parse(name, data, opts)
	if err != nil {
		return nil, nil, err
	}
	prof, err := p.ToOCI()
	if err != nil {
		return nil, nil, err
	}
	opt := opts.OCI
	opt.NoENOSYSStub = true
	opt.Arch = ociArch(p.ABI)[1]
	prog, err := prof.Compile(name, data, ErrBadPolicy, opt)
	if err != nil {
		return nil, nil, err
	}
	// The toolchain note names the whole file: it comes first; the
	// others are in reading order.
	if n := p.ToolchainNote(); n != "" {
		prog.Notes = append(prog.Notes, n)
	}
	prog.Notes = append(prog.Notes, p.Info...)
	progs := []*filters.Program{prog}
	return progs, ocigen.Collect(progs), nil
}
