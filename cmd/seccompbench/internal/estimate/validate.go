package estimate

import (
	"context"
	"fmt"
	"math"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
	"github.com/seccompbench/seccompbench/stats"
)

// validateEstimate measures, for every profiled native-ABI syscall on runner's
// safe list, the time the real stack adds (children at 0 and n filters; the
// difference of the medians over children, with a bootstrap interval, so
// that a child disturbed by other load on the machine does not decide it)
// and compares it with the prediction.
func validateEstimate(ctx context.Context, opts *Options, base []*filters.Program, variant result.Variant, n int, evals []analysis.ProfileCost, rows []document.EstimateSyscall, model stats.CostModel) (*document.EstimateValidation, error) {
	v := &document.EstimateValidation{Trials: opts.Trials, Skipped: []string{}}
	var items []stats.CostItem
	var measTot, measVar, absErr float64
	for i, e := range evals {
		if !e.Known || e.Arch != cmdutil.NativeArch().Name {
			continue
		}
		s, err := workload.Syscall(e.Name)
		w := runner.Workload{Spec: s}
		if err != nil {
			v.Skipped = append(v.Skipped, e.Name)
			continue
		}
		opts.progressf("validating: %s under %d filters, %d trials ...\n", e.Name, n, opts.Trials)
		res, err := measureFits(ctx, opts, base, []int{0, n}, []result.Variant{variant}, w, opts.Trials, true, runner.DefaultPlacement())
		if err != nil {
			return nil, fmt.Errorf("validate %s: %w", e.Name, err)
		}
		var cell *stats.CellResult
		var baseline float64
		for k := range res.Cells {
			switch res.Cells[k].Filters {
			case n:
				cell = &res.Cells[k]
			case 0:
				baseline = res.Cells[k].Summary.Center
			}
		}
		if cell == nil {
			return nil, fmt.Errorf("validate %s: no cell at %d filters", e.Name, n)
		}
		d := cell.Overhead
		r := rows[i]
		row := document.EstimateValidationRow{Name: e.Name, Calls: e.Calls, Workload: w.Op,
			PredictedNs: *r.AddedNs, PredictedLowNs: r.AddedLowNs, PredictedHiNs: r.AddedHighNs,
			MeasuredNs: d.Delta, MeasuredLowNs: document.Nullable(d.Lo), MeasuredHiNs: document.Nullable(d.Hi), BaselineNs: baseline}
		row.ErrorNs = row.PredictedNs - row.MeasuredNs
		if math.Abs(d.Delta) > 0 {
			row.ErrorPct = document.Nullable(100 * row.ErrorNs / d.Delta)
			if row.ErrorPct != nil {
				absErr += math.Abs(*row.ErrorPct)
			}
		}
		v.Rows = append(v.Rows, row)
		items = append(items, estimateItems([]analysis.ProfileCost{e}, n)...)
		c := float64(e.Calls)
		measTot += c * d.Delta
		hw := (d.Hi - d.Lo) / 2
		measVar += c * c * hw * hw
	}
	if len(v.Rows) == 0 {
		return v, nil
	}
	_, pt := model.Predict(items)
	v.PredictedTotalNs, v.PredictedLowNs, v.PredictedHighNs = pt.Center, document.Nullable(pt.Lo), document.Nullable(pt.Hi)
	hw := math.Sqrt(measVar)
	v.MeasuredTotalNs, v.MeasuredLowNs, v.MeasuredHighNs = measTot, document.Nullable(measTot-hw), document.Nullable(measTot+hw)
	if measTot != 0 {
		v.ErrorPct = document.Nullable(100 * (pt.Center - measTot) / measTot)
	}
	v.MeanAbsErrorPct = document.Nullable(absErr / float64(len(v.Rows)))
	return v, nil
}
