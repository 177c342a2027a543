package analysis

import (
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

func TestCalibrationFilter(t *testing.T) {
	p, err := CalibrationFilter(filters.ArchX86_64, 250, CalibrationMark{"getppid", 1}, CalibrationMark{"gettid", 125})
	if err != nil {
		t.Fatal(err)
	}
	if err := filters.Validate(p.Insns); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		insns  int // executed as installed
		defeat int // executed with the cache defeated
	}{
		{"getppid", 3, 4},
		{"gettid", 127, 128},
		{"getpid", 252, 253},
		{"seccomp", 252, 253},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nr, _ := filters.ArchX86_64.Lookup(tt.name)
			for _, c := range []struct {
				s    filters.Stack
				want int
			}{{filters.Stack{p}, tt.insns}, {filters.Stack{p.DefeatCache()}, tt.defeat}} {
				got, err := AnalyzeSyscall(c.s, filters.ArchX86_64, nr)
				if err != nil {
					t.Fatal(err)
				}
				if got.Action != filters.ActionAllow || got.Executed != c.want {
					t.Errorf("defeated %v: %v, %d instructions; want allow, %d", c.s[0].CacheDefeated, got.Action, got.Executed, c.want)
				}
				if got.Cached == c.s[0].CacheDefeated {
					t.Errorf("defeated %v: cached %v", c.s[0].CacheDefeated, got.Cached)
				}
			}
		})
	}
	r, err := filters.EmulateStack(filters.Stack{p}, filters.SeccompData{Nr: 0x7fff0000 + 7, Arch: filters.ArchX86_64.AuditArch})
	if err != nil || r.Action != filters.ActionErrno {
		t.Errorf("padding number: %v %v, want ERRNO", r.Action, err)
	}
	for _, bad := range [][]CalibrationMark{{{"getpid", 0}}, {{"getpid", 251}}, {{"getpid", 3}, {"getppid", 3}}, {{"nosuch", 3}}} {
		if _, err := CalibrationFilter(filters.ArchX86_64, 250, bad...); err == nil {
			t.Errorf("marks %v: got no error", bad)
		}
	}
	if _, err := CalibrationFilter(filters.ArchX86_64, 251); err == nil {
		t.Error("chain 251: got no error")
	}
}
