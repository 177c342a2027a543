package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
)

func TestNewCmdRunNotifyFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantErr  string // "" for success
		syscall  string
		errno    syscall.Errno
		sync     bool
		workload string
	}{
		{name: "notify defaults", args: []string{"--workload", "notify"}, workload: "notify", syscall: "getppid"},
		{name: "sync and errno", args: []string{"--workload", "notify", "--notify-sync", "--notify-reply", "errno"}, workload: "notify", syscall: "getppid", sync: true, errno: syscall.EPERM},
		{name: "errno:N", args: []string{"--workload", "notify", "--notify-reply", "errno:13"}, workload: "notify", syscall: "getppid", errno: syscall.EACCES},
		{name: "notified syscall", args: []string{"--workload", "notify", "--syscall", "getuid"}, workload: "notify", syscall: "getuid"},
		{name: "sync without notify", args: []string{"--notify-sync"}, wantErr: "--notify-sync and --notify-reply need --workload notify"},
		{name: "reply without notify", args: []string{"--workload", "getpid", "--notify-reply", "errno"}, wantErr: "need --workload notify"},
		{name: "bad reply", args: []string{"--workload", "notify", "--notify-reply", "errno:0"}, wantErr: "--notify-reply"},
		{name: "bad reply word", args: []string{"--workload", "notify", "--notify-reply", "kill"}, wantErr: "--notify-reply"},
		{name: "unsafe notified syscall", args: []string{"--workload", "notify", "--syscall", "reboot"}, wantErr: "--syscall"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdRun, tt.args, execWant{Err: tt.wantErr != "", Contains: tt.wantErr, Usage: true})
			if got == nil {
				return
			}
			if got.Workload.Name != tt.workload || got.Workload.Syscalls[0] != tt.syscall || got.Notify.Errno != tt.errno || got.Notify.Sync != tt.sync {
				t.Errorf("got workload %s on %v, notify %+v; want %s on %s, errno %d, sync %v", got.Workload.Name, got.Workload.Syscalls, got.Notify, tt.workload, tt.syscall, tt.errno, tt.sync)
			}
		})
	}
}

func TestNewCmdBudgetFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(*testing.T, *BudgetOptions)
	}{
		{name: "policy", args: []string{"docker-default"}, check: func(t *testing.T, o *BudgetOptions) {
			if len(o.Policies) != 1 || o.PerNode != 0 || o.Processes != 1 || o.Measure || o.Validate || o.ValidateCount != 20 || output.Or(o.Specs, "")[0].Format != "text" {
				t.Errorf("defaults: %+v", o.Job)
			}
		}},
		{name: "unit and plan", args: []string{"--systemd-unit", "x.service", "--per-node", "40", "--processes", "3", "--format", "json"}, check: func(t *testing.T, o *BudgetOptions) {
			if o.SystemdUnit != "x.service" || o.PerNode != 40 || o.Processes != 3 || output.Or(o.Specs, "")[0].Format != "json" {
				t.Errorf("got %+v", o.Job)
			}
		}},
		{name: "nothing to budget", args: nil, wantErr: "give a POLICY or --systemd-unit"},
		{name: "bad format", args: []string{"default", "--format", "xml"}, wantErr: "--format"},
		{name: "negative per-node", args: []string{"default", "--per-node", "-1"}, wantErr: "--per-node"},
		{name: "bad validate count", args: []string{"default", "--validate-count", "0"}, wantErr: "--validate-count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdBudget, tt.args, execWant{Err: tt.wantErr != "", Contains: tt.wantErr, Usage: true})
			if got != nil {
				tt.check(t, got)
			}
		})
	}
}

// budget docker-default gives a count with its basis, without root-only
// measurements. It needs the kernel's bpf_jit_limit sysctl (Linux 4.20,
// net/core/sysctl_net_core.c, CONFIG_BPF_JIT); with it readable, any
// failure is the test's.
func TestBudgetRun(t *testing.T) {
	const limit = "/proc/sys/net/core/bpf_jit_limit"
	if _, err := os.ReadFile(limit); err != nil {
		t.Skipf("no bpf_jit_limit to budget against (kernel before 4.20 or without CONFIG_BPF_JIT): %v", err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"budget", "docker-default", "--format", "json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d with %s readable: %s", code, limit, errb.String())
	}
	var b struct {
		StackFilters int    `json:"stack_filters"`
		StackBytes   int64  `json:"stack_bytes"`
		StackBasis   string `json:"stack_basis"`
		Limit        int64  `json:"bpf_jit_limit"`
		Current      int64  `json:"current_charge"`
		CurrentBasis string `json:"current_basis"`
		Fit          int64  `json:"fit"`
		FirstFailure int64  `json:"first_failure"`
	}
	if err := json.Unmarshal(out.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if b.StackFilters != 1 || b.StackBytes <= 0 || b.StackBasis != "model" || b.CurrentBasis == "" {
		t.Errorf("got %+v", b)
	}
	if want := (b.Limit - b.Current) / b.StackBytes; b.Fit != want || b.FirstFailure != want+1 {
		t.Errorf("fit %d, first failure %d; want %d, %d", b.Fit, b.FirstFailure, want, want+1)
	}
}

func TestParseNotifyReply(t *testing.T) {
	tests := []struct {
		in   string
		want syscall.Errno
		err  bool
	}{
		{"continue", 0, false}, {"errno", syscall.EPERM, false}, {"errno:38", syscall.ENOSYS, false},
		{"errno:4095", 4095, false}, {"errno:4096", 0, true}, {"errno:-1", 0, true}, {"errno:x", 0, true}, {"", 0, true},
	}
	for _, tt := range tests {
		got, err := runjob.ParseNotifyReply(tt.in)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("runjob.ParseNotifyReply(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}
