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
		e.CmdlineMitigations = result.CmdlineMitigations(string(b))
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
