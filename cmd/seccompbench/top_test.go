package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/live"
)

func TestNewCmdTopFlags(t *testing.T) {
	tests := []struct {
		args    string
		wantErr string
		check   func(*TopOptions) bool
	}{
		{"--pid 12 --pid 34,56 --duration 5s", "", func(o *TopOptions) bool {
			return fmt.Sprint(o.Pids) == "[12 34 56]" && o.Duration == 5*time.Second && o.Out.Format == "table" &&
				o.Frequency == live.DefaultFrequency && o.CountDuty == 0.02 && o.Predict
		}},
		{"--cgroup /sys/fs/cgroup/x --format json --duration 1s -o out.json", "", func(o *TopOptions) bool {
			return o.Cgroup == "/sys/fs/cgroup/x" && o.Out.Format == "json" && slices.Equal(o.Out.Outputs, []string{"out.json"})
		}},
		{"--all --frequency 499 --count-duty 0 --batch 1s --predict=false", "", func(o *TopOptions) bool {
			return o.All && o.Frequency == 499 && o.CountDuty == 0 && o.Batch == time.Second && !o.Predict && o.Duration == 0
		}},
		{"--pid 12 --children --duration 5s", "", func(o *TopOptions) bool { return o.Children && fmt.Sprint(o.Pids) == "[12]" }},
		{"--all --children", "--children: only with --pid", nil},
		{"--cgroup /sys/fs/cgroup/x --children", "--children: only with --pid", nil},
		{"", "exactly one of", nil},
		{"--pid 1 --all", "exactly one of", nil},
		{"--pid x", "not a PID", nil},
		{"--pid 1 --format csv", "--format", nil},
		{"--pid 1 --frequency 0", "--frequency", nil},
		{"--pid 1 --count-duty 1.5", "--count-duty", nil},
		{"--pid 1 --confidence 1", "--confidence", nil},
		{"--pid 1 -o x.json", "-o needs --duration", nil},
		{"--pid 1 extra", "unknown command", nil},
		{"--all --serve 127.0.0.1:9464 --serve-top 5", "", func(o *TopOptions) bool {
			return o.Serve == "127.0.0.1:9464" && o.ServeTop == 5 && o.Refresh == 2*time.Second
		}},
		{"--all --serve :9464", "", func(o *TopOptions) bool { return o.ServeTop == 20 }},
		{"--all --serve :9464 --duration 5s", "--serve: keeps sampling", nil},
		{"--all --serve :9464 --serve-top 0", "--serve-top", nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got := parseFlags(t, NewCmdTop, strings.Fields(tt.args), errContaining(tt.wantErr))
			if got == nil {
				return
			}
			if !tt.check(got) {
				t.Errorf("options %+v", got)
			}
		})
	}
}

// TestTopReportShapes renders one report both ways: the JSON carries the
// keys the contract names, undefined numbers as null, and the table shows
// the share with its interval and the prediction as a prediction.
func TestTopReportShapes(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	n := 16
	top := &document.Top{SchemaVersion: document.TopSchemaVersion, Kind: "top", Start: "2026-12-01T00:00:00Z", WindowNs: 5e9,
		Method: document.TopMethod{SamplingHz: 997, PeriodNs: 1003009, CPUs: 2, BatchNs: 25e7, Confidence: 0.95, CountDuty: 0.1},
		Processes: []document.TopProcess{{Pid: 42, Comm: "loop", CPUNs: 5e9, SeccompNs: 2e9, SeccompShare: f(0.4), SeccompShareCILow: f(0.38), SeccompShareCIHigh: f(0.42),
			Samples: 5000, SeccompSamples: 2000, Filters: &n, FilterHashes: []document.TopFilter{{Index: 0, Instructions: 1406, SHA256: strings.Repeat("ab", 32)}},
			Syscalls: []document.TopSyscall{{Name: "getppid", Nr: 110, Calls: f(4e6), SeccompNs: 2e9, SeccompNsPerCall: f(500), Samples: 2000},
				{Name: "futex", Nr: 202, SeccompNs: 1e6, Samples: 1}},
			Prediction: &document.TopPrediction{Rows: []document.TopPredictionRow{{Name: "merge", Instructions: 1800, SeccompNs: 0, SavedNs: 2e9, SavedShare: 0.4}},
				Model: document.TopModel{Method: document.TopModelScaled, EntryNs: 30.9, PerFilterNs: 20.4, PerInstructionNs: 0.115}}}},
		Warnings: []string{}}
	var b bytes.Buffer
	if err := report.WriteTopJSON(&b, top); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema_version", "kind", "processes"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	p := doc["processes"].([]any)[0].(map[string]any)
	for _, k := range []string{"pid", "comm", "cpu_ns", "seccomp_ns", "seccomp_share", "seccomp_share_ci_low", "seccomp_share_ci_high", "filters", "syscalls"} {
		if _, ok := p[k]; !ok {
			t.Errorf("process lacks %q", k)
		}
	}
	sc := p["syscalls"].([]any)
	for _, k := range []string{"name", "calls", "seccomp_ns"} {
		if _, ok := sc[0].(map[string]any)[k]; !ok {
			t.Errorf("syscall lacks %q", k)
		}
	}
	if v, ok := sc[1].(map[string]any)["calls"]; !ok || v != nil {
		t.Errorf("uncounted calls = %v, want null", v)
	}
	b.Reset()
	report.WriteTopTable(&b, top, 8)
	out := b.String()
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > report.TextWidth {
			t.Errorf("top line %d is %d characters, want at most %d: %s", i+1, n, report.TextWidth, l)
		}
	}
	for _, want := range []string{"seccomp: ", "verdict: merge of ", "direct: 2000 of 5000 samples in seccomp", "the indirect part", "share 40.00% [38.00, 42.00] (95% CI)", "filters 16", "1 × abababababab (1406 insns)", "getppid", "500.0 ns", "prediction (model): merge would save 2.00 s"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The JSON holds the model as a code and figures; --explain words it.
	if m := p["prediction"].(map[string]any)["model"].(map[string]any); m["method"] != document.TopModelScaled || m["per_filter_ns"] != 20.4 {
		t.Errorf("prediction model %v, want the code %s with its figures", m, document.TopModelScaled)
	}
	b.Reset()
	report.WriteTopText(&b, top, 8, report.TextOptions{Explain: true})
	words := strings.Join(strings.Fields(b.String()), " ")
	if want := "prediction model: each sampled syscall's measured seccomp time × model(after)/model(before), model = 30.9 ns + 20.4 ns per filter + 0.115 ns per instruction when uncached"; !strings.Contains(words, want) {
		t.Errorf("--explain lacks %q:\n%s", want, b.String())
	}
	if strings.Contains(out, "prediction model:") {
		t.Errorf("the table without --explain words the model:\n%s", out)
	}
}
