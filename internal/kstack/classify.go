package kstack

import "strings"

// Class says where a CPU sample landed.
type Class int

const (
	// ClassUser is a sample that interrupted user mode.
	ClassUser Class = iota + 1
	// ClassKernel is a kernel sample outside seccomp.
	ClassKernel
	// ClassSeccomp is a kernel sample inside seccomp: the entry
	// (__secure_computing), the action cache check, the filter walk
	// (__seccomp_filter, seccomp_run_filters) or a filter's JIT image.
	ClassSeccomp
	// ClassNoStack is a kernel sample whose callchain could not be taken;
	// it counts as CPU time, not as seccomp.
	ClassNoStack
)

// String returns "user", "kernel", "seccomp" or "no-stack".
func (c Class) String() string {
	switch c {
	case ClassUser:
		return "user"
	case ClassKernel:
		return "kernel"
	case ClassSeccomp:
		return "seccomp"
	case ClassNoStack:
		return "no-stack"
	}
	return "class?"
}

// Part says which part of seccomp a ClassSeccomp sample is in.
type Part int

const (
	// PartNone is the Part of samples outside seccomp.
	PartNone Part = iota
	// PartEntry is seccomp's own C code: __secure_computing,
	// __seccomp_filter, the action cache bitmap check, populate of
	// struct seccomp_data, and what they call other than a filter.
	PartEntry
	// PartFilter is a filter running: a classic filter's JIT image (no
	// kallsyms entry: kernel/bpf/core.c: bpf_prog_kallsyms_candidate
	// skips classic programs) or the BPF interpreter.
	PartFilter
)

// String returns "entry", "filter" or "".
func (p Part) String() string {
	switch p {
	case PartEntry:
		return "entry"
	case PartFilter:
		return "filter"
	}
	return ""
}

// Verdict is the classification of one sample.
type Verdict struct {
	Class Class
	Part  Part
	// Inferred is set when no seccomp function is on the callchain but
	// its innermost frame is an unnamed image called straight from a
	// syscall entry function: the unwinder skipped __seccomp_filter (a
	// sample in the image's prologue, before it set up its frame).
	Inferred bool
}

// seccompFuncs are the kernel functions whose frames mark seccomp time
// (kernel/seccomp.c, Linux 5.11-6.18; several are inlined into
// __seccomp_filter on most builds and listed in case they are not).
// __secure_computing's signature changed in 2025 (1027cd8084bb); only its
// name is used here.
var seccompFuncs = map[string]bool{
	"__secure_computing":        true,
	"secure_computing_strict":   true,
	"__seccomp_filter":          true,
	"seccomp_run_filters":       true,
	"seccomp_cache_check_allow": true,
	"populate_seccomp_data":     true,
	"seccomp_log":               true,
}

// interpreterFuncs run a BPF program without a JIT image
// (kernel/bpf/core.c: ___bpf_prog_run and its per-stack-size wrappers
// __bpf_prog_run32 ... __bpf_prog_run512).
func isInterpreter(name string) bool {
	return name == "___bpf_prog_run" || strings.HasPrefix(name, "__bpf_prog_run")
}

// seccompCallers call __secure_computing on syscall entry
// (kernel/entry/common.c: syscall_trace_enter; inlined into its callers
// on some builds, so do_syscall_64 and the compat entries too).
var seccompCallers = map[string]bool{
	"syscall_trace_enter":               true,
	"do_syscall_64":                     true,
	"do_int80_emulation":                true,
	"do_fast_syscall_32":                true,
	"__do_fast_syscall_32":              true,
	"do_int80_syscall_32":               true,
	"syscall_enter_from_user_mode":      true,
	"syscall_enter_from_user_mode_work": true,
}

// baseName strips the compiler's suffixes (".cold", ".part.0",
// ".constprop.0", ".isra.0") from a symbol name.
func baseName(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

// Classifier classifies samples against one symbol table.
type Classifier struct {
	syms *Symbols
}

// NewClassifier returns a Classifier that names addresses with syms.
func NewClassifier(syms *Symbols) *Classifier { return &Classifier{syms: syms} }

// frame names address a of a callchain at depth i (0 = the interrupted
// instruction). Return addresses (i > 0) are looked up at a-1: a call that
// ends its function returns to the next symbol's first byte.
func (c *Classifier) frame(i int, a uint64) (Symbol, bool) {
	if i > 0 && a > 0 {
		a--
	}
	return c.syms.Lookup(a)
}

// unnamed reports whether the frame at depth i is code the symbol table
// does not name: outside the core text and in no module. BPF programs
// with kallsyms entries are named ("[bpf]"); a classic filter's image is
// not.
func (c *Classifier) unnamed(i int, a uint64) bool {
	_, ok := c.frame(i, a)
	return !ok
}

// Classify classifies one sample.
//
// A kernel sample is seccomp when a seccomp function is on its callchain:
// everything such a frame calls, a filter's JIT image included, is seccomp
// work. Its Part is PartFilter when a frame inside the seccomp frame is an
// unnamed image or the BPF interpreter, else PartEntry.
//
// Without a seccomp frame, a sample whose innermost frame is an unnamed
// image is a filter running (Inferred) when either
//   - the first named frame after it is a syscall entry function that
//     calls seccomp: the unwinder went from the image's prologue, before it
//     pushed its frame, straight to __seccomp_filter's caller; or
//   - nothing after it is named (the unwinder gave up in the image: the
//     ORC unwinder has no tables for JIT code, so its frame-pointer
//     fallback fails at some instructions of an image) and the thread was
//     inside a syscall (Sample.InSyscall): classic BPF runs there only as
//     a seccomp filter, or as a socket filter in a softirq that
//     interrupted the syscall, which this cannot tell apart.
//
// eBPF programs are named in kallsyms ("[bpf]") unless
// net.core.bpf_jit_kallsyms is 0 or bpf_jit_harden is set
// (kernel/bpf/core.c: bpf_jit_kallsyms_enabled); then they read as
// unnamed images too.
func (c *Classifier) Classify(s *Sample) Verdict {
	if s.User {
		return Verdict{Class: ClassUser}
	}
	stack := s.Stack
	if len(stack) == 0 {
		return Verdict{Class: ClassNoStack}
	}
	for i, a := range stack {
		sym, ok := c.frame(i, a)
		if !ok || !seccompFuncs[baseName(sym.Name)] {
			continue
		}
		part := PartEntry
		for j := 0; j < i; j++ {
			inner, ok := c.frame(j, stack[j])
			if !ok || inner.Module == "bpf" || isInterpreter(baseName(inner.Name)) {
				part = PartFilter
				break
			}
		}
		return Verdict{Class: ClassSeccomp, Part: part}
	}
	if !c.unnamed(0, stack[0]) {
		return Verdict{Class: ClassKernel}
	}
	for i := 1; i < len(stack); i++ {
		sym, ok := c.frame(i, stack[i])
		if !ok {
			continue
		}
		if seccompCallers[baseName(sym.Name)] {
			return Verdict{Class: ClassSeccomp, Part: PartFilter, Inferred: true}
		}
		return Verdict{Class: ClassKernel}
	}
	if s.InSyscall() {
		return Verdict{Class: ClassSeccomp, Part: PartFilter, Inferred: true}
	}
	return Verdict{Class: ClassKernel}
}
