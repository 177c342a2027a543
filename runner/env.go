package runner

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Environment describes the machine a result was measured on. Every result
// carries it: the numbers mean nothing without the kernel, CPU and
// mitigations.
type Environment struct {
	// Kernel is the kernel release (uname -r).
	Kernel string `json:"kernel"`
	// CPUModel is the first "model name" of /proc/cpuinfo.
	CPUModel string `json:"cpu_model"`
	// CPUs is the number of online CPUs.
	CPUs int `json:"cpus"`
	// BPFJitEnable is /proc/sys/net/core/bpf_jit_enable ("" if absent).
	// Classic seccomp BPF is converted to eBPF and JITed when it is 1.
	BPFJitEnable string `json:"bpf_jit_enable"`
	// Vulnerabilities maps each file of
	// /sys/devices/system/cpu/vulnerabilities to its first line.
	Vulnerabilities map[string]string `json:"vulnerabilities"`
	// GoVersion is the Go toolchain that built the tool.
	GoVersion string `json:"go_version"`
	// ParentSeccompFilters is Seccomp_filters of the measuring process
	// before it installs anything: filters inherited from a container
	// runtime or service manager, which every child inherits too. -1 if the
	// kernel does not report it (before Linux 5.9).
	ParentSeccompFilters int `json:"parent_seccomp_filters"`
	// ParentSeccompMode is the Seccomp field of /proc/self/status: 0
	// disabled, 1 strict, 2 filter; -1 if absent.
	ParentSeccompMode int `json:"parent_seccomp_mode"`
	// Clocksource is the current clocksource; only vDSO-capable ones (tsc,
	// kvm-clock) keep clock reads out of the filtered syscall path.
	Clocksource string `json:"clocksource"`
	// BPFJitLimit is /proc/sys/net/core/bpf_jit_limit in bytes: the JIT
	// memory that loaders without CAP_BPF or CAP_SYS_ADMIN may be charged
	// in total before seccomp(2) fails with errno 524 (kernel/bpf/core.c:
	// bpf_jit_charge_modmem). -1 if unreadable.
	BPFJitLimit int64 `json:"bpf_jit_limit"`
	// BPFJitHarden is /proc/sys/net/core/bpf_jit_harden ("" if absent);
	// constant blinding (1, 2) makes JIT images bigger.
	BPFJitHarden string `json:"bpf_jit_harden"`
	// BPFJitCharge is the kernel's JIT charge (bpf_jit_current) in bytes
	// when it was measured (budget --measure, run --jit-measure: root
	// only, by probe loads under a lowered bpf_jit_limit); -1 otherwise:
	// the kernel does not export it.
	BPFJitCharge int64 `json:"bpf_jit_charge"`
	// BPFProgPackBytes is the size of the bpf_prog_pack areas in
	// /proc/vmallocinfo (root only), in bytes: an upper bound of the JIT
	// charge of programs that fit a pack. -1 if unreadable.
	BPFProgPackBytes int64 `json:"bpf_prog_pack_bytes"`
}

// CaptureEnvironment reads the environment of this machine. Fields it cannot
// read are left empty (or -1), never guessed.
func CaptureEnvironment() Environment {
	e := Environment{
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
	}
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
	ji := ReadJITInfo()
	e.BPFJitEnable, e.BPFJitHarden, e.BPFJitLimit = ji.Enable, ji.Harden, ji.Limit
	if ji.VmallocErr == "" {
		e.BPFProgPackBytes = ji.Vmalloc.PackBytes
	}
	e.Clocksource = firstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	paths, _ := filepath.Glob("/sys/devices/system/cpu/vulnerabilities/*")
	for _, p := range paths {
		e.Vulnerabilities[filepath.Base(p)] = firstLine(p)
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if st, err := parseProcStatus(b); err == nil {
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
