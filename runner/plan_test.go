package runner

import (
	"errors"
	"math"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

func TestCheckChildWork(t *testing.T) {
	cfg := Config{Workload: Workloads()["getpid"], Iterations: 1000, Samples: 5, Warmup: 1}
	huge := cfg
	huge.Iterations = 1 << 40
	tests := []struct {
		name      string
		cfg       Config
		perIterNs float64
		wantErr   error
	}{
		{"not calibrated", huge, 0, nil},
		{"NaN", huge, math.NaN(), nil},
		{"defaults", cfg, 100, nil},
		{"hours per child", huge, 100, ErrTooMuchWork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkChildWork(tt.cfg, tt.perIterNs); !errors.Is(got, tt.wantErr) || (got == nil) != (tt.wantErr == nil) {
				t.Errorf("checkChildWork = %v, want %v", got, tt.wantErr)
			}
		})
	}
}

// TestBuildStacks: one stack per cell, the defeat variant one instruction
// longer per filter, and a stack over the kernel's limits refused before
// any child starts.
func TestBuildStacks(t *testing.T) {
	p := prog(t, "allow", allow)
	cfg := Config{Programs: []*filters.Program{p}, Counts: []int{0, 1, 3}, Variants: []Variant{VariantOn, VariantDefeat}}
	stacks, err := buildStacks(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(stacks) != 6 {
		t.Fatalf("got %d stacks, want 6", len(stacks))
	}
	for c, st := range stacks {
		wantLen := len(p.Insns) * 8
		if c.Variant == VariantDefeat {
			wantLen += 8
		}
		if len(st) != c.Filters {
			t.Errorf("%s: %d filters", c, len(st))
		}
		for _, f := range st {
			if len(f) != wantLen {
				t.Errorf("%s: filter of %d bytes, want %d", c, len(f), wantLen)
			}
		}
	}
	cfg.Counts = []int{filters.MaxInsns}
	var le *filters.LimitError
	if _, err := buildStacks(cfg); !errors.As(err, &le) {
		t.Errorf("%d filters: err = %v, want a *filters.LimitError", filters.MaxInsns, err)
	}
}
