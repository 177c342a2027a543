package jitmem

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// VmallocBPF sums the BPF-related areas of /proc/vmallocinfo (man 5 proc;
// mm/vmalloc.c: vmalloc_info_show prints "start-end size caller
// pages=N ..." per area, size including one guard page). Sizes are in
// bytes as printed, guard page included.
type VmallocBPF struct {
	// Packs is the number of bpf_prog_pack areas (callers
	// bpf_prog_pack_alloc or alloc_new_pack): 2 MiB each, shared by many
	// JIT images.
	Packs int
	// PackBytes is their total size.
	PackBytes int64
	// Images is the number of JIT images allocated on their own
	// (bpf_jit_alloc_exec, bpf_jit_binary_alloc: pre-pack kernels, or
	// images bigger than a pack).
	Images int
	// ImageBytes is their total size.
	ImageBytes int64
	// Progs is the number of eBPF program bodies (bpf_prog_alloc_no_stats,
	// bpf_prog_realloc): one per loaded program, classic seccomp filters
	// included. Not charged to bpf_jit_limit.
	Progs int
	// ProgBytes is their total size.
	ProgBytes int64
}

// JITUpperBound returns PackBytes + ImageBytes: the charge
// (bpf_jit_current) cannot exceed the executable memory it accounts for,
// minus guard pages, so this bounds it from above, in bytes.
func (v VmallocBPF) JITUpperBound() int64 { return v.PackBytes + v.ImageBytes }

// ParseVmallocinfo reads /proc/vmallocinfo text and sums its BPF areas.
// Lines that are not areas of a BPF caller are skipped; a BPF line whose
// size is not a number is an error naming the line. Addresses are not
// used (they read as hashed or zero without CAP_SYSLOG).
func ParseVmallocinfo(text []byte) (VmallocBPF, error) {
	var v VmallocBPF
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		caller, _, _ := strings.Cut(f[2], "+")
		kind := vmallocKind(caller)
		if kind == 0 {
			continue
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || size < 0 {
			return v, fmt.Errorf("vmallocinfo line %d: size %q of %s is not a byte count", line, f[1], caller)
		}
		switch kind {
		case kindPack:
			v.Packs++
			v.PackBytes += size
		case kindImage:
			v.Images++
			v.ImageBytes += size
		case kindProg:
			v.Progs++
			v.ProgBytes += size
		}
	}
	if err := sc.Err(); err != nil {
		return v, fmt.Errorf("vmallocinfo line %d: %w", line+1, err)
	}
	return v, nil
}

const (
	kindPack = iota + 1
	kindImage
	kindProg
)

// vmallocKind classifies an allocating function of vmallocinfo
// (kernel/bpf/core.c): 0 for anything not BPF.
func vmallocKind(caller string) int {
	switch caller {
	case "bpf_prog_pack_alloc", "alloc_new_pack":
		return kindPack
	case "bpf_jit_alloc_exec", "bpf_jit_binary_alloc":
		return kindImage
	case "bpf_prog_alloc_no_stats", "bpf_prog_realloc":
		return kindProg
	}
	return 0
}
