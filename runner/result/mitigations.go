package result

import "strings"

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

// CmdlineMitigations returns the mitigation parameters of a kernel
// command line (/proc/cmdline), in order, up to the "--" that starts
// init's arguments.
func CmdlineMitigations(cmdline string) []string {
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
