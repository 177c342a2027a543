package runner

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/result"
)

// A filter that denies seccomp(2) stops the child while it installs the
// next filter: the error names the cell and the signal, thread death or
// errno, with what to do.
func TestInstallTimeDenialReported(t *testing.T) {
	skipIfNoSeccomp(t)
	tests := []struct {
		name       string
		action     uint32
		wantSignal syscall.Signal
		wantErrno  syscall.Errno
		wantReason []string
	}{
		{"kill_process", uint32(filters.ActionKillProcess), syscall.SIGSYS, 0, []string{"died"}},
		{"kill_thread", uint32(filters.ActionKillThread), 0, 0, []string{"measuring thread", "died after 1 of 2 filters were installed"}},
		{"errno", errno | uint32(syscall.EPERM), 0, syscall.EPERM, []string{"install filter 2 of 2", "operation not permitted", "denies seccomp(2)", "allow seccomp in the policy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := prog(t, "deny-seccomp", allow, [2]uint32{nrSeccomp, tt.action})
			_, err := Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{0, 2}, Variants: []result.Variant{result.VariantOn},
				Workload: loops("getpid"), Trials: 1, Iterations: 10, Samples: 1})
			var ce *ChildError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *ChildError", err)
			}
			if ce.Cell != (result.Cell{Variant: result.VariantOn, Filters: 2, Loader: result.LoaderUnprivileged}) || ce.Signal != tt.wantSignal || ce.Errno != tt.wantErrno {
				t.Errorf("cell %v signal %v errno %v, want filters=2, %v, %v", ce.Cell, ce.Signal, ce.Errno, tt.wantSignal, tt.wantErrno)
			}
			for _, w := range append(tt.wantReason, "variant=on filters=2") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if tt.wantErrno != 0 && !errors.Is(err, tt.wantErrno) {
				t.Errorf("error does not wrap %v", tt.wantErrno)
			}
			if errors.Is(err, ErrNotSupported) {
				t.Errorf("a policy's denial is reported as a missing kernel feature: %v", err)
			}
		})
	}
}

// An invalid filter (EINVAL from seccomp(2)) on a kernel that supports
// filters is blamed on the filter, not the kernel: the child's probe says
// filters work.
func TestChildInvalidFilterIsNotUnsupported(t *testing.T) {
	skipIfNoSeccomp(t)
	// An unknown opcode (0xffff), then ret ALLOW: bpf_check_classic
	// (net/core/filter.c) rejects it with EINVAL.
	bad := []byte{0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x06, 0, 0, 0, 0, 0, 0xff, 0x7f}
	_, _, err := execChild(context.Background(), 0, result.Cell{Variant: result.VariantOn, Filters: 1},
		childSpec{Workload: "getpid", Filters: [][]byte{bad}, CPU: -1, Iterations: 10, Samples: 1})
	var ce *ChildError
	if !errors.As(err, &ce) || ce.Errno != syscall.EINVAL {
		t.Fatalf("err = %v, want a ChildError with EINVAL", err)
	}
	if errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "the kernel rejects this filter") {
		t.Errorf("err = %v, want the filter blamed", err)
	}
}

func TestProbeExplain(t *testing.T) {
	tests := []struct {
		name   string
		errno  syscall.Errno
		flags  uint
		notSup bool
		want   []string // substrings; none means supported
	}{
		{"supported", syscall.EFAULT, 0, false, nil},
		{"spec allow supported", syscall.EFAULT, seccompFlagSpecAllow, false, nil},
		{"no filter mode", syscall.EINVAL, 0, true, []string{"CONFIG_SECCOMP_FILTER", "Linux 3.5"}},
		{"no seccomp(2)", syscall.ENOSYS, 0, true, []string{"no seccomp(2) system call", "Linux 3.17"}},
		{"no SPEC_ALLOW", syscall.EINVAL, seccompFlagSpecAllow, true, []string{"SECCOMP_FILTER_FLAG_SPEC_ALLOW", "Linux 4.17", "drop --spec-allow"}},
		{"unknown flags", syscall.EINVAL, 1 << 30, true, []string{"does not know the filter flags 0x40000000"}},
		{"denied by an inherited filter", syscall.EPERM, 0, false, []string{"inherited", "allow seccomp(2) in its profile"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := probeResult(tt.errno, tt.flags)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("probeResult = %v, want nil", err)
				}
				return
			}
			if err == nil || errors.Is(err, ErrNotSupported) != tt.notSup || !errors.Is(err, tt.errno) {
				t.Fatalf("probeResult = %v; want ErrNotSupported %v and %v wrapped", err, tt.notSup, tt.errno)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

// A kernel without seccomp filters (simulated: the probe gets EINVAL) is
// refused before the first child, naming CONFIG_SECCOMP_FILTER and 3.5.
func TestRunRefusesKernelWithoutFilters(t *testing.T) {
	skipIfNoSeccomp(t)
	if parentFilters(t) > 0 {
		t.Skip("the probe is skipped under inherited filters")
	}
	saved := seccompProbe
	seccompProbe = func(uint) syscall.Errno { return syscall.EINVAL }
	probes = sync.Map{}
	t.Cleanup(func() { seccompProbe = saved; probes = sync.Map{} })
	p := prog(t, "allow", allow)
	_, err := Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{0, 1}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 1, Iterations: 10, Samples: 1})
	if !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "CONFIG_SECCOMP_FILTER") || !strings.Contains(err.Error(), "Linux 3.5") {
		t.Fatalf("err = %v, want ErrNotSupported naming CONFIG_SECCOMP_FILTER and Linux 3.5", err)
	}
}

// The real kernel (6.18 here) supports filters and SPEC_ALLOW, and rejects
// an unknown flag with EINVAL.
func TestProbeFilterSupportHere(t *testing.T) {
	skipIfNoSeccomp(t)
	if parentFilters(t) > 0 {
		t.Skip("the probe is skipped under inherited filters")
	}
	probes = sync.Map{}
	if err := ProbeFilterSupport(0); err != nil {
		t.Errorf("ProbeFilterSupport(0) = %v", err)
	}
	if err := ProbeFilterSupport(seccompFlagSpecAllow); err != nil {
		t.Errorf("ProbeFilterSupport(SPEC_ALLOW) = %v", err)
	}
	if err := ProbeFilterSupport(1 << 30); !errors.Is(err, ErrNotSupported) || !errors.Is(err, syscall.EINVAL) {
		t.Errorf("ProbeFilterSupport(1<<30) = %v, want ErrNotSupported with EINVAL", err)
	}
}

func TestInstallHint(t *testing.T) {
	tests := []struct {
		name      string
		errno     syscall.Errno
		failed    int
		flags     uint
		inherited int
		probe     syscall.Errno
		notSup    bool
		want      string
	}{
		{"no filter mode in the child", syscall.EINVAL, 0, 0, 0, syscall.EINVAL, true, "CONFIG_SECCOMP_FILTER"},
		{"bad filter", syscall.EINVAL, 0, 0, 0, syscall.EFAULT, false, "the kernel rejects this filter"},
		{"no SPEC_ALLOW", syscall.EINVAL, 0, seccompFlagSpecAllow, 0, syscall.EINVAL, true, "Linux 4.17"},
		{"no no_new_privs", syscall.EACCES, 0, 0, 0, 0, false, "no_new_privs is not set and the process lacks CAP_SYS_ADMIN"},
		{"path limit with inherited filters", syscall.ENOMEM, 3, 0, 2, 0, false, "plus the 2 filters this process inherited exceed MAX_INSNS_PER_PATH"},
		{"path limit", syscall.ENOMEM, 3, 0, 0, 0, false, "exceeds MAX_INSNS_PER_PATH"},
		{"denied by the stack", syscall.EPERM, 2, 0, 0, 0, false, "one of the first 2 of the stack"},
		{"denied by an inherited filter", syscall.EPERM, 0, 0, 1, 0, false, "a filter this process inherited"},
		{"no seccomp(2)", syscall.ENOSYS, 0, 0, 0, 0, true, "Linux 3.17"},
		{"trace below", syscall.ENOSYS, 1, 0, 0, 0, false, "SECCOMP_RET_TRACE or SECCOMP_RET_USER_NOTIF"},
		{"no PR_SET_NO_NEW_PRIVS", syscall.EINVAL, -1, 0, 0, 0, true, "Linux 3.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notSup := installHint(tt.errno, tt.failed, tt.flags, tt.inherited, tt.probe)
			if notSup != tt.notSup || !strings.Contains(got, tt.want) {
				t.Errorf("installHint = %q, %v; want %q, %v", got, notSup, tt.want, tt.notSup)
			}
		})
	}
}

// unpairedCfg returns cfg without the paired baseline.
func unpairedCfg(cfg Config) Config {
	cfg.Unpaired = true
	return cfg
}

func TestDeriveChildTimeout(t *testing.T) {
	getpid := Config{Workload: loops("getpid"), Iterations: 1000, Samples: 5, Warmup: 1}
	long := make([]byte, 8*1000) // a 1000-instruction filter
	tests := []struct {
		name  string
		cfg   Config
		stack [][]byte
		per   float64 // ns per iteration
		want  time.Duration
	}{
		// 6 x 1000 iterations x 100 ns = 0.6 ms of work, and as much
		// again for the paired baseline before the install: x10 = 12 ms.
		{"no filters", getpid, nil, 100, 10*time.Second + 12*time.Millisecond},
		{"no filters, unpaired", unpairedCfg(getpid), nil, 100, 10*time.Second + 6*time.Millisecond},
		// Each of 32 filters adds <= 1000 x 5 + 100 ns per syscall:
		// 6000 x (100 + 32 x 5100) ns = 979.8 ms, plus the baseline's
		// 6000 x 100 ns = 0.6 ms, x10.
		{"32 long filters", getpid, repeat(long, 32), 100, 10*time.Second + 9804*time.Millisecond},
		{"overflow saturates", Config{Workload: loops("getpid"), Iterations: 1 << 62, Samples: 5}, repeat(long, 32), 100, time.Duration(math.MaxInt64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DeriveChildTimeout(tt.cfg, tt.stack, tt.per); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func repeat(b []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// Without ChildTimeout the run derives one per cell from calibration and
// reports the longest; a given ChildTimeout is used as is.
func TestRunReportsChildTimeout(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "allow", allow)
	cfg := Config{Programs: []*filters.Program{p}, Counts: []int{0, 1}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 1, Iterations: 100, Samples: 1}
	_, info, err := RunAdaptive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if info.ChildTimeout < minChildTimeout || info.ChildTimeout > minChildTimeout+time.Second {
		t.Errorf("derived ChildTimeout %v, want just over %v for 100 getpid iterations", info.ChildTimeout, minChildTimeout)
	}
	cfg.ChildTimeout = 42 * time.Second
	if _, info, err = RunAdaptive(context.Background(), cfg); err != nil || info.ChildTimeout != 42*time.Second {
		t.Errorf("ChildTimeout %v (err %v), want the 42s given", info.ChildTimeout, err)
	}
}
