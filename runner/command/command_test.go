package command

import (
	"slices"
	"testing"

	"github.com/seccompbench/seccompbench/runner/result"
)

func TestParseSeccompAudit(t *testing.T) {
	tests := []struct {
		line string
		want auditRecord
		ok   bool
	}{
		{`5,812,1321071278,-;audit: type=1326 audit(1796118678.658:43): auid=4294967295 uid=0 gid=0 ses=4294967295 pid=22032 comm="runner.test" exe="/tmp/x" sig=31 arch=c000003e syscall=317 compat=0 ip=0x40ac6e code=0x0` + "\n",
			auditRecord{pid: 22032, syscall: 317, arch: 0xc000003e}, true},
		{`6,813,1,-;audit: type=1400 apparmor="DENIED" pid=1`, auditRecord{}, false},
		{`5,1,1,-;audit: type=1326 pid=7 arch=zz syscall=1`, auditRecord{pid: 7, syscall: 1}, false},
	}
	for _, tt := range tests {
		got, ok := parseSeccompAudit([]byte(tt.line))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseSeccompAudit(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

// commandSample keeps every run, flags the outlier and takes medians
// (synthetic report, no kernel).
func TestCommandSampleFlagsOutliers(t *testing.T) {
	cr := &commandChildReport{Warmup: 1, Installed: 2, Failed: 1,
		Failure: &runFailure{Stage: "run", Run: 3, ExitCode: 2, Syscall: -1, Filter: -1}}
	walls := []int64{100, 102, 98, 101, 99, 400, 100}
	for i, w := range walls {
		cr.Runs = append(cr.Runs, commandRun{WallNs: w + 50, CmdNs: w, InstallNs: 20 + int64(i), CPUNs: w / 2})
		cr.FilterNs = append(cr.FilterNs, []int64{10 + int64(i), 5})
	}
	var s result.Sample
	commandSample(&s, cr)
	c := s.Command
	if len(s.SamplesNsPerOp) != len(walls) || len(c.WallNs) != len(walls) || len(c.InstallNs) != len(walls) || len(c.CPUNs) != len(walls) {
		t.Fatalf("runs dropped: %+v", s)
	}
	if !slices.Equal(c.Outliers, []int{5}) {
		t.Errorf("outliers %v, want [5] (400 among ~100)", c.Outliers)
	}
	if want := []int64{13, 5}; !slices.Equal(s.InstallNs, want) {
		t.Errorf("per-filter install %v, want medians %v", s.InstallNs, want)
	}
	if c.Runs != 7 || c.Warmup != 1 || c.Failed != 1 || c.FirstFailure == nil || c.FirstFailure.ExitCode != 2 || c.FirstFailure.Filters != 2 {
		t.Errorf("counts %+v, first failure %+v", c, c.FirstFailure)
	}
}

// A paired child's report carries one unfiltered run and one order per
// timed run; pairedSample puts them beside the stacked series (synthetic
// report, no kernel).
func TestPairedSample(t *testing.T) {
	cr := &commandChildReport{Warmup: 1, Installed: 1}
	for i := range 3 {
		cr.Runs = append(cr.Runs, commandRun{WallNs: 200, CmdNs: 150 + int64(i), CPUNs: 100})
		cr.Base = append(cr.Base, commandRun{WallNs: 180, CmdNs: 120 + int64(10*i), CPUNs: 90 + int64(i)})
		cr.BaseFirst = append(cr.BaseFirst, i%2 == 0)
		cr.FilterNs = append(cr.FilterNs, []int64{7})
	}
	if err := checkPairs(DesignPairs, cr); err != nil {
		t.Fatal(err)
	}
	if err := checkPairs(DesignChildren, cr); err == nil {
		t.Error("checkPairs(children) accepted a report with unfiltered runs")
	}
	short := *cr
	short.BaseFirst = short.BaseFirst[:2]
	if err := checkPairs(DesignDuet, &short); err == nil {
		t.Error("checkPairs(duet) accepted 3 runs with 2 orders")
	}
	var s result.Sample
	commandSample(&s, cr)
	c := s.Command
	if !slices.Equal(s.BaselineSamplesNsPerOp, []float64{120, 130, 140}) || s.BaselineNsPerOp != 130 {
		t.Errorf("baseline %v (median %v), want [120 130 140] (130)", s.BaselineSamplesNsPerOp, s.BaselineNsPerOp)
	}
	if !slices.Equal(c.BaseCPUNs, []float64{90, 91, 92}) || !slices.Equal(c.BaseWallNs, []float64{180, 180, 180}) || !slices.Equal(c.BaseFirst, []bool{true, false, true}) {
		t.Errorf("base CPU %v, wall %v, orders %v", c.BaseCPUNs, c.BaseWallNs, c.BaseFirst)
	}
	if !slices.Equal(s.SamplesNsPerOp, []float64{150, 151, 152}) {
		t.Errorf("stacked runs %v, want [150 151 152]", s.SamplesNsPerOp)
	}
}

func TestParseDesign(t *testing.T) {
	for _, d := range Designs {
		if got, err := ParseDesign(string(d)); err != nil || got != d {
			t.Errorf("ParseDesign(%q) = %q, %v", d, got, err)
		}
	}
	if _, err := ParseDesign("abba"); err == nil {
		t.Error("ParseDesign(abba) accepted it")
	}
	if err := (Spec{Argv: []string{"true"}, Design: "abba"}).Check(); err == nil {
		t.Error("Check accepted design abba")
	}
}
