package complete

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// complete runs cobra's hidden __complete command on a small tree that
// Register has taught, and returns the candidates it prints (without the
// trailing ":directive" line).
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	root := &cobra.Command{Use: "seccompbench"}
	sub := &cobra.Command{Use: "simulate POLICY...", RunE: func(*cobra.Command, []string) error { return nil }}
	sub.Flags().String("format", "text", "output format: text or json")
	sub.Flags().String("workload", "", "the workload")
	sub.Flags().String("syscall", "", "syscall names")
	sub.Flags().String("arch", "", "ABI")
	root.AddCommand(sub)
	Register(root)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, args...))
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(l, ":") && l != "" {
			got = append(got, l)
		}
	}
	return got
}

func TestRegister(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		want     []string // exactly these, in order, when all is true
		contains []string
		all      bool
	}{
		{name: "format filtered by the flag's help", args: []string{"simulate", "--format", ""}, want: []string{"text", "json"}, all: true},
		{name: "workloads", args: []string{"simulate", "--workload", ""}, contains: []string{"getpid", "command"}},
		{name: "built-in policies", args: []string{"simulate", "d"}, contains: []string{"default", "docker-default"}},
		{name: "syscalls of the named ABI", args: []string{"simulate", "--arch", "aarch64", "--syscall", "getpp"}, want: []string{"getppid"}, all: true},
		{name: "last of a syscall list", args: []string{"simulate", "--syscall", "read,getpp"}, want: []string{"read,getppid"}, all: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := complete(t, tt.args...)
			if tt.all && strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			for _, w := range tt.contains {
				found := false
				for _, g := range got {
					found = found || g == w
				}
				if !found {
					t.Errorf("got %q, want it to contain %q", got, w)
				}
			}
		})
	}
}
