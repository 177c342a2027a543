package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/cpulock"
)

// lockRunCPUs takes the CPU locks of a run and sets cfg.CPU and cfg.cpus
// to the CPUs it got. Config.CPU -1 tries the allowed CPUs from the
// highest down and takes the first free ones; CPU >= 0 needs exactly that
// CPU (and, with Parallel > 1, those CopyCPUs adds); -2 pins nothing and
// locks nothing. It returns nil locks when nothing is locked.
func lockRunCPUs(ctx context.Context, cfg *Config) (*cpulock.CPULocks, error) {
	if cfg.CPU < -1 || cfg.cpus != nil {
		return nil, nil
	}
	par := max(cfg.Parallel, 1)
	if cs := cfg.Workload.Command; cs != nil && cs.Design == command.DesignDuet {
		par = 2 // the duet runs both sides at once, one on each CPU
	}
	wait := cfg.CPUWait
	if wait == 0 {
		wait = cpulock.DefaultCPUWait
	}
	explicit := cfg.CPU >= 0
	var cands []int
	if explicit {
		cands = []int{cfg.CPU}
		if par > 1 {
			cands = cpulock.CopyCPUs(cfg.CPU, par)
		}
	} else {
		cands = cpulock.AllowedCPUs()
		slices.Reverse(cands)
		if len(cands) == 0 {
			return nil, nil // cannot tell: withDefaults leaves it unpinned
		}
	}
	var onWait func(cpus, pids []int)
	if cfg.OnCPUWait != nil {
		onWait = func(cpus, pids []int) {
			var who []string
			for i, c := range cpus {
				who = append(who, fmt.Sprintf("CPU %d (%s)", c, cpulock.DescribePID(pids[i])))
			}
			cfg.OnCPUWait(fmt.Sprintf("waiting up to %s for %s, measuring for another run", wait, strings.Join(who, ", ")))
		}
	}
	locks, err := cpulock.LockCPUs(ctx, cfg.LockDir, cands, par, explicit, wait, onWait)
	if err != nil {
		return nil, err
	}
	got := locks.CPUs()
	cfg.CPU = got[0]
	cfg.cpus = make([]int, par)
	for i := range cfg.cpus {
		cfg.cpus[i] = got[i%len(got)]
	}
	return locks, nil
}

// CheckCPU checks a --cpu value against the CPUs this process may run on
// (sched_getaffinity(2)): a CPU number among them, -1 (pick the highest
// free one) or -2 (no pinning). The error names the value and the allowed
// CPUs; callers wrap it as a usage error.
func CheckCPU(cpu int) error {
	if cpu >= 0 {
		if allowed := cpulock.AllowedCPUs(); allowed != nil && !slices.Contains(allowed, cpu) {
			return fmt.Errorf("CPU %d is not one this process may run on (allowed: %v); use -1 to pick one or -2 for no pinning", cpu, allowed)
		}
		return nil
	}
	if cpu != -1 && cpu != -2 {
		return fmt.Errorf("%d is not a CPU number, -1 (pick) or -2 (no pinning)", cpu)
	}
	return nil
}
