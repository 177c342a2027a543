package stats

import "math"

// PredictionCheck compares a predicted added time with a measured one,
// both in ns per run of a command (or per call, or per second: any one
// unit for both).
type PredictionCheck struct {
	// Predicted and Measured are the two estimates with their intervals.
	Predicted, Measured Estimate
	// Ratio is Predicted.Center / Measured.Center: above 1 the model
	// overestimates. NaN when the measured center is 0.
	Ratio float64
	// ErrorPct is 100·(Predicted.Center − Measured.Center) /
	// |Measured.Center|, in percent. NaN when the measured center is 0.
	ErrorPct float64
	// Covered reports whether the prediction's interval contains the
	// measured center: Predicted.Lo ≤ Measured.Center ≤ Predicted.Hi.
	// False when the prediction has no interval.
	Covered bool
	// Overlap reports whether the two intervals share a point. Covered
	// false with Overlap true means the miss is within the measurement's
	// own noise.
	Overlap bool
}

// CheckPrediction compares pred with meas (see PredictionCheck). Hand-worked
// example: predicted 39 [36, 42], measured 50 [36, 64] gives Ratio 0.78,
// ErrorPct −22, Covered false, Overlap true.
func CheckPrediction(pred, meas Estimate) PredictionCheck {
	c := PredictionCheck{Predicted: pred, Measured: meas, Ratio: math.NaN(), ErrorPct: math.NaN()}
	if meas.Center != 0 {
		c.Ratio = pred.Center / meas.Center
		c.ErrorPct = 100 * (pred.Center - meas.Center) / math.Abs(meas.Center)
	}
	c.Covered = pred.Lo <= meas.Center && meas.Center <= pred.Hi
	c.Overlap = pred.Lo <= meas.Hi && meas.Lo <= pred.Hi
	return c
}

// DiffEstimate returns d's difference and interval as an Estimate.
func DiffEstimate(d Diff) Estimate {
	return Estimate{Center: d.Delta, Lo: d.Lo, Hi: d.Hi, Confidence: d.Confidence}
}

// CostSplit separates what a seccomp stack costs a command once per
// process (installing it: the seccomp(2) calls) from what the command pays
// while it runs (its syscalls through the filters), both in ns per run of
// the command.
type CostSplit struct {
	// Install is the seccomp(2) time per process, Running the added time
	// of one run with the stack installed.
	Install, Running Estimate
	// InstallShare is Install / (Install + max(Running, 0)), a fraction
	// (NaN when the sum is not positive).
	InstallShare float64
	// Dominant is "install" or "running": the larger center.
	Dominant string
	// Clear reports that the two intervals do not overlap, so Dominant is
	// not an artefact of noise.
	Clear bool
}

// SplitCost compares install with running (see CostSplit). Short-lived
// processes pay mostly the install, long-running ones the running cost.
func SplitCost(install, running Estimate) CostSplit {
	s := CostSplit{Install: install, Running: running, InstallShare: math.NaN(), Dominant: "running"}
	// A negative running cost (noise around zero) counts as none.
	if sum := install.Center + math.Max(running.Center, 0); sum > 0 {
		s.InstallShare = install.Center / sum
	}
	if install.Center > running.Center {
		s.Dominant = "install"
	}
	s.Clear = install.Hi < running.Lo || running.Hi < install.Lo
	return s
}

// WithModelError widens e's interval by a relative model error rel (a
// fraction, e.g. 0.15 for ±15 % of the center), added in quadrature to
// the interval's half-width on each side: hw' = √(hw² + (rel·|center|)²).
// Calibration intervals cover sampling error only; the model error is
// measured on real programs (docs/estimate.md) and must be stated with
// every prediction. rel ≤ 0 or NaN returns e unchanged.
func WithModelError(e Estimate, rel float64) Estimate {
	if !(rel > 0) {
		return e
	}
	m := rel * math.Abs(e.Center)
	lo, hi := e.Center-e.Lo, e.Hi-e.Center
	e.Lo = e.Center - math.Hypot(lo, m)
	e.Hi = e.Center + math.Hypot(hi, m)
	return e
}

// SumEstimates returns a + b with each side of the interval combined in
// quadrature (independent errors): lower half-widths with lower, upper
// with upper, so asymmetric bootstrap intervals stay asymmetric. A zero
// Estimate adds nothing. Hand-worked: 10 [7, 14] + 2 [1, 6] = 12
// [12 − √(9+1), 12 + √(16+16)] = [8.84, 17.66].
func SumEstimates(a, b Estimate) Estimate {
	if b == (Estimate{}) {
		return a
	}
	if a == (Estimate{}) {
		return b
	}
	c := a.Center + b.Center
	lo := math.Hypot(a.Center-a.Lo, b.Center-b.Lo)
	hi := math.Hypot(a.Hi-a.Center, b.Hi-b.Center)
	conf := a.Confidence
	if conf == 0 {
		conf = b.Confidence
	}
	return Estimate{Center: c, Lo: c - lo, Hi: c + hi, Confidence: conf}
}

// NeededModelError returns the smallest relative model error r on the
// per-syscall part syscalls (same unit as the estimates) for which the
// interval stated with it holds meas: stated was computed with model error
// used (WithModelError, then the other parts added in quadrature), so the
// other parts' half-width on each side is √(hw² − (used·syscalls)²), and
// r must make √(other² + (r·syscalls)²) reach |meas − stated.Center| on
// meas's side. 0 when stated holds meas without any model error; +Inf
// when syscalls is 0 and it does not (no model error on the per-syscall
// part can cover the miss).
func NeededModelError(stated Estimate, syscalls, used, meas float64) float64 {
	gap, hw := meas-stated.Center, stated.Hi-stated.Center
	if gap < 0 {
		gap, hw = -gap, stated.Center-stated.Lo
	}
	m := used * math.Abs(syscalls)
	other2 := math.Max(hw*hw-m*m, 0)
	need2 := gap*gap - other2
	switch {
	case need2 <= 0:
		return 0
	case syscalls == 0:
		return math.Inf(1)
	}
	return math.Sqrt(need2) / math.Abs(syscalls)
}
