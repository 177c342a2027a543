package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/sandbox"
)

func TestNewCmdSandboxFlags(t *testing.T) {
	tests := []struct {
		args    string
		wantErr string
		want    string // policies|command|filters|defeat
	}{
		{"default --filters 3 -- sleep 5", "", "[default]|[sleep 5]|3|false"},
		{"a.yaml b.yaml --defeat-cache -- sh -c true", "", "[a.yaml b.yaml]|[sh -c true]|0|true"},
		{"default", "after --", ""},
		{"default --", "after --", ""},
		{"-- sleep 1", "at least one POLICY", ""},
		{"default --filters -2 -- true", "negative", ""},
		{"default --loader both -- true", "one process has one loader", ""},
		{"default --loader root -- true", "--loader", ""},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got := parseFlags(t, NewCmdSandbox, strings.Fields(tt.args), errContaining(tt.wantErr))
			if got == nil {
				return
			}
			if s := fmt.Sprintf("%v|%v|%d|%v", got.Policies, got.Command, got.Filters, got.DefeatCache); s != tt.want {
				t.Errorf("got %s, want %s", s, tt.want)
			}
		})
	}
}

// TestSandboxRefusesDeniedExecve checks the preflight: a stack that does
// not allow execve is refused before anything is installed (else this test
// process would end up filtered).
func TestSandboxRefusesDeniedExecve(t *testing.T) {
	policy := filepath.Join(t.TempDir(), "noexec.yaml")
	if err := os.WriteFile(policy, []byte("default_action: allow\nsyscalls:\n  - action: errno\n    names: [execve]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	filtersNow := func() string {
		b, _ := os.ReadFile("/proc/self/status")
		_, v, _ := strings.Cut(string(b), "Seccomp_filters:")
		return strings.TrimSpace(strings.SplitN(v, "\n", 2)[0])
	}
	before := filtersNow()
	ios, _, _, _ := cmdutil.TestIOStreams()
	err := sandboxRun(&SandboxOptions{IO: ios, Options: sandbox.Options{Policies: []string{policy}, Command: []string{"true"}}})
	if err == nil || !strings.Contains(err.Error(), "execve") {
		t.Fatalf("got %v, want a refusal naming execve", err)
	}
	if after := filtersNow(); after != before {
		t.Fatalf("Seccomp_filters of the test process went from %q to %q", before, after)
	}
}

// TestSandboxWarnsAboutNotify: a policy returning SECCOMP_RET_USER_NOTIF
// is installed (the command may be meant to meet it), with a warning that
// no listener answers; a command that does not hit it runs normally.
func TestSandboxWarnsAboutNotify(t *testing.T) {
	bin := buildBinary(t)
	policy := filepath.Join(t.TempDir(), "notify.json")
	prof := `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_NOTIFY"}]}`
	if err := os.WriteFile(policy, []byte(prof), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "sandbox", policy, "--", "true").CombinedOutput()
	if err != nil {
		t.Fatalf("sandbox: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "SECCOMP_RET_USER_NOTIF") || !strings.Contains(string(out), "fail with ENOSYS") {
		t.Errorf("no notify warning:\n%s", out)
	}
}

// TestSandboxLoader: by default the command runs, as under runc, without
// CAP_SYS_ADMIN in any set (it was dropped before the filters went in);
// --loader privileged keeps it.
func TestSandboxLoader(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to hold CAP_SYS_ADMIN")
	}
	bin := buildBinary(t)
	const sysAdmin = uint64(1) << 21
	for _, tt := range []struct {
		loader string
		want   bool
	}{{"unprivileged", false}, {"privileged", true}} {
		out, err := exec.Command(bin, "sandbox", "default", "--loader", tt.loader, "--", "grep", "^Cap", "/proc/self/status").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.loader, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			k, v, _ := strings.Cut(line, ":")
			if k != "CapEff" && k != "CapPrm" && k != "CapBnd" {
				continue
			}
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", tt.loader, line, err)
			}
			if got := n&sysAdmin != 0; got != tt.want {
				t.Errorf("--loader %s: %s has CAP_SYS_ADMIN %v, want %v", tt.loader, k, got, tt.want)
			}
		}
	}
}
