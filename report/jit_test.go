package report

import (
	"testing"

	"github.com/seccompbench/seccompbench/runner"
)

func TestJITLine(t *testing.T) {
	tests := []struct {
		name string
		d    Document
		want string
	}{
		{"no setup", Document{}, ""},
		{"no jit", Document{Setup: &Setup{StackFilter: 8}}, ""},
		{"model", Document{Setup: &Setup{StackFilter: 8, JITBytesPerFilter: 2368, JITBytesStack: 18944, JITSource: "model", JITAllocator: "pack"},
			Environment: runner.Environment{BPFJitLimit: 528482304, BPFJitCharge: -1, BPFJitHarden: "0"}},
			"JIT memory: 2368 bytes per filter, 18944 bytes for the 8-filter stack (model, pack allocator); bpf_jit_limit 528482304 bytes"},
		{"measured and hardened", Document{Setup: &Setup{StackFilter: 2, JITBytesPerFilter: 64, JITBytesStack: 128, JITSource: "measured"},
			Environment: runner.Environment{BPFJitLimit: 1000000, BPFJitCharge: 155176, BPFJitHarden: "2"}},
			"JIT memory: 64 bytes per filter, 128 bytes for the 2-filter stack (measured); bpf_jit_limit 1000000 bytes, 155176 charged; bpf_jit_harden 2 (constant blinding enlarges images)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jitLine(&tt.d); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
