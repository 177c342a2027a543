package kubernetes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/formattest"
)

// verdict runs p on an x86_64 call of name with args.
func TestDetect(t *testing.T) {
	for _, f := range formattest.Files(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		got := Detect(b)
		want := filepath.Base(f) == "k8s-profiles.yaml"
		if got != want {
			t.Errorf("Detect(%s) = %v, want %v", f, got, want)
		}
	}
	if !Detect([]byte(`{"apiVersion": "security-profiles-operator.x-k8s.io/v1beta1", "kind": "SeccompProfile"}`)) {
		t.Error("Detect(JSON object) = false, want true")
	}
}

// TestVerdicts checks the multi-document example against verdicts worked
// out by hand from the profile, its base and runc's ENOSYS stub (the
// highest number the profile names on x86_64 is epoll_create1, 291).
func TestVerdicts(t *testing.T) {
	progs, warns, err := Load("k8s-profiles.yaml", formattest.Read(t, "k8s-profiles.yaml"), Options{Name: "checkout-api"})
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) != 1 || progs[0].Name != "checkout-api" || len(warns) != 0 {
		t.Fatalf("got %d programs named %q, warnings %q; want checkout-api, none", len(progs), progs[0].Name, warns)
	}
	p := progs[0]
	tests := []struct {
		name  string
		arch  *filters.Arch
		args  []uint64
		want  filters.Action
		errno uint16
	}{
		{"read", filters.ArchX86_64, nil, filters.ActionAllow, 0},                 // from the base
		{"exit_group", filters.ArchX86_64, nil, filters.ActionAllow, 0},           // from the base
		{"openat", filters.ArchX86_64, nil, filters.ActionAllow, 0},               // its own
		{"clone", filters.ArchX86_64, []uint64{0x3d0f00}, filters.ActionAllow, 0}, // a thread
		{"clone", filters.ArchX86_64, []uint64{0x10000000}, filters.ActionErrno, 1},
		{"ptrace", filters.ArchX86_64, nil, filters.ActionErrno, 13},
		{"execve", filters.ArchX86_64, nil, filters.ActionErrno, 1},      // default: EPERM
		{"pidfd_open", filters.ArchX86_64, nil, filters.ActionErrno, 38}, // 434 > 291: runc's stub
		{"read", filters.ArchI386, nil, filters.ActionKillThread, 0},     // not a listed arch
	}
	for _, tt := range tests {
		act, data := formattest.Verdict(t, p, tt.arch, tt.name, tt.args...)
		if act != tt.want || data != tt.errno {
			t.Errorf("%s %s(%#x) = %v/%d, want %v/%d", tt.arch, tt.name, tt.args, act, data, tt.want, tt.errno)
		}
	}
	base, _, err := Load("k8s-profiles.yaml", formattest.Read(t, "k8s-profiles.yaml"), Options{Name: "shop/go-runtime-base"})
	if err != nil {
		t.Fatal(err)
	}
	if act, data := formattest.Verdict(t, base[0], filters.ArchX86_64, "openat"); act != filters.ActionErrno || data != 1 {
		t.Errorf("base: openat = %v/%d, want errno/1", act, data)
	}
}

func TestBaseFromExtraInput(t *testing.T) {
	child := `apiVersion: security-profiles-operator.x-k8s.io/v1beta1
kind: SeccompProfile
metadata: {name: app}
spec:
  defaultAction: SCMP_ACT_ERRNO
  baseProfileName: base
  syscalls:
    - {action: SCMP_ACT_ALLOW, names: [write]}
    - {action: SCMP_ACT_ALLOW, names: [nosuchcall]}
`
	base := `apiVersion: security-profiles-operator.x-k8s.io/v1beta1
kind: SeccompProfile
metadata: {name: base}
spec:
  defaultAction: SCMP_ACT_ERRNO
  syscalls:
    - {action: SCMP_ACT_ALLOW, names: [read]}
    - {action: SCMP_ACT_LOG, names: [write]}
`
	progs, warns, err := Load("app.yaml", []byte(child), Options{Bases: map[string][]byte{"base.yaml": []byte(base)}})
	if err != nil {
		t.Fatal(err)
	}
	if act, _ := formattest.Verdict(t, progs[0], filters.ArchX86_64, "read"); act != filters.ActionAllow {
		t.Errorf("read = %v, want allow (from base.yaml)", act)
	}
	if act, _ := formattest.Verdict(t, progs[0], filters.ArchX86_64, "write"); act != filters.ActionAllow {
		t.Errorf("write = %v, want allow (the profile's own entry wins)", act)
	}
	wantWarn := []string{
		`base.yaml:8:38: base profile "base" gives write SCMP_ACT_LOG, but "app" already gave it SCMP_ACT_ALLOW, which wins`,
		`app.yaml:9:40: syscall "nosuchcall" is unknown`,
	}
	if len(warns) != len(wantWarn) {
		t.Fatalf("warnings = %q, want %d", warns, len(wantWarn))
	}
	for i, w := range wantWarn {
		if !strings.HasPrefix(warns[i], w) {
			t.Errorf("warning %d = %q, want prefix %q", i, warns[i], w)
		}
	}
}

// TestList reads kubectl's List output, whose items are the profiles.
func TestList(t *testing.T) {
	src := `apiVersion: v1
kind: List
items:
- apiVersion: security-profiles-operator.x-k8s.io/v1beta1
  kind: SeccompProfile
  metadata:
    name: nginx
    namespace: web
    creationTimestamp: "2026-11-30T08:00:00Z"
  spec:
    defaultAction: SCMP_ACT_LOG
    syscalls:
    - action: SCMP_ACT_ERRNO
      names: [ptrace]
  status:
    status: Installed
- apiVersion: security-profiles-operator.x-k8s.io/v1beta1
  kind: SeccompProfile
  metadata: {name: redis, namespace: web}
  spec: {defaultAction: SCMP_ACT_ALLOW}
`
	if !Detect([]byte(src)) {
		t.Error("Detect(List) = false")
	}
	_, _, err := Load("list.yaml", []byte(src), Options{})
	if err == nil || !strings.Contains(err.Error(), "the file holds 2 SeccompProfiles (nginx, redis)") {
		t.Errorf("Load without a name: %v, want the names listed", err)
	}
	progs, _, err := Load("list.yaml", []byte(src), Options{Name: "web/nginx"})
	if err != nil {
		t.Fatal(err)
	}
	if act, data := formattest.Verdict(t, progs[0], filters.ArchX86_64, "ptrace"); act != filters.ActionErrno || data != 1 {
		t.Errorf("ptrace = %v/%d, want errno/1", act, data)
	}
	if act, _ := formattest.Verdict(t, progs[0], filters.ArchX86_64, "read"); act != filters.ActionLog {
		t.Errorf("read = %v, want log", act)
	}
}

// TestUnmodeledWarnings checks that what the filter leaves out is said.
func TestUnmodeledWarnings(t *testing.T) {
	src := `apiVersion: security-profiles-operator.x-k8s.io/v1beta1
kind: SeccompProfile
metadata: {name: agent}
spec:
  disabled: true
  defaultAction: SCMP_ACT_ALLOW
  flags: [SECCOMP_FILTER_FLAG_LOG]
  listenerPath: /run/agent/seccomp.sock
`
	_, warns, err := Load("agent.yaml", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`agent.yaml:6:18: profile "agent" has spec.disabled: true`,
		"agent.yaml:7:3: spec.flags is not modeled",
		"agent.yaml:8:3: spec.listenerPath is not modeled",
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q, want %d", warns, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(warns[i], w) {
			t.Errorf("warning %q, want prefix %q", warns[i], w)
		}
	}
}

func TestErrors(t *testing.T) {
	head := "apiVersion: security-profiles-operator.x-k8s.io/v1beta1\nkind: SeccompProfile\nmetadata:\n  name: p\n"
	tests := []struct {
		name, src, opt, want string
	}{
		{"syntax", head + "spec:\n  defaultAction: [\n", "", "p.yaml:6:"},
		{"no default", head + "spec:\n  syscalls: []\n", "", "p.yaml:6:3: invalid Kubernetes SeccompProfile: spec of \"p\" has no defaultAction"},
		{"bad action", head + "spec:\n  defaultAction: SCMP_ACT_DENY\n", "", "p.yaml:6:18: invalid Kubernetes SeccompProfile: unknown action \"SCMP_ACT_DENY\""},
		{"bad op", head + "spec:\n  defaultAction: SCMP_ACT_ERRNO\n  syscalls:\n  - names: [read]\n    action: SCMP_ACT_ALLOW\n    args: [{index: 0, value: 1, op: EQ}]\n",
			"", `p.yaml:10:37: invalid Kubernetes SeccompProfile: spec.syscalls[0].args[0]: unknown op "EQ"`},
		{"bad index", head + "spec:\n  defaultAction: SCMP_ACT_ERRNO\n  syscalls:\n  - names: [read]\n    action: SCMP_ACT_ALLOW\n    args: [{index: 6, value: 1, op: SCMP_CMP_EQ}]\n",
			"", "p.yaml:10:20: invalid Kubernetes SeccompProfile: spec.syscalls[0].args[0].index 6: want an integer from 0 to 5"},
		{"unknown key", head + "spec:\n  defaultAction: SCMP_ACT_ERRNO\n  default_action: errno\n", "", `p.yaml:7:3: invalid Kubernetes SeccompProfile: unknown key "default_action" in spec`},
		{"mips", head + "spec:\n  defaultAction: SCMP_ACT_ERRNO\n  architectures: [SCMP_ARCH_MIPS]\n", "", `p.yaml:7:19: invalid Kubernetes SeccompProfile: architecture "SCMP_ARCH_MIPS"`},
		{"missing base", head + "spec:\n  defaultAction: SCMP_ACT_ERRNO\n  baseProfileName: runtime-base\n", "",
			`p.yaml:7:20: invalid Kubernetes SeccompProfile: base profile "runtime-base" is neither in this file nor among the extra inputs`},
		{"operator base", head + "spec:\n  defaultAction: SCMP_ACT_ERRNO\n  baseProfileName: runc:v1.1.12\n", "",
			`p.yaml:7:20: invalid Kubernetes SeccompProfile: base profile "runc:v1.1.12" is one the operator pulls itself`},
		{"cycle", head + "spec:\n  defaultAction: SCMP_ACT_ERRNO\n  baseProfileName: p\n", "", `base profiles form a cycle through "p"`},
		{"several", head + "spec: {defaultAction: SCMP_ACT_ALLOW}\n---\n" + strings.Replace(head, "name: p", "name: q", 1) + "spec: {defaultAction: SCMP_ACT_LOG}\n", "",
			"p.yaml: invalid Kubernetes SeccompProfile: the file holds 2 SeccompProfiles (p, q); choose one by name"},
		{"wrong name", head + "spec: {defaultAction: SCMP_ACT_ALLOW}\n", "r", `p.yaml: invalid Kubernetes SeccompProfile: no SeccompProfile named "r"; the file holds p`},
		{"unknown version", strings.Replace(head, "/v1beta1", "/v2", 1) + "spec: {defaultAction: SCMP_ACT_ALLOW}\n", "",
			`p.yaml:1:13: invalid Kubernetes SeccompProfile: apiVersion "security-profiles-operator.x-k8s.io/v2": want security-profiles-operator.x-k8s.io/v1, /v1beta1 or /v1alpha1`},
		{"none", "apiVersion: v1\nkind: ConfigMap\n", "", "p.yaml:1:1: invalid Kubernetes SeccompProfile: no SeccompProfile object; the file holds ConfigMap"},
		{"errnoRet on allow", head + "spec:\n  defaultAction: SCMP_ACT_ERRNO\n  syscalls:\n  - {names: [read], action: SCMP_ACT_ALLOW, errnoRet: 5}\n",
			"", "p.yaml:8:55: invalid Kubernetes SeccompProfile: spec.syscalls[0]: errnoRet is only allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load("p.yaml", []byte(tt.src), Options{Name: tt.opt})
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrBadProfile) {
				t.Errorf("error %v does not wrap ErrBadProfile", err)
			}
			var se *filters.SourceError
			if !errors.As(err, &se) {
				t.Errorf("error %T is no *filters.SourceError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestAPIVersions: the operator's current examples use v1
// (examples/seccompprofile.yaml), older ones v1beta1 and v1alpha1; all
// three load to the same profile.
func TestAPIVersions(t *testing.T) {
	for _, v := range []string{"v1", "v1beta1", "v1alpha1"} {
		src := "apiVersion: security-profiles-operator.x-k8s.io/" + v + "\nkind: SeccompProfile\nmetadata:\n  name: p\nspec:\n  defaultAction: SCMP_ACT_ERRNO\n"
		if _, _, err := Load("p.yaml", []byte(src), Options{}); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}
