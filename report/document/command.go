package document

// CommandCost is the command workload's part of a run result: what was
// run, and, per variant at the deepest count, what the stack costs once
// per process (installing it) against what the command pays while it runs.
// All times are ns per run of the command (ns/op), or per process for the
// install.
type CommandCost struct {
	// Argv is the command and its arguments.
	Argv []string `json:"argv"`
	// Prepare is the --prepare command, "" if none.
	Prepare string `json:"prepare,omitempty"`
	// RunsPerChild is R, the timed runs per child; WarmupRuns the untimed
	// runs before them.
	RunsPerChild int `json:"runs_per_child"`
	WarmupRuns   int `json:"warmup_runs"`
	// FailedRuns counts timed runs that did not exit 0 (kept with
	// --ignore-failure); OutlierRuns those flagged by the modified z-score
	// within their child (kept).
	FailedRuns  int `json:"failed_runs"`
	OutlierRuns int `json:"outlier_runs"`
	// BaselineRunNs is the median run time without filters (execve to
	// reaping), BaselineCPUNs its median user+sys CPU time.
	BaselineRunNs float64 `json:"baseline_run_ns"`
	BaselineCPUNs float64 `json:"baseline_cpu_ns"`
	// Splits holds one entry per variant, at the deepest count.
	Splits []CommandSplit `json:"splits"`
	// Design is the A/B design when paired ("pairs", "duet": run --ab),
	// "" for children (each child under its cell's stack).
	Design string `json:"ab_design,omitempty"`
	// Container, when not nil, says that every run was a container an
	// OCI runtime started (run --bundle or --rootfs): the stack, the
	// privilege it was loaded with and no_new_privs were the runtime's.
	Container *ContainerRuntime `json:"container,omitempty"`
}

// ContainerRuntime names the runtime of the command workload's runtime
// path.
type ContainerRuntime struct {
	// Runtime is the runtime's binary name ("runc", "crun"), Path where it
	// was found.
	Runtime string `json:"runtime"`
	Path    string `json:"path"`
	// Version is the output of `RUNTIME --version`.
	Version string `json:"version"`
	// Profile names the seccomp profile of the bundle's linux.seccomp.
	Profile string `json:"profile"`
	// Bundle is the --bundle directory, "" when written from --rootfs.
	Bundle string `json:"bundle,omitempty"`
}

// CommandSplit separates the two costs of the stack at one cell.
type CommandSplit struct {
	Variant string `json:"variant"`
	Filters int    `json:"filters"`
	// InstallNs is the seccomp(2) time per process (median over runs of
	// each child, then over children), with its CI. On the runtime path
	// (Container set) it is the runtime's work on linux.seccomp once per
	// container instead (decoding, compiling, seccomp(2)): the
	// container's time outside the runs with the profile minus without,
	// difference of medians over containers.
	InstallNs       float64 `json:"install_ns"`
	InstallCILowNs  float64 `json:"install_ci_low_ns"`
	InstallCIHighNs float64 `json:"install_ci_high_ns"`
	// RunningNs is the added run time per run (the cell's overhead over
	// the 0-filter baseline; in the paired designs, the mean over
	// children of each child's Hodges–Lehmann centre of its pair
	// differences, stats.PairedShift), with its CI.
	RunningNs       float64 `json:"running_ns"`
	RunningCILowNs  float64 `json:"running_ci_low_ns"`
	RunningCIHighNs float64 `json:"running_ci_high_ns"`
	// CPUAddedNs is the added user+sys CPU time per run, the install
	// included (difference of medians; from pairs in the paired designs).
	CPUAddedNs float64 `json:"cpu_added_ns"`
	// Pairs is the number of pairs the paired designs' figures come
	// from; 0 for children.
	Pairs int `json:"pairs,omitempty"`
	// InstallShare is install / (install + running), a fraction.
	InstallShare float64 `json:"install_share"`
	// Dominant is "install" or "running"; Clear reports that their
	// intervals do not overlap.
	Dominant string `json:"dominant"`
	Clear    bool   `json:"clear"`
}

// CopyFinite returns a copy of c with NaN and infinities (no interval, too
// few children) replaced by 0, as Build does for every other number, so
// that the JSON encodes; nil for nil.
func (c *CommandCost) CopyFinite() *CommandCost {
	if c == nil {
		return nil
	}
	cc := *c
	c = &cc
	c.Argv = append([]string(nil), c.Argv...)
	c.Splits = append([]CommandSplit(nil), c.Splits...)
	if c.Container != nil {
		ct := *c.Container
		c.Container = &ct
	}
	c.BaselineRunNs, c.BaselineCPUNs = Finite(c.BaselineRunNs), Finite(c.BaselineCPUNs)
	for i := range c.Splits {
		s := &c.Splits[i]
		for _, p := range []*float64{&s.InstallNs, &s.InstallCILowNs, &s.InstallCIHighNs, &s.RunningNs, &s.RunningCILowNs, &s.RunningCIHighNs, &s.CPUAddedNs, &s.InstallShare} {
			*p = Finite(*p)
		}
	}
	return c
}
