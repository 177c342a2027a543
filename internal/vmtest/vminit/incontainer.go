package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// inContainer is the in-container check's step: "init in-container
// RUNTIME FIND TRIALS RUNS". It measures `FIND TREE -name x` under
// docker-default twice with seccompbench run, (a) in containers RUNTIME
// starts (--rootfs /vmtest/rootfs: the runtime's own filter, loader and
// no_new_privs; seccompbench is each container's process and times the
// runs inside it; TREE is /tree there) and (b) with the command workload
// and the stack compile models for runc 1.1 (--compiler libseccomp
// --runtime runc-1.1; TREE is /vmtest/rootfs/tree), and reports one test,
// TestInContainer_RUNTIME: both ran and reported an added time at one
// filter. Whether the intervals overlap is printed, never judged: it is a
// timing claim under TCG on a shared machine. It also prints (a)'s
// install: the runtime's work on linux.seccomp per container, outside
// the runs.
func inContainer(args []string) int {
	test := "TestInContainer"
	if len(args) == 4 {
		test += "_" + filepath.Base(args[0])
	}
	fmt.Printf("=== RUN   %s\n", test)
	t0 := time.Now()
	err := func() error {
		if len(args) != 4 {
			return fmt.Errorf("want RUNTIME FIND TRIALS RUNS, got %q", args)
		}
		bin, find, trials, runs := args[0], args[1], args[2], args[3]
		common := []string{"run", "docker-default", "--workload", "command", "--trials", trials, "--runs", runs,
			"--cpu", "-2", "--format", "json"}
		inRuntime := append(append([]string{}, common...), "--runtime", "runc-1.1", "--runtime-bin", bin,
			"--rootfs", "/vmtest/rootfs", "--no-pivot", "-o", "/tmp/incontainer-runtime.json", "--", find, "/tree", "-name", "x")
		ours := append(append([]string{}, common...), "--compiler", "libseccomp", "--runtime", "runc-1.1",
			"--filters", "0,1", "--cache", "on", "-o", "/tmp/incontainer-workload.json", "--", find, "/vmtest/rootfs/tree", "-name", "x")
		a, err := measureAdded(inRuntime)
		if err != nil {
			return fmt.Errorf("(a) in %s containers: %w", filepath.Base(bin), err)
		}
		b, err := measureAdded(ours)
		if err != nil {
			return fmt.Errorf("(b) command workload: %w", err)
		}
		overlap := a.lo <= b.hi && b.lo <= a.hi
		fmt.Printf("    %s in-container find under docker-default (TCG: for agreement only): (a) %s containers (%s): added %s; (b) command workload, stack of compile --compiler libseccomp --runtime runc-1.1: added %s; intervals overlap: %t\n",
			summaryTag, filepath.Base(bin), a.version, a, b, overlap)
		fmt.Printf("    baselines: (a) %.1f ms per run in a container, (b) %.1f ms per run; (a) %s's work on linux.seccomp per container: %+.1f ms [%+.1f, %+.1f]\n",
			a.baseline/1e6, b.baseline/1e6, filepath.Base(bin), a.install/1e6, a.installLo/1e6, a.installHi/1e6)
		return nil
	}()
	return testResult(test, t0, err)
}

// added is a run's added time at one filter, in ns, with its interval.
type added struct {
	center, lo, hi float64
	baseline       float64 // the 0-filter cell's median run, ns
	// install is the split's install time and interval, ns (for the
	// runtime path: the runtime's work on the profile per container).
	install, installLo, installHi float64
	version                       string // the runtime's first version line, "" without
}

func (a added) String() string {
	return fmt.Sprintf("%+.1f ms [%+.1f, %+.1f]", a.center/1e6, a.lo/1e6, a.hi/1e6)
}

// measureAdded runs /vmtest/seccompbench with args (which write JSON to
// the file after -o) and reads the 1-filter cell's overhead.
func measureAdded(args []string) (added, error) {
	var a added
	out := ""
	for i, s := range args {
		if s == "-o" {
			out = args[i+1]
		}
	}
	fmt.Printf("    seccompbench %s\n", strings.Join(args, " "))
	cmd := exec.Command("/vmtest/seccompbench", args...)
	msg, err := cmd.CombinedOutput()
	fmt.Print(indent(string(msg), "        | "))
	if err != nil {
		return a, err
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return a, err
	}
	var doc struct {
		Results []struct {
			Variant          string  `json:"variant"`
			Filters          int     `json:"filters"`
			MedianNs         float64 `json:"median_ns"`
			OverheadNs       float64 `json:"overhead_ns"`
			OverheadCILowNs  float64 `json:"overhead_ci_low_ns"`
			OverheadCIHighNs float64 `json:"overhead_ci_high_ns"`
		} `json:"results"`
		CommandWorkload *struct {
			Container *struct {
				Version string `json:"version"`
			} `json:"container"`
			Splits []struct {
				InstallNs       float64 `json:"install_ns"`
				InstallCILowNs  float64 `json:"install_ci_low_ns"`
				InstallCIHighNs float64 `json:"install_ci_high_ns"`
			} `json:"splits"`
		} `json:"command_workload"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return a, fmt.Errorf("decode %s: %w", out, err)
	}
	found := false
	for _, r := range doc.Results {
		switch r.Filters {
		case 0:
			a.baseline = r.MedianNs
		case 1:
			a.center, a.lo, a.hi, found = r.OverheadNs, r.OverheadCILowNs, r.OverheadCIHighNs, true
		}
	}
	if !found {
		return a, fmt.Errorf("%s has no 1-filter cell", out)
	}
	if cw := doc.CommandWorkload; cw != nil && cw.Container != nil {
		a.version, _, _ = strings.Cut(cw.Container.Version, "\n")
	}
	if cw := doc.CommandWorkload; cw != nil && len(cw.Splits) > 0 {
		sp := cw.Splits[0]
		a.install, a.installLo, a.installHi = sp.InstallNs, sp.InstallCILowNs, sp.InstallCIHighNs
	}
	return a, nil
}
