package report

import (
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
)

func TestJITLine(t *testing.T) {
	tests := []struct {
		name string
		d    document.Document
		want string
	}{
		{"no setup", document.Document{}, ""},
		{"no jit", document.Document{Setup: &document.Setup{StackFilter: 8}}, ""},
		{"model", document.Document{Setup: &document.Setup{StackFilter: 8, JITBytesPerFilter: 2368, JITBytesStack: 18944, JITSource: "model", JITAllocator: "pack"},
			Environment: result.Environment{BPFJitLimit: 528482304, BPFJitCharge: -1, BPFJitHarden: "0"}},
			"JIT memory: 2368 bytes per filter, 18944 bytes for the 8-filter stack (model, pack allocator); bpf_jit_limit 528482304 bytes"},
		{"measured and hardened", document.Document{Setup: &document.Setup{StackFilter: 2, JITBytesPerFilter: 64, JITBytesStack: 128, JITSource: "measured"},
			Environment: result.Environment{BPFJitLimit: 1000000, BPFJitCharge: 155176, BPFJitHarden: "2"}},
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

func TestNotifyRoundTrip(t *testing.T) {
	d := &document.Document{Config: document.Config{Workload: "notify", Confidence: 0.95},
		Results: []document.CellResult{
			{Variant: "defeat", Filters: 8, N: 10, MedianNs: 28437.7, MeanNs: 26984.7, CILowNs: 19380.2, CIHighNs: 34589.2},
			{Variant: "defeat", Filters: 0, N: 10, MedianNs: 16148.2, MeanNs: 18042.0, CILowNs: 15214.9, CIHighNs: 20869.0},
		}}
	want := "one SECCOMP_RET_USER_NOTIF round trip takes 16.1 µs at 0 filters (median; mean 18.0 µs, 95% CI [15.2, 20.9] µs)"
	if got, ok := notifyRoundTrip(d, "defeat"); !ok || got.Text() != want || got.Code != "notify_round_trip" || *got.Figures["median_ns"] != 16148.2 {
		t.Errorf("got  %q %v %+v\nwant %q", got.Text(), ok, got, want)
	}
	if got, ok := notifyRoundTrip(d, "on"); ok {
		t.Errorf("no cells: got %+v", got)
	}
}
