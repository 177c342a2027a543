package runner

import (
	"slices"
	"strings"
	"testing"
)

// TestWorkloadTable checks that every reader of the table sees the same
// rows: LookupWorkload, Workloads, WorkloadUsage and the child's loop kind.
func TestWorkloadTable(t *testing.T) {
	for _, wi := range WorkloadTable() {
		t.Run(wi.Name, func(t *testing.T) {
			if wi.loop == 0 {
				t.Errorf("no loop kind: the child could not run %q", wi.Name)
			}
			if wi.Help == "" || wi.Op == "" || wi.SyscallsPerIter < 1 {
				t.Errorf("incomplete row %+v", wi)
			}
			w, err := LookupWorkload(wi.Name)
			if !wi.ByName {
				if err == nil {
					t.Errorf("LookupWorkload(%q) = %+v, want an error: --workload does not select it", wi.Name, w)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Name != wi.Name || w.SyscallsPerIter != wi.SyscallsPerIter || w.PathDirs != wi.PathDirs || !slices.Equal(w.Syscalls, wi.Syscalls) {
				t.Errorf("LookupWorkload(%q) = %+v, want the row %+v", wi.Name, w, wi)
			}
			if len(w.Syscalls) == 0 {
				t.Errorf("%q lists no syscalls for lint and preflight", wi.Name)
			}
			if got := w.PathDirs > 0; got != wi.NeedsExecFixture() {
				t.Errorf("PathDirs %d, NeedsExecFixture %v", w.PathDirs, wi.NeedsExecFixture())
			}
			if !strings.Contains(WorkloadUsage(), wi.Name+" ("+wi.Help+")") {
				t.Errorf("WorkloadUsage() = %q does not describe %q", WorkloadUsage(), wi.Name)
			}
			if _, ok := Workloads()[wi.Name]; ok == wi.NeedsExecFixture() {
				t.Errorf("Workloads() has %q: %v, want %v", wi.Name, ok, !ok)
			}
		})
	}
}

func TestLookupWorkload(t *testing.T) {
	tests := []struct {
		name    string
		want    Workload
		wantErr string
	}{
		{name: "mix", want: Workload{Name: "mix", SyscallsPerIter: 5, Syscalls: []string{"dup", "close", "getpid", "getuid", "umask"}}},
		{name: "getpid", want: Workload{Name: "getpid", SyscallsPerIter: 1, Syscalls: []string{"getpid"}}},
		{name: "close", want: Workload{Name: "close", SyscallsPerIter: 2, Syscalls: []string{"dup", "close"}}},
		{name: "exec", want: Workload{Name: "exec", SyscallsPerIter: 1, PathDirs: 1, Syscalls: []string{"clone", "execve", "exit", "wait4"}}},
		{name: "execvpe-miss", want: Workload{Name: "execvpe-miss", SyscallsPerIter: 1, PathDirs: 8, Syscalls: []string{"clone", "execve", "exit", "wait4"}}},
		{name: "notify", want: Workload{Name: "notify", SyscallsPerIter: 1, Syscalls: []string{"getppid"}}},
		{name: "syscall", wantErr: `unknown workload "syscall": use one of close, getpid, mix, exec, execvpe-miss, notify`},
		{name: "fork", wantErr: `unknown workload "fork": use one of close, getpid, mix, exec, execvpe-miss, notify`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LookupWorkload(tt.name)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Op = "" // checked below
			if got.Name != tt.want.Name || got.SyscallsPerIter != tt.want.SyscallsPerIter || got.PathDirs != tt.want.PathDirs || !slices.Equal(got.Syscalls, tt.want.Syscalls) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if got, want := ExecvpeMissWorkload(3).Op, "one clone + 3 execve attempts along a 3-directory PATH (2 ENOENT misses) + exit + wait4"; got != want {
		t.Errorf("ExecvpeMissWorkload(3).Op = %q, want %q", got, want)
	}
}

// TestWorkloadTableCopies: callers get copies; changing one changes
// neither the table nor later lookups.
func TestWorkloadTableCopies(t *testing.T) {
	w, _ := LookupWorkload("mix")
	w.Syscalls[0] = "changed"
	WorkloadTable()[0].Syscalls[0] = "changed"
	Workloads()["getpid"].Syscalls[0] = "changed"
	wi, _ := FindWorkload("close")
	wi.Syscalls[0] = "changed"
	if w2, _ := LookupWorkload("mix"); w2.Syscalls[0] != "dup" {
		t.Errorf("mix syscalls %v after a caller changed its copy", w2.Syscalls)
	}
	if got := Workloads()["getpid"].Syscalls; got[0] != "getpid" {
		t.Errorf("getpid syscalls %v after a caller changed its copy", got)
	}
	for _, wi := range WorkloadTable() {
		if slices.Contains(wi.Syscalls, "changed") {
			t.Errorf("table row %+v changed by a caller", wi)
		}
	}
}
