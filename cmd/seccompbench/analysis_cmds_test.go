package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/simulate"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report/document"
)

const minimalPolicy = "../../testdata/policies/minimal.yaml"

func TestNewCmdCompileFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantFormat string
		wantErr    bool
	}{
		{"default format", []string{"default"}, "text", false},
		{"raw", []string{"default", "--format", "raw"}, "raw", false},
		{"bad format", []string{"default", "--format", "xml"}, "", true},
		{"no policy", nil, "", true},
		{"two policies", []string{"a", "b"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdCompile, tt.args, execWant{Err: tt.wantErr})
			if got != nil && got.Outputs()[0].Format != tt.wantFormat {
				t.Errorf("Format = %q, want %q", got.Outputs()[0].Format, tt.wantFormat)
			}
		})
	}
}

func TestNewCmdSimulateFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(*testing.T, *SimulateOptions)
		wantErr string
	}{
		{"syscall", []string{"default", "--syscall", "getpid"}, func(t *testing.T, o *SimulateOptions) {
			if o.Syscall != "getpid" || o.All || o.Format != "table" || o.Sort != "nr" {
				t.Errorf("opts = %+v", o)
			}
		}, ""},
		{"args", []string{"default", "--syscall", "write", "--args", "1,0x10,-1"}, func(t *testing.T, o *SimulateOptions) {
			if !slices.Equal(o.Args, []uint64{1, 16, ^uint64(0)}) {
				t.Errorf("Args = %v", o.Args)
			}
		}, ""},
		{"all sorted", []string{"a", "b", "--all", "--sort", "cost", "--arch", "i386", "--format", "json"}, func(t *testing.T, o *SimulateOptions) {
			if !o.All || o.Sort != "cost" || o.Load.Arch != "i386" || len(o.Policies) != 2 {
				t.Errorf("opts = %+v", o)
			}
		}, ""},
		{"neither", []string{"default"}, nil, "exactly one"},
		{"both", []string{"default", "--all", "--syscall", "getpid"}, nil, "exactly one"},
		{"arm64 alias", []string{"default", "--all", "--arch", "arm64"}, func(t *testing.T, o *SimulateOptions) {
			if o.Load.Arch != "arm64" {
				t.Errorf("Arch = %q", o.Load.Arch)
			}
		}, ""},
		{"bad arch", []string{"default", "--all", "--arch", "ppc64le"}, nil, "--arch"},
		{"too many args", []string{"default", "--syscall", "x", "--args", "1,2,3,4,5,6,7"}, nil, "at most 6"},
		{"bad arg", []string{"default", "--syscall", "x", "--args", "1,z"}, nil, "not a number"},
		{"arg over 64 bits", []string{"default", "--syscall", "x", "--args", "18446744073709551616"}, nil, "does not fit in 64 bits"},
		{"bad sort", []string{"default", "--all", "--sort", "speed"}, nil, "--sort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdSimulate, tt.args, usageErrContaining(tt.wantErr))
			if got == nil {
				return
			}
			tt.check(t, got)
		})
	}
}

func TestSimulateRun(t *testing.T) {
	t.Run("syscall text", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		err := simulateRun(&SimulateOptions{IO: ios, Options: simulate.Options{Policies: []string{"default"}, Syscall: "getpid", Sort: "nr", Format: "table"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"getpid (x86_64 nr 39)", "verdict   ALLOW", "cached (const-allow)", "0 instructions run"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("syscall json with defeated cache", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		err := simulateRun(&SimulateOptions{IO: ios, Options: simulate.Options{Policies: []string{"default"}, Syscall: "getpid", Filters: 3, DefeatCache: true, Sort: "nr", Format: "json"}})
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Kind     string           `json:"kind"`
			Stack    []map[string]any `json:"stack"`
			Syscalls []map[string]any `json:"syscalls"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Kind != "simulate" {
			t.Errorf("kind %q, want simulate", doc.Kind)
		}
		sc := doc.Syscalls
		if len(sc) != 1 || len(doc.Stack) != 3 {
			t.Fatalf("got %d syscalls, %d filters; want 1, 3", len(sc), len(doc.Stack))
		}
		for _, key := range []string{"name", "nr", "arch", "action", "errno", "cached", "instructions", "per_filter"} {
			if _, ok := sc[0][key]; !ok {
				t.Errorf("json lacks key %q", key)
			}
		}
		if sc[0]["cached"] != false || sc[0]["action"] != "allow" || sc[0]["errno"] != nil {
			t.Errorf("getpid under a defeated stack = %v", sc[0])
		}
		if pf := sc[0]["per_filter"].([]any); len(pf) != 3 || pf[0] != pf[2] {
			t.Errorf("per_filter = %v, want 3 equal counts", pf)
		}
	})
	t.Run("unknown syscall", func(t *testing.T) {
		ios, _, _, _ := cmdutil.TestIOStreams()
		err := simulateRun(&SimulateOptions{IO: ios, Options: simulate.Options{Policies: []string{"default"}, Syscall: "nosuch", Sort: "nr", Format: "table"}})
		if !errors.Is(err, analysis.ErrUnknownSyscall) {
			t.Errorf("error = %v, want ErrUnknownSyscall", err)
		}
	})
	t.Run("all json", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		err := simulateRun(&SimulateOptions{IO: ios, Options: simulate.Options{Policies: []string{"default"}, All: true, Load: cmdutil.LoadFlags{Arch: "x86_64"}, Sort: "cost", Format: "json"}})
		if err != nil {
			t.Fatal(err)
		}
		var doc document.SimulateDoc
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		// --all covers every ABI of --arch's kernel.
		want := 0
		for _, a := range filters.NativeArches() {
			want += len(a.Numbers)
		}
		if len(doc.Syscalls) != want {
			t.Fatalf("%d syscalls, want %d (x86_64, i386 and x32)", len(doc.Syscalls), want)
		}
		for i := 1; i < len(doc.Syscalls); i++ {
			if doc.Syscalls[i].Effective > doc.Syscalls[i-1].Effective {
				t.Fatalf("not sorted by cost at %d", i)
			}
		}
	})
	t.Run("all for aarch64", func(t *testing.T) {
		ios, _, out, errOut := cmdutil.TestIOStreams()
		err := simulateRun(&SimulateOptions{IO: ios, Options: simulate.Options{Policies: []string{"default"}, All: true, Load: cmdutil.LoadFlags{Arch: "aarch64"}, Sort: "nr", Format: "json"}})
		if err != nil {
			t.Fatal(err)
		}
		var doc document.SimulateDoc
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		// Every ABI of the aarch64 kernel: aarch64's table, then arm's.
		if want := len(filters.ArchAArch64.Numbers) + len(filters.ArchARM.Numbers); len(doc.Syscalls) != want {
			t.Fatalf("%d syscalls, want %d (aarch64's and arm's tables)", len(doc.Syscalls), want)
		}
		for _, s := range doc.Syscalls {
			if s.Arch == "aarch64" && s.Name == "getpid" && (s.Nr != 172 || s.Action != "allow") {
				t.Errorf("aarch64 getpid = %+v, want nr 172 allowed", s)
			}
		}
		if !strings.Contains(errOut.String(), `"arch_prctl" does not exist on aarch64`) {
			t.Errorf("no warning for the dropped x86-only name:\n%s", errOut)
		}
	})
	t.Run("all table", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		err := simulateRun(&SimulateOptions{IO: ios, Options: simulate.Options{Policies: []string{"default", minimalPolicy}, Filters: 4, All: true, Sort: "nr", Format: "table"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"# stack: 4 filters: default, minimal cycled", "# x86_64:", "# i386:", "# x32:", "PER-FILTER"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q", want)
			}
		}
	})
}

func TestLintCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"default is clean", []string{"lint", "default", "--workload", "mix"}, 0, "0 errors"},
		// Findings exit 3, so scripts tell them from "could not lint" (1).
		{"bypass is an error", []string{"lint", minimalPolicy}, 3, "[abi-bypass-i386]"},
		{"path limit", []string{"lint", "default", "--filters", "300"}, 3, "[path-limit]"},
		{"json", []string{"lint", minimalPolicy, "--format", "json"}, 3, `"code": "abi-bypass-i386"`},
		{"cannot read", []string{"lint", "/nonexistent/policy.yaml"}, 1, ""},
		{"bad flag value", []string{"lint", "default", "--filters", "x"}, 2, ""},
		{"bad workload", []string{"lint", "default", "--workload", "nope"}, 2, ""},
		{"aarch64 bypass is arm's", []string{"lint", minimalPolicy, "--arch", "aarch64"}, 3, "[abi-bypass-arm]"},
		{"bad arch", []string{"lint", "default", "--arch", "sparc"}, 2, ""},
		{"compile for aarch64", []string{"compile", "default", "--arch", "arm64"}, 0, "AUDIT_ARCH_AARCH64"},
		{"compile bad arch", []string{"compile", "default", "--arch", "sparc"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			got := run(tt.args, strings.NewReader(""), &out, &errb)
			if got != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr: %s", got, tt.wantCode, errb.String())
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantOut, out.String())
			}
		})
	}
}

func TestCompileSystemdStack(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"compile", "--systemd-stack", "../../testdata/policies/hardened.service"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// hardened.service models 35 filters (filters/systemd_test.go derives
	// the count directive by directive).
	if last := lines[len(lines)-1]; last != "35 filters" {
		t.Errorf("last line %q, want \"35 filters\"", last)
	}
	if code := run([]string{"compile", "default", "--systemd-stack", "x.service"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("POLICY with --systemd-stack: exit %d, want 2", code)
	}
	if code := run([]string{"run", "--compiler", "gcc"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("run --compiler gcc: exit %d, want 2", code)
	}
}

// TestArchOneMeaning: --arch is the one load flag of every command that
// loads policies, the native ABI of the host they are for. Options resolve
// it to formats.OpenOptions.Arch and the OCI host arch (a compat ABI's
// kernel-native one); run and estimate, which measure this machine,
// refuse another kernel's ABI.
func TestArchOneMeaning(t *testing.T) {
	if cmdutil.NativeArch() != filters.ArchX86_64 {
		t.Skip("the expectations are an x86_64 machine's")
	}
	r := parseFlags(t, NewCmdRun, []string{"--arch", "i386"}, errContaining(""))
	if r.Open.Arch != filters.ArchI386 || r.OCI.Arch != "x86_64" {
		t.Errorf("run --arch i386: Arch %v, OCI host arch %q; want i386, x86_64", r.Open.Arch, r.OCI.Arch)
	}
	r = parseFlags(t, NewCmdRun, nil, errContaining(""))
	if r.Open.Arch != filters.ArchX86_64 || r.OCI.Arch != "x86_64" {
		t.Errorf("run: Arch %v, OCI host arch %q; want the native x86_64", r.Open.Arch, r.OCI.Arch)
	}
	parseFlags(t, NewCmdRun, []string{"--arch", "aarch64"}, usageErrContaining("run measures this machine"))
	parseFlags(t, NewCmdEstimate, []string{"p", "--profile", "x.csv", "--arch", "arm"}, usageErrContaining("estimate measures this machine"))
	s := parseFlags(t, NewCmdSimulate, []string{"p", "--all", "--arch", "arm"}, errContaining(""))
	o, err := s.Load.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Arch != filters.ArchARM || o.OCI.Arch != "aarch64" {
		t.Errorf("simulate --arch arm: Arch %v, OCI host arch %q; want arm, aarch64", o.Arch, o.OCI.Arch)
	}
	// simulate --arch aarch64 default --all: every ABI of the aarch64
	// kernel, as the example runs it.
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", "--arch", "aarch64", "default", "--all"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"# aarch64:", "# arm:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("simulate --arch aarch64 --all lacks %q", want)
		}
	}
	if strings.Contains(out.String(), "# x86_64:") {
		t.Error("simulate --arch aarch64 --all analyzes x86_64")
	}
}
