package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/internal/golden"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/workload"
)

// The golden files of this file were written by the seccompbench binary
// before its renderers moved from cmd/seccompbench to report (commit
// 1f7ea60): estimate, inspect, simulate and lint output must stay byte for
// byte what users saw. The JSON inputs under testdata are that binary's
// --format json output for the same command lines.

// readFixture decodes testdata/name into v and returns its bytes.
func readFixture(t *testing.T, name string, v any) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return b
}

// openPolicies opens policies given relative to the repository root, as
// the command lines of the golden files name them.
func openPolicies(t *testing.T, specs ...string) []*filters.Program {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(".."); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out []*filters.Program
	for _, s := range specs {
		p, err := formats.OpenWith(s, formats.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestEstimateGolden(t *testing.T) {
	tests := []struct {
		fixture, golden string
		top             int
	}{
		// estimate testdata/policies/positions.yaml --filters 8 --cache defeat
		// --profile docs/validation-profile.csv --calibration c1 --calibration c2
		// --duration 12ms [--top 3]
		{"estimate.json", "estimate.txt", 15},
		{"estimate.json", "estimate-top3.txt", 3},
		// a quick calibration and --validate against a simulated machine
		// (cmd/seccompbench fakeMeasure), 4 filters, cache defeated
		{"estimate-validate.json", "estimate-validate.txt", 15},
		// estimate docker-default --filters 16 --cache on --command -- git
		// status, in a clone of this repository, on this project's VM (a
		// busy machine)
		{"estimate-command.json", "estimate-command.txt", 8},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var e document.Estimate
			in := readFixture(t, tt.fixture, &e)
			var txt, js bytes.Buffer
			WriteEstimateText(&txt, &e, tt.top)
			golden.Check(t, tt.golden, txt.Bytes())
			var md bytes.Buffer
			if err := WriteEstimateMarkdown(&md, &e, tt.top); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, strings.TrimSuffix(tt.golden, ".txt")+".md", md.Bytes())
			if err := WriteEstimateJSON(&js, &e); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(js.Bytes(), in) {
				t.Errorf("WriteEstimateJSON does not reproduce %s:\n%s", tt.fixture, js.Bytes())
			}
		})
	}
}

// inspect PID --disasm --syscalls getpid,read,openat [--format json] of a
// process under sandbox default testdata/policies/minimal.yaml --filters 3.
func TestInspectGolden(t *testing.T) {
	var doc document.InspectDoc
	in := readFixture(t, "inspect.json", &doc)
	ps := doc.Processes
	var txt, js bytes.Buffer
	for i, p := range ps {
		if i > 0 {
			txt.WriteString("\n")
		}
		WriteInspectText(&txt, p, true)
	}
	golden.Check(t, "inspect.txt", txt.Bytes())
	if err := WriteInspectJSON(&js, ps, doc.Skipped); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(js.Bytes(), in) {
		t.Errorf("WriteInspectJSON does not reproduce inspect.json:\n%s", js.Bytes())
	}
}

// simulate testdata/policies/args-workload.yaml default --filters 3
// --syscall write --args 1,0,10 [--format json], and
// simulate testdata/policies/minimal.yaml --all --arch i386.
func TestSimulateGolden(t *testing.T) {
	t.Run("syscall", func(t *testing.T) {
		s, err := filters.BuildStack(openPolicies(t, "testdata/policies/args-workload.yaml", "default"), 3)
		if err != nil {
			t.Fatal(err)
		}
		arch := filters.ArchX86_64
		nr, err := analysis.LookupSyscall(arch, "write")
		if err != nil {
			t.Fatal(err)
		}
		args := []uint64{1, 0, 10}
		cost, err := analysis.AnalyzeSyscall(s, arch, nr, args...)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := filters.EmulateStack(s, arch.Data(nr, args...))
		if err != nil {
			t.Fatal(err)
		}
		var txt, js bytes.Buffer
		if err := WriteSimulateSyscallText(&txt, s, cost, sr); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "simulate-syscall.txt", txt.Bytes())
		if err := document.WriteIndentedJSON(&js, NewSimulateDoc(s, []analysis.SyscallCost{cost}, &sr)); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "simulate-syscall.json", js.Bytes())
	})
	t.Run("all", func(t *testing.T) {
		s, err := filters.BuildStack(openPolicies(t, "testdata/policies/minimal.yaml"), 1)
		if err != nil {
			t.Fatal(err)
		}
		arches := []*filters.Arch{filters.ArchI386}
		costs, err := analysis.Analyze(s, arches)
		if err != nil {
			t.Fatal(err)
		}
		var txt bytes.Buffer
		if err := WriteSimulateAllText(&txt, s, arches, costs); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "simulate-all-i386.txt", txt.Bytes())
	})
}

// lint testdata/policies/denylist.yaml --workload mix --filters 32
// [--format json].
func TestLintGolden(t *testing.T) {
	s := filters.Stack(openPolicies(t, "testdata/policies/denylist.yaml"))
	w, err := workload.Lookup("mix")
	if err != nil {
		t.Fatal(err)
	}
	findings := analysis.Lint(s, analysis.LintOptions{Count: 32, Workload: w.Syscalls})
	var txt, js bytes.Buffer
	if err := WriteLintText(&txt, findings); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "lint.txt", txt.Bytes())
	if err := WriteLintJSON(&js, s, findings); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "lint.json", js.Bytes())
}
