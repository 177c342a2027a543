// Package analysis works on compiled Programs and Stacks, whatever format
// they came from: per-syscall path length and cost (Analyze), the kernel
// action cache's decisions (PredictCache), lint findings (Lint) and the
// preflight subset commands check before installing (Preflight), strace
// profiles weighted by cost (ParseProfile, EvaluateProfile), calibration
// filters (CalibrationFilter) and grouping of equal filters (GroupFilters).
// It imports no format package.
package analysis
