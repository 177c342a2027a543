package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestBatchShareByHand(t *testing.T) {
	// R = 30/100 = 0.3; residuals 10-0.3*40=-2, 12-0.3*30=3, 8-0.3*30=-1;
	// Σd² = 14; SE = √(14/(3·2)) / (100/3) = 0.045826; t(0.975, 2) = 4.302653.
	got := BatchShare([]Batch{{10, 40}, {12, 30}, {8, 30}, {0, 0}}, 0.95)
	want := 4.302653 * math.Sqrt(14.0/6) / (100.0 / 3)
	if got.Batches != 3 || got.Hits != 30 || got.Total != 100 {
		t.Fatalf("got %d batches %v/%v, want 3 batches 30/100", got.Batches, got.Hits, got.Total)
	}
	if math.Abs(got.Center-0.3) > 1e-12 || math.Abs(got.Hi-got.Center-want) > 1e-5 || math.Abs(got.Center-got.Lo-want) > 1e-5 {
		t.Errorf("got %.6f [%.6f, %.6f], want 0.3 ± %.6f", got.Center, got.Lo, got.Hi, want)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "only 3 batches") {
		t.Errorf("warnings %q, want one about too few batches", got.Warnings)
	}
}

func TestBatchShareEdges(t *testing.T) {
	tests := []struct {
		name           string
		batches        []Batch
		wantLo, wantHi float64
		warn           string
	}{
		{"no samples", []Batch{{0, 0}}, math.NaN(), math.NaN(), "no samples"},
		// 1 − 0.05^(1/1000) = 0.0029912
		{"no hits", repeat(Batch{0, 100}, 10), 0, 0.0029912, "none of 1000"},
		{"all hits", repeat(Batch{50, 50}, 20), 1 - 0.0029912, 1, "all of 1000"},
		// R = 0.005, Σd² = 22.5, SE = 0.005, t(0.975, 9) = 2.262157.
		{"clipped at 0", []Batch{{0, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}, {5, 100}}, 0, 0.016311, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BatchShare(tt.batches, 0.95)
			if !near(got.Lo, tt.wantLo, 1e-4) || !near(got.Hi, tt.wantHi, 1e-4) {
				t.Errorf("got [%v, %v], want [%v, %v]", got.Lo, got.Hi, tt.wantLo, tt.wantHi)
			}
			if tt.warn != "" && !strings.Contains(strings.Join(got.Warnings, "|"), tt.warn) {
				t.Errorf("warnings %q lack %q", got.Warnings, tt.warn)
			}
		})
	}
}

func repeat(b Batch, n int) []Batch {
	out := make([]Batch, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// markovStream returns n samples of a two-state Markov chain that stays in
// its state with probability stay, with stationary share p of state
// "hit": successive samples are strongly correlated, as CPU samples of a
// thread in bursts of syscall work are.
func markovStream(r *rand.Rand, n int, p, stay float64) []bool {
	// Transition rates with stationary share p and lag-1 correlation stay.
	a := (1 - stay) * (1 - p) // hit -> miss
	b := (1 - stay) * p       // miss -> hit
	out := make([]bool, n)
	hit := r.Float64() < p
	for i := range out {
		out[i] = hit
		if hit {
			hit = r.Float64() >= a
		} else {
			hit = r.Float64() < b
		}
	}
	return out
}

func batchesOf(stream []bool, size int) []Batch {
	var bs []Batch
	for i := 0; i+size <= len(stream); i += size {
		var b Batch
		for _, h := range stream[i : i+size] {
			b.Total++
			if h {
				b.Hits++
			}
		}
		bs = append(bs, b)
	}
	return bs
}

// TestBatchShareCoverage checks by simulation that the interval covers the
// true share about as often as it claims for correlated samples, where a
// binomial interval (samples taken as independent) covers far less often.
func TestBatchShareCoverage(t *testing.T) {
	const reps, p = 400, 0.3
	r := rand.New(rand.NewPCG(7, 11))
	var covered, binomCovered int
	for range reps {
		s := markovStream(r, 5000, p, 0.95) // correlation time ~20 samples
		got := BatchShare(batchesOf(s, 250), 0.95)
		if got.Lo <= p && p <= got.Hi {
			covered++
		}
		hw := 1.96 * math.Sqrt(got.Center*(1-got.Center)/got.Total)
		if math.Abs(got.Center-p) <= hw {
			binomCovered++
		}
	}
	cov := float64(covered) / reps
	if cov < 0.90 || cov > 0.99 {
		t.Errorf("batch-means coverage %.3f, want 0.90..0.99", cov)
	}
	if bc := float64(binomCovered) / reps; bc > 0.7 {
		t.Errorf("binomial coverage %.3f: the simulation is not correlated enough to test anything", bc)
	}
}

func TestBatchShareFlagsCorrelatedBatches(t *testing.T) {
	// A slow drift: the first half of the batches are mostly hits.
	var bs []Batch
	for i := range 20 {
		h := 10.0
		if i < 10 {
			h = 90
		}
		bs = append(bs, Batch{h + float64(i%2), 100})
	}
	got := BatchShare(bs, 0.95)
	if !(got.Lag1 > 0.5) || !strings.Contains(strings.Join(got.Warnings, "|"), "correlated") {
		t.Errorf("lag1 %.2f, warnings %q: want a correlation warning", got.Lag1, got.Warnings)
	}
}
