package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
)

func TestCommandText(t *testing.T) {
	d := &document.Document{CommandWorkload: &document.CommandCost{
		Argv: []string{"find", "/usr/share", "-name", "x y"}, RunsPerChild: 3, WarmupRuns: 1,
		FailedRuns: 1, OutlierRuns: 2, BaselineRunNs: 150.2e6, BaselineCPUNs: 148e6,
		Splits: []document.CommandSplit{
			{Variant: "defeat", Filters: 16, InstallNs: 1.2e6, InstallCILowNs: 1.1e6, InstallCIHighNs: 1.3e6,
				RunningNs: 50e6, RunningCILowNs: 36e6, RunningCIHighNs: 64e6, CPUAddedNs: 49e6, InstallShare: 1.2 / 51.2, Dominant: "running", Clear: true},
			{Variant: "on", Filters: 16, InstallNs: 1.2e6, InstallCILowNs: 1.1e6, InstallCIHighNs: 1.3e6,
				RunningNs: 0.5e6, RunningCILowNs: -0.2e6, RunningCIHighNs: 1.4e6, CPUAddedNs: -1500, InstallShare: 1.2 / 1.7, Dominant: "install", Clear: false},
		}}}
	var b bytes.Buffer
	commandText(&errWriter{w: &b}, d)
	for _, want := range []string{
		"command: find /usr/share -name 'x y'; 3 timed runs per child after 1 warm-up",
		"baseline 150 ms (CPU user+sys 148 ms)",
		"1 timed runs did not exit 0 (kept: --ignore-failure)",
		"2 timed runs flagged as outliers within their child",
		"defeat, 16 filters: install 1.20 ms [1.10 ms, 1.30 ms] once per process (seccomp(2) in each command process, median), running +50.0 ms [+36.0 ms, +64.0 ms] per run, CPU +49.0 ms per run: the running cost dominates (a long-running process), install 2% of the total",
		"on, 16 filters: install 1.20 ms [1.10 ms, 1.30 ms] once per process (seccomp(2) in each command process, median), running +0.50 ms [-0.20 ms, +1.40 ms] per run, CPU -1.50 µs per run: neither dominates by these intervals, which overlap (the install's centre is the larger), install 71% of the total",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}

func TestWriteEstimateCommandText(t *testing.T) {
	c := &document.EstimateCommand{Argv: []string{"find", "/usr/share", "-name", "x"}, Filters: 16, Variant: "defeat", Trials: 10, RunsPerChild: 2,
		BaselineRunNs: 150e6, PredictedAddedNs: 39e6, PredictedCILowNs: 36e6, PredictedCIHighNs: 42e6, CalibrationCILowNs: 37e6, CalibrationCIHighNs: 41e6,
		MeasuredAddedNs: 50e6, MeasuredCILowNs: 36e6, MeasuredCIHighNs: 64e6, MeasuredCPUAddedNs: 49e6, MeasuredCPUCILowNs: 45e6, MeasuredCPUCIHighNs: 53e6,
		Ratio: 0.78, ErrorPct: -22, Covered: false, InstallNs: 1.2e6, InstallShare: 1.2 / 51.2, Dominant: "running", DominantClear: true}
	var b bytes.Buffer
	WriteEstimateCommandText(&b, c, 115)
	for _, want := range []string{
		"measured: find /usr/share -name x under 0 and 16 filters (defeat), 10 blocks of fresh children, 2 timed runs each",
		"predicted added  +39.0 ms [+36.0 ms, +42.0 ms]   (calibration only: [+37.0 ms, +41.0 ms])",
		"measured added   +50.0 ms [+36.0 ms, +64.0 ms]   (CPU user+sys +49.0 ms [+45.0 ms, +53.0 ms])",
		"ratio            predicted ÷ measured 0.78 wall (error -22.0%)",
		"stated interval  does NOT cover the wall time",
		"(the prediction's interval: calibration and model error ±115%)",
		"install          1.20 ms once per process, not in either added time: the running cost dominates (a long-running process); install is 2% of install + measured added time",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}

// The paired designs say how the command was measured and how precise
// the measured added time is, against the bar the line states.
func TestWriteEstimateCommandTextPairs(t *testing.T) {
	c := &document.EstimateCommand{Argv: []string{"find", "/usr/share", "-name", "x"}, Filters: 16, Variant: "defeat", Trials: 10, RunsPerChild: 40,
		BaselineRunNs: 150e6, MeasuredAddedNs: 50e6, MeasuredCILowNs: 47e6, MeasuredCIHighNs: 53e6, MeasuredCPUAddedNs: 49e6, MeasuredCPUCILowNs: 45e6, MeasuredCPUCIHighNs: 53e6,
		AB: &document.CommandAB{Design: "pairs", Children: 10, Pairs: 400, HalfWidthPct: 6, CPUHalfWidthPct: 8.2, HalfWidthBaselinePct: 2, MeetsBar: true, MeasuringNs: 61.3e9}}
	for _, tt := range []struct {
		design, want string
	}{
		{"pairs", "measured: find /usr/share -name x without and with 16 filters (defeat), 10 children, 400 interleaved pairs in all (order random per pair)"},
		{"duet", "measured: find /usr/share -name x without and with 16 filters (defeat), 10 children, 400 pairs in all, each pair's runs at once on two CPUs (sides swapped as drawn)"},
		{"children", "measured: find /usr/share -name x under 0 and 16 filters (defeat), 10 blocks of fresh children, 40 timed runs each"},
	} {
		c.AB.Design = tt.design
		var b bytes.Buffer
		WriteEstimateCommandText(&b, c, 0)
		line := "  precision        ±6% of added (CPU ±8%), ±2.00% of baseline, 61.3 s measuring; the bar (±20% of the added time, or ±0.3% of the baseline run when the added time is smaller) met (not in CPU time)\n"
		for _, want := range []string{tt.want, line} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: missing %q in\n%s", tt.design, want, b.String())
			}
		}
	}
	c.AB.MeetsBar = false
	var b bytes.Buffer
	WriteEstimateCommandText(&b, c, 0)
	if !strings.Contains(b.String(), "when the added time is smaller) NOT met\n") {
		t.Errorf("missing the unmet bar in\n%s", b.String())
	}
	// The projection: the sooner of wall and CPU, as flags a user can
	// pass again.
	c.AB.BarMeasuringNs, c.AB.BarTrials, c.AB.CPUBarMeasuringNs, c.AB.CPUBarTrials = 960e9, 160, 1500e9, 250
	b.Reset()
	WriteEstimateCommandText(&b, c, 0)
	if want := "to meet the bar  wall about 16m, CPU about 25m of measuring at the spread seen (for both: --ab-time 25m --trials 250)"; !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in\n%s", want, b.String())
	}
	c.AB.BarMeasuringNs, c.AB.CPUBarMeasuringNs = 2*24*3600e9, 3*24*3600e9
	b.Reset()
	WriteEstimateCommandText(&b, c, 0)
	if want := "wall more than a day, CPU more than a day of measuring at the spread seen\n"; !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in\n%s", want, b.String())
	}
	// One side met: the line gives the other's figure alone.
	c.AB.CPUMeetsBar, c.AB.BarMeasuringNs = true, 90e9
	b.Reset()
	WriteEstimateCommandText(&b, c, 0)
	if want := "to meet the bar  wall about 1m30s of measuring at the spread seen (--ab-time 1m30s --trials 160)"; !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "met in CPU time, NOT in wall time") {
		t.Errorf("CPU met: want %q and the CPU verdict in\n%s", want, b.String())
	}
	c.AB.MeetsBar, c.AB.CPUMeetsBar = true, true
	b.Reset()
	WriteEstimateCommandText(&b, c, 0)
	if strings.Contains(b.String(), "to meet the bar") {
		t.Errorf("both met: want no projection in\n%s", b.String())
	}
}

func TestFlagDuration(t *testing.T) {
	for _, tt := range []struct {
		ns   float64
		want string
	}{
		{9.2e9, "10s"}, {10e9, "10s"}, {62.5e9, "1m3s"}, {16 * 60e9, "16m"}, {(16*60 + 1) * 1e9, "17m"}, {3600e9, "1h"}, {3700e9, "1h2m"},
	} {
		if got := flagDuration(tt.ns); got != tt.want {
			t.Errorf("flagDuration(%v) = %q, want %q", tt.ns, got, tt.want)
		}
	}
}

// The accuracy line says the verdicts judged against the intervals.
func TestWriteEstimateCommandAccuracy(t *testing.T) {
	c := &document.EstimateCommand{Argv: []string{"true"}, Filters: 16, Variant: "on", Trials: 10, BaselineRunNs: 1e6,
		MeasuredAddedNs: 0.6e6, MeasuredCILowNs: 0.45e6, MeasuredCIHighNs: 0.8e6, Accuracy: "outside", CPUAccuracy: "undecided", AccuracyBandPct: 25}
	var b bytes.Buffer
	WriteEstimateCommandText(&b, c, 0)
	if want := "within ±25%      wall OUTSIDE, CPU undecided (judged against every value the measured interval holds"; !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in\n%s", want, b.String())
	}
}

// Other processes on the measuring CPU are said, and from
// result.ForeignLoadWarnShare on, with what to do.
func TestWriteEstimateCommandForeignLoad(t *testing.T) {
	c := &document.EstimateCommand{Argv: []string{"true"}, Filters: 16, Variant: "on", Trials: 10, BaselineRunNs: 1e6,
		ForeignLoad: &result.ForeignLoad{CPUs: []int{1}, Children: 10, WindowNs: 60e9, BusyNs: 60e9, OwnNs: 52.8e9, Share: 0.12}}
	var b bytes.Buffer
	WriteEstimateCommandText(&b, c, 0)
	if want := "other load       other processes took 12 % of measuring CPU 1 while children ran: enough to move the added time"; !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in\n%s", want, b.String())
	}
	c.ForeignLoad.Share = 0.01
	b.Reset()
	WriteEstimateCommandText(&b, c, 0)
	if want := "other load       other processes took 1 % of measuring CPU 1 while children ran\n"; !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in\n%s", want, b.String())
	}
}
