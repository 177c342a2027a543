package result

import (
	"strings"
	"syscall"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

func TestCommandErrorText(t *testing.T) {
	tests := []struct {
		err  CommandError
		want string
	}{
		{CommandError{Stage: "run", Run: 1, ExitCode: 2, Syscall: -1}, "run 2: command exited with status 2"},
		{CommandError{Stage: "run", Run: 1, ExitCode: 2, Syscall: -1, Filters: 3}, "run 2: command exited with status 2 (a syscall the stack denies"},
		{CommandError{Stage: "run", Run: -1, ExitCode: -1, Signal: syscall.SIGSYS, Syscall: 63, AuditArch: filters.AuditArchX86_64, Pid: 9}, "warm-up run 1: command killed by signal SIGSYS (bad system call) after syscall uname (nr 63) in pid 9"},
		{CommandError{Stage: "exec", Run: 0, Errno: syscall.EPERM, Syscall: -1}, "run 1: execve of the command: operation not permitted (the stack may deny execve)"},
		{CommandError{Stage: "install", Run: 0, Errno: syscall.ENOMEM, Filter: 4, Syscall: -1}, "run 1: install filter 5: seccomp(2): cannot allocate memory"},
		{CommandError{Stage: "install", Run: 2, ExitCode: 2, Filter: 3, Syscall: -1}, "run 3: the wrapper ended before execve of the command, with 3 filters installed, exit status 2"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("Error() = %q, want prefix %q", got, tt.want)
		}
	}
}
