package main

import (
	"strings"
	"testing"
)

// TestCompletion: shell completion offers flag values, syscall names and
// the built-in policies, through cobra's hidden __complete command that
// the generated scripts call.
func TestCompletion(t *testing.T) {
	for _, tt := range []struct {
		name      string
		args      []string
		want, not []string
	}{
		{"workload", []string{"__complete", "run", "--workload", ""}, []string{"getpid\n", "mix\n", "command\n"}, nil},
		{"run cache has both", []string{"__complete", "run", "--cache", ""}, []string{"on\n", "defeat\n", "both\n"}, nil},
		{"estimate cache has no both", []string{"__complete", "estimate", "--cache", ""}, []string{"on\n", "defeat\n"}, []string{"both\n"}},
		{"loader", []string{"__complete", "run", "--loader", ""}, []string{"unprivileged\n", "privileged\n"}, nil},
		{"lint format", []string{"__complete", "lint", "--format", ""}, []string{"text\n", "json\n"}, []string{"png\n"}},
		{"syscall", []string{"__complete", "simulate", "default", "--syscall", "getpp"}, []string{"getppid\n"}, []string{"getpid\n"}},
		{"i386 syscall", []string{"__complete", "simulate", "default", "--arch", "i386", "--syscall", "getuid3"}, []string{"getuid32\n"}, nil},
		{"policy", []string{"__complete", "simulate", "d"}, []string{"default\n", "docker-default\n"}, nil},
		{"format-in", []string{"__complete", "lint", "--format-in", ""}, []string{"minijail\n", "lxc\n", "auto\n"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, out, errs := runCmd(t, "", tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("completion lacks %q:\n%s%s", w, out, errs)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(out, w) {
					t.Errorf("completion offers %q:\n%s", w, out)
				}
			}
		})
	}
}
