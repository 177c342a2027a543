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

// TestCompletionShells: a shell with no script, or none, is a usage error
// (exit 2) naming the shells; a known one prints its script.
func TestCompletionShells(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"completion", "tcsh"}, 2, `completion: no script for shell "tcsh"; want bash, fish, powershell or zsh`},
		{[]string{"completion"}, 2, "completion: name a shell: bash, fish, powershell or zsh"},
		{[]string{"completion", "bash"}, 0, "bash completion"},
	} {
		code, out, errs := runCmd(t, "", tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.want) {
			t.Errorf("seccompbench %s: exit %d, want %d with %q\n%s%s", strings.Join(tt.args, " "), code, tt.code, tt.want, out, errs)
		}
	}
}
