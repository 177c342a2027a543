package runner

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/seccompbench/seccompbench/filters"
)

// Schedule returns the run order: trials blocks, each holding every cell
// once in an order shuffled by a PCG seeded with seed. Randomized blocks
// make machine drift hit all counts alike.
func Schedule(counts []int, variants []Variant, trials int, seed uint64) [][]Cell {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	blocks := make([][]Cell, trials)
	for b := range blocks {
		var cells []Cell
		for _, v := range variants {
			for _, n := range counts {
				cells = append(cells, Cell{Variant: v, Filters: n})
			}
		}
		rng.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
		blocks[b] = cells
	}
	return blocks
}

// StackFor returns the stack a cell installs: BuildStack of the programs at
// the cell's count, each program passed through DefeatCache for
// VariantDefeat. It returns the *filters.LimitError of BuildStack.
func StackFor(progs []*filters.Program, c Cell) (filters.Stack, error) {
	return filters.BuildStack(VariantPrograms(progs, c.Variant), c.Filters)
}

// VariantPrograms returns the programs as variant v installs them: as
// compiled for VariantOn, each passed through DefeatCache for
// VariantDefeat (one instruction longer).
func VariantPrograms(progs []*filters.Program, v Variant) []*filters.Program {
	if v != VariantDefeat {
		return progs
	}
	ps := make([]*filters.Program, len(progs))
	for i, p := range progs {
		ps[i] = p.DefeatCache()
	}
	return ps
}

// withDefaults fills the zero fields of cfg that have defaults: 2 ms
// samples, 5 samples after 1 warm-up, the highest allowed CPU for CPU -1,
// one copy and its CPUs, and the mix workload.
func withDefaults(cfg Config) Config {
	if cfg.SampleDuration == 0 {
		cfg.SampleDuration = 2 * time.Millisecond
	}
	if cfg.Samples == 0 {
		cfg.Samples = 5
	}
	if cfg.Warmup == 0 {
		cfg.Warmup = 1
	}
	if cfg.CPU == -1 {
		cfg.CPU = HighestCPU()
	}
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.cpus == nil && cfg.CPU >= 0 {
		cfg.cpus = []int{cfg.CPU}
		if cfg.Parallel > 1 {
			cfg.cpus = CopyCPUs(cfg.CPU, cfg.Parallel)
		}
	}
	if cfg.Workload.SyscallsPerIter == 0 {
		cfg.Workload = Workloads()["mix"]
	}
	return cfg
}

// minChildTimeout is the least time a child gets to report: process
// start-up, reading the spec and installing the filters take milliseconds,
// but a loaded machine may stall them for seconds.
const minChildTimeout = 10 * time.Second

// Upper bounds used by DeriveChildTimeout for what filters add per syscall:
// interpreted classic BPF runs well under 5 ns per instruction, and each
// filter's dispatch well under 100 ns (DESIGN.md: ~20 ns per filter
// measured on x86_64 with retpolines).
const (
	maxNsPerInsn   = 5
	maxNsPerFilter = 100
)

// DeriveChildTimeout returns the deadline of a child of cfg that installs
// stack (sock_filter arrays), given the calibrated cost of one loop
// iteration without filters, perIterNs in ns. The expected work is
// (Warmup + Samples) x Iterations iterations, each costing perIterNs plus,
// per syscall, an upper bound of what the stack can add (every instruction
// of every filter executed: classic BPF only jumps forward), plus the
// control loop twice at 5 ns per iteration. The deadline is
// minChildTimeout (10 s) plus ten times that work, so a slow cell is never
// mistaken for a hung one.
func DeriveChildTimeout(cfg Config, stack [][]byte, perIterNs float64) time.Duration {
	cfg = withDefaults(cfg)
	var extra float64
	for _, f := range stack {
		extra += float64(len(f)/8)*maxNsPerInsn + maxNsPerFilter
	}
	iters := float64(cfg.Warmup+cfg.Samples) * float64(cfg.Iterations)
	work := iters*(perIterNs+float64(cfg.Workload.SyscallsPerIter)*extra) + 2*float64(cfg.ControlIters)*5
	if !(work < float64(math.MaxInt64)/20) { // would overflow: no deadline
		return time.Duration(math.MaxInt64)
	}
	return minChildTimeout + time.Duration(10*work)
}
