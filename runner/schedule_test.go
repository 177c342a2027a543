package runner

import "github.com/seccompbench/seccompbench/runner/result"

// Schedule returns the run order: trials blocks, each holding every cell
// once in an order shuffled by a PCG seeded with seed. Randomized blocks
// make machine drift hit all counts alike. Its cells carry no Loader: it is
// ScheduleLoaders without loaders, kept for the tests written against it.
func Schedule(counts []int, variants []result.Variant, trials int, seed uint64) [][]result.Cell {
	return ScheduleLoaders(counts, variants, nil, trials, seed)
}
