package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/result"
)

// ScheduleLoaders returns the run order: trials blocks, each holding every
// cell once per loader (none: one cell with Loader "") in an order
// shuffled by a PCG seeded with seed. Randomized blocks make machine drift
// hit all counts alike.
func ScheduleLoaders(counts []int, variants []result.Variant, loaders []result.Loader, trials int, seed uint64) [][]result.Cell {
	if len(loaders) == 0 {
		loaders = []result.Loader{""}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	blocks := make([][]result.Cell, trials)
	for b := range blocks {
		var cells []result.Cell
		for _, v := range variants {
			for _, l := range loaders {
				for _, n := range counts {
					cells = append(cells, result.Cell{Variant: v, Filters: n, Loader: l})
				}
			}
		}
		rng.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
		blocks[b] = cells
	}
	return blocks
}

// StackFor returns the stack a cell installs without padding: BuildStack
// of the programs at the cell's count, each program passed through
// DefeatCache for VariantDefeat. It returns the *filters.LimitError of
// BuildStack.
func StackFor(progs []*filters.Program, c result.Cell) (filters.Stack, error) {
	return StackForPad(progs, c, 0)
}

// StackForPad is StackFor with pad never-executed instructions appended to
// every program (filters.Program.Padded, after DefeatCache), as a child
// whose Sample.Pad is pad installs it.
func StackForPad(progs []*filters.Program, c result.Cell, pad int) (filters.Stack, error) {
	return filters.BuildStack(PaddedPrograms(VariantPrograms(progs, c.Variant), pad), c.Filters)
}

// PaddedPrograms returns progs with pad never-executed instructions
// appended to each (filters.Program.Padded); progs itself for pad <= 0.
func PaddedPrograms(progs []*filters.Program, pad int) []*filters.Program {
	if pad <= 0 {
		return progs
	}
	ps := make([]*filters.Program, len(progs))
	for i, p := range progs {
		ps[i] = p.Padded(pad)
	}
	return ps
}

// VariantPrograms returns the programs as variant v installs them: as
// compiled for VariantOn, each passed through DefeatCache for
// VariantDefeat (one instruction longer).
func VariantPrograms(progs []*filters.Program, v result.Variant) []*filters.Program {
	if v != result.VariantDefeat {
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
// one copy and its CPUs, the mix workload, the unprivileged loader, and
// the placement's mode.
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
		cfg.CPU = cpulock.HighestCPU()
	}
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.cpus == nil && cfg.CPU >= 0 {
		cfg.cpus = []int{cfg.CPU}
		if cfg.Parallel > 1 {
			cfg.cpus = cpulock.CopyCPUs(cfg.CPU, cfg.Parallel)
		}
	}
	if cfg.Workload.SyscallsPerIter == 0 {
		cfg.Workload = loops("mix")
	}
	if len(cfg.Loaders) == 0 {
		cfg.Loaders = []result.Loader{result.LoaderUnprivileged}
	}
	cfg.Placement = cfg.Placement.withDefaults()
	return cfg
}

// minChildTimeout is the least time a child gets to report
// (child.MinTimeout, 10 s).
const minChildTimeout = child.MinTimeout

// Upper bounds used by DeriveChildTimeout for what filters add per syscall:
// interpreted classic BPF runs well under 5 ns per instruction, and each
// filter's dispatch well under 100 ns (docs/methodology.md, section 6:
// 10–50 ns per further uncached filter on the development VM).
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
	if cfg.paired() {
		work += iters * perIterNs // the paired baseline, before the install
	}
	if !(work < float64(math.MaxInt64)/20) { // would overflow: no deadline
		return time.Duration(math.MaxInt64)
	}
	return minChildTimeout + time.Duration(10*work)
}

// stackKey names one stack: the loader does not change what is installed.
type stackKey struct {
	variant result.Variant
	filters int
	pad     int
}

// stacks builds and keeps the stacks of a run as sock_filter arrays,
// oldest first, one per (variant, count, pad).
type stacks struct {
	progs []*filters.Program
	built map[stackKey][][]byte
}

// get returns the stack of cell c with pad, building it on first use. An
// error names the cell and pad and wraps StackForPad's.
func (s *stacks) get(c result.Cell, pad int) ([][]byte, error) {
	k := stackKey{c.Variant, c.Filters, pad}
	if st, ok := s.built[k]; ok {
		return st, nil
	}
	st, err := StackForPad(s.progs, c, pad)
	if err != nil {
		return nil, fmt.Errorf("build stack for %s with pad %d: %w", c, pad, err)
	}
	var raw [][]byte
	for _, p := range st {
		raw = append(raw, p.Bytes())
	}
	s.built[k] = raw
	return raw, nil
}

// buildStacks builds, before any child starts, the stack of every cell of
// cfg with the largest pad its children may get, and returns them by cell
// with the cache that builds the others, and the cells whose random pads
// must stay below cfg.Placement's MaxPad (the value: the largest pad whose
// stack fits). StackForPad checks the kernel limits, and a shorter pad
// gives a shorter stack, which fits too. With random placement a cell
// whose deepest stack would exceed MAX_INSNS_PER_PATH at MaxPad draws its
// pads from a smaller range instead of failing; an error (naming the cell
// and wrapping StackForPad's) means not even the smallest pad fits.
func buildStacks(cfg Config) (map[result.Cell][][]byte, *stacks, map[result.Cell]int, error) {
	cache := &stacks{progs: cfg.Programs, built: map[stackKey][][]byte{}}
	largest := map[result.Cell][][]byte{}
	caps := map[result.Cell]int{}
	pl := cfg.Placement.withDefaults()
	loaders := cfg.Loaders
	if len(loaders) == 0 {
		loaders = []result.Loader{""}
	}
	for _, v := range cfg.Variants {
		for _, l := range loaders {
			for _, n := range cfg.Counts {
				c := result.Cell{Variant: v, Filters: n, Loader: l}
				pad := pl.Largest()
				raw, err := cache.get(c, pad)
				for err != nil && pl.Mode == PlacementRandom && pad > pl.MinPad {
					pad--
					raw, err = cache.get(c, pad)
				}
				if err != nil {
					return nil, nil, nil, err
				}
				if pad < pl.Largest() {
					caps[c] = pad
				}
				largest[c] = raw
			}
		}
	}
	return largest, cache, caps, nil
}

// MaxChildWork bounds the timed work of one child: RunAdaptive refuses a
// configuration whose calibrated loops, without any filter, would take
// longer (error wrapping ErrTooMuchWork), instead of running a child for
// hours. Defaults take about 10 ms.
const MaxChildWork = child.MaxWork

// ErrTooMuchWork is returned (wrapped) by RunAdaptive when Iterations and
// Samples (or the command workload's runs) ask a child for more than
// MaxChildWork of timed work.
var ErrTooMuchWork = child.ErrTooMuchWork

// checkChildWork refuses work no one would wait for before starting it:
// with no filters at all, a child of cfg would time (Warmup + Samples) x
// Iterations loop iterations of perIterNs ns each. Over MaxChildWork the
// error wraps ErrTooMuchWork; perIterNs 0 (not calibrated) passes.
func checkChildWork(cfg Config, perIterNs float64) error {
	if perIterNs <= 0 {
		return nil
	}
	c := withDefaults(cfg)
	ns := float64(c.Warmup+c.Samples) * float64(c.Iterations) * perIterNs
	if c.paired() {
		ns *= 2
	}
	if ns > float64(MaxChildWork) {
		return fmt.Errorf("%w: %d iterations x %d samples (+%d warm-up) at %.1f ns per iteration is about %.3g s per child, over %v; lower --iterations or --samples (0 iterations calibrates to ~2 ms per sample)",
			ErrTooMuchWork, c.Iterations, c.Samples, c.Warmup, perIterNs, ns/1e9, MaxChildWork)
	}
	return nil
}
