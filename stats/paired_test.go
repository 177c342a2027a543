package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// pairedSim describes synthetic runs of paired children. Every child
// times the bare op (b) and then the op under its stack (y):
//
//	b = h·(base + a) + e₁,   y = h·(base + a + entry·[N≥1] + N·(perFilter + u_pad)) + e₂
//
// h = h_run·h_block·h_child is the host's speed, a multiplicative factor
// shared by the child's two timings: h_run is drawn once per run (a run
// that is a few per cent slow as a whole, which nothing inside the run
// shows), h_block once per randomized block (the host's speed moving over
// the run's time order), h_child once per child. a is a run-level random
// effect on the bare op, in ns; u_pad the placement effect per pad; e₁,
// e₂ additive timing noise per timing. All spreads are standard
// deviations; the factors are 1 + sd·z. With slopeSD > 0 the per-filter
// cost also carries v_b, a stationary AR(1) series over the blocks with
// SD slopeSD and lag-1 correlation slopeRho: the host's speed for the
// filters wandering over seconds (segments.go), which the bare op does not
// show.
type pairedSim struct {
	base, entry, perFilter      float64 // ns/op
	runSpeed, blockSpeed, child float64 // SD of h_run, h_block, h_child (fractions)
	runEffect                   float64 // SD of a, ns/op
	placement, noise            float64 // SD of u_pad and e, ns/op
	slopeSD, slopeRho           float64 // SD (ns/op per filter) and lag-1 correlation of v_b
	blocks                      int
}

// run returns one synthetic run's children and its truths: the per-filter
// cost as a fraction of this run's bare op, perFilter/(base + a), in ns at
// this run's speed, perFilter·h_run, and in ns at the mean speed of this
// run's children, perFilter·mean(h).
func (p pairedSim) run(rng *rand.Rand) (obs []Observation, relTruth, nsTruth, nsAtMeanSpeed float64) {
	counts := []int{0, 1, 2, 4, 8, 16, 32}
	hRun := 1 + p.runSpeed*rng.NormFloat64()
	a := p.runEffect * rng.NormFloat64()
	var u [17]float64
	for i := range u {
		u[i] = p.placement * rng.NormFloat64()
	}
	seq, hSum := 0, 0.0
	v := p.slopeSD * rng.NormFloat64()
	for b := range p.blocks {
		if b > 0 {
			v = p.slopeRho*v + math.Sqrt(1-p.slopeRho*p.slopeRho)*p.slopeSD*rng.NormFloat64()
		}
		hBlock := 1 + p.blockSpeed*rng.NormFloat64()
		for _, i := range rng.Perm(len(counts)) {
			n := counts[i]
			pad := rng.IntN(17)
			h := hRun * hBlock * (1 + p.child*rng.NormFloat64())
			hSum += h
			bare := p.base + a
			with := bare
			if n > 0 {
				with += p.entry + float64(n)*(p.perFilter+u[pad]+v)
			}
			obs = append(obs, Observation{Variant: "defeat", Filters: n, Block: b, Seq: seq, Pad: pad,
				BaselineNs: h*bare + p.noise*rng.NormFloat64(),
				NsPerOp:    h*with + p.noise*rng.NormFloat64()})
			seq++
		}
	}
	return obs, p.perFilter / (p.base + a), p.perFilter * hRun, p.perFilter * hSum / float64(len(obs))
}

// unpaired returns obs without their baselines (the old design).
func unpaired(obs []Observation) []Observation {
	out := make([]Observation, len(obs))
	for i, o := range obs {
		o.BaselineNs = 0
		out[i] = o
	}
	return out
}

// differences returns obs with NsPerOp replaced by what each child adds to
// its own baseline (plus a constant that keeps it positive, which moves
// only the intercept), fitted unpaired: the difference estimator.
func differences(obs []Observation) []Observation {
	out := make([]Observation, len(obs))
	for i, o := range obs {
		o.NsPerOp, o.BaselineNs = o.NsPerOp-o.BaselineNs+1000, 0
		out[i] = o
	}
	return out
}

// sdOf returns the sample standard deviation of xs.
func sdOf(xs []float64) float64 {
	var m, ss float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// ratios returns obs with NsPerOp replaced by each child's ratio to its
// own baseline times their mean (so it stays in ns), fitted unpaired: the
// ratio estimator.
func ratios(obs []Observation) []Observation {
	var m float64
	for _, o := range obs {
		m += o.BaselineNs
	}
	m /= float64(len(obs))
	out := make([]Observation, len(obs))
	for i, o := range obs {
		o.NsPerOp, o.BaselineNs = m*o.NsPerOp/o.BaselineNs, 0
		out[i] = o
	}
	return out
}

// TestPairedRatioVersusDifference is the simulation behind adjusting for
// each child's own baseline by covariance (the paired FitStack) rather
// than fitting the difference or the ratio (docs/methodology-variation.md, "Paired
// children"). The errors are against the per-filter cost at the mean
// speed of the run's children. When the host's speed varies between
// children, the difference still carries it on the added part
// (h·(entry + N·perFilter)); the ratio removes it but multiplies the
// baseline's timing noise by y/b, which with additive noise alone makes it
// far worse than not pairing at all. The covariance adjustment is at
// least as good as the better of the two in both cases, and as good as
// the unpaired fit when there is nothing to remove.
func TestPairedRatioVersusDifference(t *testing.T) {
	const reps = 300
	tests := []struct {
		name string
		sim  pairedSim
		// the paired fit's spread must be at most maxBest × the better
		// of the difference's and the ratio's, and at most maxUnpaired
		// × the unpaired fit's.
		maxBest, maxUnpaired float64
	}{
		{"host speed moves between children and blocks",
			pairedSim{base: 65, entry: 30, perFilter: 17, blockSpeed: 0.01, child: 0.01, noise: 0.2, blocks: 10},
			1.05, 0.5},
		{"additive noise only",
			pairedSim{base: 65, entry: 30, perFilter: 17, noise: 0.5, blocks: 10},
			1.05, 1.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, 1))
			var adj, ratio, diff, unp []float64
			for range reps {
				obs, _, _, truth := tt.sim.run(rng)
				for _, c := range []struct {
					obs []Observation
					out *[]float64
				}{{obs, &adj}, {ratios(obs), &ratio}, {differences(obs), &diff}, {unpaired(obs), &unp}} {
					f, err := FitStack(c.obs, 0.95)
					if err != nil {
						t.Fatal(err)
					}
					*c.out = append(*c.out, f.PerFilter-truth)
				}
			}
			sa, sr, sd, su := sdOf(adj), sdOf(ratio), sdOf(diff), sdOf(unp)
			t.Logf("per-filter error SD over %d runs: covariance-adjusted %.4f ns, ratio %.4f, difference %.4f, unpaired %.4f", reps, sa, sr, sd, su)
			if best := min(sr, sd); sa > tt.maxBest*best {
				t.Errorf("covariance-adjusted SD %.4f > %.2f × the better of ratio and difference %.4f", sa, tt.maxBest, best)
			}
			if sa > tt.maxUnpaired*su {
				t.Errorf("covariance-adjusted SD %.4f > %.2f × unpaired SD %.4f", sa, tt.maxUnpaired, su)
			}
		})
	}
}

// TestPairedCoverageRunToRun: runs with a run-level random effect on the
// bare op, a multiplicative host-speed factor per run, per block and per
// child, and placement. The paired fit's relative per-filter interval
// covers the run's true fraction, and its ns interval the true ns at the
// run's speed, at about the nominal 95 %, and the spread of the errors
// between runs (what issue 23 measured as 1.8× and 3× the stated SE)
// stays within 1.25 × the mean stated SE. The paired intervals are
// narrower than the unpaired fit's of the same children. Against the
// host's long-run cost (speed factor 1) the ns interval undercovers: a
// run that is 2 % slow as a whole shows nothing of it inside, which is
// why the relative figure is stated beside the ns one. The seed is
// fixed, so the test is deterministic.
func TestPairedCoverageRunToRun(t *testing.T) {
	const reps = 400
	sim := pairedSim{base: 65, entry: 30, perFilter: 17, runSpeed: 0.02, blockSpeed: 0.01, child: 0.01,
		runEffect: 1, placement: 0.5, noise: 0.2, blocks: 20}
	rng := rand.New(rand.NewPCG(23, 2))
	var relHits, nsHits, longRunHits int
	var relErr, nsErr, relSE, nsSE, unpSE []float64
	for range reps {
		obs, relTruth, nsTruth, _ := sim.run(rng)
		f, err := FitStack(obs, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Paired || math.IsNaN(f.PerFilterRel) {
			t.Fatalf("paired children: Paired %v, PerFilterRel %v", f.Paired, f.PerFilterRel)
		}
		if f.PerFilterRelLo <= relTruth && relTruth <= f.PerFilterRelHi {
			relHits++
		}
		if f.PerFilterLo <= nsTruth && nsTruth <= f.PerFilterHi {
			nsHits++
		}
		if f.PerFilterLo <= sim.perFilter && sim.perFilter <= f.PerFilterHi {
			longRunHits++
		}
		relErr = append(relErr, f.PerFilterRel-relTruth)
		relSE = append(relSE, (f.PerFilterRelHi-f.PerFilterRelLo)/2/1.96)
		nsErr = append(nsErr, f.PerFilter-nsTruth)
		nsSE = append(nsSE, f.PerFilterSE)
		g, err := FitStack(unpaired(obs), 0.95)
		if err != nil {
			t.Fatal(err)
		}
		unpSE = append(unpSE, g.PerFilterSE)
	}
	mean := func(xs []float64) float64 {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	check := func(what string, hits int, errs, ses []float64, lo, hi, maxRatio float64) {
		t.Helper()
		cover := float64(hits) / reps
		ratio := sdOf(errs) / mean(ses)
		t.Logf("%s: coverage %.3f, SD of errors / mean stated SE %.2f", what, cover, ratio)
		if cover < lo || cover > hi {
			t.Errorf("%s: coverage %.3f, want within [%.2f, %.2f]", what, cover, lo, hi)
		}
		if ratio > maxRatio {
			t.Errorf("%s: SD of errors is %.2f × the mean stated SE, want at most %.2f", what, ratio, maxRatio)
		}
	}
	// 400 runs: ±2.2 points is about two binomial standard errors.
	check("paired, relative", relHits, relErr, relSE, 0.925, 0.975, 1.25)
	check("paired, ns at the run's speed", nsHits, nsErr, nsSE, 0.925, 0.975, 1.25)
	if got := float64(longRunHits) / reps; got > 0.8 {
		t.Errorf("ns interval covers the long-run cost in %.3f of runs with a 2 %% run-level speed factor: the simulation does not exercise it", got)
	} else {
		t.Logf("paired, ns against the long-run cost: coverage %.3f (the run-level speed is invisible inside a run)", got)
	}
	if p, u := mean(nsSE), mean(unpSE); !(p < 0.97*u) {
		t.Errorf("mean paired SE %.4f ns, unpaired %.4f: want the paired one narrower", p, u)
	} else {
		t.Logf("mean stated SE: paired %.4f ns, unpaired %.4f ns", p, u)
	}
}

// TestPairedFitExact: without noise, a host whose speed h moves from child
// to child makes y = h·(bare + entry + N·perFilter) and b = h·bare exactly
// linear in the paired fit's covariates, so the fit returns the costs at
// the children's mean speed and their exact fractions of the bare op.
func TestPairedFitExact(t *testing.T) {
	const bare, entry, perFilter = 60.0, 24.0, 15.0
	speeds := []float64{1.00, 1.03, 0.98, 1.05, 0.97, 1.01, 0.99}
	var obs []Observation
	var hSum float64
	seq := 0
	for b := range 4 {
		for i, n := range []int{0, 1, 2, 4, 8} {
			h := speeds[(seq*3+i)%len(speeds)] * (1 + 0.002*float64(b))
			hSum += h
			y := h * bare
			if n > 0 {
				y += h * (entry + float64(n)*perFilter)
			}
			obs = append(obs, Observation{Variant: "defeat", Filters: n, Block: b, Seq: seq, NsPerOp: y, BaselineNs: h * bare})
			seq++
		}
	}
	hMean := hSum / float64(len(obs))
	f, err := FitStack(obs, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"PerFilter", f.PerFilter, perFilter * hMean},
		{"Entry", f.Entry, entry * hMean},
		{"BareNs", f.BareNs, bare * hMean},
		{"PerFilterRel", f.PerFilterRel, perFilter / bare},
		{"EntryRel", f.EntryRel, entry / bare},
	} {
		if math.Abs(c.got-c.want) > 1e-6*math.Abs(c.want) {
			t.Errorf("%s = %.9g, want %.9g", c.name, c.got, c.want)
		}
	}
	if !f.Paired {
		t.Error("Paired = false for children that all carry a baseline")
	}
	// One child without a baseline makes the fit unpaired.
	obs[3].BaselineNs = 0
	g, err := FitStack(obs, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if g.Paired || !math.IsNaN(g.PerFilterRel) || !math.IsNaN(g.BareNs) {
		t.Errorf("one child unpaired: Paired %v, PerFilterRel %v, BareNs %v; want false, NaN, NaN", g.Paired, g.PerFilterRel, g.BareNs)
	}
}
