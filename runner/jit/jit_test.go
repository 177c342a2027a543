package jit

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
)

// A holder child loads its stack without capabilities and keeps it until
// released: Seccomp_filters of the child shows the filters meanwhile.
func TestHoldStackUnprivileged(t *testing.T) {
	skipIfNoSeccomp(t)
	stack := [][]byte{probeFilter, probeFilter, probeFilter}
	h, err := HoldStack(context.Background(), stack, true)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if h.Errno != 0 || h.Installed != len(stack) {
		t.Fatalf("installed %d of %d, errno %v", h.Installed, len(stack), h.Errno)
	}
	if strings.Trim(h.CapEff, "0") != "" {
		t.Errorf("CapEff = %q, want all zero", h.CapEff)
	}
	// The loading thread (not necessarily the main one) has the filters.
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(h.cmd.Process.Pid) + "/task/*/status")
	most := -1
	for _, p := range tasks {
		if b, err := os.ReadFile(p); err == nil {
			if st, err := sys.ParseProcStatus(b); err == nil {
				most = max(most, st.SeccompFilters)
			}
		}
	}
	if most >= 0 && most != len(stack) {
		t.Errorf("most Seccomp_filters of a holder thread = %d, want %d", most, len(stack))
	}
	if err := h.Release(); err != nil {
		t.Errorf("release: %v", err)
	}
}

func TestReadJITInfo(t *testing.T) {
	ji := ReadJITInfo()
	if _, err := os.Stat(jitLimitPath); err == nil && ji.Limit <= 0 {
		t.Errorf("bpf_jit_limit readable but Limit = %d", ji.Limit)
	}
	if ji.Allocator == 0 {
		t.Errorf("no allocator chosen for kernel %q", ji.Kernel)
	}
}

// TestMeasureJITCharge lowers this machine's bpf_jit_limit for a moment
// (root only), so it runs only when SECCOMPBENCH_JIT_LIMIT_TESTS=1: other
// unprivileged BPF loaders on the machine fail while the limit is low.
func TestMeasureJITCharge(t *testing.T) {
	if os.Getenv("SECCOMPBENCH_JIT_LIMIT_TESTS") != "1" {
		t.Skip("lowers the machine's bpf_jit_limit; set SECCOMPBENCH_JIT_LIMIT_TESTS=1")
	}
	before, err := readJITLimit()
	if err != nil {
		t.Skip(err)
	}
	stack := make([][]byte, 8)
	for i := range stack {
		stack[i] = probeFilter
	}
	m, err := MeasureJITCharge(context.Background(), stack, 8*128)
	after, _ := readJITLimit()
	if after != before {
		t.Fatalf("bpf_jit_limit not restored: %d, was %d", after, before)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v per filter %.1f", m, m.PerFilter())
	if m.ProbeBytes <= 0 || m.ProbeBytes%64 != 0 {
		t.Errorf("probe charge %d bytes: want a positive multiple of 64 (pack allocator)", m.ProbeBytes)
	}
}

// TestValidateBudget runs the errno-524 experiment (root only, opt-in like
// TestMeasureJITCharge): 8 stacks of 4 probe filters predicted, loaded by
// unprivileged children until the first errno 524.
func TestValidateBudget(t *testing.T) {
	if os.Getenv("SECCOMPBENCH_JIT_LIMIT_TESTS") != "1" {
		t.Skip("lowers the machine's bpf_jit_limit; set SECCOMPBENCH_JIT_LIMIT_TESTS=1")
	}
	before, err := readJITLimit()
	if err != nil {
		t.Skip(err)
	}
	stack := [][]byte{probeFilter, probeFilter, probeFilter, probeFilter}
	v, err := ValidateBudget(context.Background(), stack, 4*64, 8)
	after, _ := readJITLimit()
	if after != before {
		t.Fatalf("bpf_jit_limit not restored: %d, was %d", after, before)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", v)
	if v.FailedAt < 0 {
		t.Errorf("no errno 524 within %d holders", 2*8+4)
	}
}
