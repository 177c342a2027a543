package estimate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// fakeCommandRun returns children with the given run times (ns/op), at 0
// filters and at n, as the command workload reports them.
func fakeCommandRun(base, stacked []float64, n int) func(context.Context, runner.Config) ([]result.Sample, result.RunInfo, error) {
	return func(_ context.Context, cfg runner.Config) ([]result.Sample, result.RunInfo, error) {
		var out []result.Sample
		add := func(filters int, ns, cpu, inst float64) {
			out = append(out, result.Sample{Cell: result.Cell{Variant: cfg.Variants[0], Filters: filters}, NsPerOp: ns,
				Command: &result.CommandSample{CPUNs: []float64{cpu}, InstallNs: []float64{inst}, Runs: 1}})
		}
		for i := range base {
			add(0, base[i], base[i]/2, 0)
			add(n, stacked[i], stacked[i]/2+1e6, 2e6)
		}
		return out, result.RunInfo{Blocks: len(base), Runs: 1}, nil
	}
}

// The predicted-vs-measured arithmetic, by hand: medians 100 ms and 150 ms
// give +50 ms measured; predicted 39 ms [36, 42] (calibration) is stated
// with the model error as 39 ± √(3² + (ModelError·39)²), so
// [0.27, 77.73]: ratio 0.78, error -22 %, covered (the calibration-only
// [36, 42] is not). CPU: medians 50 and 76 ms, +26 ms. Install 2 ms
// against 50 ms running: running dominates, install 2/52 of the total.
// Against CPU: ratio 39/26 = 1.5, error +50 %, covered.
func TestMeasureCommandArithmetic(t *testing.T) {
	ms := func(xs ...float64) []float64 {
		for i := range xs {
			xs[i] *= 1e6
		}
		return xs
	}
	base := ms(100, 102, 98, 101, 99, 100)
	stacked := ms(150, 152, 148, 151, 149, 150)
	opts := &Options{Command: []string{"find", "/usr/share"}, Trials: 6, Confidence: 0.95, Seed: 1, AB: command.DesignChildren,
		MeasureCommand: fakeCommandRun(base, stacked, 16)}
	predicted := stats.Estimate{Center: 39e6, Lo: 36e6, Hi: 42e6}
	stated := stats.WithModelError(predicted, ModelError)
	if hw := math.Hypot(3e6, ModelError*39e6); math.Abs(stated.Hi-39e6-hw) > 1 || math.Abs(39e6-stated.Lo-hw) > 1 {
		t.Fatalf("stated interval %+v, want 39 ms ± %.0f ns", stated, hw)
	}
	c, err := measureCommand(context.Background(), opts, nil, result.VariantDefeat, 16, predicted, stats.Estimate{}, stats.Estimate{})
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want)) }
	checks := []struct {
		name      string
		got, want float64
	}{
		{"measured added", c.MeasuredAddedNs, 50e6},
		{"predicted added", c.PredictedAddedNs, 39e6},
		{"stated low", c.PredictedCILowNs, 39e6 - math.Hypot(3e6, ModelError*39e6)},
		{"stated high", c.PredictedCIHighNs, 39e6 + math.Hypot(3e6, ModelError*39e6)},
		{"calibration low", c.CalibrationCILowNs, 36e6},
		{"ratio", c.Ratio, 0.78},
		{"error %", c.ErrorPct, -22},
		{"baseline", c.BaselineRunNs, 100e6},
		{"CPU added", c.MeasuredCPUAddedNs, 26e6},
		{"CPU ratio", c.CPURatio, 1.5},
		{"CPU error %", c.CPUErrorPct, 50},
		{"install", c.InstallNs, 2e6},
		{"install share", c.InstallShare, 2.0 / 52},
	}
	for _, ck := range checks {
		if !near(ck.got, ck.want) {
			t.Errorf("%s = %v, want %v", ck.name, ck.got, ck.want)
		}
	}
	if !c.Covered || c.CoveredByCalibration || c.Dominant != "running" || c.Filters != 16 || c.Variant != "defeat" {
		t.Errorf("covered %v / %v, dominant %q, cell %d %s; want true, false, running, 16 defeat", c.Covered, c.CoveredByCalibration, c.Dominant, c.Filters, c.Variant)
	}
	// CPU +26 ms lies inside the stated [0.27, 77.73] ms.
	if !c.CPUCovered {
		t.Errorf("CPU not covered, want covered: +26 ms is inside the stated interval")
	}
	if want := c.PredictedCILowNs <= c.MeasuredCIHighNs && c.MeasuredCILowNs <= c.PredictedCIHighNs; c.Overlap != want {
		t.Errorf("overlap %v, want %v for stated [%v, %v] and measured [%v, %v]", c.Overlap, want, c.PredictedCILowNs, c.PredictedCIHighNs, c.MeasuredCILowNs, c.MeasuredCIHighNs)
	}
	if !(c.MeasuredCILowNs <= 50e6 && 50e6 <= c.MeasuredCIHighNs) {
		t.Errorf("measured interval [%v, %v] misses its center", c.MeasuredCILowNs, c.MeasuredCIHighNs)
	}
}

// TestMeasureCommandContainerInstall: on the runtime path the install is
// the runtime's work on linux.seccomp per container, the difference of
// the containers' medians outside the runs (30 ms with the profile, 4 ms
// without: 26 ms), not the wrapper's seccomp(2) time.
func TestMeasureCommandContainerInstall(t *testing.T) {
	run := fakeCommandRun([]float64{100e6, 101e6, 99e6, 100e6}, []float64{110e6, 111e6, 109e6, 110e6}, 1)
	opts := &Options{Command: []string{"find", "/tree"}, Trials: 4, Confidence: 0.95, Seed: 1, AB: command.DesignChildren,
		MeasureCommand: func(ctx context.Context, cfg runner.Config) ([]result.Sample, result.RunInfo, error) {
			out, info, err := run(ctx, cfg)
			for i := range out {
				out[i].Command.InstallNs = nil
				out[i].Command.ContainerNs = 4e6
				if out[i].Filters > 0 {
					out[i].Command.ContainerNs = 30e6 + float64(i)
				}
			}
			info.Container = &result.ContainerInfo{Runtime: "runc", Version: "runc version 1.1.5"}
			return out, info, err
		}}
	c, err := measureCommand(context.Background(), opts, nil, result.VariantOn, 1, stats.Estimate{Center: 1e6, Lo: 0, Hi: 2e6}, stats.Estimate{}, stats.Estimate{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Container == nil || math.Abs(c.InstallNs-26e6) > 10 || c.Dominant != "install" {
		t.Errorf("container %v, install %v ns, dominant %q; want runc, 26 ms, install", c.Container, c.InstallNs, c.Dominant)
	}
	var b bytes.Buffer
	report.WriteEstimateCommandText(&b, c, 0)
	if !strings.Contains(b.String(), "once per container (runc's work on linux.seccomp)") {
		t.Errorf("text has no per-container install line:\n%s", b.String())
	}
}

// The keys the issue names sit directly under "validation".
func TestCommandValidationJSONKeys(t *testing.T) {
	e := &document.Estimate{Validation: &document.EstimateValidation{EstimateCommand: &document.EstimateCommand{Covered: true}}}
	var b bytes.Buffer
	if err := report.WriteEstimateJSON(&b, e); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Validation map[string]any `json:"validation"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"predicted_added_ns", "predicted_ci_low_ns", "predicted_ci_high_ns", "measured_added_ns", "measured_ci_low_ns", "measured_ci_high_ns", "covered"} {
		if _, ok := doc.Validation[k]; !ok {
			t.Errorf("validation has no %q: %v", k, doc.Validation)
		}
	}
	if doc.Validation["covered"] != true {
		t.Errorf("covered = %v, want true", doc.Validation["covered"])
	}
}

// The A/B design's figures sit under "validation.ab", NaN half-widths
// (no interval) as 0 and each child's centre as a number.
func TestCommandValidationJSONAB(t *testing.T) {
	c := &document.EstimateCommand{AB: &document.CommandAB{Design: "pairs", Children: 2, Pairs: 40, ChildAddedNs: []float64{1e6, math.NaN()},
		HalfWidthPct: math.NaN(), MeetsBar: true, MeasuringNs: 6e10}}
	e := &document.Estimate{Validation: &document.EstimateValidation{EstimateCommand: c.Finite()}}
	var b bytes.Buffer
	if err := report.WriteEstimateJSON(&b, e); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Validation struct {
			AB map[string]any `json:"ab"`
		} `json:"validation"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	ab := doc.Validation.AB
	if ab["design"] != "pairs" || ab["pairs"] != 40.0 || ab["half_width_pct"] != 0.0 || ab["meets_bar"] != true || ab["measuring_ns"] != 6e10 {
		t.Errorf("validation.ab = %v", ab)
	}
	if cs, _ := ab["child_added_ns"].([]any); len(cs) != 2 || cs[0] != 1e6 || cs[1] != 0.0 {
		t.Errorf("child_added_ns = %v, want [1e6 0]", ab["child_added_ns"])
	}
}

func TestProfileCommandNeedsStrace(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := profileCommand(context.Background(), []string{"true"})
	if !errors.Is(err, ErrNoStrace) {
		t.Errorf("err = %v, want ErrNoStrace", err)
	}
}

func TestProfileCommand(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("no strace")
	}
	path, cleanup, err := profileCommand(context.Background(), []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := analysis.ParseProfile(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if prof.TotalCalls < 1 {
		t.Errorf("profile of true has %d calls", prof.TotalCalls)
	}
}

// Warm and cold quick calibrations put their syscalls at the same
// instructions per filter (cache defeated): 4, 128 and 253.
func TestCalibrationRunsPaths(t *testing.T) {
	for _, cold := range []bool{false, true} {
		runs, err := calibrationRuns(cold)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range runs {
			nr, _ := filters.ArchX86_64.Lookup(r.name)
			c, err := analysis.AnalyzeSyscall(filters.Stack{r.prog.DefeatCache()}, filters.ArchX86_64, nr)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, c.Executed)
			if cold && r.name != "openat" {
				t.Errorf("cold calibration loops on %s, want openat", r.name)
			}
		}
		if want := []int{4, 128, 253}; !slices.Equal(got, want) {
			t.Errorf("cold %v: instructions per filter %v, want %v", cold, got, want)
		}
	}
}

// The per-process term adds to the prediction, its interval in
// quadrature with the stated one, by hand: syscalls 39 ms [36, 42] stated
// as 39 ± 38.73 ms, process term 2 ms [1, 4]: predicted 41 ms, low
// 41 − √(38.73² + 1²) = 2.26, high 41 + √(38.73² + 2²) = 79.78 ms; the
// CPU comparison uses the CPU term (0.5 ms): 39.5 against +26 ms.
func TestMeasureCommandProcessTerm(t *testing.T) {
	ms := func(xs ...float64) []float64 {
		for i := range xs {
			xs[i] *= 1e6
		}
		return xs
	}
	opts := &Options{Command: []string{"find", "/usr/share"}, Trials: 6, Confidence: 0.95, Seed: 1, AB: command.DesignChildren,
		MeasureCommand: fakeCommandRun(ms(100, 102, 98, 101, 99, 100), ms(150, 152, 148, 151, 149, 150), 16)}
	syscalls := stats.Estimate{Center: 39e6, Lo: 36e6, Hi: 42e6}
	proc := stats.Estimate{Center: 2e6, Lo: 1e6, Hi: 4e6}
	c, err := measureCommand(context.Background(), opts, nil, result.VariantDefeat, 16, syscalls, proc, stats.Estimate{Center: 0.5e6, Lo: 0, Hi: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	hw := math.Hypot(3e6, ModelError*39e6)
	for _, ck := range []struct {
		name      string
		got, want float64
	}{
		{"predicted", c.PredictedAddedNs, 41e6},
		{"stated low", c.PredictedCILowNs, 41e6 - math.Hypot(hw, 1e6)},
		{"stated high", c.PredictedCIHighNs, 41e6 + math.Hypot(hw, 2e6)},
		{"syscalls", c.SyscallsAddedNs, 39e6},
		{"process", c.ProcessAddedNs, 2e6},
		{"CPU ratio", c.CPURatio, 39.5 / 26},
	} {
		if math.Abs(ck.got-ck.want) > 1e-6*math.Abs(ck.want) {
			t.Errorf("%s = %v, want %v", ck.name, ck.got, ck.want)
		}
	}
	if c.ProcessProbe != "/bin/true" {
		t.Errorf("process probe %q, want /bin/true", c.ProcessProbe)
	}
}

// fakePairedRun returns one paired child per entry of added (ns per run):
// each child has its own level (drift), four pairs whose filtered run is
// the unfiltered one plus added[c], and CPU differences of half that. It
// records the Config it was given in *got.
func fakePairedRun(added []float64, got *runner.Config) func(context.Context, runner.Config) ([]result.Sample, result.RunInfo, error) {
	return func(_ context.Context, cfg runner.Config) ([]result.Sample, result.RunInfo, error) {
		*got = cfg
		var out []result.Sample
		for c, a := range added {
			level := 100e6 + 20e6*float64(c%2) - 10e6*float64(c/2)
			s := result.Sample{Cell: result.Cell{Variant: cfg.Variants[0], Filters: cfg.Counts[0]}, Command: &result.CommandSample{Runs: 4, Design: "pairs"}}
			for i := range 4 {
				b := level + 1e6*float64(i%3)
				s.BaselineSamplesNsPerOp = append(s.BaselineSamplesNsPerOp, b)
				s.SamplesNsPerOp = append(s.SamplesNsPerOp, b+a)
				s.Command.BaseCPUNs = append(s.Command.BaseCPUNs, b/2)
				s.Command.CPUNs = append(s.Command.CPUNs, b/2+a/2)
				s.Command.InstallNs = append(s.Command.InstallNs, 2e6)
				s.Command.BaseFirst = append(s.Command.BaseFirst, i%2 == 0)
			}
			s.BaselineNsPerOp = stats.Median(s.BaselineSamplesNsPerOp)
			s.NsPerOp = stats.Median(s.SamplesNsPerOp)
			out = append(out, s)
		}
		return out, result.RunInfo{Blocks: len(added), Runs: 4, Elapsed: 30 * time.Second}, nil
	}
}

// The pairs design by hand: children whose pairs differ by 10, 12 and
// 14 ms (each at its own level: the drift cancels) give 12 ms ± t(0.975,
// 2)·2/√3 = 4.968 ms; CPU half that. One cell at N filters, the budget
// spread over the 3 blocks; the report names the design and carries each
// child's centre.
func TestMeasureCommandPairs(t *testing.T) {
	var cfg runner.Config
	opts := &Options{Command: []string{"find", "/usr/share"}, Trials: 3, Confidence: 0.95, Seed: 1, ABTime: 60 * time.Second,
		MeasureCommand: fakePairedRun([]float64{10e6, 12e6, 14e6}, &cfg)}
	c, err := measureCommand(context.Background(), opts, nil, result.VariantDefeat, 16, stats.Estimate{Center: 12e6, Lo: 11e6, Hi: 13e6}, stats.Estimate{}, stats.Estimate{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Counts, []int{16}) || cfg.Workload.Command.Design != command.DesignPairs || cfg.Workload.Command.TargetChild != 20*time.Second {
		t.Errorf("measured counts %v, design %q, child target %v; want [16], pairs, 20s", cfg.Counts, cfg.Workload.Command.Design, cfg.Workload.Command.TargetChild)
	}
	for _, ck := range []struct {
		name      string
		got, want float64
	}{
		{"measured", c.MeasuredAddedNs, 12e6},
		{"measured high", c.MeasuredCIHighNs, 12e6 + 4.968e6},
		{"CPU", c.MeasuredCPUAddedNs, 6e6},
		{"CPU low", c.MeasuredCPUCILowNs, 6e6 - 2.484e6},
		{"baseline", c.BaselineRunNs, 100.5e6},
		{"half-width %", c.AB.HalfWidthPct, 100 * 4.968 / 12},
	} {
		if math.Abs(ck.got-ck.want) > 1e-3*math.Abs(ck.want) {
			t.Errorf("%s = %v, want %v", ck.name, ck.got, ck.want)
		}
	}
	ab := c.AB
	if ab.Design != "pairs" || ab.Pairs != 12 || ab.Children != 3 || !slices.Equal(ab.ChildAddedNs, []float64{10e6, 12e6, 14e6}) || ab.MeetsBar || ab.MeasuringNs != 30e9 {
		t.Errorf("AB %+v, want pairs, 12 pairs of 3 children, centres 10/12/14 ms, bar not met (±41 %%), 30 s", ab)
	}
	if !c.Covered {
		t.Errorf("predicted 12 ms not covered by itself")
	}
	// Half-width 4.968 ms against the bar's 2.4 ms (20 % of 12): (4.968 /
	// 2.4)² = 4.28 times the 30 s and the 3 blocks.
	f := math.Pow(4.968/2.4, 2)
	if math.Abs(ab.BarMeasuringNs-30e9*f) > 1e-3*30e9*f || ab.BarTrials != int(math.Ceil(3*f)) {
		t.Errorf("bar projection %v ns, %d blocks; want %v ns, %d blocks", ab.BarMeasuringNs, ab.BarTrials, 30e9*f, int(math.Ceil(3*f)))
	}
	// Predicted 12 ms: the ±25 % band of true values is [9.6, 16] ms.
	// The wall interval [7.03, 16.97] holds values in and out of it; the
	// CPU interval [3.52, 8.48] none in it.
	if c.Accuracy != "undecided" || c.CPUAccuracy != "outside" || c.AccuracyBandPct != 25 {
		t.Errorf("accuracy wall %q, CPU %q, band %v%%; want undecided, outside, 25", c.Accuracy, c.CPUAccuracy, c.AccuracyBandPct)
	}
}

// TestBarProjectionMet: a measurement already inside the bar projects a
// shorter time than it took, and one without a half-width none.
func TestBarProjectionMet(t *testing.T) {
	if ns, k := barProjection(1, 10, 100, 60e9, 10); ns != 60e9/4 || k != 3 {
		t.Errorf("half the bar's half-width: %v ns, %d blocks; want 15 s, 3", ns, k)
	}
	if ns, k := barProjection(math.NaN(), 10, 100, 60e9, 10); ns != 0 || k != 0 {
		t.Errorf("NaN half-width: %v, %d; want 0, 0", ns, k)
	}
}

// The bar: within 20 % of the added time, or 0.3 % of the
// baseline run when the added time is small.
func TestMeetsBar(t *testing.T) {
	for _, tt := range []struct {
		hw, added, base float64
		want            bool
	}{
		{2, 10, 100, true},       // 20 % of 10
		{2.1, 10, 100, false},    // over 20 %, over 0.3 % of 100
		{0.3, 0.1, 100, true},    // added small: 0.3 % of the baseline
		{0.31, -0.1, 100, false}, // neither
	} {
		if got := meetsBar(tt.hw, tt.added, tt.base); got != tt.want {
			t.Errorf("meetsBar(%v, %v, %v) = %v, want %v", tt.hw, tt.added, tt.base, got, tt.want)
		}
	}
}

// --command's children are pinned as --cpu says, as run's and the
// calibration's are: -1 (the runner picks the highest free CPU, and a
// second for the duet), a CPU given, and anything below -1 as -2 (no
// pinning). They were left at CPU 0 whatever --cpu said.
func TestCommandSamplesHonourCPU(t *testing.T) {
	for _, tt := range []struct {
		cpu, want int
		design    command.Design
	}{
		{-1, -1, command.DesignPairs},
		{1, 1, command.DesignPairs},
		{3, 3, command.DesignDuet},
		{-2, -2, command.DesignChildren},
		{-7, -2, command.DesignPairs},
	} {
		var cfg runner.Config
		opts := &Options{Command: []string{"true"}, Trials: 3, Seed: 1, CPU: tt.cpu, AB: tt.design, ABTime: time.Second,
			MeasureCommand: func(_ context.Context, c runner.Config) ([]result.Sample, result.RunInfo, error) {
				cfg = c
				return nil, result.RunInfo{}, nil
			}}
		if _, _, err := commandSamples(context.Background(), opts, opts.Command, nil, nil, result.VariantOn, 4, opts.ABTime, nil); err != nil {
			t.Fatal(err)
		}
		if cfg.CPU != tt.want {
			t.Errorf("--cpu %d, --ab %s: the command's children got CPU %d, want %d", tt.cpu, tt.design, cfg.CPU, tt.want)
		}
	}
}

// A stack that kills a syscall the command's profile makes is said
// before anything is measured: the warning is on warn when the quick
// calibration's first run starts (and then it goes on, as the verdict
// is with arguments 0 and may not be the real one).
func TestKilledWarnedBeforeCalibration(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "kill.yaml")
	if err := os.WriteFile(policy, []byte("seccomp:\n  default_action: allow\n  syscalls:\n    - action: kill_process\n      names: [getppid]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "profile.csv")
	if err := os.WriteFile(profile, []byte("syscall,count,seconds\ngetppid,100,0.00001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	calls := 0
	var warnedFirst bool
	stop := errors.New("stop after the first calibration run")
	opts := &Options{Policies: []string{policy}, Profile: profile, Command: []string{"true"}, Cache: "defeat", Trials: 2, CalTrials: 2,
		Confidence: 0.95, Seed: 1, CPU: -1, ABTime: time.Second,
		Measure: func(context.Context, runner.Config) ([]result.Sample, error) {
			if calls == 0 {
				warnedFirst = strings.Contains(warn.String(), "the stack answers getppid with kill_process")
			}
			calls++
			return nil, stop
		},
		MeasureCommand: func(context.Context, runner.Config) ([]result.Sample, result.RunInfo, error) {
			t.Error("the command was measured")
			return nil, result.RunInfo{}, stop
		}}
	if _, err := Run(context.Background(), opts, &warn); !errors.Is(err, stop) {
		t.Fatalf("Run: %v, want the fake calibration's error", err)
	}
	if calls == 0 {
		t.Fatal("the calibration never ran: the test checks nothing")
	}
	if !warnedFirst {
		t.Errorf("no kill warning before the calibration's first run; warn now:\n%s", warn.String())
	}
}

// A command that strace cannot start, or that fails, is named whole with
// the last line of its standard error: what says why.
func TestProfileCommandSaysWhy(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("no strace")
	}
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"/nonexistent/cmd", "-x"}, "strace -f -c /nonexistent/cmd -x: exit status 1: "},
		{[]string{"sh", "-c", "echo first >&2; echo oops >&2; exit 3"}, "exit status 3: oops (the command must exit 0)"},
	} {
		_, _, err := profileCommand(context.Background(), tt.argv)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("profileCommand(%q) = %v, want it to contain %q", tt.argv, err, tt.want)
		}
	}
	if _, _, err := profileCommand(context.Background(), []string{"/nonexistent/cmd"}); err == nil || !strings.Contains(err.Error(), "No such file") {
		t.Errorf("missing command: %v, want strace's 'No such file'", err)
	}
}

// The profile --command takes with strace is a temporary file removed at
// the end: the estimate names the profiled command instead of its path
// (report.StraceProfileSource), in JSON and in the headline.
func TestStracedProfileNamesCommand(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("no strace")
	}
	opts := &Options{Policies: []string{"../../../../testdata/policies/docker-default.json"}, Command: []string{"true", "x y"}, Cache: "on",
		Calibrations: []string{"../../../../docs/examples/run.json"}, Trials: 6, Confidence: 0.95, Seed: 1, CPU: -1, AB: command.DesignChildren,
		MeasureCommand: fakeCommandRun([]float64{1e6, 1e6, 1e6}, []float64{1.1e6, 1.1e6, 1.1e6}, 1)}
	out, err := Run(context.Background(), opts, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := "strace of `true 'x y'` (not kept)"; out.Profile.Source != want {
		t.Errorf("profile.source = %q, want %q", out.Profile.Source, want)
	}
	if opts.Profile != "" {
		t.Errorf("opts.Profile = %q after Run, want the temporary profile forgotten", opts.Profile)
	}
	if l := report.EstimateHeadline(out); !strings.Contains(l[0].Text, "profile strace of `true 'x y'` (not kept)") {
		t.Errorf("headline policy line %q does not name the command", l[0].Text)
	}
}

// estimate --command /bin/true --budget: the per-process probe is the
// same program as the command, and was measured in the budget's rounds
// too, so "measuring: `/bin/true` … until the budget …" came out twice.
// The probe now takes its fixed share of --ab-time under a line of its
// own, and only the command's measurement stops on the verdict.
func TestProbeNotMeasuredUntilBudget(t *testing.T) {
	b, err := stats.ParseBudget("50%")
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	var stops []bool
	opts := &Options{Command: slices.Clone(ProcessProbe), Trials: 3, Seed: 1, CPU: -2, AB: command.DesignPairs, ABTime: time.Second,
		Budget: &b, Confidence: 0.95, Progress: &progress,
		MeasureCommand: func(_ context.Context, c runner.Config) ([]result.Sample, result.RunInfo, error) {
			stops = append(stops, c.Stop != nil)
			return nil, result.RunInfo{}, nil
		}}
	if _, _, err := processTerm(context.Background(), opts, nil, result.VariantOn, 1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := commandSamples(context.Background(), opts, opts.Command, nil, nil, result.VariantOn, 1, opts.ABTime, nil); err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true}; !slices.Equal(stops, want) {
		t.Errorf("stop on the verdict (probe, command) = %v, want %v", stops, want)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 2 || lines[0] == lines[1] {
		t.Fatalf("progress lines %q, want two different ones", lines)
	}
	if !strings.HasPrefix(lines[0], "measuring the per-process term: `/bin/true`") || strings.Contains(lines[0], "budget") {
		t.Errorf("probe line %q, want the per-process term at its fixed share", lines[0])
	}
	if !strings.Contains(lines[1], "until the budget of 50% is decided") {
		t.Errorf("command line %q, want the budget's rounds", lines[1])
	}
}
