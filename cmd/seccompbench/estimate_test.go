package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
)

func TestNewCmdEstimateFlags(t *testing.T) {
	tests := []struct {
		args    string
		wantErr string
		check   func(*EstimateOptions) bool
	}{
		{"default --profile p.txt", "", func(o *EstimateOptions) bool {
			return o.Cache == "on" && o.Filters == 0 && o.CalTrials == 8 && o.Trials == 10 && o.Top == 15 && !o.Validate && !o.Indirect
		}},
		{"default --profile p --duration 5ms --indirect", "", func(o *EstimateOptions) bool {
			return o.Indirect && o.Duration.Milliseconds() == 5
		}},
		{"a.yaml b.yaml --profile p --filters 8 --cache defeat --calibration x.json --calibration y.json --duration 12ms --validate --format json", "", func(o *EstimateOptions) bool {
			return len(o.Policies) == 2 && o.Filters == 8 && o.Cache == "defeat" && len(o.Calibrations) == 2 && o.Duration.Milliseconds() == 12 && o.Validate && o.Format == "json"
		}},
		{"default", "--profile FILE is required", nil},
		{"--profile p", "requires at least 1 arg", nil},
		{"default --profile p --cache both", "--cache", nil},
		{"default --profile p --format csv", "--format", nil},
		{"default --profile p --filters -1", "negative", nil},
		{"default --profile p --trials 1", "at least 2", nil},
		{"default --profile p --confidence 2", "--confidence", nil},
		{"docker-default --filters 16 --cache defeat --command -- find /usr/share -name x", "", func(o *EstimateOptions) bool {
			return slices.Equal(o.Policies, []string{"docker-default"}) && slices.Equal(o.Command, []string{"find", "/usr/share", "-name", "x"}) && o.Profile == "" && o.Filters == 16
		}},
		{"default --profile p --command -- true", "", func(o *EstimateOptions) bool {
			return o.Profile == "p" && slices.Equal(o.Command, []string{"true"})
		}},
		{"--systemd-unit u.service --profile p --cold", "", func(o *EstimateOptions) bool {
			return o.SystemdUnit == "u.service" && len(o.Policies) == 0 && o.ColdCalibration
		}},
		{"default --command", "--command", nil},
		{"default -- true", "--command", nil},
		{"--command -- true", "POLICY", nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got := parseFlags(t, NewCmdEstimate, strings.Fields(tt.args), errContaining(tt.wantErr))
			if got == nil {
				return
			}
			if !tt.check(got) {
				t.Errorf("options %+v", got)
			}
		})
	}
}

// estimateFixture writes the policy (CalibrationFilter with 10 comparisons,
// getppid at position 1, as raw BPF) and the profile. Under the defeated
// cache getppid executes ld ip, ld nr, jeq, ret = 4 instructions per
// filter, getpid ld ip, ld nr, 10 × jeq, ret = 13.
func estimateFixture(t *testing.T) (dir, policy, profile string) {
	t.Helper()
	dir = t.TempDir()
	p, err := analysis.CalibrationFilter(filters.ArchX86_64, 10, analysis.CalibrationMark{Name: "getppid", Pos: 1})
	if err != nil {
		t.Fatal(err)
	}
	policy = filepath.Join(dir, "chain.bpf")
	if err := os.WriteFile(policy, p.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	profile = filepath.Join(dir, "profile.csv")
	if err := os.WriteFile(profile, []byte("syscall,count,seconds\ngetppid,100,0.00001\ngetpid,50,0.00002\nbogus,5,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, policy, profile
}

// writeCalibration writes a run result with a defeat fit (entry, per
// filter, as center and half-width) whose workload syscall executes insns
// instructions over the deepest (2-filter) stack, and an "on" fit of a
// cached workload (entry 5±1, per filter 0.5±0.5).
func writeCalibration(t *testing.T, path string, entry, entryHW, pf, pfHW float64, insns int) {
	t.Helper()
	doc := &document.Document{SchemaVersion: document.SchemaVersion,
		Environment: runner.CaptureEnvironment(),
		Config:      document.Config{FilterCounts: []int{0, 1, 2}, Workload: "syscall", Confidence: 0.95},
		Fits: []document.Fit{
			{Variant: "on", EntryNs: 5, EntryCILowNs: 4, EntryCIHighNs: 6, PerFilterNs: 0.5, PerFilterCILowNs: 0, PerFilterCIHighNs: 1},
			{Variant: "defeat", EntryNs: entry, EntryCILowNs: entry - entryHW, EntryCIHighNs: entry + entryHW, PerFilterNs: pf, PerFilterCILowNs: pf - pfHW, PerFilterCIHighNs: pf + pfHW},
		},
		Cache: []document.CacheVariant{
			{Variant: "on", Syscalls: []document.CacheSyscall{{Name: "getppid", Nr: 110, Cached: true}}},
			{Variant: "defeat", Syscalls: []document.CacheSyscall{{Name: "getppid", Nr: 110, Instructions: insns}}},
		},
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := report.WriteJSON(f, doc); err != nil {
		t.Fatal(err)
	}
}

func runEstimate(t *testing.T, args ...string) *document.Estimate {
	t.Helper()
	ios, _, out, errOut := cmdutil.TestIOStreams()
	cmd := NewCmdEstimate(&cmdutil.Factory{IO: ios}, nil)
	cmd.SetArgs(append(args, "--format", "json"))
	cmd.SetOut(ios.Out)
	cmd.SetErr(ios.ErrOut)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("estimate: %v; stderr: %s", err, errOut)
	}
	var got document.Estimate
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	return &got
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestEstimateHandComputed runs estimate on a synthetic profile with two
// calibration files whose model is known and checks the hand computation.
// Calibrations: defeat per-filter 20±2 ns at 20/2 = 10 instructions per
// filter and 60±4 ns at 420/2 = 210; entries 30±10 and 40±20. So (see
// stats.TestFitCostModelTwoPoints) per_insn = 0.2 (var 0.0005), per_filter
// = 18 (var 4.45, cov −0.025), entry = 32 (var 1/0.0125).
// Stack: 2 filters, cache defeated: getppid 8 instructions, getpid 26.
// getppid: 32 + 18·2 + 0.2·8 = 69.6 ns; getpid: 32 + 36 + 0.2·26 = 73.2 ns;
// total 100·69.6 + 50·73.2 = 10620 ns; the 3e-5 s of syscall time make it
// 35.4 %, and per second of a 1 ms run 1.062e7 ns.
func TestEstimateHandComputed(t *testing.T) {
	dir, policy, profile := estimateFixture(t)
	c1, c2 := filepath.Join(dir, "c1.json"), filepath.Join(dir, "c2.json")
	writeCalibration(t, c1, 30, 10, 20, 2, 20)
	writeCalibration(t, c2, 40, 20, 60, 4, 420)
	got := runEstimate(t, policy, "--profile", profile, "--filters", "2", "--cache", "defeat", "--calibration", c1, "--calibration", c2, "--duration", "1ms")

	m := got.Model
	if !near(m.EntryNs, 32, 1e-9) || !near(m.PerFilterNs, 18, 1e-9) || !near(m.PerInsnNs, 0.2, 1e-9) {
		t.Errorf("model entry %v per_filter %v per_insn %v, want 32, 18, 0.2", m.EntryNs, m.PerFilterNs, m.PerInsnNs)
	}
	want := []struct {
		name  string
		insns int
		added float64
	}{{"getppid", 8, 69.6}, {"getpid", 26, 73.2}}
	for i, w := range want {
		s := got.Syscalls[i]
		if s.Name != w.name || s.Instructions != w.insns || s.Cached || s.AddedNs == nil || !near(*s.AddedNs, w.added, 1e-9) {
			t.Errorf("syscall %d: %+v, want %s with %d insns adding %v ns", i, s, w.name, w.insns, w.added)
		}
	}
	if s := got.Syscalls[2]; s.Known || s.AddedNs != nil {
		t.Errorf("bogus: %+v, want unknown and not estimated", s)
	}
	tot := got.Total
	a, f, b := 150.0, 300.0, 2100.0 // calls, filter runs, instructions over uncached calls
	hw := math.Sqrt(a*a/0.0125 + f*f*4.45 + b*b*0.0005 + 2*f*b*(-0.025))
	if !near(tot.AddedNs, 10620, 1e-9) || tot.CILowNs == nil || !near(*tot.CILowNs, 10620-hw, 1e-9) || !near(*tot.CIHighNs, 10620+hw, 1e-9) {
		t.Errorf("total %v [%v, %v], want 10620 ± %v", tot.AddedNs, tot.CILowNs, tot.CIHighNs, hw)
	}
	if tot.UnknownCalls != 5 || tot.Calls != 150 || tot.PctOfSyscallTime == nil || !near(*tot.PctOfSyscallTime, 35.4, 1e-9) ||
		tot.NsPerSecond == nil || !near(*tot.NsPerSecond, 1.062e7, 1e-9) {
		t.Errorf("total %+v", tot)
	}

	// As installed, the chain allows everything by number: all cached, at
	// the on fit's 5 + 2·0.5 = 6 ns ± √(1 + 1) per call.
	on := runEstimate(t, policy, "--profile", profile, "--filters", "2", "--calibration", c1, "--calibration", c2)
	if !near(on.Total.AddedNs, 900, 1e-9) || !near(*on.Total.CIHighNs-900, 150*math.Sqrt(2), 1e-9) || on.Total.CachedCalls != 150 {
		t.Errorf("cached total %+v, want 900 ± %v", on.Total, 150*math.Sqrt(2))
	}
}

// fakeMeasure answers runner.Run from a known model: ns/op = 100 + (30 +
// 20·N + 0.2·E) for uncached stacks of N ≥ 1 filters executing E
// instructions in total, 100 + 5 + 0.5·N for cached ones, ±1 ns by block
// (trials must be a multiple of 4).
func fakeMeasure(_ context.Context, cfg runner.Config) ([]result.Sample, error) {
	var out []result.Sample
	seq := 0
	nr, _ := filters.ArchX86_64.Lookup(cfg.Workload.Syscalls[0])
	for b := 0; b < cfg.Trials; b++ {
		for _, v := range cfg.Variants {
			for _, n := range cfg.Counts {
				c := result.Cell{Variant: v, Filters: n}
				y := 100.0
				if n > 0 {
					s, err := runner.StackFor(cfg.Programs, c)
					if err != nil {
						return nil, err
					}
					cost, err := analysis.AnalyzeSyscall(s, filters.ArchX86_64, nr)
					if err != nil {
						return nil, err
					}
					if cost.Cached {
						y += 5 + 0.5*float64(n)
					} else {
						y += 30 + 20*float64(n) + 0.2*float64(cost.Executed)
					}
				}
				// +1 −1 −1 +1: zero mean per cell and orthogonal to a
				// linear drift in Seq, which the stack fit models.
				if b%4 == 0 || b%4 == 3 {
					y++
				} else {
					y--
				}
				out = append(out, result.Sample{Cell: c, Block: b, Seq: seq, NsPerOp: y})
				seq++
			}
		}
	}
	return out, nil
}

// TestEstimateQuickCalibrationAndValidate runs the quick calibration and
// --validate against fakeMeasure: the calibration recovers the model, and
// the validation finds no error.
func TestEstimateQuickCalibrationAndValidate(t *testing.T) {
	_, policy, profile := estimateFixture(t)
	for _, cache := range []string{"defeat", "on"} {
		t.Run(cache, func(t *testing.T) {
			ios, _, out, errOut := cmdutil.TestIOStreams()
			cmd := NewCmdEstimate(&cmdutil.Factory{IO: ios}, func(o *EstimateOptions) error {
				o.Measure = fakeMeasure
				return estimateRun(o)
			})
			cmd.SetArgs([]string{policy, "--profile", profile, "--filters", "4", "--cache", cache, "--validate", "--trials", "4", "--calibration-trials", "4", "--format", "json"})
			if err := cmd.Execute(); err != nil {
				t.Fatalf("%v; stderr %s", err, errOut)
			}
			var got document.Estimate
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			m := got.Model
			if !near(m.EntryNs, 30, 1e-6) || !near(m.PerFilterNs, 20, 1e-6) || !near(m.PerInsnNs, 0.2, 1e-6) || !near(m.CachedNs, 5+0.5*4, 1e-6) {
				t.Errorf("model %+v, want entry 30, per filter 20, per insn 0.2, cached 7", m)
			}
			if len(m.Points) != 4 || m.Points[0].InsnsPerFilter != 4 || m.Points[1].InsnsPerFilter != 128 || m.Points[2].InsnsPerFilter != 253 ||
				!strings.HasPrefix(m.Points[3].Source, "stack calibration: getppid") {
				t.Errorf("points %+v, want the chain's at 4, 128, 253 instructions per filter, then the stack's on getppid", m.Points)
			}
			v := got.Validation
			if v == nil || len(v.Rows) != 2 || len(v.Skipped) != 0 {
				t.Fatalf("validation %+v, want getppid and getpid", v)
			}
			for _, r := range v.Rows {
				if r.ErrorPct == nil || math.Abs(*r.ErrorPct) > 1e-6 {
					t.Errorf("%s: predicted %v, measured %v", r.Name, r.PredictedNs, r.MeasuredNs)
				}
			}
			if v.ErrorPct == nil || math.Abs(*v.ErrorPct) > 1e-6 {
				t.Errorf("total error %v", v.ErrorPct)
			}
		})
	}
}

// TestEstimateTextOneFilter renders the hand-computed estimate for a stack
// of one filter as text.
func TestEstimateTextOneFilter(t *testing.T) {
	dir, policy, profile := estimateFixture(t)
	c1, c2 := filepath.Join(dir, "c1.json"), filepath.Join(dir, "c2.json")
	writeCalibration(t, c1, 30, 10, 20, 2, 20)
	writeCalibration(t, c2, 40, 20, 60, 4, 420)
	ios, _, out, errOut := cmdutil.TestIOStreams()
	cmd := NewCmdEstimate(&cmdutil.Factory{IO: ios}, nil)
	cmd.SetArgs([]string{policy, "--profile", profile, "--filters", "1", "--cache", "defeat", "--calibration", c1, "--calibration", c2, "--duration", "1ms", "--explain"})
	cmd.SetOut(ios.Out)
	cmd.SetErr(ios.ErrOut)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("estimate: %v; stderr: %s", err, errOut)
	}
	got := out.String()
	// getppid 100 × (32 + 18 + 0.2·4) = 5080 ns, getpid 50 × (32 + 18 +
	// 0.2·13) = 2630 ns: 7710 ns in all.
	for _, want := range []string{"policy: 1 filter (chain), cache defeated", "direct: +7.71 µs [6.33, 9.09] inside seccomp over 150 calls", "stack     1 filter (chain),", "direct    +7.710 µs [6.334 µs, 9.086 µs] inside seccomp over 150 calls", "  5.080 µs  [4.162 µs, 5.998 µs]",
		"= 7.710 ms [6.334 ms, 9.086 ms] per second of run time (0.771% of the 1.000 ms run)"} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "1 filters") {
		t.Errorf("text says \"1 filters\":\n%s", got)
	}
}

// realFilterExtra is what fakeMeasureReal adds per filter run for programs
// other than the calibration chain, in ns: a real policy's filters cost
// more than the chain at the same executed instructions.
const realFilterExtra = 12

// fakeMeasureReal is fakeMeasure with realFilterExtra ns more per filter
// for every uncached stack that is not the calibration chain.
func fakeMeasureReal(ctx context.Context, cfg runner.Config) ([]result.Sample, error) {
	out, err := fakeMeasure(ctx, cfg)
	if err != nil || strings.HasPrefix(cfg.Programs[0].Name, "calibration-") {
		return out, err
	}
	nr, _ := filters.ArchX86_64.Lookup(cfg.Workload.Syscalls[0])
	for i, s := range out {
		if s.Filters == 0 {
			continue
		}
		st, err := runner.StackFor(cfg.Programs, s.Cell)
		if err != nil {
			return nil, err
		}
		if c, err := analysis.AnalyzeSyscall(st, filters.ArchX86_64, nr); err == nil && !c.Cached {
			out[i].NsPerOp += realFilterExtra * float64(s.Filters)
		}
	}
	return out, nil
}

// TestEstimateStackCalibration: when the estimated stack's filters cost
// more than the calibration chain's, the stack calibration (the default)
// recovers their per-filter cost and --validate finds no error; the chain
// alone (--stack-calibration=false) underestimates by the difference.
func TestEstimateStackCalibration(t *testing.T) {
	_, policy, profile := estimateFixture(t)
	for _, tt := range []struct {
		flag      string
		perFilter float64
		zeroErr   bool
	}{
		{"--stack-calibration=true", 20 + realFilterExtra, true},
		{"--stack-calibration=false", 20, false},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			ios, _, out, errOut := cmdutil.TestIOStreams()
			cmd := NewCmdEstimate(&cmdutil.Factory{IO: ios}, func(o *EstimateOptions) error {
				o.Measure = fakeMeasureReal
				return estimateRun(o)
			})
			cmd.SetArgs([]string{policy, "--profile", profile, "--filters", "4", "--cache", "defeat", "--validate", "--trials", "4", "--calibration-trials", "4", "--format", "json", tt.flag})
			if err := cmd.Execute(); err != nil {
				t.Fatalf("%v; stderr %s", err, errOut)
			}
			var got document.Estimate
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if m := got.Model; !near(m.PerFilterNs, tt.perFilter, 1e-6) || !near(m.PerInsnNs, 0.2, 1e-6) || !near(m.EntryNs, 30, 1e-6) {
				t.Errorf("model %+v, want entry 30, per filter %v, per insn 0.2", m, tt.perFilter)
			}
			v := got.Validation
			if v == nil || v.ErrorPct == nil {
				t.Fatalf("validation %+v", v)
			}
			if zero := math.Abs(*v.ErrorPct) < 1e-6; zero != tt.zeroErr {
				t.Errorf("validation error %v %%, want zero: %v", *v.ErrorPct, tt.zeroErr)
			}
		})
	}
}

// TestEstimateHTML writes the hand-computed estimate as an HTML page:
// the text's figures and the per-syscall plot are on it.
func TestEstimateHTML(t *testing.T) {
	dir, policy, profile := estimateFixture(t)
	c1, c2 := filepath.Join(dir, "c1.json"), filepath.Join(dir, "c2.json")
	writeCalibration(t, c1, 30, 10, 20, 2, 20)
	writeCalibration(t, c2, 40, 20, 60, 4, 420)
	page := filepath.Join(dir, "estimate.html")
	ios, _, _, errOut := cmdutil.TestIOStreams()
	cmd := NewCmdEstimate(&cmdutil.Factory{IO: ios}, nil)
	cmd.SetArgs([]string{policy, "--profile", profile, "--filters", "2", "--cache", "defeat", "--calibration", c1, "--calibration", c2, "-o", page})
	cmd.SetOut(ios.Out)
	cmd.SetErr(ios.ErrOut)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("estimate: %v; stderr: %s", err, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "69.6", "73.2", "<svg", "Predicted time the filters add per call, in ns", "getppid (100 calls)"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestEstimateIndirectParts runs estimate --duration against fakeMeasure
// with the probe answered too: every probe iteration takes 100 + 400·KiB
// ns without filters, and with filters the stack's cost (fakeMeasure's)
// plus half of it again beyond 0 KiB. The probe ratio is then 0.5 at
// every working set, so the indirect part is half the direct part; the
// per-process part is not predicted without --command, and the text says
// so.
func TestEstimateIndirectParts(t *testing.T) {
	_, policy, profile := estimateFixture(t)
	measure := func(ctx context.Context, cfg runner.Config) ([]result.Sample, error) {
		out, err := fakeMeasure(ctx, cfg)
		if err != nil || cfg.Workload.Name != "probe" {
			return out, err
		}
		kib := float64(cfg.Workload.ProbeKiB)
		for i := range out {
			added := out[i].NsPerOp - 100
			if out[i].Filters > 0 && kib > 0 {
				added *= 1.5
			}
			out[i].BaselineNsPerOp = 100 + 400*kib
			out[i].NsPerOp = out[i].BaselineNsPerOp + added
		}
		return out, nil
	}
	for _, format := range []string{"json", "table", "explain"} {
		ios, _, out, errOut := cmdutil.TestIOStreams()
		cmd := NewCmdEstimate(&cmdutil.Factory{IO: ios}, func(o *EstimateOptions) error {
			o.Measure = measure
			return estimateRun(o)
		})
		args := []string{policy, "--profile", profile, "--filters", "4", "--cache", "defeat", "--duration", "1ms", "--indirect", "--calibration-trials", "4", "--format", format}
		if format == "explain" {
			args = append(args[:len(args)-2], "--explain")
		}
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v; stderr %s", err, errOut)
		}
		if format != "json" {
			wants := []string{"parts of the added time per run", "  direct ", "  indirect ", "  per process ", "not predicted: needs the per-process probe"}
			if format == "explain" {
				wants = append(wants, "indirect probe: getppid()", "512 KiB", "between syscalls 204.9 µs")
			}
			for _, want := range wants {
				if !strings.Contains(out.String(), want) {
					t.Errorf("%s: text has no %q:\n%s", format, want, out)
				}
			}
			continue
		}
		var got document.Estimate
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		p := got.Parts
		if p == nil || !p.Direct.Predicted || !p.Indirect.Predicted || p.PerProcess.Predicted {
			t.Fatalf("parts %+v: want direct and indirect predicted, per process not", p)
		}
		if !near(*p.Indirect.AddedNs, 0.5**p.Direct.AddedNs, 0.02) {
			t.Errorf("indirect %.1f ns, want half the direct %.1f", *p.Indirect.AddedNs, *p.Direct.AddedNs)
		}
		if in := got.Indirect; in == nil || len(in.Uncached) != 5 || in.GapNs == nil || !near(*in.GapNs, 1e6/150, 1e-9) || in.GapSource != "--duration" {
			t.Errorf("indirect calibration %+v: want 5 points, gap 1 ms / 150 calls from --duration", in)
		}
	}
}
