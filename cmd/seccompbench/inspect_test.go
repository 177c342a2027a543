package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/inspect"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	procinspect "github.com/seccompbench/seccompbench/runner/inspect"
	"github.com/seccompbench/seccompbench/runner/result"
)

func TestNewCmdInspectFlags(t *testing.T) {
	tests := []struct {
		args    string
		wantErr string
		check   func(*InspectOptions) bool
	}{
		{"12 34", "", func(o *InspectOptions) bool {
			return fmt.Sprint(o.Pids) == "[12 34]" && !o.All && o.Out.Format == "table" && len(o.Syscalls) == len(defaultInspectSyscalls)
		}},
		{"--all --disasm --format json --syscalls read,write", "", func(o *InspectOptions) bool {
			return o.All && o.Disasm && o.Out.Format == "json" && fmt.Sprint(o.Syscalls) == "[read write]"
		}},
		{"12 --save out", "", func(o *InspectOptions) bool { return o.Save == "out" }},
		{"", "give PIDs or --all", nil},
		{"12 --all", "not both", nil},
		{"abc", "not a PID", nil},
		{"0", "not a PID", nil},
		{"12 --format csv", "--format", nil},
		{"12 --syscalls read,nosuch", "unknown syscall", nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got := parseFlags(t, NewCmdInspect, strings.Fields(tt.args), errContaining(tt.wantErr))
			if got == nil {
				return
			}
			if !tt.check(got) {
				t.Errorf("options %+v", got)
			}
		})
	}
}

// fakeProcesses are what the fake Inspect reports: 42 has the stack A B A
// (A allows everything, B denies getppid), 43 cannot be dumped, 1 has no
// seccomp.
func fakeProcesses(t *testing.T) (map[int]procinspect.ProcessFilters, [][]byte) {
	t.Helper()
	a, err := analysis.CalibrationFilter(filters.ArchX86_64, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := analysis.CalibrationFilter(filters.ArchX86_64, 4)
	if err != nil {
		t.Fatal(err)
	}
	stack := [][]byte{a.Bytes(), b.Bytes(), a.Bytes()}
	dumpErr := &procinspect.DumpError{Pid: 43, Op: "get filter 0", Errno: 13, Kind: procinspect.ErrDumpDenied, Hint: "needs CAP_SYS_ADMIN"}
	return map[int]procinspect.ProcessFilters{
		1:  {ProcStatus: result.ProcStatus{Pid: 1, Name: "init", SeccompMode: 0, SeccompFilters: 0, NoNewPrivs: 0}},
		42: {ProcStatus: result.ProcStatus{Pid: 42, Name: "svc", Cmdline: []string{"svc", "--x"}, SeccompMode: 2, SeccompFilters: 3, NoNewPrivs: 1}, Filters: stack},
		43: {ProcStatus: result.ProcStatus{Pid: 43, Name: "locked", SeccompMode: 2, SeccompFilters: 1, NoNewPrivs: 1}, DumpErr: dumpErr},
	}, stack
}

func newInspectOpts(t *testing.T, procs map[int]procinspect.ProcessFilters) (*InspectOptions, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := cmdutil.TestIOStreams()
	return &InspectOptions{IO: ios, Out: output.Flags{Format: "json"}, Options: inspect.Options{
		Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }, Syscalls: []string{"getppid", "getpid"},
		Inspect: func(pid int) (procinspect.ProcessFilters, error) {
			pf, ok := procs[pid]
			if !ok {
				return procinspect.ProcessFilters{}, fmt.Errorf("read status of pid %d: %w", pid, os.ErrNotExist)
			}
			return pf, nil
		},
		ListPids: func() ([]int, error) { return []int{1, 42, 43, 99, os.Getpid()}, nil },
	}}, out, errOut
}

func TestInspectRunJSON(t *testing.T) {
	procs, stack := fakeProcesses(t)
	opts, out, _ := newInspectOpts(t, procs)
	opts.Pids = []int{42}
	if err := inspectRun(opts); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Kind      string           `json:"kind"`
		Processes []map[string]any `json:"processes"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Processes
	if doc.Kind != "inspect" || len(got) != 1 || got[0]["pid"] != 42.0 || got[0]["seccomp_mode"] != 2.0 {
		t.Fatalf("got %v", got)
	}
	fs := got[0]["filters"].([]any)
	if len(fs) != 3 {
		t.Fatalf("filters %v", fs)
	}
	for i, f := range fs {
		m := f.(map[string]any)
		p, err := filters.ParseRaw("x", stack[i])
		if err != nil {
			t.Fatal(err)
		}
		if m["index"] != float64(i) || m["instructions"] != float64(p.Len()) || m["sha256"] != p.SHA256() {
			t.Errorf("filter %d: %v, want index %d, %d instructions, sha256 %s", i, m, i, p.Len(), p.SHA256())
		}
	}
	groups := got[0]["groups"].([]any)
	if len(groups) != 2 || fmt.Sprint(groups[0].(map[string]any)["indexes"]) != "[0 2]" || groups[0].(map[string]any)["count"] != 2.0 {
		t.Errorf("groups %v, want A at 0 and 2, B at 1", groups)
	}
	an := got[0]["analysis"].(map[string]any)
	// Converted eBPF lengths (Program.EBPFLen) +4 each, but the newest.
	want := -filters.PathPenalty
	for i, raw := range stack {
		p, err := filters.ParseRaw(fmt.Sprint("f", i), raw)
		if err != nil {
			t.Fatal(err)
		}
		want += p.EBPFLen() + filters.PathPenalty
	}
	if an["path_length"] != float64(want) {
		t.Errorf("path_length %v", an["path_length"])
	}
	for _, s := range an["syscalls"].([]any) {
		m := s.(map[string]any)
		// Both filters end their chains in ret ALLOW: every syscall is
		// allowed and cached; getppid and getpid are unmarked, so each
		// runs the whole chain: 3+2 + 4+2 + 3+2 instructions.
		if m["action"] != "allow" || m["cached"] != true || m["instructions"] != 16.0 {
			t.Errorf("syscall %v", m)
		}
	}
}

func TestInspectRunErrorsAndAll(t *testing.T) {
	procs, _ := fakeProcesses(t)
	t.Run("explicit", func(t *testing.T) {
		opts, out, _ := newInspectOpts(t, procs)
		opts.Pids = []int{43, 99}
		opts.Out.Format = "table"
		err := inspectRun(opts)
		if !errors.Is(err, inspect.ErrInspect) {
			t.Fatalf("got %v, want ErrInspect", err)
		}
		for _, want := range []string{"pid 43", "needs CAP_SYS_ADMIN", "pid 99\n", "file does not exist"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("all", func(t *testing.T) {
		opts, out, _ := newInspectOpts(t, procs)
		opts.All = true
		if err := inspectRun(opts); err != nil {
			t.Fatalf("--all must not fail on processes it may not read: %v", err)
		}
		var doc document.InspectDoc
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		got := doc.Processes
		var pids []int
		for _, j := range got {
			pids = append(pids, j.Pid)
		}
		if fmt.Sprint(pids) != "[42 43]" || got[1].Error == "" {
			t.Errorf("got pids %v (error of 43: %q), want [42 43] with 43 failed", pids, got[1].Error)
		}
	})
}

func TestInspectSave(t *testing.T) {
	procs, stack := fakeProcesses(t)
	opts, _, errOut := newInspectOpts(t, procs)
	opts.Pids = []int{42}
	opts.Save = filepath.Join(t.TempDir(), "stack")
	if err := inspectRun(opts); err != nil {
		t.Fatal(err)
	}
	var m document.InspectManifest
	b, err := os.ReadFile(filepath.Join(opts.Save, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Pid != 42 || fmt.Sprint(m.Cmdline) != "[svc --x]" || len(m.Filters) != 3 {
		t.Fatalf("manifest %+v", m)
	}
	for i, f := range m.Filters {
		if f.Index != i || f.File != fmt.Sprintf("filter-%02d.bpf", i) {
			t.Errorf("manifest filter %d: %+v", i, f)
		}
		// Saved files load through the policy loader as raw BPF, unchanged.
		p, err := formats.Open(filepath.Join(opts.Save, f.File))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.Bytes(), stack[i]) || p.SHA256() != f.SHA256 {
			t.Errorf("filter %d reloads as %x, want %x", i, p.Bytes(), stack[i])
		}
	}
	if !strings.Contains(errOut.String(), "saved 3 filters of pid 42") {
		t.Errorf("stderr %q", errOut)
	}
}

// TestInspectSaveNoFilters: --save on a process without filters writes
// nothing and says so, instead of exiting in silence.
func TestInspectSaveNoFilters(t *testing.T) {
	procs, _ := fakeProcesses(t)
	opts, _, errOut := newInspectOpts(t, procs)
	opts.Pids = []int{1}
	opts.Save = filepath.Join(t.TempDir(), "stack")
	if err := inspectRun(opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(opts.Save); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--save directory for a process without filters: %v, want none", err)
	}
	if !strings.Contains(errOut.String(), "pid 1 has no seccomp filters: nothing saved to") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestIndexRanges(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{{[]int{0}, "0"}, {[]int{0, 1, 2, 5, 7, 8}, "0-2,5,7-8"}, {nil, ""}}
	for _, tt := range tests {
		if got := report.IndexRanges(tt.in); got != tt.want {
			t.Errorf("report.IndexRanges(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
