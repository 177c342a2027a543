package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunHostilePolicies runs real children under policies that attack the
// harness or the workload. Each must end with results (exit 0, warnings
// where the numbers mean something else) or with a clear error before any
// child starts (exit 1) — never a hang, a lost result or a panic.
func TestRunHostilePolicies(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	write := func(name, rules string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("default_action: allow\nsyscalls:\n"+rules), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		policy   string
		args     []string
		code     int
		want     []string // substrings of stderr
		counts   []int    // filter counts the JSON result must hold (code 0)
		workload string
	}{
		{name: "errno on the workload syscall is measured, with a warning",
			policy: write("errno-getpid.yaml", "  - action: errno\n    names: [getpid]\n"), args: []string{"--workload", "getpid"},
			code: 0, want: []string{"calls getpid, which fails with errno 1: the benchmark times the error path"}, counts: []int{0, 1, 2}},
		{name: "denying write, exit, futex and mmap does not lose the result",
			policy: write("deny-harness.yaml", "  - action: errno\n    names: [write, exit, exit_group, futex, mmap, munmap, madvise, rt_sigreturn, nanosleep, clock_nanosleep]\n"),
			args:   []string{"--workload", "getpid"}, code: 0, counts: []int{0, 1, 2}},
		{name: "mix workload with errno on dup and close",
			policy: write("errno-dup.yaml", "  - action: errno\n    names: [dup, close]\n"),
			code:   0, want: []string{"calls dup, which fails with errno 1:", "calls close, which fails with errno 1:"}, counts: []int{0, 1, 2}},
		// SECCOMP_RET_TRACE without a tracer fails the syscall with ENOSYS
		// (seccomp(2)): the child lives and times the error path, as lint
		// says too (one rule set, analysis.Preflight).
		{name: "trace on the workload syscall (no tracer) measures ENOSYS with a warning",
			policy: write("trace-getpid.yaml", "  - action: trace\n    names: [getpid]\n"), args: []string{"--workload", "getpid"},
			code: 0, want: []string{"calls getpid, which fails with errno 38", "the benchmark times the error path"}, counts: []int{0, 1, 2}},
		{name: "kill_process on seccomp(2) is refused with the count that works",
			policy: write("kill-seccomp.yaml", "  - action: kill_process\n    names: [seccomp]\n"), args: []string{"--workload", "getpid"},
			code: 1, want: []string{"returns SECCOMP_RET_KILL_PROCESS for seccomp(2)", "installing filter 2 of 2", "--filters 0-1"}},
		{name: "one filter that kills seccomp(2) is measurable",
			policy: write("kill-seccomp-1.yaml", "  - action: kill_process\n    names: [seccomp]\n"), args: []string{"--workload", "getpid", "--filters", "0,1"},
			code: 0, counts: []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"run", tt.policy, "--trials", "2", "--iterations", "100", "--samples", "2", "--cache", "defeat", "--format", "json"}
			if !slices.Contains(tt.args, "--filters") {
				args = append(args, "--filters", "0,1,2")
			}
			var out, errb bytes.Buffer
			code := run(append(args, tt.args...), strings.NewReader(""), &out, &errb)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tt.code, errb.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
			if tt.code != 0 {
				return
			}
			var doc struct {
				Results []struct {
					Filters int     `json:"filters"`
					N       int     `json:"n"`
					MeanNs  float64 `json:"mean_ns"`
				} `json:"results"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("decode result: %v", err)
			}
			var got []int
			for _, r := range doc.Results {
				if r.N != 2 || !(r.MeanNs > 0) {
					t.Errorf("filters=%d: n=%d mean %v ns, want 2 children and a positive mean", r.Filters, r.N, r.MeanNs)
				}
				got = append(got, r.Filters)
			}
			if len(got) != len(tt.counts) {
				t.Errorf("results for counts %v, want %v", got, tt.counts)
			}
		})
	}
}
