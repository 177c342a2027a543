package oci

//go:generate go run mkcorpus.go

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/seccompbench/seccompbench/filters/internal/srcpos"
	"slices"
	"sort"
	"strconv"
	"strings"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/suggest"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"golang.org/x/net/bpf"
)

// DockerDefaultName is the built-in name of Docker's default seccomp profile,
// accepted wherever a policy path is. The profile comes from
// github.com/moby/profiles/seccomp's DefaultProfile at build time; nothing
// is copied into this repository.
const DockerDefaultName = "docker-default"

// DefaultKernelVersion is the kernel version, "major.minor", against which
// profile rules with a minKernel condition are resolved unless Options
// says otherwise: the kernel this project measures on.
const DefaultKernelVersion = "6.18"

// DockerDefaultCaps is the capability set Docker gives a container that
// neither adds nor drops any (moby oci/caps/defaults.go:
// DefaultCapabilities). Profile rules conditioned on capabilities are
// resolved against it unless Options.Caps says otherwise.
var DockerDefaultCaps = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
	"CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
}

// AllCaps lists every Linux capability (include/uapi/linux/capability.h,
// CAP_CHOWN = 0 through CAP_CHECKPOINT_RESTORE = 40), in number order.
var AllCaps = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
	"CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
	"CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
	"CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
}

// Options says how to resolve a profile's conditional parts for the
// container being modeled.
type Options struct {
	// Caps is the container's bounding capability set, as "CAP_*" names.
	// nil means DockerDefaultCaps; an empty non-nil slice means none.
	Caps []string
	// KernelVersion is "major.minor" (anything after is ignored, as moby
	// does); "" means DefaultKernelVersion.
	KernelVersion string
	// Arch is the host architecture: "x86_64" (default), "aarch64", "x86"
	// or "arm". It selects the archMap entry and the includes/excludes
	// arches, and it is the native architecture libseccomp always filters.
	Arch string
	// NoENOSYSStub leaves out runc's -ENOSYS stub (syscall numbers above
	// the highest one the profile names return ENOSYS), modeling a
	// runtime that installs libseccomp's program as it is.
	NoENOSYSStub bool
	// Runtime is the OCI runtime whose installation is modeled: "" or
	// RuntimeRunc, RuntimeRunc11 or RuntimeCrun (ParseRuntime). It decides
	// the ENOSYS stub and the libseccomp layout; the verdicts of the
	// profile's rules are the same under all three.
	Runtime Runtime
}

// Runtime names an OCI runtime whose way of installing a profile is
// modeled. The runtimes read the same linux.seccomp and build the same
// libseccomp rules from it; they differ in what they add and in the
// layout they ask libseccomp for.
type Runtime string

const (
	// RuntimeRunc is runc 1.2 and later (the default): runc's ENOSYS stub
	// in front (libcontainer/seccomp/patchbpf) and libseccomp's binary tree
	// (SCMP_FLTATR_CTL_OPTIMIZE = 2) above 32 syscall names (runc commit
	// b265d1288, "libct/seccomp: enable binary tree optimization", first in
	// v1.2.0).
	RuntimeRunc Runtime = "runc"
	// RuntimeRunc11 is runc 1.1.x (Debian 12 ships 1.1.5): the ENOSYS
	// stub, and libseccomp's default layout whatever the profile's size.
	RuntimeRunc11 Runtime = "runc-1.1"
	// RuntimeCrun is crun (1.8.1 checked; src/libcrun/seccomp.c:
	// libcrun_generate_seccomp): libseccomp's program exported with
	// seccomp_export_bpf as it is, no ENOSYS stub, libseccomp's default
	// layout. crun loads it with SECCOMP_FILTER_FLAG_SPEC_ALLOW unless the
	// profile lists flags (libcrun_apply_seccomp), which changes no byte
	// of the filter.
	RuntimeCrun Runtime = "crun"
)

// Runtimes lists the runtimes ParseRuntime accepts, default first.
var Runtimes = []Runtime{RuntimeRunc, RuntimeRunc11, RuntimeCrun}

// ParseRuntime returns the Runtime named s ("" is RuntimeRunc), or an
// error naming the accepted ones.
func ParseRuntime(s string) (Runtime, error) {
	if s == "" {
		return RuntimeRunc, nil
	}
	for _, r := range Runtimes {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown OCI runtime %q; want runc, runc-1.1 or crun", s)
}

// stub reports whether r prepends runc's ENOSYS stub.
func (r Runtime) stub() bool { return r != RuntimeCrun }

// tree reports whether r asks libseccomp for its binary tree above
// scmp.RuncOptimizeThreshold syscall names.
func (r Runtime) tree() bool { return r == "" || r == RuntimeRunc }

// ErrBadProfile is returned (wrapped in a *SourceError) when an OCI seccomp
// profile cannot be decoded or uses an action, operator, architecture or
// argument libseccomp would reject.
var ErrBadProfile = errors.New("invalid OCI seccomp profile")

// errAt builds a *SourceError for name, locating needle (a JSON string
// value such as the offending action) in data if it occurs there.
func errAt(name string, data []byte, needle string, format string, args ...any) error {
	e := &filters.SourceError{File: name, Err: fmt.Errorf("%w: "+format, append([]any{ErrBadProfile}, args...)...)}
	if needle != "" {
		if i := bytes.Index(data, []byte(strconv.Quote(needle))); i >= 0 {
			e.Line, e.Col = filters.LineCol(data, i)
		}
	}
	return e
}

// errAtPath builds a *SourceError for name located at the JSON value at
// path in the profile (see locate), for values that are no unique
// string: numbers, nulls, empty strings.
func errAtPath(name string, data []byte, path []any, format string, args ...any) error {
	e := &filters.SourceError{File: name, Err: fmt.Errorf("%w: "+format, append([]any{ErrBadProfile}, args...)...)}
	e.Line, e.Col = locate(data, path...)
	return e
}

// locate returns the 1-based line and column of the value at path in a
// profile (object keys as strings, array indexes as ints), looked for at
// the top level and then under linux.seccomp (a runtime config), or 0, 0
// if there is none.
func locate(data []byte, path ...any) (int, int) {
	off := srcpos.JSONValueOffset(data, path...)
	if off < 0 {
		off = srcpos.JSONValueOffset(data, append([]any{"linux", "seccomp"}, path...)...)
	}
	if off < 0 {
		return 0, 0
	}
	return filters.LineCol(data, off)
}

// Parse compiles a Docker/OCI seccomp profile to one filter with the
// verdicts runc would install through libseccomp:
//
//   - data is a profile (moby's JSON: defaultAction, archMap or
//     architectures, syscalls with includes/excludes) or an OCI runtime
//     config.json whose linux.seccomp holds one;
//   - includes/excludes are resolved as moby's setupSeccomp does for
//     opt.Caps, opt.KernelVersion and opt.Arch (excludes: any listed cap
//     present, the arch listed, or kernel >= minKernel; includes: all caps
//     present, the arch listed, kernel >= minKernel);
//   - the filter checks the native arch plus archMap's sub-architectures
//     (x86_64: x86 and x32) or the listed architectures; any other arch
//     gets SCMP_ACT_KILL (KILL_THREAD), libseccomp's default bad-arch
//     action, which runc leaves alone (libcontainer/seccomp/seccomp_linux.go:
//     InitSeccomp);
//   - actions map as runc's getAction: SCMP_ACT_KILL is KILL_THREAD,
//     SCMP_ACT_ERRNO and SCMP_ACT_TRACE without errnoRet return EPERM;
//     errnoRet is accepted only on ERRNO and TRACE;
//   - each name of an entry becomes its own rule; a rule repeating an
//     argument index is split into one rule per condition (ORed), else its
//     conditions are ANDed (runc matchCall); rules with the default action
//     and names unknown on an arch are skipped for it;
//   - SCMP_CMP_MASKED_EQ compares (arg & value) == (valueTwo & value), as
//     libseccomp stores it (bits of valueTwo outside the mask are ignored); on 64-bit
//     arches each comparison tests the high then the low 32-bit word, on
//     x86 and x32 only the low word, as libseccomp does.
//
// Errors are *SourceError values wrapping ErrBadProfile, located at the
// offending value where it can be found. A syscall name that none of the
// filter's architectures has is left out, as libseccomp (and so runc)
// skips it; one that no syscall table has at all, likely a typo, also
// gets a warning in Program.Warnings (see unknownNames).
//
//   - runc's -ENOSYS stub (libcontainer/seccomp/patchbpf) is modeled unless
//     opt.NoENOSYSStub: when the default action is none of ALLOW, LOG and
//     TRACE, a syscall of a listed architecture whose number is above the
//     highest number any of the profile's names has there (x86_64 and x32
//     counted apart) gets ERRNO(ENOSYS), so a program newer than the
//     profile falls back instead of failing with the default errno. Here
//     it costs one jgt per architecture on the path, folded into the
//     dispatch; CompileLibseccomp prepends runc's own stub instead.
//
// Known differences from runc: names newer than the installed libseccomp's
// table are resolved here (our tables are Linux 6.18) where runc would skip
// them, which also moves the ENOSYS bound; flags (SECCOMP_FILTER_FLAG_*) and
// listenerPath are recorded nowhere. The instruction layout is our own,
// in libseccomp's shapes (a binary tree by syscall number above 32 names,
// Filter.Tree); CompileLibseccomp gives libseccomp's own.
func Parse(name string, data []byte, opt Options) (*filters.Program, error) {
	prog, _, err := parse(name, data, opt)
	return prog, err
}

// parse is Parse, also returning the resolved profile.
func parse(name string, data []byte, opt Options) (*filters.Program, *resolved, error) {
	p, err := resolve(name, data, opt)
	if err != nil {
		return nil, nil, err
	}
	insns, err := p.f.Compile()
	if err != nil {
		return nil, nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: compile: %w", ErrBadProfile, err)}
	}
	prog := filters.SourceProgram(name, data, insns)
	prog.Warnings = filters.WarningText(p.warnings)
	return prog, p, nil
}

// DockerDefaultJSON returns Docker's default profile as moby's
// DefaultProfile builds it, marshaled as indented JSON (the format of
// moby's default.json). The bytes depend only on the module version.
func DockerDefaultJSON() ([]byte, error) {
	b, err := json.MarshalIndent(mobyseccomp.DefaultProfile(), "", "\t")
	if err != nil {
		return nil, fmt.Errorf("marshal docker default profile: %w", err)
	}
	return append(b, '\n'), nil
}

// DockerDefault compiles Docker's default profile (DockerDefaultJSON) with
// Parse under the name DockerDefaultName.
func DockerDefault(opt Options) (*filters.Program, error) {
	b, err := DockerDefaultJSON()
	if err != nil {
		return nil, err
	}
	return Parse(DockerDefaultName, b, opt)
}

// nativeArch maps Options.Arch to the libseccomp native arch string moby
// matches includes/excludes arches against (moby seccomp_linux.go
// goToNative) and to the arch itself.
var nativeArch = map[string]struct {
	native string
	arch   *scmp.Arch
}{
	"x86_64":  {"amd64", scmp.X86_64},
	"amd64":   {"amd64", scmp.X86_64},
	"aarch64": {"arm64", scmp.AARCH64},
	"arm64":   {"arm64", scmp.AARCH64},
	"x86":     {"x86", scmp.X86},
	"i386":    {"x86", scmp.X86},
	"arm":     {"arm", scmp.ARM},
	"riscv64": {"riscv64", scmp.RISCV64},
}

// ParseCaps parses a --caps value: "default" (DockerDefaultCaps), "all"
// (AllCaps), "none", or a comma-separated list of names with or without
// the CAP_ prefix, in any case; "default,+SYS_ADMIN,-NET_RAW" style
// adjustments apply to the set named first. An unknown name is an error.
func ParseCaps(s string) ([]string, error) {
	set := map[string]bool{}
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch strings.ToLower(f) {
		case "":
			continue
		case "default":
			for _, c := range DockerDefaultCaps {
				set[c] = true
			}
			continue
		case "all":
			for _, c := range AllCaps {
				set[c] = true
			}
			continue
		case "none":
			continue
		}
		add := true
		if f[0] == '+' || f[0] == '-' {
			add = f[0] == '+'
			f = f[1:]
		}
		c := strings.ToUpper(f)
		if !strings.HasPrefix(c, "CAP_") {
			c = "CAP_" + c
		}
		if !slices.Contains(AllCaps, c) {
			return nil, fmt.Errorf("parse caps: item %d: unknown capability %q", i+1, f)
		}
		set[c] = add
	}
	out := []string{}
	for _, c := range AllCaps {
		if set[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

func parseKernelVersion(s string) (mobyseccomp.KernelVersion, error) {
	var kv mobyseccomp.KernelVersion
	if s == "" {
		s = DefaultKernelVersion
	}
	if _, err := fmt.Sscanf(s, "%d.%d", &kv.Kernel, &kv.Major); err != nil {
		return kv, fmt.Errorf("parse kernel version %q: want major.minor, e.g. 6.18", s)
	}
	return kv, nil
}

func kernelAtLeast(have, min mobyseccomp.KernelVersion) bool {
	return have.Kernel > min.Kernel || (have.Kernel == min.Kernel && have.Major >= min.Major)
}

// ruleAction converts an OCI action and errnoRet to a full return value as
// runc's getAction does.
func ruleAction(act specs.LinuxSeccompAction, errnoRet *uint) (uint32, error) {
	data := func(def uint) uint32 {
		if errnoRet != nil {
			return uint32(*errnoRet) & filters.RetData
		}
		return uint32(def)
	}
	if errnoRet != nil && act != specs.ActErrno && act != specs.ActTrace {
		return 0, fmt.Errorf("errnoRet is only allowed with SCMP_ACT_ERRNO and SCMP_ACT_TRACE, not %s", act)
	}
	if errnoRet != nil && *errnoRet > filters.RetData {
		return 0, fmt.Errorf("errnoRet %d does not fit SECCOMP_RET_DATA (16 bits)", *errnoRet)
	}
	switch act {
	case specs.ActKill, specs.ActKillThread:
		return uint32(filters.ActionKillThread), nil
	case specs.ActKillProcess:
		return uint32(filters.ActionKillProcess), nil
	case specs.ActTrap:
		return uint32(filters.ActionTrap), nil
	case specs.ActErrno:
		return uint32(filters.ActionErrno) | data(1), nil // runc: EPERM
	case specs.ActTrace:
		return uint32(filters.ActionTrace) | data(1), nil // runc: EPERM
	case specs.ActAllow:
		return uint32(filters.ActionAllow), nil
	case specs.ActLog:
		return uint32(filters.ActionLog), nil
	case specs.ActNotify:
		return uint32(filters.ActionUserNotif), nil
	}
	return 0, fmt.Errorf("unknown action %q; want one of SCMP_ACT_KILL, SCMP_ACT_KILL_PROCESS, SCMP_ACT_KILL_THREAD, SCMP_ACT_TRAP, SCMP_ACT_ERRNO, SCMP_ACT_TRACE, SCMP_ACT_ALLOW, SCMP_ACT_LOG, SCMP_ACT_NOTIFY", act)
}

var ops = map[specs.LinuxSeccompOperator]scmp.Op{
	specs.OpNotEqual: scmp.NE, specs.OpLessThan: scmp.LT, specs.OpLessEqual: scmp.LE,
	specs.OpEqualTo: scmp.EQ, specs.OpGreaterEqual: scmp.GE, specs.OpGreaterThan: scmp.GT,
	specs.OpMaskedEqual: scmp.MaskedEQ,
}

// buildFilter decodes and resolves a profile into a libseccomp filter model.
func buildFilter(name string, data []byte, opt Options) (*scmp.Filter, error) {
	p, err := resolve(name, data, opt)
	if err != nil {
		return nil, err
	}
	return p.f, nil
}

// resolved is a profile resolved for one container: the libseccomp filter
// runc builds from it, plus what runc decides outside libseccomp.
type resolved struct {
	f *scmp.Filter
	// listed are the resolved profile's architectures (runc's
	// config.Architectures), in order: the ones runc passes to AddArch and
	// gives a section of its ENOSYS stub.
	listed []*scmp.Arch
	// names counts the resolved profile's syscall names, one rule each in
	// runc (libcontainer/specconv: SetupSeccomp); above 32 runc asks for
	// libseccomp's binary-tree layout.
	names int
	// stub reports that runc prepends its ENOSYS stub: the default action
	// is none of ALLOW, LOG and TRACE (patchbpf: isAllowAction) and
	// opt.NoENOSYSStub is not set.
	stub bool
	// tree reports that the runtime asks libseccomp for its binary tree
	// (more than 32 names, Runtime.tree).
	tree bool
	// warnings are for Program.Warnings: names of applicable entries that
	// no architecture of the filter has, once each, located.
	warnings []*filters.SourceError
	// known are the names of the applicable entries, in order, with
	// their JSON paths (for Program.RuleAt).
	known []syscallName
}

// runcENOSYSBounds computes the bounds of runc's ENOSYS stub
// (patchbpf: findLastSyscalls) from our syscall tables: for each listed
// architecture, the highest seccomp_data.nr any rule's name has there,
// whatever the rule's action or arguments. Architectures where no name
// resolves get no bound. On x86 the socket and IPC calls do not count:
// libseccomp resolves them to pseudo-syscalls (scmp.X86Muxed), which runc
// ignores, so their direct numbers (socket 359, shmat 397, ...) may lie
// above the bound and get ENOSYS, leaving libc to fall back to socketcall
// and ipc.
func runcENOSYSBounds(listed []*scmp.Arch, rules []scmp.Rule) map[*scmp.Arch]uint32 {
	out := map[*scmp.Arch]uint32{}
	for _, a := range listed {
		var max uint32
		for _, r := range rules {
			if _, muxed := scmp.X86Muxed[r.Syscall]; muxed && a == scmp.X86 {
				continue // a pseudo-syscall to libseccomp: runc skips it
			}
			if nr, ok := a.Nr(r.Syscall); ok && nr > max {
				max = nr
			}
		}
		if max != 0 {
			out[a] = max
		}
	}
	return out
}

// resolve decodes and resolves a profile as runc would see it.
func resolve(name string, data []byte, opt Options) (*resolved, error) {
	prof, err := decode(name, data)
	if err != nil {
		return nil, err
	}
	caps := opt.Caps
	if caps == nil {
		caps = DockerDefaultCaps
	}
	archName := opt.Arch
	if archName == "" {
		archName = "x86_64"
	}
	host, ok := nativeArch[archName]
	if !ok {
		return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: unsupported host arch %q; want x86_64, aarch64, x86, arm or riscv64", ErrBadProfile, archName)}
	}
	kv, err := parseKernelVersion(opt.KernelVersion)
	if err != nil {
		return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: %w", ErrBadProfile, err)}
	}
	if prof.DefaultAction == "" {
		return nil, errAt(name, data, "", "no defaultAction")
	}
	if len(prof.Architectures) != 0 && len(prof.ArchMap) != 0 {
		return nil, errAt(name, data, "", "both architectures and archMap are set; use one")
	}
	def, err := ruleAction(prof.DefaultAction, prof.DefaultErrnoRet)
	if err != nil {
		return nil, errAt(name, data, string(prof.DefaultAction), "defaultAction: %v", err)
	}
	f := &scmp.Filter{DefAction: def, BadArch: uint32(filters.ActionKillThread), Arches: []*scmp.Arch{host.arch}}
	res := &resolved{f: f}
	switch prof.DefaultAction {
	case specs.ActAllow, specs.ActLog, specs.ActTrace:
		// patchbpf: isAllowAction. (runc also skips the stub when
		// defaultErrnoRet equals SCMP_ACT_ERRNO(ENOSYS), 0x50026, which
		// no 16-bit errnoRet can; a default of ERRNO(ENOSYS) gets the
		// stub, with no change in verdicts.)
	default:
		res.stub = !opt.NoENOSYSStub && opt.Runtime.stub()
	}
	if err := res.addArches(name, data, prof, host.arch); err != nil {
		return nil, err
	}
	known, err := res.addRules(name, data, prof, caps, host.native, kv)
	if err != nil {
		return nil, err
	}
	res.warnings = unknownNames(name, data, known, profileArches(prof))
	res.known = known
	if res.stub {
		f.ENOSYSAbove = runcENOSYSBounds(res.listed, f.Rules)
	}
	// runc asks libseccomp for its binary tree above 32 rules
	// (CompileLibseccomp); the native layout follows.
	f.Tree = res.names > scmp.RuncOptimizeThreshold && opt.Runtime.tree()
	res.tree = f.Tree
	return res, nil
}

// addArches adds the profile's architectures for a host of architecture
// hostArch (its archMap entry's, else its architectures) to the filter
// and to res.listed, each once, failing on one without a syscall table
// here.
func (res *resolved) addArches(name string, data []byte, prof *mobyseccomp.Seccomp, hostArch *scmp.Arch) error {
	f := res.f
	archList := prof.Architectures
	for _, m := range prof.ArchMap {
		if m.Arch == specs.Arch(hostArch.OCI) {
			archList = append([]specs.Arch{m.Arch}, m.SubArches...)
			break
		}
	}
	for _, an := range archList {
		a := scmp.ArchByOCI(string(an))
		if a == nil {
			if slices.Contains(knownArches, string(an)) {
				return errAt(name, data, string(an), "architecture %s has no syscall table here; supported: SCMP_ARCH_X86_64, SCMP_ARCH_X86, SCMP_ARCH_X32, SCMP_ARCH_AARCH64, SCMP_ARCH_ARM", an)
			}
			return errAt(name, data, string(an), "unknown architecture %q", an)
		}
		if !slices.Contains(f.Arches, a) {
			f.Arches = append(f.Arches, a)
		}
		if !slices.Contains(res.listed, a) {
			res.listed = append(res.listed, a)
		}
	}
	return nil
}

// addRules adds one rule per name (or per name and condition, when an
// argument has several) of each syscalls entry that applies to caps, the
// host's native arch and kernel version kv, counting the names in
// res.names. It returns the names of the applicable entries, in order.
func (res *resolved) addRules(name string, data []byte, prof *mobyseccomp.Seccomp, caps []string, native string, kv mobyseccomp.KernelVersion) ([]syscallName, error) {
	f := res.f
	var known []syscallName // the names of applicable entries, in order
	for i, sc := range prof.Syscalls {
		if sc == nil {
			return nil, errAtPath(name, data, []any{"syscalls", i}, "syscalls[%d] is null", i)
		}
		//lint:ignore SA1019 old profiles write one "name", which runc still reads
		legacy := sc.Name
		if legacy != "" {
			if len(sc.Names) != 0 {
				return nil, errAt(name, data, legacy, "syscalls[%d] sets both name and names", i)
			}
			sc.Names = []string{legacy}
		}
		if !applies(sc, caps, native, kv) {
			continue
		}
		act, err := ruleAction(sc.Action, sc.ErrnoRet)
		if err != nil {
			return nil, errAt(name, data, string(sc.Action), "syscalls[%d]: %v", i, err)
		}
		conds, split, err := ruleConds(name, data, i, sc)
		if err != nil {
			return nil, err
		}
		res.names += len(sc.Names)
		for k, n := range sc.Names {
			if n != "" {
				at := []any{"syscalls", i, "names", k}
				if legacy != "" {
					at = []any{"syscalls", i, "name"}
				}
				known = append(known, syscallName{n, at})
			}
			if n == "" {
				// Only names can hold "": a name sets Names to itself.
				return nil, errAtPath(name, data, []any{"syscalls", i, "names", k}, "syscalls[%d]: empty syscall name", i)
			}
			if split {
				for _, c := range conds {
					f.Rules = append(f.Rules, scmp.Rule{Syscall: n, Action: act, Conds: []scmp.Cond{c}})
				}
			} else {
				f.Rules = append(f.Rules, scmp.Rule{Syscall: n, Action: act, Conds: conds})
			}
		}
	}
	return known, nil
}

// ruleConds converts the argument conditions of syscalls[i]. split
// reports that some argument has more than one condition; resolve then
// adds one rule per condition instead of one rule with all of them.
func ruleConds(name string, data []byte, i int, sc *mobyseccomp.Syscall) (conds []scmp.Cond, split bool, err error) {
	count := [6]int{}
	for j, a := range sc.Args {
		op, ok := ops[a.Op]
		if !ok {
			return nil, false, errAt(name, data, string(a.Op), "syscalls[%d].args[%d]: unknown operator %q; want SCMP_CMP_NE, _LT, _LE, _EQ, _GE, _GT or _MASKED_EQ", i, j, a.Op)
		}
		if a.Index > 5 {
			return nil, false, errAtPath(name, data, []any{"syscalls", i, "args", j, "index"}, "syscalls[%d].args[%d]: index %d out of range 0-5", i, j, a.Index)
		}
		c := scmp.Cond{Arg: int(a.Index), Op: op, Datum: a.Value}
		if op == scmp.MaskedEQ {
			c.Mask, c.Datum = a.Value, a.ValueTwo
		}
		conds = append(conds, c)
		count[a.Index]++
	}
	return conds, slices.ContainsFunc(count[:], func(n int) bool { return n > 1 }), nil
}

// syscallName is a syscall name of a profile entry and the JSON path of where
// it is written.
type syscallName struct {
	name string
	at   []any
}

// otherArchPrefixes start, and otherArchNames are, the names of
// syscalls private to architectures without a syscall table here
// (riscv_hwprobe, s390_runtime_instr, spu_run and swapcontext on powerpc,
// sync_file_range2 on powerpc and arm, sysmips on mips, osf_* on alpha,
// ...), which multi-architecture profiles such as Docker's list on purpose.
var (
	otherArchPrefixes = []string{"riscv_", "s390_", "spu_", "osf_", "sparc_", "parisc_"}
	otherArchNames    = []string{"sync_file_range2", "swapcontext", "switch_endian", "subpage_prot", "sys_debug_setcontext", "cachectl", "sysmips"}
)

// privateNames are the syscalls that exist only on some architectures
// with no syscall table here, by the SCMP_ARCH_* names that have them
// (arch/*/kernel/syscalls/syscall.tbl and unistd.h of each).
var privateNames = map[string][]string{
	"SCMP_ARCH_MIPS":        {"syscall", "sysmips", "cachectl", "cacheflush"},
	"SCMP_ARCH_MIPSEL":      {"syscall", "sysmips", "cachectl", "cacheflush"},
	"SCMP_ARCH_MIPS64":      {"syscall", "sysmips", "cachectl", "cacheflush"},
	"SCMP_ARCH_MIPSEL64":    {"syscall", "sysmips", "cachectl", "cacheflush"},
	"SCMP_ARCH_MIPS64N32":   {"syscall", "sysmips", "cachectl", "cacheflush"},
	"SCMP_ARCH_MIPSEL64N32": {"syscall", "sysmips", "cachectl", "cacheflush"},
	"SCMP_ARCH_PPC":         ppcNames,
	"SCMP_ARCH_PPC64":       ppcNames,
	"SCMP_ARCH_PPC64LE":     ppcNames,
	"SCMP_ARCH_S390":        s390Names,
	"SCMP_ARCH_S390X":       s390Names,
	"SCMP_ARCH_RISCV64":     {"riscv_flush_icache", "riscv_hwprobe"},
	"SCMP_ARCH_M68K":        {"atomic_cmpxchg_32", "atomic_barrier", "cacheflush"},
	"SCMP_ARCH_SH":          {"cacheflush"},
	"SCMP_ARCH_SHEB":        {"cacheflush"},
}

var (
	ppcNames  = []string{"spu_run", "spu_create", "swapcontext", "switch_endian", "subpage_prot", "sys_debug_setcontext", "rtas", "multiplexer", "sync_file_range2"}
	s390Names = []string{"s390_runtime_instr", "s390_pci_mmio_read", "s390_pci_mmio_write", "s390_guarded_storage", "s390_sthyi"}
)

// profileArches returns every architecture prof lists: architectures,
// and each archMap entry with its subArchitectures, whichever host the
// profile is resolved for.
func profileArches(prof *mobyseccomp.Seccomp) []string {
	var out []string
	for _, a := range prof.Architectures {
		out = append(out, string(a))
	}
	for _, m := range prof.ArchMap {
		out = append(out, string(m.Arch))
		for _, sa := range m.SubArches {
			out = append(out, string(sa))
		}
	}
	return out
}

// unknownNames returns a warning, located at the name, for each
// distinct name of names that no syscall table here has (x86_64, x86, x32,
// aarch64, arm; on x86 the socket and IPC calls libseccomp multiplexes,
// scmp.X86Muxed, count) and that is not another architecture's
// (otherArchPrefixes, otherArchNames) or private to one of arches, the
// SCMP_ARCH_* names the profile lists (privateNames: Podman's default
// profile lists "syscall" for its MIPS entries). Names unknown on the
// profile's own architectures but real on another are how
// multi-architecture profiles are written, so only names no table knows,
// most likely typos, are reported. libseccomp skips rules for such names
// on every architecture (runc ignores the error), and so does the filter
// built here; a close x86_64 name is suggested. Past
// maxNameWarnings names, one last warning counts the rest.
func unknownNames(file string, data []byte, names []syscallName, arches []string) []*filters.SourceError {
	var out []*filters.SourceError
	var at map[string]int // lazily: JSON path -> offset of every name
	seen := map[string]bool{}
	more := 0
	for _, n := range names {
		if seen[n.name] {
			continue
		}
		seen[n.name] = true
		_, known := scmp.X86Muxed[n.name]
		for _, a := range scmp.Arches {
			if _, ok := a.Nr(n.name); ok {
				known = true
			}
		}
		for _, p := range otherArchPrefixes {
			known = known || strings.HasPrefix(n.name, p)
		}
		known = known || slices.Contains(otherArchNames, n.name)
		for _, a := range arches {
			known = known || slices.Contains(privateNames[a], n.name)
		}
		if known {
			continue
		}
		if len(out) == maxNameWarnings {
			more++
			continue
		}
		msg := fmt.Sprintf("syscall %q is unknown on every architecture of the profile; runc skips it too", n.name)
		if s := suggest.Closest(n.name, scmp.X86_64.Table, 1); len(s) > 0 {
			msg += fmt.Sprintf("; did you mean %q?", s[0])
		}
		if at == nil {
			at = nameOffsets(data)
		}
		e := &filters.SourceError{File: file, Msg: msg}
		if off, ok := at[fmt.Sprint(n.at)]; ok {
			e.Line, e.Col = filters.LineCol(data, off)
		}
		out = append(out, e)
	}
	if more > 0 {
		out = append(out, &filters.SourceError{File: file, Msg: fmt.Sprintf("%d more syscall names are unknown on every architecture of the profile; runc skips them too", more)})
	}
	return out
}

// maxNameWarnings is how many unknown syscall names unknownNames
// reports one by one (each costs a spelling search).
const maxNameWarnings = 16

// nameOffsets returns, in one pass, the byte offset of every syscall
// name of a profile (or of a runtime config's linux.seccomp), keyed by
// fmt.Sprint of its path relative to the profile: "[syscalls 3 names 1]"
// or "[syscalls 3 name]". A profile with many unknown names is thus located in
// linear time, not one walk per name.
func nameOffsets(data []byte) map[string]int {
	out := map[string]int{}
	srcpos.WalkJSON(data, func(path []any, isKey bool, tok json.Token, off int) bool {
		if _, ok := tok.(string); isKey || !ok {
			return true
		}
		if len(path) > 2 && path[0] == "linux" && path[1] == "seccomp" {
			path = path[2:]
		}
		if len(path) >= 3 && path[0] == "syscalls" && (len(path) == 3 && path[2] == "name" || len(path) == 4 && path[2] == "names") {
			out[fmt.Sprint(path)] = off
		}
		return true
	})
	return out
}

// knownArches are the OCI architecture names libseccomp knows; the ones
// without a table here are reported as unsupported rather than unknown.
var knownArches = []string{
	"SCMP_ARCH_X86", "SCMP_ARCH_X86_64", "SCMP_ARCH_X32", "SCMP_ARCH_ARM", "SCMP_ARCH_AARCH64",
	"SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",
	"SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC", "SCMP_ARCH_PPC64",
	"SCMP_ARCH_PPC64LE", "SCMP_ARCH_S390", "SCMP_ARCH_S390X", "SCMP_ARCH_PARISC",
	"SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64", "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
	"SCMP_ARCH_SH", "SCMP_ARCH_SHEB",
}

// applies resolves an entry's includes and excludes as moby's
// setupSeccomp does (github.com/moby/profiles/seccomp seccomp_linux.go).
func applies(sc *mobyseccomp.Syscall, caps []string, native string, kv mobyseccomp.KernelVersion) bool {
	if ex := sc.Excludes; ex != nil {
		if slices.Contains(ex.Arches, native) {
			return false
		}
		for _, c := range ex.Caps {
			if slices.Contains(caps, c) {
				return false
			}
		}
		if ex.MinKernel != nil && kernelAtLeast(kv, *ex.MinKernel) {
			return false
		}
	}
	if in := sc.Includes; in != nil {
		if len(in.Arches) > 0 && !slices.Contains(in.Arches, native) {
			return false
		}
		for _, c := range in.Caps {
			if !slices.Contains(caps, c) {
				return false
			}
		}
		if in.MinKernel != nil && !kernelAtLeast(kv, *in.MinKernel) {
			return false
		}
	}
	return true
}

// checkErrnoRet checks the numbers given as defaultErrnoRet and as the
// errnoRet of syscalls entries (of a profile, or of the linux.seccomp of a
// runtime config) before they are decoded into uint fields, whose decoding
// error ("cannot use number -5 as uint") neither names the entry nor
// says what is wanted. It returns a *SourceError wrapping ErrBadProfile,
// located at the first number that is no integer from 0 to RetData (65535,
// the 16 bits of SECCOMP_RET_DATA), or nil. Values that are no number are
// left to the decoder.
func checkErrnoRet(name string, data []byte) error {
	var bad error
	srcpos.WalkJSON(data, func(path []any, isKey bool, tok json.Token, off int) bool {
		num, ok := tok.(json.Number)
		if isKey || !ok {
			return true
		}
		p := path
		if len(p) > 2 && p[0] == "linux" && p[1] == "seccomp" {
			p = p[2:]
		}
		var what string
		switch {
		case len(p) == 1 && p[0] == "defaultErrnoRet":
			what = "defaultErrnoRet"
		case len(p) == 3 && p[0] == "syscalls" && p[2] == "errnoRet":
			what = fmt.Sprintf("syscalls[%d]: errnoRet", p[1])
		default:
			return true
		}
		if v, err := strconv.ParseUint(num.String(), 10, 64); err == nil && v <= filters.RetData {
			return true
		}
		line, col := filters.LineCol(data, off)
		bad = &filters.SourceError{File: name, Line: line, Col: col,
			Err: fmt.Errorf("%w: %s %s: want an errno from 0 to %d", ErrBadProfile, what, num, filters.RetData)}
		return false
	})
	return bad
}

// decode decodes a profile, or the linux.seccomp of a runtime config.
func decode(name string, data []byte) (*mobyseccomp.Seccomp, error) {
	jsonErr := func(err error) error {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		e := &filters.SourceError{File: name, Err: fmt.Errorf("%w: %v", ErrBadProfile, err)}
		switch {
		case errors.As(err, &se):
			// Offset counts the bytes read, the offending one included.
			e.Line, e.Col = filters.LineCol(data, max(int(se.Offset)-1, 0))
		case errors.As(err, &te):
			e.Line, e.Col = filters.LineCol(data, int(te.Offset))
			e.Err = fmt.Errorf("%w: %s: cannot use %s as %s", ErrBadProfile, te.Field, te.Value, te.Type)
		}
		return e
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonErr(err)
	}
	if err := checkErrnoRet(name, data); err != nil {
		return nil, err
	}
	if _, ok := top["defaultAction"]; !ok {
		if lin, ok := top["linux"]; ok {
			var l struct {
				Seccomp json.RawMessage `json:"seccomp"`
			}
			if err := json.Unmarshal(lin, &l); err != nil {
				return nil, jsonErr(err)
			}
			if len(l.Seccomp) > 0 {
				off := bytes.Index(data, l.Seccomp)
				var prof mobyseccomp.Seccomp
				if err := json.Unmarshal(l.Seccomp, &prof); err != nil {
					var se *json.SyntaxError
					var te *json.UnmarshalTypeError
					switch {
					case errors.As(err, &se) && off >= 0:
						se.Offset += int64(off)
					case errors.As(err, &te) && off >= 0:
						te.Offset += int64(off)
					}
					return nil, jsonErr(err)
				}
				return &prof, nil
			}
		}
		return nil, &filters.SourceError{File: name, Line: 1, Col: 1, Err: fmt.Errorf("%w: no top-level defaultAction (nor linux.seccomp of a runtime config)", ErrBadProfile)}
	}
	var prof mobyseccomp.Seccomp
	if err := json.Unmarshal(data, &prof); err != nil {
		return nil, jsonErr(err)
	}
	return &prof, nil
}

// RuleSummary lists, for messages and tests, the resolved rules of a
// profile: one line per rule, "name action [conds]", sorted.
func RuleSummary(name string, data []byte, opt Options) ([]string, error) {
	f, err := buildFilter(name, data, opt)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range f.Rules {
		if r.Action == f.DefAction {
			continue
		}
		s := r.Syscall + " " + scmp.ActionName(r.Action)
		for _, c := range r.Conds {
			if c.Op == scmp.MaskedEQ {
				s += fmt.Sprintf(" a%d&%#x==%#x", c.Arg, c.Mask, c.Datum)
			} else {
				s += fmt.Sprintf(" a%d %s %#x", c.Arg, strings.TrimPrefix(c.Op.String(), "SCMP_CMP_"), c.Datum)
			}
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}

// CompileLibseccomp compiles an OCI / Docker seccomp profile with
// libseccomp the way runc 1.1+ installs it (libcontainer/seccomp:
// InitSeccomp, patchbpf.PatchAndLoad), without loading anything:
//
//   - the profile is resolved as Parse does (includes/excludes for opt,
//     runc's getAction for actions and errnoRet, one rule per name, rules
//     with a repeated argument index split into one rule per condition);
//   - seccomp_init(default action), seccomp_arch_add for each listed
//     architecture (the native one is always there), bad-arch action left
//     at libseccomp's SCMP_ACT_KILL (KILL_THREAD), SCMP_FLTATR_CTL_NNP off;
//   - SCMP_FLTATR_CTL_OPTIMIZE = 2 (binary tree by syscall number) when the
//     resolved profile has more than 32 syscall names, else libseccomp's
//     default level;
//   - seccomp_rule_add (not _exact) for each rule whose action is not the
//     default action and whose name libseccomp resolves; names the
//     installed libseccomp does not know are skipped, as runc does;
//   - the program is exported with seccomp_export_bpf and runc's ENOSYS
//     stub is prepended (unless opt.NoENOSYSStub or the default action is
//     ALLOW, LOG or TRACE): per listed architecture, syscall numbers above
//     the highest one the profile names, as libseccomp numbers them, get
//     ERRNO(ENOSYS).
//
// The verdicts equal Parse's for every syscall both syscall tables
// know by the same number (the differential test in
// libseccomp_test.go checks this). Errors: *SourceError values wrapping
// ErrBadProfile for the profile, an error wrapping ErrNoLibseccomp in a build
// without libseccomp, and libseccomp's errors (wrapped) otherwise.
func CompileLibseccomp(name string, data []byte, opt Options) (*filters.Program, error) {
	prog, _, err := compileLibseccomp(name, data, opt)
	return prog, err
}

// compileLibseccomp is CompileLibseccomp, also returning the resolved
// profile.
func compileLibseccomp(name string, data []byte, opt Options) (*filters.Program, *resolved, error) {
	res, err := resolve(name, data, opt)
	if err != nil {
		return nil, nil, err
	}
	o := scmp.LibseccompOptions{}
	if res.tree {
		o.Optimize = 2
	}
	insns, err := scmp.CompileLibseccomp(res.f, o)
	if err != nil {
		return nil, nil, fmt.Errorf("compile profile %q with libseccomp: %w", name, err)
	}
	if res.stub {
		bounds, err := scmp.LibseccompENOSYSBounds(res.listed, res.f.Rules)
		if err != nil {
			return nil, nil, fmt.Errorf("compile profile %q with libseccomp: %w", name, err)
		}
		stub, err := scmp.RuncENOSYSStub(bounds)
		if err != nil {
			return nil, nil, fmt.Errorf("compile profile %q with libseccomp: %w", name, err)
		}
		insns = append(stub, insns...)
	}
	if err := filters.Validate(insns); err != nil {
		return nil, nil, fmt.Errorf("compile profile %q with libseccomp: %w", name, err)
	}
	prog := filters.SourceProgram(name, data, insns)
	prog.Warnings = filters.WarningText(res.warnings)
	return prog, res, nil
}

// LibseccompVariants returns the SHA-256 (Program.SHA256) of every other
// filter the modeled runtime may install for the profile besides
// CompileLibseccomp's: runc lays its ENOSYS stub's architectures out in Go
// map order (scmp.RuncENOSYSStubs), so a profile listing x86_64 and i386
// gets one of four byte sequences per container start, with the same
// verdicts. None for crun, a profile without the stub, or one
// architecture. Errors are CompileLibseccomp's.
func LibseccompVariants(name string, data []byte, opt Options) ([]string, error) {
	res, err := resolve(name, data, opt)
	if err != nil || !res.stub {
		return nil, err
	}
	o := scmp.LibseccompOptions{}
	if res.tree {
		o.Optimize = 2
	}
	insns, err := scmp.CompileLibseccomp(res.f, o)
	if err != nil {
		return nil, fmt.Errorf("compile profile %q with libseccomp: %w", name, err)
	}
	bounds, err := scmp.LibseccompENOSYSBounds(res.listed, res.f.Rules)
	if err != nil {
		return nil, fmt.Errorf("compile profile %q with libseccomp: %w", name, err)
	}
	stubs, err := scmp.RuncENOSYSStubs(bounds)
	if err != nil {
		return nil, fmt.Errorf("compile profile %q with libseccomp: %w", name, err)
	}
	var out []string
	seen := map[string]bool{}
	for i, stub := range stubs {
		sum := filters.SourceProgram(name, data, append(append([]bpf.RawInstruction{}, stub...), insns...)).SHA256()
		if i > 0 && !seen[sum] {
			out = append(out, sum)
		}
		seen[sum] = true
	}
	return out, nil
}

// FormatName is the name of this format in the filters/formats table.
const FormatName = "oci"

// LoadSource compiles an OCI profile with compiler c (Parse for
// scmp.CompilerNative, CompileLibseccomp for scmp.CompilerLibseccomp) into
// the shared loaded shape: one filter, format FormatName. A nil data loads
// Docker's default profile (DockerDefaultJSON).
func LoadSource(name string, data []byte, opt Options, c scmp.Compiler) (*filters.Source, error) {
	if data == nil {
		b, err := DockerDefaultJSON()
		if err != nil {
			return nil, err
		}
		data = b
	}
	compile := parse
	if c == scmp.CompilerLibseccomp {
		compile = compileLibseccomp
	}
	p, res, err := compile(name, data, opt)
	if err != nil {
		return nil, err
	}
	p.RuleAt = ruleAt(name, data, res.known)
	return &filters.Source{Name: name, Format: FormatName, Filters: []*filters.Program{p}, Warnings: res.warnings}, nil
}

// ruleAt maps each applicable syscall name of a profile to where the
// profile first writes it, "file:line:col" (Program.RuleAt), with one
// walk over data.
func ruleAt(file string, data []byte, known []syscallName) map[string]string {
	if len(known) == 0 {
		return nil
	}
	offs := nameOffsets(data)
	lines := filters.NewLines(data)
	out := map[string]string{}
	for _, n := range known {
		if _, ok := out[n.name]; ok {
			continue
		}
		if off, ok := offs[fmt.Sprint(n.at)]; ok {
			line, col := lines.LineCol(off)
			out[n.name] = fmt.Sprintf("%s:%d:%d", file, line, col)
		}
	}
	return out
}

// Resolution says what resolved a profile's conditional parts
// (includes/excludes on caps, minKernel, arches): Options with their
// defaults filled in, for outputs to state.
type Resolution struct {
	// Caps is the capability set, CAP_* names in AllCaps order.
	Caps []string
	// DefaultCaps is true when Options.Caps was nil (DockerDefaultCaps).
	DefaultCaps bool
	// KernelVersion is "major.minor".
	KernelVersion string
	// DefaultKernel is true when Options.KernelVersion was ""
	// (DefaultKernelVersion).
	DefaultKernel bool
	// Arch is the host architecture, e.g. "x86_64".
	Arch string
	// Runtime is the OCI runtime modeled (RuntimeRunc when
	// Options.Runtime was "").
	Runtime Runtime
}

// Resolution returns o with its defaults filled in.
func (o Options) Resolution() Resolution {
	r := Resolution{Caps: o.Caps, KernelVersion: o.KernelVersion, Arch: o.Arch, Runtime: o.Runtime}
	if r.Runtime == "" {
		r.Runtime = RuntimeRunc
	}
	if r.Caps == nil {
		r.Caps, r.DefaultCaps = DockerDefaultCaps, true
	}
	if r.KernelVersion == "" {
		r.KernelVersion, r.DefaultKernel = DefaultKernelVersion, true
	}
	if r.Arch == "" {
		r.Arch = "x86_64"
	}
	return r
}

// String says it in one line, e.g. "capabilities: Docker's default set
// (14); kernel 6.18 (default); host arch x86_64".
func (r Resolution) String() string {
	caps := fmt.Sprintf("%d: %s", len(r.Caps), strings.Join(r.Caps, ","))
	switch {
	case r.DefaultCaps:
		caps = fmt.Sprintf("Docker's default set (%d)", len(r.Caps))
	case len(r.Caps) == 0:
		caps = "none"
	case len(r.Caps) == len(AllCaps):
		caps = fmt.Sprintf("all (%d)", len(r.Caps))
	}
	kv := r.KernelVersion
	if r.DefaultKernel {
		kv += " (default)"
	}
	rt := ""
	if r.Runtime != RuntimeRunc {
		// runc is the default and goes unsaid, so outputs of runc models
		// read as they always did.
		rt = "; installed as " + string(r.Runtime) + " does"
	}
	return fmt.Sprintf("capabilities: %s; kernel %s; host arch %s%s", caps, kv, r.Arch, rt)
}

// CheckOptions reports whether o's kernel version and host architecture
// are ones Parse accepts, so commands can refuse bad flags before
// loading anything.
func CheckOptions(o Options) error {
	if _, err := parseKernelVersion(o.KernelVersion); err != nil {
		return err
	}
	if _, ok := nativeArch[o.Arch]; !ok && o.Arch != "" {
		return fmt.Errorf("check host arch %q: want x86_64, aarch64, x86, arm or riscv64", o.Arch)
	}
	if _, err := ParseRuntime(string(o.Runtime)); err != nil {
		return err
	}
	return nil
}
