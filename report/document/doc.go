// Package document holds every JSON document seccompbench writes (run,
// compare, report, estimate, simulate, inspect, compile, budget, merge,
// optimize, equiv, subset, intersect, top, the stack manifest) as Go
// types with their json tags, the kinds that name them (Kind, DetectKind,
// CheckKind) and the wire rules every one keeps (undefined numbers are
// NaN in memory and null in JSON: Float, Nullable, Finite). The
// pipelines build these types; package report renders them.
//
// It holds data and nothing else: no English (the wording of a clause or
// a headline is report's), no statistics of its own and no import of
// filters/ (docs/architecture.md; imports_test.go enforces it).
package document
