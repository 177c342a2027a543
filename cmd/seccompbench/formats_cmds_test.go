package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

// policiesDir is the policy corpus, testdata/policies.
var policiesDir = filepath.Join("..", "..", "testdata", "policies")

// runCmd runs the command line with stdin and returns its exit code,
// stdout and stderr.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestLoadFlagsParse: the load flags parse on every command that loads
// policies, and bad values are usage errors.
func TestLoadFlagsParse(t *testing.T) {
	base := filepath.Join(policiesDir, "k8s-profiles.yaml")
	o := parseFlags(t, NewCmdSimulate, []string{"p", "--syscall", "read", "--thread", "vcpu", "--profile-name", "shop/checkout-api",
		"--base", base, "--base", base, "--caps", "none", "--kernel-version", "5.4", "--format-in", "k8s"}, errContaining(""))
	if o.Load.Thread != "vcpu" || o.Load.ProfileName != "shop/checkout-api" || len(o.Load.Bases) != 2 || o.Load.Caps != "none" ||
		o.Load.KernelVersion != "5.4" || o.Load.FormatIn != "k8s" {
		t.Errorf("simulate load flags = %+v", o.Load)
	}
	l := parseFlags(t, NewCmdLint, []string{"p", "--arch", "aarch64", "--caps", "default,-net_raw"}, errContaining(""))
	if l.Load.Arch != "aarch64" || l.Load.Caps != "default,-net_raw" {
		t.Errorf("lint load flags = %+v", l.Load)
	}
	c := parseFlags(t, NewCmdCompile, []string{"p", "--thread", "api", "--arch", "x86_64"}, errContaining(""))
	if c.Load.Thread != "api" || c.Load.Arch != "x86_64" {
		t.Errorf("compile load flags = %+v", c.Load)
	}
	e := parseFlags(t, NewCmdEstimate, []string{"p", "--profile", "x.csv", "--kernel-version", "4.19"}, errContaining(""))
	if e.Open.OCI.KernelVersion != "4.19" {
		t.Errorf("estimate load options = %+v", e.Open)
	}
	r := parseFlags(t, NewCmdRun, []string{"p", "--thread", "vmm", "--caps", "all", "--profile-name", "x"}, errContaining(""))
	if r.Open.Thread != "vmm" || r.Open.ProfileName != "x" || len(r.OCI.Caps) == 0 {
		t.Errorf("run load options = %+v, OCI %+v", r.Open, r.OCI)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"thread", []string{"p", "--syscall", "read", "--thread", "io"}, `--thread: "io" is not vmm, api or vcpu`},
		{"caps", []string{"p", "--syscall", "read", "--caps", "cap_bogus"}, "--caps"},
		{"kernel", []string{"p", "--syscall", "read", "--kernel-version", "new"}, "want major.minor"},
		{"format-in", []string{"p", "--syscall", "read", "--format-in", "kafel3"}, "--format-in"},
	} {
		t.Run(tt.name, func(t *testing.T) { parseFlags(t, NewCmdSimulate, tt.args, usageErrContaining(tt.want)) })
	}
	parseFlags(t, NewCmdLint, []string{"p", "--arch", "sparc"}, usageErrContaining("want x86_64, i386, x32, aarch64, arm or riscv64"))
}

// TestStdinPolicy: "-" reads the policy from standard input on lint,
// simulate, compile and run; twice is a usage error.
func TestStdinPolicy(t *testing.T) {
	unit := "[Service]\nSystemCallFilter=~getpid\n"
	yaml, err := os.ReadFile(filepath.Join(policiesDir, "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"lint unit", unit, []string{"lint", "-"}, 0, "0 errors"},
		{"simulate unit", unit, []string{"simulate", "-", "--syscall", "getpid"}, 0, "KILL_PROCESS from filter 2 (stdin/SystemCallFilter/x86_64)"},
		{"compile unit", unit, []string{"compile", "-"}, 0, "3 filters"},
		{"compile --systemd-stack -", unit, []string{"compile", "--systemd-stack", "-"}, 0, "3 filters"},
		{"compile yaml", string(yaml), []string{"compile", "-", "--format", "json"}, 0, `"source": "stdin"`},
		{"run unit", unit, []string{"run", "-", "--workload", "getpid", "-q"}, 1, "calls getpid, which is killed (KILL_PROCESS)"},
		{"twice", unit, []string{"lint", "-", "-"}, 2, "given 2 times"},
		{"empty", "", []string{"simulate", "-", "--syscall", "read"}, 1, "stdin"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(out+errs, tt.want) {
				t.Errorf("exit %d, want %d with %q; stdout:\n%s\nstderr:\n%s", code, tt.code, tt.want, out, errs)
			}
		})
	}
}

// TestUnitsEverywhere: a unit given as POLICY is its modeled stack in
// simulate (which directive's filter decided), lint (findings per
// directive filter) and compile (--save writes inspect --save's layout).
func TestUnitsEverywhere(t *testing.T) {
	dir := t.TempDir()
	unit := filepath.Join(dir, "go.service")
	// @system-service denies nothing a Go program needs; a deny list of
	// @privileged and clone kills Go's thread start.
	if err := os.WriteFile(unit, []byte("[Service]\nSystemCallArchitectures=native\nSystemCallFilter=@system-service\nSystemCallFilter=~clone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "simulate", unit, "--syscall", "clone")
	if code != 0 || !strings.Contains(out, "verdict   KILL_PROCESS from filter 1 (go/SystemCallFilter/x86_64)") {
		t.Errorf("simulate: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "simulate", unit, "--syscall", "read", "--format", "json")
	var doc document.SimulateDoc
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Stack) != 2 || doc.Syscalls[0].Action != "allow" {
		t.Errorf("simulate json: exit %d, err %v, doc %+v\n%s", code, err, doc, errs)
	}
	code, out, errs = runCmd(t, "", "lint", unit)
	if code != 3 || !strings.Contains(out, "error: filter 1 (go/SystemCallFilter/x86_64) [runtime-needs]: clone is killed") {
		t.Errorf("lint: exit %d\n%s%s", code, out, errs)
	}
	save := filepath.Join(dir, "stack")
	code, out, errs = runCmd(t, "", "compile", "--systemd-stack", unit, "--save", save)
	if code != 0 || !strings.HasSuffix(out, "2 filters\n") {
		t.Fatalf("compile --save: exit %d\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(save, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m document.InspectManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.SchemaVersion != document.ManifestVersion || m.Modeled != document.ModeledSystemd || m.ModeledFrom != unit || m.ModeledFormat != "systemd" || m.ModeledLayout == "" {
		t.Errorf("manifest: schema_version %d, modeled %q from %q (format %q, layout %q); want %d, %q from %q, format systemd and a layout",
			m.SchemaVersion, m.Modeled, m.ModeledFrom, m.ModeledFormat, m.ModeledLayout, document.ManifestVersion, document.ModeledSystemd, unit)
	}
	want := []document.InspectSavedFilter{{Index: 0, File: "filter-00.bpf", Directive: "SystemCallArchitectures", Arch: "all"},
		{Index: 1, File: "filter-01.bpf", Directive: "SystemCallFilter", Arch: "x86_64"}}
	if len(m.Filters) != len(want) {
		t.Fatalf("manifest filters = %+v, want %+v", m.Filters, want)
	}
	for i, f := range m.Filters {
		w := want[i]
		if f.Index != w.Index || f.File != w.File || f.Directive != w.Directive || f.Arch != w.Arch || f.Instructions == 0 {
			t.Errorf("manifest filter %d = %+v, want %+v", i, f, w)
		}
	}
	// The saved filters are the stack: simulating them as raw BPF gives
	// the unit's verdict.
	code, out, errs = runCmd(t, "", "simulate", filepath.Join(save, "filter-00.bpf"), filepath.Join(save, "filter-01.bpf"), "--syscall", "clone")
	if code != 0 || !strings.Contains(out, "verdict   KILL_PROCESS from filter 1") {
		t.Errorf("simulate saved stack: exit %d\n%s%s", code, out, errs)
	}
}

// TestLocalUnitsModeledStack holds the modeled stack of Debian 12's
// systemd 252 units (copied to testdata/units from
// /lib/systemd/system): per directive, its filters' architectures in
// install order. This is the model, not yet compared with what a
// running systemd installs (docs/policy-formats.md says so).
func TestLocalUnitsModeledStack(t *testing.T) {
	all3 := "x86 x32 x86_64"
	common := []string{"RestrictAddressFamilies: x32 x86_64", "MemoryDenyWriteExecute: " + all3, "RestrictRealtime: " + all3,
		"RestrictSUIDSGID: " + all3, "RestrictNamespaces: " + all3}
	tail := []string{"SystemCallArchitectures: all", "LockPersonality: x86_64", "SystemCallFilter: x86_64"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tt := range []struct {
		unit string
		want []string
	}{
		{"systemd-journald.service", cat(common, []string{"ProtectClock: " + all3}, tail)},
		{"systemd-logind.service", cat([]string{"ProtectHostname: " + all3}, common, []string{"ProtectKernelModules: " + all3,
			"ProtectKernelLogs: " + all3, "ProtectClock: " + all3}, tail)},
		{"systemd-networkd.service", cat(common, []string{"ProtectKernelModules: " + all3, "ProtectKernelLogs: " + all3, "ProtectClock: " + all3}, tail)},
		{"systemd-timesyncd.service", cat([]string{"ProtectHostname: " + all3}, common, []string{"ProtectKernelTunables: x86 x86_64",
			"ProtectKernelModules: " + all3, "ProtectKernelLogs: " + all3, "PrivateDevices: " + all3}, tail)},
	} {
		t.Run(tt.unit, func(t *testing.T) {
			code, out, errs := runCmd(t, "", "compile", "--systemd-stack", filepath.Join("testdata", "units", tt.unit), "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var doc struct {
				Filters []struct {
					Name string `json:"name"`
				} `json:"filters"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			var got []string
			last := ""
			for _, f := range doc.Filters {
				parts := strings.Split(f.Name, "/")
				d, arch := parts[1], parts[2]
				if d == last {
					got[len(got)-1] += " " + arch
					continue
				}
				got = append(got, d+": "+arch)
				last = d
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("modeled stack:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestNewFormatsCommands: one real-shaped file per new format through
// simulate, and the OCI resolution stated in each output.
func TestNewFormatsCommands(t *testing.T) {
	p := func(name string) string { return filepath.Join(policiesDir, name) }
	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"firecracker side by side", []string{"simulate", p("firecracker-vmm.json"), "--syscall", "ioctl", "--args", "3,1075883638"}, 0,
			[]string{"== vmm ==", "== api ==", "== vcpu ==", "verdict   TRAP from filter 0 (api)"}},
		{"firecracker json alternatives", []string{"simulate", p("firecracker-vmm.json"), "--syscall", "read", "--format", "json"}, 0,
			[]string{`"alternative": "vmm"`, `"alternative": "vcpu"`, `"abis": [`}},
		{"firecracker --thread", []string{"simulate", p("firecracker-vmm.json"), "--thread", "api", "--syscall", "read"}, 0,
			[]string{"1 filter: api"}},
		{"firecracker compile needs a thread", []string{"compile", p("firecracker-vmm.json")}, 2, []string{"vmm, api, vcpu", "--thread vmm|api|vcpu"}},
		{"k8s needs a name", []string{"simulate", p("k8s-profiles.yaml"), "--syscall", "read"}, 2, []string{"go-runtime-base, checkout-api", "--profile-name"}},
		{"k8s", []string{"simulate", p("k8s-profiles.yaml"), "--profile-name", "checkout-api", "--syscall", "read"}, 0, []string{"verdict   ALLOW"}},
		{"lxc", []string{"simulate", p("lxc.seccomp"), "--syscall", "kexec_load"}, 0, []string{"ERRNO(38)"}},
		{"minijail", []string{"simulate", p("chrome-renderer.policy"), "--syscall", "ptrace"}, 0, []string{"ERRNO(1)"}},
		{"oci caps in text", []string{"simulate", p("podman-like.json"), "--syscall", "socket", "--args", "16,3,9", "--caps", "none", "--kernel-version", "4.4"}, 0,
			[]string{"capabilities: none; kernel 4.4; host arch x86_64"}},
		{"oci in compile json", []string{"compile", "docker-default", "--format", "json", "--caps", "all"}, 0, []string{`"oci": {`, `"caps_default": false`}},
		{"oci in lint", []string{"lint", "docker-default"}, 0, []string{"[oci-resolution]", "Docker's default set"}},
		{"kafel stdin", []string{"simulate", "-", "--syscall", "ptrace"}, 0, []string{"verdict   ERRNO(1)"}},
		{"kafel error at line:col", []string{"lint", "-", "--format-in", "kafel"}, 1, []string{"stdin:2:17: ", "Undefined identifier `nosuch'"}},
		{"nsjail simulate", []string{"simulate", "../../filters/kafel/testdata/bash-with-fake-geteuid.cfg", "--syscall", "geteuid"}, 0, []string{"verdict   ERRNO(1337)"}},
		{"nsjail compile unotify stack", []string{"compile", "../../filters/kafel/testdata/home-documents-unotify.cfg"}, 0,
			[]string{"a stack of 2 filters", "home-documents-unotify/unotify", "ret USER_NOTIF"}},
		{"nsjail lint", []string{"lint", "../../filters/kafel/testdata/imagemagick-convert.cfg"}, 3, []string{"(imagemagick-convert) [runtime-needs]: clone3 is killed (KILL_PROCESS)"}},
		{"snapd simulate ~ioctl", []string{"simulate", p("snap-default.src"), "--syscall", "ioctl", "--args", "1,21522"}, 0,
			[]string{"verdict   ERRNO(13) from filter 0 (snap-default/deny)"}},
		{"snapd simulate not listed", []string{"simulate", p("snap-default.src"), "--syscall", "ptrace"}, 0,
			[]string{"verdict   ERRNO(1) from filter 1 (snap-default/allow)"}},
		{"snapd lint", []string{"lint", p("snap-default.src")}, 0, []string{"(snap-default/allow) [runtime-needs]: eventfd2 fails with errno 1"}},
		{"snapd compile text", []string{"compile", p("snap-default.src")}, 0,
			[]string{"a stack of 2 filters, installed in this order", "== filter 0 of 2: snap-default/deny ==", "== filter 1 of 2: snap-default/allow ==", "ret ERRNO(13)"}},
		{"snapd compile raw refused", []string{"compile", p("snap-default.src"), "--format", "raw"}, 2,
			[]string{"installs a stack of 2 filters; use --format text, or --save DIR"}},
		{"nsjail config without seccomp named", []string{"simulate", "../../filters/unsupported/testdata/nsjail-noseccomp.cfg", "--syscall", "read"}, 2,
			[]string{"this is an nsjail config", "installs no seccomp filter"}},
		{"helm template named", []string{"compile", "../../filters/unsupported/testdata/helm-seccompprofile.yaml"}, 2,
			[]string{"Helm chart template", "helm template"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdin := ""
			switch tt.name {
			case "kafel stdin":
				stdin = "POLICY p { ALLOW { read }, ERRNO(1) { ptrace } }\nUSE p DEFAULT KILL\n"
			case "kafel error at line:col":
				stdin = "POLICY p {\n  ALLOW { read, nosuch }\n}\nUSE p DEFAULT KILL\n"
			}
			code, out, errs := runCmd(t, stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}

// TestSystemdDirectivesFlag: --systemd 'Directive=...' is a stack for
// simulate, lint and estimate as for run, and stands in for POLICY.
func TestSystemdDirectivesFlag(t *testing.T) {
	code, out, errs := runCmd(t, "", "simulate", "--systemd", "SystemCallFilter=@system-service", "--syscall", "reboot")
	if code != 0 || !strings.Contains(out, "KILL_PROCESS from filter 2 (--systemd/SystemCallFilter/x86_64)") {
		t.Errorf("simulate --systemd: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "lint", "--systemd", "SystemCallFilter=~clone", "default")
	if code != 3 || !strings.Contains(out, "(--systemd/SystemCallFilter/x86_64) [runtime-needs]: clone is killed") {
		t.Errorf("lint --systemd: exit %d\n%s%s", code, out, errs)
	}
	e := parseFlags(t, NewCmdEstimate, []string{"--systemd", "LockPersonality=yes", "--profile", "p.csv"}, errContaining(""))
	if e.Systemd != "LockPersonality=yes" {
		t.Errorf("estimate --systemd = %q", e.Systemd)
	}
	parseFlags(t, NewCmdLint, nil, errContaining("requires at least 1 arg"))
}
