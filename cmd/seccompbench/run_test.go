package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/result"
)

func TestMain(m *testing.M) {
	if runner.IsChild() {
		runner.ChildMain()
	}
	// Outputs must not depend on this host's systemd: read units as the
	// systemd 252 CI hosts carry unless a test sets --systemd-version.
	cmdutil.HostSystemdVersion = func() (int, bool) { return 252, true }
	if os.Getenv(asCLIEnv) == "1" {
		// The test binary as the seccompbench CLI, for scripts
		// (TestCIGateScript).
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestNewCmdRunFlags(t *testing.T) {
	// --cpu must name a CPU this process may run on (taskset narrows it).
	cpu := 0
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil {
		for c := 0; c < 1024; c++ {
			if set.IsSet(c) {
				cpu = c
				break
			}
		}
	}
	tests := []struct {
		name    string
		args    []string
		check   func(*testing.T, *RunOptions)
		wantErr bool
	}{
		{name: "defaults", args: nil, check: func(t *testing.T, o *RunOptions) {
			if !slices.Equal(o.Policies, []string{"default"}) || o.Cache != "both" || o.Workload.Name != "mix" ||
				!slices.Equal(o.Counts, []int{0, 1, 2, 4, 8, 16, 32}) || o.Confidence != 0.95 || o.Format != "table" {
				t.Errorf("defaults: %+v", o)
			}
		}},
		{name: "all flags", args: []string{"a.yaml", "b.yaml", "--filters", "0-4/2", "--workload", "getpid", "--cache", "defeat", "--trials", "7", "--seed", "9", "--cpu", strconv.Itoa(cpu), "--format", "json", "-o", "x.json"},
			check: func(t *testing.T, o *RunOptions) {
				if !slices.Equal(o.Policies, []string{"a.yaml", "b.yaml"}) || !slices.Equal(o.Counts, []int{0, 2, 4}) || o.Workload.Name != "getpid" ||
					o.Cache != "defeat" || o.Trials != 7 || o.Seed != 9 || o.CPU != cpu || o.Format != "json" || o.Output != "x.json" {
					t.Errorf("got %+v", o)
				}
			}},
		{name: "bad cache", args: []string{"--cache", "maybe"}, wantErr: true},
		{name: "bad workload", args: []string{"--workload", "fork"}, wantErr: true},
		{name: "bad counts", args: []string{"--filters", "1-"}, wantErr: true},
		{name: "bad confidence", args: []string{"--confidence", "95"}, wantErr: true},
		{name: "bad format", args: []string{"--format", "xml"}, wantErr: true},
		{name: "one trial", args: []string{"--trials", "1"}, wantErr: true},
		{name: "command", args: []string{"docker-default", "--workload", "command", "--runs", "3", "--warmup", "2", "--prepare", "sync", "--ignore-failure", "--", "find", "/usr/share", "-name", "x"},
			check: func(t *testing.T, o *RunOptions) {
				c := o.Workload.Command
				if !slices.Equal(o.Policies, []string{"docker-default"}) || o.Workload.Name != "command" || c == nil ||
					!slices.Equal(c.Argv, []string{"find", "/usr/share", "-name", "x"}) || c.Runs != 3 || c.Warmup != 2 || c.Prepare != "sync" || !c.IgnoreFailure {
					t.Errorf("got %+v, command %+v", o, c)
				}
			}},
		{name: "command, default policy", args: []string{"--workload", "command", "--", "true"},
			check: func(t *testing.T, o *RunOptions) {
				if !slices.Equal(o.Policies, []string{"default"}) || o.Workload.Command == nil || o.Workload.Command.Warmup != 1 || o.Workload.Command.Runs != 0 {
					t.Errorf("got %+v", o)
				}
			}},
		{name: "command, pairs", args: []string{"--workload", "command", "--ab", "pairs", "--", "true"},
			check: func(t *testing.T, o *RunOptions) {
				if c := o.Workload.Command; c == nil || c.Design != command.DesignPairs {
					t.Errorf("command %+v, want design pairs", c)
				}
			}},
		{name: "command, default design", args: []string{"--workload", "command", "--", "true"},
			check: func(t *testing.T, o *RunOptions) {
				if c := o.Workload.Command; c == nil || c.Design != command.DesignChildren {
					t.Errorf("command %+v, want design children", c)
				}
			}},
		{name: "bad design", args: []string{"--workload", "command", "--ab", "abba", "--", "true"}, wantErr: true},
		{name: "design without command workload", args: []string{"--ab", "pairs"}, wantErr: true},
		{name: "paired design in containers", args: []string{"--workload", "command", "--ab", "duet", "--rootfs", "/", "--", "true"}, wantErr: true},
		{name: "command without CMD", args: []string{"--workload", "command"}, wantErr: true},
		{name: "CMD without command workload", args: []string{"default", "--", "true"}, wantErr: true},
		{name: "runs without command workload", args: []string{"--runs", "3"}, wantErr: true},
		{name: "loader default", args: nil, check: func(t *testing.T, o *RunOptions) {
			if o.Loader != "unprivileged" || o.LoaderSet || len(o.Loaders) != 1 || o.Loaders[0] != result.LoaderUnprivileged || o.PadSet {
				t.Errorf("loader %q %v set %v, pad set %v", o.Loader, o.Loaders, o.LoaderSet, o.PadSet)
			}
		}},
		{name: "loader both, fixed pad", args: []string{"--loader", "both", "--pad", "0"}, check: func(t *testing.T, o *RunOptions) {
			if !o.LoaderSet || len(o.Loaders) != 2 || !o.PadSet || o.Pad != 0 {
				t.Errorf("loaders %v set %v, pad %d set %v", o.Loaders, o.LoaderSet, o.Pad, o.PadSet)
			}
		}},
		{name: "bad loader", args: []string{"--loader", "root"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A wanted error is a *cmdutil.FlagError naming the flag.
			got := parseFlags(t, NewCmdRun, tt.args, execWant{Err: tt.wantErr, Contains: "--", Usage: true})
			if got == nil {
				return
			}
			tt.check(t, got)
		})
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("default_action: allow\nsyscalls:\n  - action: allow\n    names: [no_such_syscall]\n"), 0o644)
	tests := []struct {
		name    string
		args    []string
		want    int
		wantErr string
	}{
		{"help", []string{"--help"}, 0, ""},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"unknown flag", []string{"run", "--bogus"}, 2, "unknown flag"},
		{"bad counts", []string{"run", "--filters", "x"}, 2, "--filters"},
		{"missing policy", []string{"run", filepath.Join(dir, "nope.yaml")}, 1, "nope.yaml"},
		{"bad policy", []string{"run", bad}, 1, "no_such_syscall"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			got := run(tt.args, strings.NewReader(""), &out, &errb)
			if got != tt.want {
				t.Errorf("exit %d, want %d; stderr: %s", got, tt.want, errb.String())
			}
			if !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("stderr %q does not mention %q", errb.String(), tt.wantErr)
			}
		})
	}
}

// A tiny real run produces a JSON document with every fixed key of the
// run result (docs/json.md, "Fixed keys per kind").
func TestRunJSONContract(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"run", "--filters", "0,1,2", "--trials", "2", "--iterations", "200", "--samples", "2", "--format", "json", "-q"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out.String())
	}
	need := map[string][]string{
		"":            {"schema_version", "kind", "tool", "environment", "config", "results", "fits", "cache"},
		"tool":        {"name", "version"},
		"environment": {"kernel", "cpu_model", "cpus", "bpf_jit_enable", "vulnerabilities", "go_version", "parent_seccomp_filters"},
		"config":      {"policies", "filter_counts", "workload", "op", "cache", "trials", "iterations", "seed", "confidence"},
	}
	for obj, keys := range need {
		m := doc
		if obj != "" {
			m = doc[obj].(map[string]any)
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: missing key %q", obj, k)
			}
		}
	}
	arrays := map[string][]string{
		"results": {"variant", "filters", "n", "mean_ns", "median_ns", "stddev_ns", "ci_low_ns", "ci_high_ns", "overhead_ns", "overhead_ci_low_ns", "overhead_ci_high_ns", "overhead_pct", "samples_ns"},
		"fits":    {"variant", "per_filter_ns", "per_filter_ci_low_ns", "per_filter_ci_high_ns", "entry_ns", "entry_ci_low_ns", "entry_ci_high_ns", "r2"},
		"cache":   {"variant", "syscalls"},
	}
	for arr, keys := range arrays {
		items, _ := doc[arr].([]any)
		if len(items) == 0 {
			t.Errorf("%s is empty", arr)
			continue
		}
		for _, it := range items {
			m := it.(map[string]any)
			for _, k := range keys {
				if _, ok := m[k]; !ok {
					t.Errorf("%s[]: missing key %q", arr, k)
				}
			}
		}
	}
	if res, _ := doc["results"].([]any); len(res) != 6 {
		t.Errorf("got %d results, want 6 (2 variants x 3 counts)", len(res))
	}
	pol := doc["config"].(map[string]any)["policies"].([]any)[0].(map[string]any)
	for _, k := range []string{"path", "sha256", "instructions"} {
		if _, ok := pol[k]; !ok {
			t.Errorf("config.policies[]: missing %q", k)
		}
	}
	sys := doc["cache"].([]any)[0].(map[string]any)["syscalls"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "nr", "cached"} {
		if _, ok := sys[k]; !ok {
			t.Errorf("cache[].syscalls[]: missing %q", k)
		}
	}
}

func TestRunTableAndAtomicOutput(t *testing.T) {
	dir := t.TempDir()
	outFile := filepath.Join(dir, "r.txt")
	os.WriteFile(outFile, []byte("previous"), 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"run", "--filters", "0,1,2", "--cache", "defeat", "--workload", "getpid", "--trials", "2", "--iterations", "100", "--samples", "2", "-o", outFile}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout not empty with -o: %q", out.String())
	}
	b, _ := os.ReadFile(outFile)
	for _, want := range []string{"per-filter: defeat", "getpid", "cache: defeat", "verdict: "} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("table lacks %q:\n%s", want, b)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A tiny real run reports setup cost and the control loop with positive,
// finite values.
func TestRunSetupAndControlFields(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"run", "--filters", "0,1,2", "--cache", "defeat", "--trials", "3", "--iterations", "200", "--samples", "2", "--format", "json", "-q"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Setup *struct {
			PerFilterNs float64 `json:"per_filter_ns"`
			StackNs     float64 `json:"stack_ns"`
		} `json:"setup"`
		Control []struct {
			BeforeNs float64 `json:"before_ns"`
			AfterNs  float64 `json:"after_ns"`
		} `json:"control"`
		Run struct {
			Blocks     int    `json:"blocks"`
			StopReason string `json:"stop_reason"`
		} `json:"run"`
		Config struct {
			Policies []struct {
				CompileUs float64 `json:"compile_us"`
			} `json:"policies"`
		} `json:"config"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// Both are means of timings: on a loaded machine one slow seccomp(2)
	// call can make the per-call mean exceed the 2-filter stack's, so only
	// their presence is checked, not their order.
	if doc.Setup == nil || !(doc.Setup.PerFilterNs > 0) || !(doc.Setup.StackNs > 0) {
		t.Errorf("setup %+v: want positive per-filter and stack times", doc.Setup)
	}
	if len(doc.Control) != 1 || !(doc.Control[0].BeforeNs > 0) || !(doc.Control[0].AfterNs > 0) {
		t.Errorf("control %+v: want one variant with positive times", doc.Control)
	}
	if doc.Run.Blocks != 3 || doc.Run.StopReason != "trials" {
		t.Errorf("run %+v: want 3 blocks stopped by trials", doc.Run)
	}
	if len(doc.Config.Policies) != 1 || !(doc.Config.Policies[0].CompileUs > 0) {
		t.Errorf("policies %+v: want a positive compile time", doc.Config.Policies)
	}
}

// With default counts, a policy too long for 32 copies is measured up to
// the deepest stack that fits; with explicit --filters it is an error.
func TestRunClipsDefaultCounts(t *testing.T) {
	patho := "../../testdata/policies/pathological.yaml" // 31 copies fit
	var out, errb bytes.Buffer
	code := run([]string{"run", patho, "--cache", "on", "--trials", "2", "--iterations", "50", "--samples", "1", "--format", "json"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Config struct {
			FilterCounts []int `json:"filter_counts"`
		} `json:"config"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2, 4, 8, 16, 31}; !slices.Equal(doc.Config.FilterCounts, want) {
		t.Errorf("filter_counts %v, want %v", doc.Config.FilterCounts, want)
	}
	if !strings.Contains(errb.String(), "at most 31 of these filters fit") {
		t.Errorf("stderr lacks the clipping warning: %s", errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"run", patho, "--filters", "0,32"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "the largest count that fits is 31") {
		t.Errorf("explicit --filters 0,32: exit %d, stderr %s", code, errb.String())
	}
}

// TestRunPad: --pad measures padded filters (the children install them:
// the run checks Seccomp_filters and the padded stack must still fit),
// records the padding in the JSON config, and refuses a negative count.
func TestRunPad(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"run", "--pad", "16", "--filters", "0,2", "--cache", "defeat", "--trials", "2", "--iterations", "200", "--samples", "2", "--format", "json", "-q"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Config struct {
			Pad int `json:"pad"`
		} `json:"config"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Config.Pad != 16 {
		t.Errorf("config.pad = %d, want 16", doc.Config.Pad)
	}
	// The padding is part of what is checked and installed: 149 + 4000
	// instructions is over BPF_MAXINSNS.
	errb.Reset()
	if code := run([]string{"run", "--pad", "4000", "-q"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "4160 instructions, 64 over BPF_MAXINSNS") {
		t.Errorf("--pad 4000: exit %d, %q; want the filter refused at 4160 instructions", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"run", "--pad", "-1"}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "--pad: -1 instructions; want 0 to 4096") {
		t.Errorf("--pad -1: exit %d, %q", code, errb.String())
	}
}

// TestRunLoaderBothJSON: --loader both measures two sets of cells, records
// the loader, the capabilities read back in each child and each child's
// pad, fits each loader and gives their difference; the pads come from the
// seed, so the same seed gives the same pads.
func TestRunLoaderBothJSON(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("--loader privileged needs root")
	}
	runOnce := func() map[string]any {
		var out, errb bytes.Buffer
		code := run([]string{"run", "--loader", "both", "--cache", "defeat", "--filters", "0,1,2", "--trials", "2", "--iterations", "200", "--samples", "2", "--seed", "5", "--format", "json", "-q"}, strings.NewReader(""), &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var doc map[string]any
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := runOnce()
	cfg := doc["config"].(map[string]any)
	if cfg["loader"] != "both" || cfg["placement"] != "random" || cfg["pad_min"] != 0.0 || cfg["pad_max"] != 16.0 {
		t.Errorf("config: loader %v placement %v pads %v-%v", cfg["loader"], cfg["placement"], cfg["pad_min"], cfg["pad_max"])
	}
	if _, ok := doc["environment"].(map[string]any)["cmdline_mitigations"]; !ok {
		t.Error("environment.cmdline_mitigations missing")
	}
	results := doc["results"].([]any)
	if len(results) != 6 {
		t.Fatalf("%d results, want 6 (2 loaders x 3 counts)", len(results))
	}
	for _, r := range results {
		m := r.(map[string]any)
		if want := m["loader"] == "privileged"; m["cap_sys_admin"] != want {
			t.Errorf("result %v/%v: cap_sys_admin %v, want %v", m["loader"], m["filters"], m["cap_sys_admin"], want)
		}
		if len(m["pads"].([]any)) != len(m["samples_ns"].([]any)) {
			t.Errorf("result %v/%v: pads not aligned with samples_ns", m["loader"], m["filters"])
		}
	}
	fits := doc["fits"].([]any)
	if len(fits) != 2 {
		t.Fatalf("%d fits, want 2", len(fits))
	}
	for _, f := range fits {
		m := f.(map[string]any)
		if _, ok := m["placement_sd_ns"]; !ok || m["loader"] == nil {
			t.Errorf("fit %v: loader or placement_sd_ns missing", m)
		}
	}
	if d, _ := doc["loader_diffs"].([]any); len(d) != 1 {
		t.Errorf("loader_diffs: %v, want one entry", doc["loader_diffs"])
	}
	pads := func(doc map[string]any) []float64 {
		var ps []float64
		for _, c := range doc["children"].([]any) {
			ps = append(ps, c.(map[string]any)["pad"].(float64))
		}
		return ps
	}
	if a, b := pads(doc), pads(runOnce()); !slices.Equal(a, b) {
		t.Errorf("same seed, other pads: %v and %v", a, b)
	}
}
