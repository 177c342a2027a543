package simulate

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

func TestStackCycles(t *testing.T) {
	s, err := Stack([]string{"default", "docker-default"}, 5, true, scmp.CompilerNative, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range s {
		names = append(names, p.Name)
	}
	if len(s) != 5 || names[0] != names[2] || names[1] != names[3] || names[0] == names[1] {
		t.Errorf("stack %v; want 5 filters cycling the two policies", names)
	}
}

func TestCostsOrder(t *testing.T) {
	s, err := Stack([]string{"default"}, 0, false, scmp.CompilerNative, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		order string
		less  func(a, b analysis.SyscallCost) bool // must not hold for any later row against an earlier one
	}{
		{"name", func(a, b analysis.SyscallCost) bool { return a.Name < b.Name }},
		{"nr", func(a, b analysis.SyscallCost) bool { return a.Nr < b.Nr }},
	}
	for _, tt := range tests {
		t.Run(tt.order, func(t *testing.T) {
			arches, costs, err := Costs(s, "i386", tt.order)
			if err != nil {
				t.Fatal(err)
			}
			// i386 stands for its kernel: every x86_64 kernel ABI is analyzed.
			if !slices.Equal(arches, filters.NativeArches()) || len(costs) == 0 {
				t.Fatalf("arches %v, %d costs; want x86_64, i386 and x32", arches, len(costs))
			}
			var i386 []analysis.SyscallCost
			for _, c := range costs {
				if c.Arch == "i386" {
					i386 = append(i386, c)
				}
			}
			sorted := slices.IsSortedFunc(i386, func(a, b analysis.SyscallCost) int {
				switch {
				case tt.less(a, b):
					return -1
				case tt.less(b, a):
					return 1
				}
				return 0
			})
			if !sorted {
				t.Errorf("costs not in %s order", tt.order)
			}
		})
	}
}

func TestSyscallUnknownIsUsageError(t *testing.T) {
	s, err := Stack([]string{"default"}, 0, false, scmp.CompilerNative, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Syscall(s, "", "nosuch", nil)
	var fe *cmdutil.FlagError
	if !errors.As(err, &fe) {
		t.Errorf("err = %v, want a *cmdutil.FlagError", err)
	}
}

func TestPlotOneABI(t *testing.T) {
	s, err := Stack([]string{"default"}, 0, false, scmp.CompilerNative, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, costs, err := Costs(s, "", "nr")
	if err != nil {
		t.Fatal(err)
	}
	p := Plot(s, costs, "", "nr", false)
	if p.Arch != "x86_64" || len(p.Bars) == 0 || len(p.Bars) >= len(costs) {
		t.Errorf("plot of %s with %d bars from %d costs; want the x86_64 ones only", p.Arch, len(p.Bars), len(costs))
	}
}

// TestParseArgsNames: --args takes numbers only; a constant name is an
// error that says so and shows a value to give instead.
func TestParseArgsNames(t *testing.T) {
	got, err := ParseArgs("3, 0x1277,-1")
	if err != nil || len(got) != 3 || got[1] != 0x1277 || got[2] != ^uint64(0) {
		t.Errorf("ParseArgs = %#x, %v; want [3 0x1277 -1]", got, err)
	}
	if _, err := ParseArgs("3,BLKDISCARD"); err == nil || !strings.Contains(err.Error(), `argument 1: "BLKDISCARD" is not a number`) || !strings.Contains(err.Error(), "give the value") {
		t.Errorf("error %v, want one saying names are not read", err)
	}
}
