// Package jitmem models the kernel memory that JIT-compiled seccomp filters
// are charged against bpf_jit_limit, parses /proc/vmallocinfo and does the
// budget arithmetic of `seccompbench budget`. It is pure: no syscalls, no
// clocks; runner reads the kernel and feeds the text and numbers in.
//
// How the kernel charges (kernel/bpf/core.c, Linux 6.18):
//
//   - Every seccomp filter is converted to eBPF (net/core/filter.c:
//     bpf_convert_filter) and, with the JIT on (always on when the kernel is
//     built with CONFIG_BPF_JIT_ALWAYS_ON), compiled to machine code
//     (arch/x86/net/bpf_jit_comp.c: bpf_int_jit_compile).
//   - The image is allocated by bpf_jit_binary_pack_alloc (x86_64 since
//     Linux 5.18): it charges round_up(image + sizeof(struct
//     bpf_binary_header) + 16, BPF_PROG_CHUNK_SIZE = 64) bytes through
//     bpf_jit_charge_modmem and carves the image out of a shared 2 MiB
//     bpf_prog_pack (BPF_PROG_PACK_SIZE); images bigger than a pack get
//     their own allocation, charged the same way. Older kernels (and
//     architectures without packs) use bpf_jit_binary_alloc: it charges
//     round_up(image + sizeof(header) + 128, PAGE_SIZE), at least a page
//     per filter.
//   - bpf_jit_charge_modmem adds the size to the global bpf_jit_current;
//     when the sum exceeds bpf_jit_limit (/proc/sys/net/core/bpf_jit_limit)
//     and the caller is not bpf_capable() (CAP_BPF or CAP_SYS_ADMIN), it
//     takes the charge back and the allocation fails; the JIT then gives
//     up and, with CONFIG_BPF_JIT_ALWAYS_ON, seccomp(2) fails with errno
//     524 (ENOTSUPP, kernel/bpf/core.c: bpf_prog_select_runtime). Capable
//     callers are never refused but are still charged, so privileged
//     loaders (runc as root without NoNewPrivileges, systemd itself) eat
//     into the budget of unprivileged ones.
//   - bpf_jit_uncharge_modmem gives the bytes back when the filter is
//     freed (the last task using it exits; the free runs from a work
//     queue, bpf_prog_free_deferred, so it lags the exit slightly).
//
// The charge is not exported: bpf_jit_current has no sysctl, and classic
// programs get no BPF program ID and no kallsyms entry
// (bpf_prog_kallsyms_candidate excludes them). /proc/vmallocinfo shows the
// packs (bpf_prog_pack_alloc, 2 MiB each) and the programs' eBPF bodies
// (bpf_prog_alloc_no_stats), which bound the charge from above but do not
// give it.
package jitmem

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Allocator is the kernel's JIT image allocator, which decides the
// granularity of the charge.
type Allocator int

const (
	// AllocPack is bpf_jit_binary_pack_alloc: 64-byte chunks inside shared
	// 2 MiB packs. x86_64 since Linux 5.18.
	AllocPack Allocator = iota + 1
	// AllocPage is bpf_jit_binary_alloc: whole pages per program, with at
	// least 128 spare bytes. x86_64 before 5.18 and architectures without
	// a pack allocator.
	AllocPage
)

// String returns "pack" or "page".
func (a Allocator) String() string {
	switch a {
	case AllocPack:
		return "pack"
	case AllocPage:
		return "page"
	}
	return fmt.Sprintf("allocator(%d)", int(a))
}

// Kernel constants of the model (kernel/bpf/core.c, include/linux/filter.h).
const (
	// ChunkSize is BPF_PROG_CHUNK_SIZE, the pack allocator's unit, in bytes.
	ChunkSize = 64
	// PackSize is BPF_PROG_PACK_SIZE on x86_64 with huge vmalloc pages
	// (PMD_SIZE), in bytes. vmallocinfo shows each pack as 2 MiB plus a
	// 4 KiB guard page.
	PackSize = 2 << 20
	// PageSize is PAGE_SIZE on x86_64, in bytes.
	PageSize = 4096
	// HeaderSize is sizeof(struct bpf_binary_header): a u32 size and the
	// image aligned to BPF_IMAGE_ALIGNMENT (8), in bytes.
	HeaderSize = 8
	// packSlack is the random hole bpf_jit_binary_pack_alloc adds, in bytes.
	packSlack = 16
	// pageSlack is the random hole bpf_jit_binary_alloc adds, in bytes.
	pageSlack = 128
	// imageAlign is the x86_64 JIT's roundup of the image before the
	// allocation (__alignof__(struct exception_table_entry)), in bytes.
	imageAlign = 4
)

// AllocatorFor returns the allocator of a kernel release (uname -r, e.g.
// "6.18.0") on architecture goarch ("amd64", "arm64", ...), and false when
// the release cannot be parsed. x86_64 uses packs from Linux 5.18; every
// other architecture is modelled with pages, which overstates the charge
// where its JIT has packs too.
func AllocatorFor(release, goarch string) (Allocator, bool) {
	major, minor, ok := parseRelease(release)
	if !ok {
		return AllocPage, false
	}
	if goarch == "amd64" && (major > 5 || major == 5 && minor >= 18) {
		return AllocPack, true
	}
	return AllocPage, true
}

// parseRelease reads "MAJOR.MINOR" from the start of a kernel release.
func parseRelease(rel string) (major, minor int, ok bool) {
	a, rest, found := strings.Cut(rel, ".")
	if !found {
		return 0, 0, false
	}
	b := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		b = rest[:i]
	}
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return ma, mi, true
}

// Charge returns the bytes bpf_jit_charge_modmem charges for one JIT image
// of imageBytes bytes under allocator a:
//
//	pack: round_up(round_up(image, 4) + 8 + 16, 64)
//	page: round_up(round_up(image, 4) + 8 + 128, 4096)
//
// (kernel/bpf/core.c: bpf_jit_binary_pack_alloc, bpf_jit_binary_alloc;
// arch/x86/net/bpf_jit_comp.c: bpf_int_jit_compile rounds the image to the
// exception-table alignment first; seccomp filters have no exception
// table).
func Charge(imageBytes int, a Allocator) int {
	n := roundUp(imageBytes, imageAlign) + HeaderSize
	if a == AllocPage {
		return roundUp(n+pageSlack, PageSize)
	}
	return roundUp(n+packSlack, ChunkSize)
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// ImageModel estimates the size of the x86_64 JIT image of a converted
// seccomp filter from its eBPF length L, in two regimes:
//
//	image = Fixed + SmallPerInsn·min(L, SmallInsns) + PerInsn·max(0, L − SmallInsns)
//
// The x86 JIT emits 2 to 12 bytes per instruction for what seccomp filters
// convert to (32-bit loads from the context, compares against immediates,
// conditional jumps, mov-immediate and exit); in a short program every
// jump is a 2-byte short jump, and long jump chains need 6-byte near jumps
// and 32-bit compares, hence the two slopes. The defaults were fitted on
// kernel 6.18 to charges measured with probe fills (docs/budget.md):
// docker-default (1694 eBPF instructions) measured 16320 bytes, model
// 16512 (+1.2 %); the embedded default policy (157) 1472, model 1472; the
// 35-filter stack of testdata/policies/hardened.service 11008, model 11072
// (+0.6 %); `ret ALLOW` (5) 64, model 64. A model, not a measurement:
// other layouts, kernels and mitigations (a BHB barrier for unprivileged
// loaders, constant blinding) differ.
type ImageModel struct {
	// Fixed is the prologue plus epilogue, in bytes.
	Fixed int
	// SmallInsns is the length, in eBPF instructions, up to which
	// SmallPerInsn applies.
	SmallInsns int
	// SmallPerInsn and PerInsn are the mean image bytes per eBPF
	// instruction below and above SmallInsns.
	SmallPerInsn, PerInsn float64
}

// DefaultImageModel is the model fitted on this project's reference host
// (Linux 6.18, x86_64, retpolines and return thunks on, no BHB barrier:
// "BHI: Not affected").
var DefaultImageModel = ImageModel{Fixed: 0, SmallInsns: 25, SmallPerInsn: 3.8, PerInsn: 9.8}

// ImageBytes returns the modelled image size of a filter of ebpfInsns eBPF
// instructions (filters.Program.EBPFLen), in bytes.
func (m ImageModel) ImageBytes(ebpfInsns int) int {
	small := min(ebpfInsns, m.SmallInsns)
	big := max(0, ebpfInsns-m.SmallInsns)
	return m.Fixed + int(m.SmallPerInsn*float64(small)+m.PerInsn*float64(big)+0.5)
}

// FilterCharge returns the modelled charge of one filter of ebpfInsns eBPF
// instructions under allocator a, in bytes.
func (m ImageModel) FilterCharge(ebpfInsns int, a Allocator) int {
	return Charge(m.ImageBytes(ebpfInsns), a)
}

// StackCharge returns the modelled charge of a stack whose filters have
// the given eBPF lengths, oldest first, under allocator a, in bytes. Each
// filter is charged on its own; identical filters are not shared (every
// seccomp(2) call compiles its own copy).
func (m ImageModel) StackCharge(ebpfLens []int, a Allocator) int {
	total := 0
	for _, n := range ebpfLens {
		total += m.FilterCharge(n, a)
	}
	return total
}

// ErrNoRoom is returned by Budget.Fit when the current charge already
// exceeds the limit: no unprivileged load can succeed.
var ErrNoRoom = errors.New("current JIT charge is at or over bpf_jit_limit")

// ErrBadBudget is returned by Budget.Fit for a non-positive stack charge or
// limit.
var ErrBadBudget = errors.New("invalid budget input")

// Budget is the input of the budget arithmetic. All values are bytes.
type Budget struct {
	// Limit is bpf_jit_limit.
	Limit int64
	// Current is the charge already taken (bpf_jit_current) when the
	// processes start.
	Current int64
	// StackBytes is the charge of one process's filter stack.
	StackBytes int64
}

// Fit returns how many processes, each loading one stack of StackBytes
// without CAP_BPF or CAP_SYS_ADMIN, fit under Limit at Current:
// floor((Limit - Current) / StackBytes). The next process, number
// fit+1, is the first whose seccomp(2) fails with errno 524: a load of s
// bytes succeeds while Current + s <= Limit (kernel/bpf/core.c:
// bpf_jit_charge_modmem refuses only a sum greater than the limit), and
// that process's filters before the failing one are charged until it
// exits. Errors: ErrBadBudget, ErrNoRoom.
func (b Budget) Fit() (int64, error) {
	if b.StackBytes <= 0 || b.Limit <= 0 || b.Current < 0 {
		return 0, fmt.Errorf("%w: limit %d, current %d, stack %d bytes", ErrBadBudget, b.Limit, b.Current, b.StackBytes)
	}
	if b.Current >= b.Limit {
		return 0, fmt.Errorf("%w: %d of %d bytes", ErrNoRoom, b.Current, b.Limit)
	}
	return (b.Limit - b.Current) / b.StackBytes, nil
}

// FirstFailure returns the 1-based number of the first process whose load
// fails with errno 524, Fit()+1, or an error from Fit.
func (b Budget) FirstFailure() (int64, error) {
	n, err := b.Fit()
	if err != nil {
		return 0, err
	}
	return n + 1, nil
}

// Headroom returns Limit - Current, the bytes unprivileged loaders may
// still be charged (negative when over the limit).
func (b Budget) Headroom() int64 { return b.Limit - b.Current }

// Plan is the outcome of loading a stack a planned number of times.
type Plan struct {
	// Loads is the planned number of separate loads of the stack (one per
	// process that installs it itself; forked children share their
	// parent's filters and add no charge: kernel/seccomp.c:
	// get_seccomp_filter on fork).
	Loads int64
	// Charge is Loads × StackBytes, in bytes.
	Charge int64
	// Fits reports whether every load succeeds: Current + Charge <= Limit.
	Fits bool
	// HeadroomAfter is Limit − Current − Charge, in bytes (negative when
	// it does not fit).
	HeadroomAfter int64
}

// Plan returns what loads separate loads of the stack would charge, and
// whether they fit. Errors: ErrBadBudget.
func (b Budget) Plan(loads int64) (Plan, error) {
	if b.StackBytes <= 0 || b.Limit <= 0 || b.Current < 0 || loads < 0 {
		return Plan{}, fmt.Errorf("%w: limit %d, current %d, stack %d bytes, %d loads", ErrBadBudget, b.Limit, b.Current, b.StackBytes, loads)
	}
	c := loads * b.StackBytes
	return Plan{Loads: loads, Charge: c, Fits: b.Current+c <= b.Limit, HeadroomAfter: b.Limit - b.Current - c}, nil
}

// StackModel returns the modelled JIT charge of a stack whose filters have
// the given eBPF lengths (oldest first) under allocator a: the charge of
// each filter, their sum and mean, in bytes.
func (m ImageModel) StackModel(ebpfLens []int, a Allocator) (perFilter []int, total int64, mean float64) {
	for _, n := range ebpfLens {
		c := m.FilterCharge(n, a)
		perFilter = append(perFilter, c)
		total += int64(c)
	}
	if len(perFilter) > 0 {
		mean = float64(total) / float64(len(perFilter))
	}
	return perFilter, total, mean
}
