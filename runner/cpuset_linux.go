package runner

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
