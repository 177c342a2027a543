package runner

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/jit"
	"github.com/seccompbench/seccompbench/runner/result"
)

// mitigationParams are the kernel parameters (Documentation/admin-guide/
// kernel-parameters.txt) that select CPU vulnerability mitigations; those
// starting with "nospec" or "spectre" count too (mitigationParam).
var mitigationParams = map[string]bool{
	"mitigations": true, "pti": true, "nopti": true, "ssbd": true,
	"spec_store_bypass_disable": true, "retbleed": true, "mds": true,
	"tsx_async_abort": true, "mmio_stale_data": true, "srbds": true,
	"l1tf": true, "gather_data_sampling": true, "reg_file_data_sampling": true,
	"spec_rstack_overflow": true, "ibt": true, "kpti": true, "nosmt": true,
	"indirect_target_selection": true, "tsa": true, "vmscape": true,
	"retpoline": true, "noibrs": true, "noibpb": true, "l1d_flush": true,
}

// mitigationParam reports whether kernel parameter key chooses a CPU
// vulnerability mitigation.
func mitigationParam(key string) bool {
	return mitigationParams[key] || strings.HasPrefix(key, "nospec") || strings.HasPrefix(key, "spectre")
}

// parseCmdlineMitigations returns the mitigation parameters of a kernel
// command line (/proc/cmdline), in order, up to the "--" that starts
// init's arguments.
func parseCmdlineMitigations(cmdline string) []string {
	out := []string{}
	for _, f := range strings.Fields(cmdline) {
		if f == "--" {
			break
		}
		k, _, _ := strings.Cut(f, "=")
		if mitigationParam(k) {
			out = append(out, f)
		}
	}
	return out
}

// CaptureEnvironment reads the environment of this machine. Fields it cannot
// read are left empty (or -1), never guessed.
func CaptureEnvironment() result.Environment {
	e := result.Environment{
		CPUs:                 runtime.NumCPU(),
		GoVersion:            runtime.Version(),
		Vulnerabilities:      map[string]string{},
		ParentSeccompFilters: -1,
		ParentSeccompMode:    -1,
		BPFJitCharge:         -1,
		BPFProgPackBytes:     -1,
	}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		e.Kernel = unix.ByteSliceToString(uts.Release[:])
		e.Hostname = unix.ByteSliceToString(uts.Nodename[:])
	}
	e.Node = os.Getenv("NODE_NAME")
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				e.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	ji := jit.ReadJITInfo()
	e.BPFJitEnable, e.BPFJitHarden, e.BPFJitLimit = ji.Enable, ji.Harden, ji.Limit
	if ji.VmallocErr == "" {
		e.BPFProgPackBytes = ji.Vmalloc.PackBytes
	}
	e.Clocksource = firstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	if b, err := os.ReadFile("/proc/cmdline"); err == nil {
		e.CmdlineMitigations = parseCmdlineMitigations(string(b))
	}
	paths, _ := filepath.Glob("/sys/devices/system/cpu/vulnerabilities/*")
	for _, p := range paths {
		e.Vulnerabilities[filepath.Base(p)] = firstLine(p)
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if st, err := sys.ParseProcStatus(b); err == nil {
			e.ParentSeccompFilters, e.ParentSeccompMode = st.SeccompFilters, st.SeccompMode
		}
	}
	return e
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := bytes.Cut(b, []byte{'\n'})
	return strings.TrimSpace(string(line))
}
