package report

import (
	"fmt"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// commandText writes the command workload's lines of the table report.
func commandText(ew *errWriter, d *document.Document) {
	c := d.CommandWorkload
	if c == nil {
		return
	}
	ew.printf("\ncommand: %s; %d timed runs per child after %d warm-up", text.ShellWords(c.Argv), c.RunsPerChild, c.WarmupRuns)
	if c.Prepare != "" {
		ew.printf(", --prepare %q before each", c.Prepare)
	}
	if ct := c.Container; ct != nil {
		ew.printf("\n  in %s containers (%s): %s", ct.Runtime, text.FirstLine(ct.Version), containerText(ct))
		ew.printf("\n  ns/op = one run inside the container, from fork to reaping by seccompbench as the container's process (the container's start outside): baseline %s (CPU user+sys %s)\n", text.Duration(c.BaselineRunNs), text.Duration(c.BaselineCPUNs))
	} else {
		ew.printf("\n  ns/op = one run, from execve to reaping: baseline %s (CPU user+sys %s)\n", text.Duration(c.BaselineRunNs), text.Duration(c.BaselineCPUNs))
	}
	if c.FailedRuns > 0 {
		ew.printf("  %d timed runs did not exit 0 (kept: --ignore-failure)\n", c.FailedRuns)
	}
	if c.OutlierRuns > 0 {
		ew.printf("  %d timed runs flagged as outliers within their child (modified z-score > 3.5; kept in every estimate)\n", c.OutlierRuns)
	}
	for _, s := range c.Splits {
		in := text.FigureGroup(false, true, s.InstallNs, s.InstallCILowNs, s.InstallCIHighNs)
		run := text.FigureGroup(true, true, s.RunningNs, s.RunningCILowNs, s.RunningCIHighNs)
		once := "once per process (seccomp(2) in each command process, median)"
		if ct := c.Container; ct != nil {
			once = "once per container (" + ct.Runtime + "'s work on linux.seccomp: its container's time outside the runs with the profile minus without)"
		}
		ew.printf("  %s, %d filters: install %s [%s, %s] %s, running %s [%s, %s] per run, CPU %s per run: ",
			s.Variant, s.Filters, in(s.InstallNs), in(s.InstallCILowNs), in(s.InstallCIHighNs), once,
			run(s.RunningNs), run(s.RunningCILowNs), run(s.RunningCIHighNs), text.Signed(s.CPUAddedNs))
		ew.printf("%s, install %.0f%% of the total\n", dominanceText(s.Dominant, s.Clear), 100*s.InstallShare)
	}
}

// containerText says where the runtime path's stack came from.
func containerText(ct *document.ContainerRuntime) string {
	src := "config.json written from the policy"
	if ct.Bundle != "" {
		src = "bundle " + ct.Bundle
	}
	return fmt.Sprintf("profile %s (%s); the 1-filter cells run under the filter %s compiles and installs itself, with its own loader privilege and no_new_privs, the 0-filter cells the same bundle without linux.seccomp; the runs are timed inside the container, so %s compiling the profile is not in the running cost", ct.Profile, src, ct.Runtime, ct.Runtime)
}

// dominanceText says which of install and running cost dominates, only
// when their intervals do not overlap (clear); otherwise that neither
// does, and which centre is larger.
func dominanceText(dominant string, clear bool) string {
	switch {
	case clear && dominant == "install":
		return "the install dominates (a short-lived process)"
	case clear:
		return "the running cost dominates (a long-running process)"
	case dominant == "install":
		return "neither dominates by these intervals, which overlap (the install's centre is the larger)"
	}
	return "neither dominates by these intervals, which overlap (the running cost's centre is the larger)"
}
