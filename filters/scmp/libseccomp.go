//go:build libseccomp && cgo

package scmp

// This file is the one place cgo enters the filters package: it hands our
// filter model (Filter) to libseccomp through
// github.com/seccomp/libseccomp-golang and reads back the program
// libseccomp generates. It never loads a filter (no seccomp_load, no
// ScmpFilter.Load): seccomp_export_bpf only compiles in userspace and
// writes the program out. Two side effects remain, both harmless:
//   - libseccomp-golang's init and libseccomp's API-level query probe the
//     kernel's seccomp support (seccomp(2) with SECCOMP_GET_ACTION_AVAIL
//     and similar read-only operations), which decides which actions
//     libseccomp accepts;
//   - with libseccomp older than 2.6.0 there is no seccomp_export_bpf_mem,
//     so the program is written to an os.Pipe and read back by a
//     goroutine (as runc's patchbpf does).
// Either way the package stays deterministic for a given libseccomp.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	libseccomp "github.com/seccomp/libseccomp-golang"
	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
)

const libseccompBuilt = true

func libseccompVersion() (string, error) {
	major, minor, micro := libseccomp.GetLibraryVersion()
	return fmt.Sprintf("%d.%d.%d", major, minor, micro), nil
}

// lsArches maps our architectures to libseccomp's tokens.
var lsArches = map[*Arch]libseccomp.ScmpArch{
	X86_64:  libseccomp.ArchAMD64,
	X86:     libseccomp.ArchX86,
	X32:     libseccomp.ArchX32,
	AARCH64: libseccomp.ArchARM64,
	ARM:     libseccomp.ArchARM,
	RISCV64: libseccomp.ArchRISCV64,
}

// lsAction converts a full SECCOMP_RET_* value to libseccomp's action.
func lsAction(ret uint32) (libseccomp.ScmpAction, error) {
	act, data := filters.SplitRet(ret)
	switch act {
	case filters.ActionKillProcess:
		return libseccomp.ActKillProcess, nil
	case filters.ActionKillThread:
		return libseccomp.ActKillThread, nil
	case filters.ActionTrap:
		return libseccomp.ActTrap, nil
	case filters.ActionErrno:
		return libseccomp.ActErrno.SetReturnCode(int16(data)), nil
	case filters.ActionUserNotif:
		return libseccomp.ActNotify, nil
	case filters.ActionTrace:
		return libseccomp.ActTrace.SetReturnCode(int16(data)), nil
	case filters.ActionLog:
		return libseccomp.ActLog, nil
	case filters.ActionAllow:
		return libseccomp.ActAllow, nil
	}
	return libseccomp.ActInvalid, fmt.Errorf("action %#x has no libseccomp equivalent", ret)
}

var lsOps = map[Op]libseccomp.ScmpCompareOp{
	NE: libseccomp.CompareNotEqual, LT: libseccomp.CompareLess,
	LE: libseccomp.CompareLessOrEqual, EQ: libseccomp.CompareEqual,
	GE: libseccomp.CompareGreaterEqual, GT: libseccomp.CompareGreater,
	MaskedEQ: libseccomp.CompareMaskedEqual,
}

// CompileLibseccomp builds f as a libseccomp filter context (seccomp_init,
// seccomp_arch_add/remove, attributes, one rule call per rule) and returns
// the program seccomp_export_bpf writes. f.ENOSYSAbove is not libseccomp's
// and is ignored: oci.CompileLibseccomp prepends runc's stub itself. An
// Ordered filter is refused.
func CompileLibseccomp(f *Filter, o LibseccompOptions) ([]bpf.RawInstruction, error) {
	if f.Ordered {
		return nil, fmt.Errorf("compile with libseccomp: the filter's rules are first-match-wins lists (Filter.Ordered), which libseccomp's database cannot keep; use the native compiler")
	}
	for _, r := range f.Rules {
		for _, c := range r.Conds {
			if c.Low32 {
				return nil, fmt.Errorf("compile with libseccomp: rule for %s compares the low word of argument %d only (Cond.Low32), which libseccomp cannot; use the native compiler", r.Syscall, c.Arg)
			}
		}
	}
	def, err := lsAction(f.DefAction)
	if err != nil {
		return nil, fmt.Errorf("default action: %w", err)
	}
	flt, err := libseccomp.NewFilter(def)
	if err != nil {
		return nil, fmt.Errorf("seccomp_init: %w", err)
	}
	defer flt.Release()
	if err := lsSetArches(flt, f.Arches); err != nil {
		return nil, err
	}
	bad, err := lsAction(f.BadArch)
	if err != nil {
		return nil, fmt.Errorf("bad-arch action: %w", err)
	}
	if err := flt.SetBadArchAction(bad); err != nil {
		return nil, fmt.Errorf("set SCMP_FLTATR_ACT_BADARCH: %w", err)
	}
	if err := flt.SetNoNewPrivsBit(false); err != nil {
		return nil, fmt.Errorf("set SCMP_FLTATR_CTL_NNP: %w", err)
	}
	if o.Optimize != 0 {
		if err := flt.SetOptimize(o.Optimize); err != nil {
			return nil, fmt.Errorf("set SCMP_FLTATR_CTL_OPTIMIZE %d: %w", o.Optimize, err)
		}
	}
	for _, r := range f.Rules {
		if err := lsAddRule(flt, f, r, o); err != nil {
			return nil, err
		}
	}
	b, err := lsExport(flt)
	if err != nil {
		return nil, err
	}
	if len(b)%filters.SockFilterSize != 0 {
		return nil, fmt.Errorf("seccomp_export_bpf wrote %d bytes, not a multiple of %d", len(b), filters.SockFilterSize)
	}
	// seccomp_export_bpf writes host byte order.
	return filters.DecodeSockFilters(b, binary.NativeEndian), nil
}

// lsSetArches adds arches to flt (seccomp_arch_add) and removes the
// native architecture libseccomp starts with unless arches include it.
func lsSetArches(flt *libseccomp.ScmpFilter, arches []*Arch) error {
	native, err := libseccomp.GetNativeArch()
	if err != nil {
		return fmt.Errorf("get native arch: %w", err)
	}
	keepNative := false
	for _, a := range arches {
		la, ok := lsArches[a]
		if !ok {
			return fmt.Errorf("architecture %s has no libseccomp token here", a.Name)
		}
		keepNative = keepNative || la == native
		if err := flt.AddArch(la); err != nil {
			return fmt.Errorf("seccomp_arch_add %s: %w", a.Name, err)
		}
	}
	if !keepNative {
		if err := flt.RemoveArch(native); err != nil {
			return fmt.Errorf("seccomp_arch_remove native: %w", err)
		}
	}
	return nil
}

// lsAddRule adds rule r of f to flt with one seccomp_rule_add call (its
// _exact form when o.Exact). It skips, as runc and systemd do, a rule
// with f's default action, a syscall unknown to this libseccomp and, when
// exact, a syscall none of f's architectures has.
func lsAddRule(flt *libseccomp.ScmpFilter, f *Filter, r Rule, o LibseccompOptions) error {
	if r.Action == f.DefAction {
		return nil // runc and systemd skip these; libseccomp refuses them
	}
	nr, err := libseccomp.GetSyscallFromName(r.Syscall)
	if err != nil {
		return nil // unknown to this libseccomp: runc and systemd skip it
	}
	if o.Exact && !lsExists(f.Arches, r.Syscall) {
		// seccomp_rule_add_exact fails for a syscall the filter's
		// architecture lacks; systemd logs and skips it.
		return nil
	}
	act, err := lsAction(r.Action)
	if err != nil {
		return fmt.Errorf("rule %s: %w", r.Syscall, err)
	}
	var conds []libseccomp.ScmpCondition
	for _, c := range r.Conds {
		vals := []uint64{c.Datum}
		if c.Op == MaskedEQ {
			vals = []uint64{c.Mask, c.Datum}
		}
		lc, err := libseccomp.MakeCondition(uint(c.Arg), lsOps[c.Op], vals...)
		if err != nil {
			return fmt.Errorf("rule %s: condition: %w", r.Syscall, err)
		}
		conds = append(conds, lc)
	}
	switch {
	case o.Exact && len(conds) == 0:
		err = flt.AddRuleExact(nr, act)
	case o.Exact:
		err = flt.AddRuleConditionalExact(nr, act, conds)
	case len(conds) == 0:
		err = flt.AddRule(nr, act)
	default:
		err = flt.AddRuleConditional(nr, act, conds)
	}
	if err != nil {
		return fmt.Errorf("add rule %s %s: %w", r.Syscall, ActionName(r.Action), err)
	}
	return nil
}

// lsExists reports whether seccomp_rule_add_exact can add name on one of
// arches. A syscall the architecture lacks resolves to a pseudo-number at
// or below lsMissingBase (__PNR_*, e.g. newfstatat on x86: -10031). On
// x86, a socket or IPC call resolves to a small negative pseudo-number
// (socket -101, semop -201) and is added, for the direct syscall and for
// socketcall/ipc (src/arch-x86.c); on other architectures such a
// pseudo-number (recv on x86_64) makes the rule fail with EDOM, and
// systemd skips it.
func lsExists(arches []*Arch, name string) bool {
	for _, a := range arches {
		nr, err := libseccomp.GetSyscallFromNameByArch(name, lsArches[a])
		if err != nil {
			continue
		}
		if n := int32(nr); n >= 0 || (a == X86 && n > lsMissingBase) {
			return true
		}
	}
	return false
}

// lsMissingBase bounds libseccomp's pseudo-numbers for syscalls an
// architecture does not have (include/seccomp-syscalls.h: __PNR_* are
// -10000 and below; libseccomp 2.5.4 resolves fstat64 on x86_64 to
// -10010).
const lsMissingBase = -10000

// lsExport returns the program libseccomp generates for flt: from memory
// with libseccomp 2.6.0 and later, through an os.Pipe before that.
func lsExport(flt *libseccomp.ScmpFilter) ([]byte, error) {
	b, err := flt.ExportBPFMem()
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, syscall.EOPNOTSUPP) {
		return nil, fmt.Errorf("seccomp_export_bpf_mem: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("export bpf: create pipe: %w", err)
	}
	defer r.Close()
	var buf bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(&buf, r)
		done <- err
	}()
	err = flt.ExportBPF(w)
	w.Close()
	if cerr := <-done; err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("seccomp_export_bpf: %w", err)
	}
	return buf.Bytes(), nil
}

// LibseccompENOSYSBounds computes runc's stub bounds as runc does
// (patchbpf: findLastSyscalls): for each listed architecture, the highest
// number libseccomp's table gives any rule's name there
// (seccomp_syscall_resolve_name_arch, x32 numbers with X32SyscallBit);
// names it does not know, or knows only as a pseudo-syscall, are skipped.
func LibseccompENOSYSBounds(listed []*Arch, rules []Rule) ([]StubBound, error) {
	for _, a := range listed {
		if _, ok := lsArches[a]; !ok {
			return nil, fmt.Errorf("architecture %s has no libseccomp token here", a.Name)
		}
	}
	return StubBoundsFrom(listed, func(a *Arch) uint32 {
		var max int32
		for _, r := range rules {
			nr, err := libseccomp.GetSyscallFromNameByArch(r.Syscall, lsArches[a])
			if err == nil && int32(nr) > max {
				max = int32(nr)
			}
		}
		return uint32(max)
	}), nil
}
