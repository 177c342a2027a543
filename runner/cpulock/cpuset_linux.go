package cpulock

import "golang.org/x/sys/unix"

// cpuSet wraps unix.CPUSet for the process's allowed CPUs.
type cpuSet struct{ s unix.CPUSet }

func (c *cpuSet) current() error   { return unix.SchedGetaffinity(0, &c.s) }
func (c *cpuSet) size() int        { return len(c.s) * 64 }
func (c *cpuSet) isSet(i int) bool { return c.s.IsSet(i) }

// AllowedCPUs returns the CPUs this process may run on (sched_getaffinity),
// ascending, or nil if it cannot tell.
func AllowedCPUs() []int {
	var set cpuSet
	if set.current() != nil {
		return nil
	}
	var out []int
	for i := 0; i < set.size(); i++ {
		if set.isSet(i) {
			out = append(out, i)
		}
	}
	return out
}

// HighestCPU returns the highest-numbered CPU this process may run on, the
// choice tools/testing/selftests/seccomp/seccomp_benchmark.c makes
// ("avoid CPUs that might be busier"), or -1 if it cannot tell.
func HighestCPU() int {
	var set cpuSet
	if err := set.current(); err != nil {
		return -1
	}
	for cpu := set.size() - 1; cpu >= 0; cpu-- {
		if set.isSet(cpu) {
			return cpu
		}
	}
	return -1
}

// CopyCPUs returns the CPUs for n parallel copies: first, then the other
// allowed CPUs from the highest down, wrapping around when n exceeds the
// allowed CPUs.
func CopyCPUs(first, n int) []int {
	var set cpuSet
	cpus := []int{first}
	if err := set.current(); err == nil {
		for cpu := set.size() - 1; cpu >= 0; cpu-- {
			if set.isSet(cpu) && cpu != first {
				cpus = append(cpus, cpu)
			}
		}
	}
	out := make([]int, n)
	for i := range out {
		out[i] = cpus[i%len(cpus)]
	}
	return out
}
