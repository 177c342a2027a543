package report

import "github.com/seccompbench/seccompbench/report/document"
import "fmt"

// jitLine describes the JIT memory of the run's deepest stack, for the
// table and Markdown renderers: bytes per filter and for the stack, where
// they come from, and the host's bpf_jit_limit (and the charge when it was
// measured). "" when the result has no JIT figures.
func jitLine(d *document.Document) string {
	st := d.Setup
	if st == nil || st.JITSource == "" {
		return ""
	}
	s := fmt.Sprintf("JIT memory: %.0f bytes per filter, %d bytes for the %d-filter stack (%s", st.JITBytesPerFilter, st.JITBytesStack, st.StackFilter, st.JITSource)
	if st.JITAllocator != "" {
		s += ", " + st.JITAllocator + " allocator"
	}
	s += ")"
	env := d.Environment
	if env.BPFJitLimit > 0 {
		s += fmt.Sprintf("; bpf_jit_limit %d bytes", env.BPFJitLimit)
		if env.BPFJitCharge > 0 {
			s += fmt.Sprintf(", %d charged", env.BPFJitCharge)
		}
	}
	if env.BPFJitHarden != "" && env.BPFJitHarden != "0" {
		s += "; bpf_jit_harden " + env.BPFJitHarden + " (constant blinding enlarges images)"
	}
	return s
}
