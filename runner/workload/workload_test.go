package workload

import (
	"slices"
	"strings"
	"testing"
)

// TestWorkloadTable checks that every reader of the table sees the same
// rows: Lookup, Loops, Usage and the child's loop kind.
func TestTable(t *testing.T) {
	for _, wi := range Table() {
		t.Run(wi.Name, func(t *testing.T) {
			if wi.Kind == 0 {
				t.Errorf("no loop kind: the child could not run %q", wi.Name)
			}
			if wi.Help == "" || wi.Op == "" || wi.SyscallsPerIter < 1 {
				t.Errorf("incomplete row %+v", wi)
			}
			w, err := Lookup(wi.Name)
			if !wi.ByName {
				if err == nil {
					t.Errorf("Lookup(%q) = %+v, want an error: --workload does not select it", wi.Name, w)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Name != wi.Name || w.SyscallsPerIter != wi.SyscallsPerIter || w.PathDirs != wi.PathDirs || !slices.Equal(w.Syscalls, wi.Syscalls) {
				t.Errorf("Lookup(%q) = %+v, want the row %+v", wi.Name, w, wi)
			}
			if len(w.Syscalls) == 0 {
				t.Errorf("%q lists no syscalls for lint and preflight", wi.Name)
			}
			if got := w.PathDirs > 0; got != wi.NeedsExecFixture() {
				t.Errorf("PathDirs %d, NeedsExecFixture %v", w.PathDirs, wi.NeedsExecFixture())
			}
			if !strings.Contains(Usage(), wi.Name+" ("+wi.Help+")") {
				t.Errorf("Usage() = %q does not describe %q", Usage(), wi.Name)
			}
			if _, ok := Loops()[wi.Name]; ok == wi.NeedsExecFixture() {
				t.Errorf("Loops() has %q: %v, want %v", wi.Name, ok, !ok)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name    string
		want    Spec
		wantErr string
	}{
		{name: "mix", want: Spec{Name: "mix", SyscallsPerIter: 5, Syscalls: []string{"dup", "close", "getpid", "getuid", "umask"}}},
		{name: "getpid", want: Spec{Name: "getpid", SyscallsPerIter: 1, Syscalls: []string{"getpid"}}},
		{name: "close", want: Spec{Name: "close", SyscallsPerIter: 2, Syscalls: []string{"dup", "close"}}},
		{name: "exec", want: Spec{Name: "exec", SyscallsPerIter: 1, PathDirs: 1, Syscalls: []string{"clone", "execve", "exit", "wait4"}}},
		{name: "execvpe-miss", want: Spec{Name: "execvpe-miss", SyscallsPerIter: 1, PathDirs: 8, Syscalls: []string{"clone", "execve", "exit", "wait4"}}},
		{name: "notify", want: Spec{Name: "notify", SyscallsPerIter: 1, Syscalls: []string{"getppid"}}},
		{name: "syscall", wantErr: `unknown workload "syscall": use one of close, getpid, mix, exec, execvpe-miss, notify`},
		{name: "fork", wantErr: `unknown workload "fork": use one of close, getpid, mix, exec, execvpe-miss, notify`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Lookup(tt.name)
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
	if got, want := ExecvpeMiss(3).Op, "one clone + 3 execve attempts along a 3-directory PATH (2 ENOENT misses) + exit + wait4"; got != want {
		t.Errorf("ExecvpeMiss(3).Op = %q, want %q", got, want)
	}
}

// TestTableCopies: callers get copies; changing one changes
// neither the table nor later lookups.
func TestTableCopies(t *testing.T) {
	w, _ := Lookup("mix")
	w.Syscalls[0] = "changed"
	Table()[0].Syscalls[0] = "changed"
	Loops()["getpid"].Syscalls[0] = "changed"
	wi, _ := Find("close")
	wi.Syscalls[0] = "changed"
	if w2, _ := Lookup("mix"); w2.Syscalls[0] != "dup" {
		t.Errorf("mix syscalls %v after a caller changed its copy", w2.Syscalls)
	}
	if got := Loops()["getpid"].Syscalls; got[0] != "getpid" {
		t.Errorf("getpid syscalls %v after a caller changed its copy", got)
	}
	for _, wi := range Table() {
		if slices.Contains(wi.Syscalls, "changed") {
			t.Errorf("table row %+v changed by a caller", wi)
		}
	}
}
