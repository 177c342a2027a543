package runner

import (
	"fmt"
	"math/rand/v2"
)

// PlacementMode says how the number of never-executed instructions
// appended to every filter (its pad) is chosen per child.
type PlacementMode string

const (
	// PlacementRandom draws each child's pad from [MinPad, MaxPad] with
	// PadFor, so every cell averages over program sizes and JIT image
	// placements (kernel/bpf/core.c: bpf_jit_binary_pack_alloc places each
	// image at a random offset, and its size changes where it lands).
	PlacementRandom PlacementMode = "random"
	// PlacementFixed appends Pad instructions in every child (run --pad N).
	PlacementFixed PlacementMode = "fixed"
)

// DefaultMaxPad is the top of the default pad range, in instructions: it
// covers the 6–10 appended instructions that moved docker-default's
// per-filter cost by 25 % on this project's measurements.
const DefaultMaxPad = 16

// Placement says which pad each child appends to every filter
// (filters.Program.Padded: unreachable returns, same verdicts, paths and
// action-cache decisions). The zero value appends nothing (fixed, pad 0),
// so a Config written before placement existed measures what it did;
// DefaultPlacement is what `run` uses unless --pad is given.
type Placement struct {
	// Mode is PlacementRandom or PlacementFixed; "" means fixed.
	Mode PlacementMode
	// Pad is the fixed pad, in instructions (PlacementFixed).
	Pad int
	// MinPad and MaxPad bound the random pad, in instructions, inclusive
	// (PlacementRandom).
	MinPad, MaxPad int
}

// DefaultPlacement is random placement over [0, DefaultMaxPad].
func DefaultPlacement() Placement {
	return Placement{Mode: PlacementRandom, MaxPad: DefaultMaxPad}
}

// withDefaults names the zero value's mode.
func (p Placement) withDefaults() Placement {
	if p.Mode == "" {
		p.Mode = PlacementFixed
	}
	return p
}

// Normalized returns p with its mode named: the zero value becomes fixed
// placement with pad 0.
func (p Placement) Normalized() Placement { return p.withDefaults() }

// Check returns an error for a negative pad or an empty range.
func (p Placement) Check() error {
	p = p.withDefaults()
	switch p.Mode {
	case PlacementFixed:
		if p.Pad < 0 {
			return fmt.Errorf("placement: negative pad %d", p.Pad)
		}
	case PlacementRandom:
		if p.MinPad < 0 || p.MaxPad < p.MinPad {
			return fmt.Errorf("placement: bad pad range %d..%d", p.MinPad, p.MaxPad)
		}
	default:
		return fmt.Errorf("placement: unknown mode %q: want random or fixed", p.Mode)
	}
	return nil
}

// Largest returns the largest pad p can give a child, in instructions:
// the one that decides whether the deepest stack fits the kernel's limits.
func (p Placement) Largest() int {
	p = p.withDefaults()
	if p.Mode == PlacementFixed {
		return max(p.Pad, 0)
	}
	return p.MaxPad
}

// capped returns p with its random range cut at maxPad.
func (p Placement) capped(maxPad int) Placement {
	p = p.withDefaults()
	p.MaxPad = min(p.MaxPad, maxPad)
	p.MinPad = min(p.MinPad, p.MaxPad)
	return p
}

// PadFor returns the pad of the child at position seq of a run seeded
// with seed, in instructions: Pad when fixed, else a number drawn
// uniformly from [MinPad, MaxPad] by a PCG seeded from (seed, seq) alone,
// so the same seed gives every child the same pad again, whatever ran
// before it or whether blocks were added.
func (p Placement) PadFor(seed uint64, seq int) int {
	p = p.withDefaults()
	if p.Mode == PlacementFixed {
		return max(p.Pad, 0)
	}
	if p.MaxPad <= p.MinPad {
		return p.MinPad
	}
	rng := rand.New(rand.NewPCG(seed^0x6a09e667f3bcc908, uint64(seq)*0x9e3779b97f4a7c15+0xbb67ae8584caa73b))
	return p.MinPad + rng.IntN(p.MaxPad-p.MinPad+1)
}
