package inspect

import (
	"errors"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/runner/inspect"
	"github.com/seccompbench/seccompbench/runner/result"
)

// TestAnalyze groups identical dumped filters, keeps the installation order
// and costs the chosen syscalls through the emulator.
func TestAnalyze(t *testing.T) {
	a, err := formats.OpenWith("default", formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := analysis.CalibrationFilter(filters.ArchX86_64, 4)
	if err != nil {
		t.Fatal(err)
	}
	pf := inspect.ProcessFilters{ProcStatus: result.ProcStatus{Pid: 42, Name: "svc", SeccompMode: 2, SeccompFilters: 3},
		Filters: [][]byte{a.Bytes(), b.Bytes(), a.Bytes()}}
	p := Analyze(pf, false, []string{"getpid"})
	r := p.Report
	if r.Error != "" || len(p.Stack) != 3 || p.Stack[0].Name != "pid42-filter-00" {
		t.Fatalf("error %q, stack %d filters (first %q); want 3 filters named pid42-filter-NN", r.Error, len(p.Stack), p.Stack[0].Name)
	}
	if len(r.Groups) != 2 || r.Groups[0].Count != 2 || r.Filters[2].Group != r.Filters[0].Group || r.Filters[1].Group == r.Filters[0].Group {
		t.Errorf("groups %+v, filters %+v; want filters 0 and 2 in one group, 1 in another", r.Groups, r.Filters)
	}
	if r.Analysis == nil || len(r.Analysis.Syscalls) != 1 || r.Analysis.Syscalls[0].Name != "getpid" || r.Analysis.Syscalls[0].Action != "allow" {
		t.Errorf("analysis %+v; want getpid allowed", r.Analysis)
	}
}

func TestAnalyzeDumpError(t *testing.T) {
	dumpErr := errors.New("get filter 0: permission denied")
	p := Analyze(inspect.ProcessFilters{ProcStatus: result.ProcStatus{Pid: 7, SeccompMode: 2}, DumpErr: dumpErr}, false, nil)
	if p.Report.Error != dumpErr.Error() || p.Stack != nil || p.Report.Analysis != nil {
		t.Errorf("got %+v, stack %v; want the dump error and nothing analyzed", p.Report, p.Stack)
	}
}

// TestCollect: a named process that cannot be read counts as failed and
// is listed; with All it is skipped, as are processes without seccomp.
func TestCollect(t *testing.T) {
	procs := map[int]inspect.ProcessFilters{
		1: {ProcStatus: result.ProcStatus{Pid: 1, SeccompMode: 0}},
		2: {ProcStatus: result.ProcStatus{Pid: 2, SeccompMode: 2}},
	}
	opts := &Options{
		Inspect: func(pid int) (inspect.ProcessFilters, error) {
			pf, ok := procs[pid]
			if !ok {
				return pf, errors.New("no such process")
			}
			return pf, nil
		},
		ListPids: func() ([]int, error) { return []int{1, 2, 3}, nil },
	}
	tests := []struct {
		name                      string
		pids                      []int
		all                       bool
		wantN, wantSkip, wantFail int
	}{
		{"named", []int{2, 3}, false, 2, 0, 1},
		{"all", nil, true, 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts.Pids, opts.All = tt.pids, tt.all
			c, err := Collect(opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Processes) != tt.wantN || c.Skipped != tt.wantSkip || c.Failed != tt.wantFail {
				t.Errorf("got %d processes, %d skipped, %d failed; want %d, %d, %d", len(c.Processes), c.Skipped, c.Failed, tt.wantN, tt.wantSkip, tt.wantFail)
			}
			if gotErr := c.Err(); (tt.wantFail > 0) != errors.Is(gotErr, ErrInspect) {
				t.Errorf("Err() = %v", gotErr)
			}
		})
	}
}
