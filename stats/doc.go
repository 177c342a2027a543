// Package stats turns per-child timings into estimates with confidence
// intervals. It is pure math on float64 samples (using gonum): no clocks, no
// I/O, no formatting, and it imports neither runner nor report.
//
// Units: every time is nanoseconds per op (ns/op), where the workload defines
// the op. Percentages are percent (100 = doubled), not fractions. Confidence
// levels are fractions in (0, 1), e.g. 0.95.
//
// The unit of replication is one child process: an [Observation] is one
// child's ns/op. Estimators are named after their assumption, following
// golang.org/x/perf/benchmath:
//
//   - normal theory: [Normal] (mean, Student-t interval), [Welch] (difference
//     of means, Welch–Satterthwaite interval and p-value), [FitStack] (one
//     least-squares model per variant with t intervals);
//   - no distributional assumption: [Robust] (median, percentile bootstrap
//     interval), [RobustDiff] (difference of medians, bootstrap interval,
//     Mann–Whitney p-value), [MannWhitney], [Outliers] (median/MAD rule).
//
// Undefined quantities are NaN (for example a confidence interval from one
// sample); callers that serialize results must map NaN to null themselves.
// Too few samples is never an error: it yields a warning that says how many
// are needed. docs/methodology.md explains the design and cites sources.
package stats
