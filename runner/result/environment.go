package result

import "strings"

// Environment describes the machine a result was measured on. Every result
// carries it: the numbers mean nothing without the kernel, CPU and
// mitigations.
type Environment struct {
	// Hostname is the node name (uname -n), so results collected from a
	// fleet say where they were measured; "" in results from before it
	// was recorded.
	Hostname string `json:"hostname,omitempty"`
	// Node is $NODE_NAME when set: the Kubernetes node a pod ran on, which
	// the deploy/ manifests pass in from the downward API (spec.nodeName),
	// since a pod's uname -n is the pod's name; "" elsewhere.
	Node string `json:"node,omitempty"`
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
	// CmdlineMitigations are the kernel command line's parameters that
	// choose CPU vulnerability mitigations (mitigations=, pti=,
	// spectre_v2_user=, spec_store_bypass_disable=, spectre_bhi=, …; see
	// mitigationParam), in command-line order, as "key" or "key=value";
	// empty when there are none or /proc/cmdline cannot be read.
	CmdlineMitigations []string `json:"cmdline_mitigations"`
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

// BHI returns the "BHI:" part of the spectre_v2 vulnerability line (e.g.
// "Not affected", "BHI_DIS_S", "SW loop, KVM: SW loop"), "" when the line
// has none (kernels before 6.9 and its backports, or non-x86). The x86 JIT
// emits its branch-history barrier for unprivileged classic BPF only when
// the kernel clears branch history with the software loop
// (X86_FEATURE_CLEAR_BHB_LOOP: "SW loop" here; arch/x86/net/bpf_jit_comp.c:
// emit_spectre_bhb_barrier), so "Not affected" means the loader cannot
// matter on this host.
func (e Environment) BHI() string {
	line := e.Vulnerabilities["spectre_v2"]
	for _, part := range strings.Split(line, ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "BHI:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// SeccompForcesSSBD reports whether installing a filter switches on the
// speculative store bypass mitigation for the task (unless
// SECCOMP_FILTER_FLAG_SPEC_ALLOW is passed): the spec_store_bypass line
// says "via prctl and seccomp" (arch/x86/kernel/cpu/bugs.c: ssb_strings,
// SPEC_STORE_BYPASS_SECCOMP; arch_seccomp_spec_mitigate). Kernels before
// 5.16 chose that mode by default; 2f46993d83ff made prctl the default.
func (e Environment) SeccompForcesSSBD() bool {
	return strings.Contains(e.Vulnerabilities["spec_store_bypass"], "seccomp")
}
