package stats

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Budget decisions (run --budget): is the cost a seccomp stack adds
// within a budget the user names, decided as soon as the data allow and
// with a stated error rate?
//
// The units of replication arrive one at a time (a child of the command
// workload, whose pairs give one Hodges–Lehmann centre; PairedShift), and
// the bound is looked at after every one. A fixed-sample interval looked
// at after every unit and stopped on the first crossing errs far more
// often than its level says (TestNaivePeekingInflates shows by how much).
// ConfidenceSequence is instead a one-sided asymptotic confidence
// sequence: a bound that holds at every n at once, so stopping at the
// first crossing keeps the error rate.
//
// Method: Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas, "Time-uniform
// central limit theory and asymptotic confidence sequences" (arXiv
// 2103.06476, Annals of Statistics 2024), the Gaussian-mixture
// asymptotic CS: after t observations with mean μ̂ and standard deviation
// σ̂ the margin is
//
//	σ̂ · sqrt( 2(tρ² + 1) / (t²ρ²) · log( sqrt(tρ² + 1) / α ) )
//
// (the normal-mixture boundary of Howard, Ramdas, McAuliffe & Sekhon,
// Ann. Statist. 2021, with the CLT's σ̂ for the unknown scale). That
// margin is two-sided at level α; each side alone is crossed with
// probability at most α, so using it for a one-sided bound at α is
// conservative (the true one-sided error is about α/2 under normal
// noise). ρ tunes where the sequence is tightest; ρ² = (−2 log α +
// log(−2 log α + 1)) / t* puts that at t* observations (the paper's
// approximation to the optimal ρ).

// BudgetVerdict is a budget decision.
type BudgetVerdict string

// The verdicts: within when the upper bound is below the budget, over
// when the lower bound is above it, undecided when the time ran out
// first. Undecided never means within.
const (
	VerdictWithin    BudgetVerdict = "within"
	VerdictOver      BudgetVerdict = "over"
	VerdictUndecided BudgetVerdict = "undecided"
)

// Budget is a --budget value: an absolute time per unit (Ns, in ns:
// per syscall for a loop, per run for a program) or, when Relative, a
// percentage of the unfiltered cost (Pct).
type Budget struct {
	Ns       float64
	Pct      float64
	Relative bool
}

// Value is the budget in its own unit: ns, or % when Relative.
func (b Budget) Value() float64 {
	if b.Relative {
		return b.Pct
	}
	return b.Ns
}

// Unit is "%" or "ns".
func (b Budget) Unit() string {
	if b.Relative {
		return "%"
	}
	return "ns"
}

// String renders the budget as ParseBudget reads it.
func (b Budget) String() string {
	if b.Relative {
		return strconv.FormatFloat(b.Pct, 'g', -1, 64) + "%"
	}
	return strconv.FormatFloat(b.Ns, 'g', -1, 64) + "ns"
}

// budgetUnits are the suffixes ParseBudget takes, in ns.
var budgetUnits = []struct {
	suffix string
	ns     float64
}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}

// ParseBudget reads a --budget value: a positive number with a time unit
// (50ns, 1.5us, 5ms, 2s) or a percentage (2%, 0.5%). The error says what
// is wrong and what it takes.
func ParseBudget(s string) (Budget, error) {
	t := strings.TrimSpace(s)
	bad := func(why string) (Budget, error) {
		return Budget{}, fmt.Errorf("budget %q: %s; want a time (50ns, 5ms) or a percentage (2%%)", s, why)
	}
	if num, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("not a number before %")
		}
		if v <= 0 {
			return bad("not above 0")
		}
		return Budget{Pct: v, Relative: true}, nil
	}
	for _, u := range budgetUnits {
		num, ok := strings.CutSuffix(t, u.suffix)
		if !ok {
			continue
		}
		// "5ms" also ends in "s": skip a suffix that leaves letters.
		num = strings.TrimSpace(num)
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			continue
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return bad("not above 0")
		}
		return Budget{Ns: v * u.ns}, nil
	}
	return bad("no unit")
}

// MinSequentialN is the number of observations before a
// ConfidenceSequence decides anything: the asymptotic sequence uses the
// sample standard deviation, which is unreliable below this
// (TestSequentialErrorRate holds the error rate with it).
const MinSequentialN = 8

// DefaultTargetN is the t* at which ConfidenceSequence is tightest when
// the caller names none: the children a 60 s command run makes on a
// typical program.
const DefaultTargetN = 30

// csRho2 is ρ² for a sequence tightest at targetN observations at level
// alpha (Waudby-Smith et al., the approximation of the optimal ρ).
func csRho2(alpha float64, targetN int) float64 {
	if targetN < 1 {
		targetN = DefaultTargetN
	}
	l := -2 * math.Log(alpha)
	return (l + math.Log(l+1)) / float64(targetN)
}

// CSMargin is the half-width of the asymptotic confidence sequence after
// n observations with standard deviation sd, at one-sided level alpha,
// tuned for targetN (see the package comment on budget decisions). It is
// +Inf below MinSequentialN observations.
func CSMargin(n int, sd, alpha float64, targetN int) float64 {
	if n < MinSequentialN {
		return math.Inf(1)
	}
	r2 := csRho2(alpha, targetN)
	t := float64(n)
	return sd * math.Sqrt(2*(t*r2+1)/(t*t*r2)*math.Log(math.Sqrt(t*r2+1)/alpha))
}

// Bound is a confidence sequence's state after N observations: their
// Mean and the one-sided bounds Lower and Upper, each holding at every N
// with probability at least the level.
type Bound struct {
	N            int
	Mean, SD     float64
	Lower, Upper float64
	Alpha        float64
	TargetN      int
}

// ConfidenceSequence is the bound on the mean of xs (observations in
// arrival order, any unit) at one-sided error alpha, tuned for targetN
// (0: DefaultTargetN).
func ConfidenceSequence(xs []float64, alpha float64, targetN int) Bound {
	if targetN <= 0 {
		targetN = DefaultTargetN
	}
	b := Bound{N: len(xs), Alpha: alpha, TargetN: targetN, Lower: math.Inf(-1), Upper: math.Inf(1), Mean: math.NaN(), SD: math.NaN()}
	if len(xs) == 0 {
		return b
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	b.Mean = m
	if len(xs) > 1 {
		b.SD = math.Sqrt(ss / float64(len(xs)-1))
	}
	h := CSMargin(len(xs), b.SD, alpha, targetN)
	if !math.IsNaN(h) && !math.IsInf(h, 1) {
		b.Lower, b.Upper = m-h, m+h
	}
	return b
}

// Judge is the verdict of a bound against budget: within when Upper <
// budget, over when Lower > budget, else undecided.
func (b Bound) Judge(budget float64) BudgetVerdict {
	switch {
	case b.Upper < budget:
		return VerdictWithin
	case b.Lower > budget:
		return VerdictOver
	}
	return VerdictUndecided
}

// NeedN is the number of observations at which the bound's margin, with
// the current SD, would be smaller than the distance of the current mean
// from budget: the projection an undecided verdict gives. 0 when it
// cannot be projected (fewer than two observations, or the mean on the
// budget); at most 1e9.
func (b Bound) NeedN(budget float64) int {
	gap := math.Abs(b.Mean - budget)
	if b.N < 2 || math.IsNaN(b.SD) || gap == 0 || math.IsNaN(gap) {
		return 0
	}
	lo, hi := max(b.N, MinSequentialN), MinSequentialN
	for hi = lo; CSMargin(hi, b.SD, b.Alpha, b.TargetN) >= gap; hi *= 2 {
		if hi > 1e9 {
			return 1e9
		}
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if CSMargin(mid, b.SD, b.Alpha, b.TargetN) < gap {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi
}

// Metric is one series a budget is judged on: its name as JSON's
// decided_by says it ("wall", "cpu", "share", "per_filter", "entry") and
// its observations in the budget's unit, in arrival order.
type Metric struct {
	Name string
	// Variant is the cache variant the series measures ("on",
	// "defeat"; "" when it has none, as top's share).
	Variant string
	Xs      []float64
	// MinSD, when above the observations' standard deviation, is used
	// instead: the resolution of each observation when it has one of its
	// own (a window's sampling error), so that identical observations
	// (a share of 0 in every window) do not give a zero-width bound.
	MinSD float64
}

// Decision is a budget verdict and what it rests on.
type Decision struct {
	Verdict BudgetVerdict
	// Budget is the budget in Unit ("ns" or "%").
	Budget float64
	Unit   string
	// Estimate, Lower and Upper are the deciding metric's mean and
	// one-sided bounds, in Unit.
	Estimate, Lower, Upper float64
	// Confidence is the one-sided level of each bound.
	Confidence float64
	// Rounds is the number of rounds (blocks of children) measured, N
	// the observations of the deciding metric, Pairs the run pairs
	// behind them (0 when not paired).
	Rounds, N, Pairs int
	// ElapsedS is the measuring time in seconds.
	ElapsedS float64
	// DecidedBy names the deciding metric (Metric.Name) and Variant its
	// variant (Metric.Variant); Variants are the distinct variants of
	// every metric judged, in order (more than one: the verdict says which
	// decided).
	DecidedBy string
	Variant   string
	Variants  []string
	// NeedN and NeedS project, for undecided, the observations and the
	// seconds (at the rate so far) the current spread says a decision
	// would need; 0 when it cannot be projected.
	NeedN int
	NeedS float64
}

// Decide judges metrics against budget at one-sided level confidence,
// splitting the error between the metrics (Bonferroni: each bound at
// α/k), so that the chance of any wrong verdict stays at most α. The
// verdict is over when any metric is over (the first such decides), within
// when every metric is within (the one with the least room decides),
// else undecided (the metric furthest from a decision is reported, with
// its projection). elapsedS is the time measured so far; rounds and
// pairs are carried into the Decision.
func Decide(metrics []Metric, budget Budget, confidence float64, targetN, rounds, pairs int, elapsedS float64) Decision {
	alpha := (1 - confidence) / float64(max(len(metrics), 1))
	d := Decision{Verdict: VerdictUndecided, Budget: budget.Value(), Unit: budget.Unit(), Confidence: confidence,
		Rounds: rounds, Pairs: pairs, ElapsedS: elapsedS, Estimate: math.NaN(), Lower: math.Inf(-1), Upper: math.Inf(1)}
	set := func(m Metric, b Bound, v BudgetVerdict) {
		d.Verdict, d.DecidedBy, d.Variant, d.Estimate, d.Lower, d.Upper, d.N = v, m.Name, m.Variant, b.Mean, b.Lower, b.Upper, b.N
	}
	for _, m := range metrics {
		if m.Variant != "" && !slices.Contains(d.Variants, m.Variant) {
			d.Variants = append(d.Variants, m.Variant)
		}
	}
	bounds := make([]Bound, len(metrics))
	within := len(metrics) > 0
	for i, m := range metrics {
		bounds[i] = ConfidenceSequence(m.Xs, alpha, targetN)
		if b := &bounds[i]; m.MinSD > b.SD && b.N >= MinSequentialN {
			h := CSMargin(b.N, m.MinSD, alpha, b.TargetN)
			b.SD, b.Lower, b.Upper = m.MinSD, b.Mean-h, b.Mean+h
		}
		switch bounds[i].Judge(d.Budget) {
		case VerdictOver:
			set(m, bounds[i], VerdictOver)
			return d
		case VerdictUndecided:
			within = false
		}
	}
	if within {
		best := -1
		for i, b := range bounds {
			if best < 0 || b.Upper > bounds[best].Upper {
				best = i
			}
		}
		set(metrics[best], bounds[best], VerdictWithin)
		return d
	}
	// Undecided: report the metric that needs the most.
	worst, need := -1, -1
	for i, b := range bounds {
		if b.Judge(d.Budget) != VerdictUndecided {
			continue
		}
		n := b.NeedN(d.Budget)
		if n == 0 {
			n = math.MaxInt
		}
		if worst < 0 || n > need {
			worst, need = i, n
		}
	}
	if worst >= 0 {
		set(metrics[worst], bounds[worst], VerdictUndecided)
		d.NeedN = bounds[worst].NeedN(d.Budget)
		if d.NeedN > 0 && d.N > 0 && elapsedS > 0 {
			d.NeedS = elapsedS * float64(d.NeedN) / float64(d.N)
		}
	}
	return d
}
