// Package snapd reads snapd's seccomp profiles: the *.src files snapd
// writes under /var/lib/snapd/seccomp/bpf/ (one per security tag, built
// from interfaces/seccomp/template.go plus the interfaces' snippets) and
// compiles them as snap-seccomp does (cmd/snap-seccomp/main.go: compile,
// parseLine), into the stack snap-confine installs
// (cmd/snap-confine/seccomp-support.c: the deny filter first, then the
// allow filter).
//
// The format: one syscall per line, "#" comments, blank lines ignored;
// up to six argument tokens after the name, one per argument position:
// "-" (any value), N (equal), "!N", "<N", "<=N", ">N", ">=N", "|M" (the
// bits of M set: masked equal, mask and value M), "M|N" (args & M == N),
// "u:NAME"/"g:NAME" (the ID of a user or group). N is decimal or one of
// snap-seccomp's names (AF_UNIX, TIOCSTI, PR_SET_NAME, ...). A negative N
// is allowed only for the uid/gid syscalls snap-seccomp lists, compared
// on the low 32 bits. A line "~name ..." denies the call with EACCES
// whatever the allow rules say; "@unrestricted" means no filter at all;
// "@complain" makes the allow filter's default LOG instead of EPERM.
//
// What the model does as snap-seccomp does:
//
//   - the allow filter's default action is ERRNO(EPERM)
//     (errnoOnImplicitDenial), its rules ALLOW; the deny filter's default
//     is ALLOW, its "~" rules ERRNO(EACCES) (errnoOnExplicitDenial);
//   - a name no syscall table knows is skipped without a word (snap-seccomp
//     ignores what libseccomp cannot resolve), and a name an ABI lacks is
//     left out of that ABI's part (libseccomp's per-arch translation);
//   - each filter checks the host's native ABI and its compat ABI
//     (addSecondaryArches: i386 on amd64, arm on arm64); other audit arches
//     get libseccomp's default bad-arch action, KILL_THREAD;
//   - rules are libseccomp's (filters/scmp): on i386 a socket or IPC call
//     also matches socketcall/ipc, as seccomp_rule_add translates it.
//
// What differs: u:NAME and g:NAME resolve root and snapd's own system
// usernames (snap_daemon, ...: fixed IDs) only, since snap-seccomp's
// lookup in the host's passwd cannot be repeated here; any other name is
// an error naming the line.
package snapd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// FormatName is Source.Format for snapd profiles.
const FormatName = "snapd"

// ErrBadProfile is wrapped by every error about a profile's content.
var ErrBadProfile = errors.New("invalid snapd seccomp profile")

// The actions snap-seccomp uses (include/uapi/asm-generic/errno-base.h:
// EPERM 1, EACCES 13).
const (
	retAllow    = uint32(filters.ActionAllow)
	retEPERM    = uint32(filters.ActionErrno) | 1
	retEACCES   = uint32(filters.ActionErrno) | 13
	retLog      = uint32(filters.ActionLog)
	retKillThrd = uint32(filters.ActionKillThread)
)

// maxArgs is how many argument tokens a line may have (snap-seccomp:
// ScArgsMaxlength, libseccomp's ARG_COUNT_MAX).
const maxArgs = 6

// Options choose how a profile is compiled.
type Options struct {
	// Arch is the host's ABI; nil means x86_64. Its kernel's native ABI
	// and that ABI's compat one are the filters' architectures (x86_64
	// and i386, or aarch64 and arm).
	Arch *filters.Arch
	// Compiler lays the filters out: scmp.CompilerNative or
	// scmp.CompilerLibseccomp (a -tags libseccomp build).
	Compiler scmp.Compiler
}

// Profile is a parsed profile: what snap-seccomp's compile builds before
// it exports the filters.
type Profile struct {
	// Unrestricted is "@unrestricted": snap-confine installs no filter.
	Unrestricted bool
	// Complain is "@complain": the allow filter logs what it would deny.
	Complain bool
	// Allow and Deny are the rules of the two filters, in file order.
	Allow, Deny []scmp.Rule
}

// known reports whether any syscall table here has name.
func known(name string) bool {
	return slices.ContainsFunc(scmp.Arches, func(a *scmp.Arch) bool { _, ok := a.Table[name]; return ok })
}

// Parse reads a profile. Errors are *filters.SourceError values naming
// the line, wrapping ErrBadProfile.
func Parse(name string, data []byte) (*Profile, error) {
	p := &Profile{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch strings.TrimSpace(line) {
		case "@unrestricted":
			p.Unrestricted = true
			continue
		case "@complain":
			p.Complain = true
			continue
		}
		r, deny, err := parseLine(line)
		if err != nil {
			return nil, &filters.SourceError{File: name, Line: n, Err: fmt.Errorf("%w: %w", ErrBadProfile, err)}
		}
		switch {
		case r == nil:
		case deny:
			p.Deny = append(p.Deny, *r)
		default:
			p.Allow = append(p.Allow, *r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: %w", ErrBadProfile, err)}
	}
	return p, nil
}

// parseLine reads one line as snap-seccomp's parseLine does: nil for a
// comment, a blank line or a syscall no table knows; deny for "~name".
func parseLine(line string) (r *scmp.Rule, deny bool, err error) {
	tokens := strings.Fields(line)
	if len(tokens) == 0 || strings.HasPrefix(tokens[0], "#") {
		return nil, false, nil
	}
	if len(tokens)-1 > maxArgs {
		return nil, false, fmt.Errorf("too many arguments for %q: %d, at most %d", tokens[0], len(tokens)-1, maxArgs)
	}
	sys, action := tokens[0], retAllow
	if s, ok := strings.CutPrefix(sys, "~"); ok {
		sys, action, deny = s, retEACCES, true
	}
	if !known(sys) {
		return nil, false, nil
	}
	r = &scmp.Rule{Syscall: sys, Action: action}
	for pos, tok := range tokens[1:] {
		if tok == "-" {
			continue
		}
		c, err := parseCond(sys, pos, tok)
		if err != nil {
			return nil, false, fmt.Errorf("argument %d of %s: %w", pos, sys, err)
		}
		r.Conds = append(r.Conds, c)
	}
	return r, deny, nil
}

// parseCond reads one argument token (snap-seccomp's prefixes, in its
// order of tests).
func parseCond(sys string, pos int, tok string) (scmp.Cond, error) {
	c := scmp.Cond{Arg: pos, Op: scmp.EQ}
	var err error
	switch {
	case strings.HasPrefix(tok, ">="):
		c.Op = scmp.GE
		c.Datum, err = number(tok[2:], sys)
	case strings.HasPrefix(tok, "<="):
		c.Op = scmp.LE
		c.Datum, err = number(tok[2:], sys)
	case strings.HasPrefix(tok, "!"):
		c.Op = scmp.NE
		c.Datum, err = number(tok[1:], sys)
	case strings.HasPrefix(tok, "<"):
		c.Op = scmp.LT
		c.Datum, err = number(tok[1:], sys)
	case strings.HasPrefix(tok, ">"):
		c.Op = scmp.GT
		c.Datum, err = number(tok[1:], sys)
	case strings.HasPrefix(tok, "|"):
		c.Op = scmp.MaskedEQ
		c.Datum, err = number(tok[1:], sys)
		c.Mask = c.Datum
	case strings.Contains(tok, "|"):
		c.Op = scmp.MaskedEQ
		m, d, ok := strings.Cut(tok, "|")
		if ok && strings.Contains(d, "|") {
			return c, fmt.Errorf("%q: want MASK|VALUE", tok)
		}
		if c.Mask, err = number(m, sys); err == nil {
			c.Datum, err = number(d, sys)
		}
	case strings.HasPrefix(tok, "u:"), strings.HasPrefix(tok, "g:"):
		id, ok := systemUsers[tok[2:]]
		if !ok {
			return c, fmt.Errorf("%q: only root and snapd's system usernames (snap_daemon, snap_microk8s, snap_aziotedge, snap_aziotdu, _daemon_) have IDs known without the host's passwd and group files, which snap-seccomp reads", tok)
		}
		c.Datum = id
	default:
		c.Datum, err = number(tok, sys)
	}
	if err != nil {
		return c, err
	}
	if negArgSyscalls[sys] {
		// Only equality, on the low 32 bits (snap-seccomp: "unsupported
		// comparison" otherwise).
		if c.Op != scmp.EQ {
			return c, fmt.Errorf("%q: %s takes only equality tests", tok, sys)
		}
		c.Op, c.Mask = scmp.MaskedEQ, 0xffffffff
	}
	return c, nil
}

// number reads a value as snap-seccomp's readNumber does: a name of its
// table, a decimal unsigned 32-bit number, or a negative 32-bit one for
// the syscalls in negArgSyscalls (as its two's complement, 32 bits).
func number(tok, sys string) (uint64, error) {
	if v, ok := values[tok]; ok {
		return v, nil
	}
	if v, err := strconv.ParseUint(tok, 10, 32); err == nil {
		return v, nil
	}
	if !negArgSyscalls[sys] {
		return 0, fmt.Errorf("%q: want a decimal number below 2^32 or one of snap-seccomp's names (AF_UNIX, TIOCSTI, ...); negative values only for the uid/gid syscalls", tok)
	}
	v, err := strconv.ParseInt(tok, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q: want a 32-bit number or one of snap-seccomp's names", tok)
	}
	return uint64(uint32(v)), nil
}

// arches returns the filters' architectures for a host of ABI a: its
// kernel's native ABI and that ABI's compat one (snap-seccomp:
// addSecondaryArches, kernel and userspace alike).
func arches(a *filters.Arch) []*scmp.Arch {
	if a != nil && filters.KernelArches(a)[0] == filters.ArchAArch64 {
		return []*scmp.Arch{scmp.AARCH64, scmp.ARM}
	}
	return []*scmp.Arch{scmp.X86_64, scmp.X86}
}

// Filters returns the two libseccomp filters of p, deny then allow (the
// order snap-confine installs them), or none for "@unrestricted".
func (p *Profile) Filters(o Options) (deny, allow *scmp.Filter) {
	if p.Unrestricted {
		return nil, nil
	}
	as := arches(o.Arch)
	def := retEPERM
	if p.Complain {
		def = retLog
	}
	deny = &scmp.Filter{DefAction: retAllow, BadArch: retKillThrd, Arches: as, Rules: p.Deny}
	allow = &scmp.Filter{DefAction: def, BadArch: retKillThrd, Arches: as, Rules: p.Allow}
	return deny, allow
}

// compile lays f out with the chosen compiler.
func compile(f *scmp.Filter, c scmp.Compiler) ([]bpf.RawInstruction, error) {
	if c == scmp.CompilerLibseccomp {
		// snap-seccomp tries seccomp_rule_add_exact, then
		// seccomp_rule_add where the exact form fails (a call the
		// compat ABI multiplexes): the second gives the same rules
		// where the first succeeds.
		return scmp.CompileLibseccomp(f, scmp.LibseccompOptions{})
	}
	return f.Compile()
}

// Load parses and compiles a profile into the stack snap-confine
// installs: filters NAME/deny and NAME/allow (NAME the file's base name),
// in that order, or no filter for "@unrestricted" (with a warning).
func Load(name string, data []byte, o Options) (*filters.Source, error) {
	p, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	src := &filters.Source{Name: name, Format: FormatName, Stacked: true}
	deny, allow := p.Filters(o)
	if deny == nil {
		src.Warnings = append(src.Warnings, &filters.SourceError{File: name, Line: directiveLine(data, "@unrestricted"),
			Msg: "@unrestricted: snap-confine installs no seccomp filter for this profile"})
		return src, nil
	}
	for _, part := range []struct {
		name string
		f    *scmp.Filter
	}{{"deny", deny}, {"allow", allow}} {
		insns, err := compile(part.f, o.Compiler)
		if err != nil {
			return nil, fmt.Errorf("compile %s filter of %s: %w", part.name, name, err)
		}
		prog := filters.SourceProgram(name, data, insns)
		prog.Name += "/" + part.name
		src.Filters = append(src.Filters, prog)
		src.Parts = append(src.Parts, filters.Part{Name: part.name, Count: 1})
	}
	return src, nil
}

// directiveLine returns the 1-based line of the first line that is d.
func directiveLine(data []byte, d string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == d {
			return i + 1
		}
	}
	return 0
}

// snapdLine is a line of the format: "~"? a syscall-like name, then
// tokens.
var snapdLine = regexp.MustCompile(`^~?[a-z_][a-z0-9_]*(\s+\S+){0,6}$`)

// Detect reports whether text data is a snapd profile: its first line
// that is not blank is snap-seccomp's version header, "@unrestricted" or
// "@complain", or at least two of its first 50 lines that are not blank
// or comments hold a syscall some table knows, every one of them looks
// like a profile line (snapdLine: no ":", "=", "{" or quotes) and most
// name a known syscall.
func Detect(data []byte) bool {
	if len(data) > 64<<10 {
		data = data[:64<<10]
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	lines, knownN, first := 0, 0, true
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if first {
			first = false
			if t == "@unrestricted" || t == "@complain" || t == "# snap-seccomp version information:" {
				return true
			}
		}
		if t[0] == '#' {
			continue
		}
		if !snapdLine.MatchString(t) {
			return false
		}
		if known(strings.TrimPrefix(strings.Fields(t)[0], "~")) {
			knownN++
		}
		if lines++; lines == 50 {
			break
		}
	}
	return knownN >= 2 && knownN*4 >= lines*3
}
