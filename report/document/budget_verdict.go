package document

import (
	"math"

	"github.com/seccompbench/seccompbench/stats"
)

// BudgetVerdict is the answer of a measuring command given --budget
// (stats.Decide): JSON's "budget" object, and the first headline line of
// the text, Markdown and HTML outputs (BudgetHeadline). Undefined numbers
// (a bound not yet reached) are null in JSON.
type BudgetVerdict struct {
	// Verdict is "within" (the upper bound is below the budget), "over"
	// (the lower bound is above it) or "undecided" (--max-time came
	// first, or compare's two results do not decide it). Undecided is
	// not within.
	Verdict string `json:"verdict"`
	// Budget is the budget in Unit: "ns" (per syscall for a loop
	// workload, per run of the program for the command workload) or "%"
	// (of the unfiltered cost).
	Budget float64 `json:"budget"`
	Unit   string  `json:"unit"`
	// Estimate is the deciding metric's mean added cost in Unit; Lower
	// and Upper its one-sided anytime-valid bounds at Confidence
	// (docs/methodology.md, "Budget decisions").
	Estimate   float64 `json:"estimate"`
	Lower      float64 `json:"lower"`
	Upper      float64 `json:"upper"`
	Confidence float64 `json:"confidence"`
	// ElapsedS is the measuring time in seconds; Rounds the blocks of
	// children measured; N the observations (children) of the deciding
	// metric and Pairs the run pairs behind them.
	ElapsedS float64 `json:"elapsed_s"`
	Rounds   int     `json:"rounds"`
	N        int     `json:"n"`
	Pairs    int     `json:"pairs,omitempty"`
	// DecidedBy names the deciding metric: "wall" or "cpu" (time per run
	// of a program), "share", "per_filter", "entry", "deepest" (compare),
	// "bracket" (BudgetByBracket) or "no_filters" (BudgetByNoFilters).
	DecidedBy string `json:"decided_by"`
	// Variant is the cache variant ("on", "defeat") of the deciding
	// metric, "" (omitted) when it has none (top's share, estimate's
	// bracket); Variants every variant judged, in order, when more than
	// one was.
	Variant  string   `json:"variant,omitempty"`
	Variants []string `json:"variants,omitempty"`
	// NeedN and NeedS are, for undecided, the observations and seconds
	// the current spread projects a decision would need (0: cannot say).
	NeedN int     `json:"need_n,omitempty"`
	NeedS float64 `json:"need_s,omitempty"`
}

// MarshalJSON writes undefined (NaN, infinite) numbers as null.
func (b BudgetVerdict) MarshalJSON() ([]byte, error) { return marshalWire(b) }

// UnmarshalJSON reads null numbers as NaN.
func (b *BudgetVerdict) UnmarshalJSON(data []byte) error { return unmarshalWire(data, b) }

// BudgetByBracket is the decided_by of a verdict taken on estimate's
// profile-only bracket (no run of the program): Lower and Upper are the
// bracket's floor and ceiling, Estimate their midpoint, and the verdict
// within only when the ceiling is below the budget, over only when the
// floor is above it.
const BudgetByBracket = "bracket"

// BudgetByNoFilters is the decided_by of top's verdict when no target has
// a seccomp filter (Seccomp_filters 0 in /proc/PID/status): seccomp then
// costs them exactly nothing, so the verdict is within at once, with
// Estimate, Lower and Upper 0 and no window sampled.
const BudgetByNoFilters = "no_filters"

// NewBudgetVerdict converts a stats.Decision for the document.
func NewBudgetVerdict(d stats.Decision) *BudgetVerdict {
	fin := func(x float64) float64 {
		if math.IsInf(x, 0) {
			return math.NaN()
		}
		return x
	}
	return &BudgetVerdict{Verdict: string(d.Verdict), Budget: d.Budget, Unit: d.Unit, Estimate: d.Estimate,
		Lower: fin(d.Lower), Upper: fin(d.Upper), Confidence: d.Confidence, ElapsedS: d.ElapsedS,
		Rounds: d.Rounds, N: d.N, Pairs: d.Pairs, DecidedBy: d.DecidedBy, NeedN: d.NeedN, NeedS: d.NeedS,
		Variant: d.Variant, Variants: variantsIfMany(d.Variants)}
}

// variantsIfMany is vs when it names more than one variant, else nil.
func variantsIfMany(vs []string) []string {
	if len(vs) < 2 {
		return nil
	}
	return vs
}
