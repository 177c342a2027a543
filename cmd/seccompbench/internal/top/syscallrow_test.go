package top

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

func TestSyscallRowResolution(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		counted   uint64
		scale     float64
		resolved  bool
		why       string
		perCallCI bool
	}{
		{"enough samples and calls", 100, 5000, 10, true, "", true},
		{"two samples", 2, 5000, 10, false, document.TopFewSamples, true},
		{"few counted calls", 100, 5, 10, false, document.TopFewCalls, true},
		{"not counted", 100, 0, 10, false, document.TopNotCounted, false},
		{"not scalable", 100, 5000, math.NaN(), false, document.TopNotCounted, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// 1000 samples over 1 s of CPU: 1 ms per sample.
			s := syscallRow(0, tt.n, 1000, 1e9, tt.counted, tt.scale, 0.05, 0.95)
			if s.Resolved != tt.resolved || s.Unresolved != tt.why {
				t.Fatalf("resolved %v %q, want %v %q", s.Resolved, s.Unresolved, tt.resolved, tt.why)
			}
			if got, want := s.SeccompNs, float64(tt.n)*1e6; got != want {
				t.Errorf("seccomp_ns %v, want %v", got, want)
			}
			if s.SeccompNsCILow == nil || s.SeccompNsCIHigh == nil || !(*s.SeccompNsCILow < s.SeccompNs && s.SeccompNs < *s.SeccompNsCIHigh) {
				t.Errorf("seccomp_ns interval %v..%v does not hold %v", s.SeccompNsCILow, s.SeccompNsCIHigh, s.SeccompNs)
			}
			if (s.SeccompNsPerCall != nil) != tt.resolved {
				t.Errorf("per call %v with resolved %v: a figure only when resolved", s.SeccompNsPerCall, tt.resolved)
			}
			if (s.SeccompNsPerCallCIHigh != nil) != tt.perCallCI {
				t.Errorf("per-call interval %v, want one: %v", s.SeccompNsPerCallCIHigh, tt.perCallCI)
			}
			if (s.CallsCILow != nil) != tt.perCallCI || (s.Calls != nil && !(*s.CallsCILow < *s.Calls && *s.Calls < *s.CallsCIHigh)) {
				t.Errorf("calls %v interval [%v, %v]", s.Calls, s.CallsCILow, s.CallsCIHigh)
			}
			if tt.resolved {
				// 5000 counted: ±2.8 % Poisson with ±5 % scale error.
				if got, want := math.Log(*s.CallsCIHigh / *s.Calls), math.Hypot(1.959964/math.Sqrt(5000), 0.05); math.Abs(got/want-1) > 1e-3 {
					t.Errorf("calls log half-width %v, want %v", got, want)
				}
				c := *s.SeccompNsPerCall
				if want := s.SeccompNs / (float64(tt.counted) * tt.scale); math.Abs(c/want-1) > 1e-12 {
					t.Errorf("per call %v, want %v", c, want)
				}
				if !(*s.SeccompNsPerCallCILow < c && c < *s.SeccompNsPerCallCIHigh) {
					t.Errorf("per-call interval [%v, %v] does not hold %v", *s.SeccompNsPerCallCILow, *s.SeccompNsPerCallCIHigh, c)
				}
				// The per-call interval is at least as wide as the time's.
				if lo, tlo := *s.SeccompNsPerCallCILow/c, *s.SeccompNsCILow/s.SeccompNs; lo > tlo {
					t.Errorf("per-call lower ratio %v above the time's %v", lo, tlo)
				}
			}
		})
	}
}

func TestTopTextMarksUnresolved(t *testing.T) {
	one, many := syscallRow(435, 2, 1000, 1e9, 2000, 10, 0, 0.95), syscallRow(0, 200, 1000, 1e9, 9000, 10, 0, 0.95)
	one.Name, many.Name = "clone3", "read"
	doc := &document.Top{Kind: document.KindTop, Method: document.TopMethod{SamplingHz: 99, Confidence: 0.95, MinSyscallSamples: MinSyscallSamples, MinCountedCalls: MinCountedCalls},
		Processes: []document.TopProcess{{Pid: 7, Comm: "srv", Samples: 1000, SeccompSamples: 202, CPUNs: 1e9, Syscalls: []document.TopSyscall{many, one}}}}
	var b strings.Builder
	report.WriteTopText(&b, doc, 8, report.TextOptions{})
	out := b.String()
	for _, want := range []string{"unresolved (2 samples)", "a per-call cost needs 20 seccomp samples"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, " read ") && strings.Contains(line, "unresolved") {
			t.Errorf("resolved row marked unresolved: %q", line)
		}
	}
}

func TestCallScaleMeasuredCounterCost(t *testing.T) {
	// 1 s of CPU in the window, 20 ms of it while counting, 20,000 calls
	// counted. With the counter measured at 200 ns per call, 4 ms of the
	// 20 ms were the counter's: the process made its calls at 20,000 per
	// 16 ms of its own time, so the window holds (1 s − 4 ms) / 16 ms ×
	// 20,000 calls.
	in := windowInput{onCPU: map[int]time.Duration{7: 20 * time.Millisecond},
		task0: map[int]time.Duration{7: time.Second}, task1: map[int]time.Duration{7: 2 * time.Second}}
	tl := &kstack.Tally{Samples: 100, CountedSamples: 2}
	scale, by, relErr, warns := callScale(tl, in, 7, 20000, 200, 1e7, 0.95)
	if want := (1e9 - 4e6) / (20e6 - 4e6); by != "cpu_time" || math.Abs(scale/want-1) > 1e-12 {
		t.Fatalf("scale %v by %q, want %v by cpu_time", scale, by, want)
	}
	if relErr != 0 || len(warns) != 0 {
		t.Errorf("measured cost: relErr %v, warnings %q; want none from the counter's samples", relErr, warns)
	}
	// Without the measured cost the counter's 0 samples leave 20 ms.
	scale, _, relErr, _ = callScale(tl, in, 7, 20000, math.NaN(), 1e7, 0.95)
	if want := 1e9 / 20e6; math.Abs(scale/want-1) > 1e-12 || relErr == 0 {
		t.Errorf("unmeasured: scale %v (want %v), relErr %v (want the binomial error)", scale, want, relErr)
	}
}
