package runner

import (
	"errors"
	"math"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
)

func TestCheckChildWork(t *testing.T) {
	cfg := Config{Workload: loops("getpid"), Iterations: 1000, Samples: 5, Warmup: 1}
	huge := cfg
	huge.Iterations = 1 << 40
	tests := []struct {
		name      string
		cfg       Config
		perIterNs float64
		wantErr   error
	}{
		{"not calibrated", huge, 0, nil},
		{"NaN", huge, math.NaN(), nil},
		{"defaults", cfg, 100, nil},
		{"hours per child", huge, 100, ErrTooMuchWork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkChildWork(tt.cfg, tt.perIterNs); !errors.Is(got, tt.wantErr) || (got == nil) != (tt.wantErr == nil) {
				t.Errorf("checkChildWork = %v, want %v", got, tt.wantErr)
			}
		})
	}
}

// TestBuildStacks: one stack per cell, the defeat variant one instruction
// longer per filter, and a stack over the kernel's limits refused before
// any child starts.
func TestBuildStacks(t *testing.T) {
	p := prog(t, "allow", allow)
	cfg := Config{Programs: []*filters.Program{p}, Counts: []int{0, 1, 3}, Variants: []result.Variant{result.VariantOn, result.VariantDefeat},
		Placement: Placement{Mode: PlacementFixed}}
	stacks, _, _, err := buildStacks(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(stacks) != 6 {
		t.Fatalf("got %d stacks, want 6", len(stacks))
	}
	for c, st := range stacks {
		wantLen := len(p.Insns) * 8
		if c.Variant == result.VariantDefeat {
			wantLen += 8
		}
		if len(st) != c.Filters {
			t.Errorf("%s: %d filters", c, len(st))
		}
		for _, f := range st {
			if len(f) != wantLen {
				t.Errorf("%s: filter of %d bytes, want %d", c, len(f), wantLen)
			}
		}
	}
	cfg.Counts = []int{filters.MaxInsns}
	var le *filters.LimitError
	if _, _, _, err := buildStacks(cfg); !errors.As(err, &le) {
		t.Errorf("%d filters: err = %v, want a *filters.LimitError", filters.MaxInsns, err)
	}
}

// TestBuildStacksPlacement: stacks are checked at the largest pad the
// placement can give, and the cache builds the stack of any pad with every
// filter exactly pad instructions longer.
func TestBuildStacksPlacement(t *testing.T) {
	p := prog(t, "allow", allow)
	tests := []struct {
		name      string
		placement Placement
		wantPad   int
	}{
		{"zero value appends nothing", Placement{}, 0},
		{"default is random 0..16", DefaultPlacement(), DefaultMaxPad},
		{"random range", Placement{Mode: PlacementRandom, MinPad: 2, MaxPad: 5}, 5},
		{"fixed", Placement{Mode: PlacementFixed, Pad: 7}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Programs: []*filters.Program{p}, Counts: []int{2}, Variants: []result.Variant{result.VariantDefeat},
				Loaders: []result.Loader{result.LoaderUnprivileged, result.LoaderPrivileged}, Placement: tt.placement}
			largest, cache, _, err := buildStacks(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(largest) != 2 {
				t.Fatalf("got %d cells, want 2 (one per loader)", len(largest))
			}
			for c, st := range largest {
				if got, want := len(st[0])/8, len(p.Insns)+1+tt.wantPad; got != want {
					t.Errorf("%s: %d instructions, want %d", c, got, want)
				}
			}
			for _, pad := range []int{0, 3} {
				st, err := cache.get(result.Cell{Variant: result.VariantDefeat, Filters: 2}, pad)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := len(st[1])/8, len(p.Insns)+1+pad; got != want {
					t.Errorf("pad %d: %d instructions, want %d", pad, got, want)
				}
			}
		})
	}
}

// TestPadFor: pads are a function of the seed and the child's position
// only, stay in range, cover the whole range, and a fixed placement gives
// its pad to every child.
func TestPadFor(t *testing.T) {
	r := DefaultPlacement()
	seen := map[int]int{}
	for seq := range 2000 {
		a, b := r.PadFor(42, seq), r.PadFor(42, seq)
		if a != b {
			t.Fatalf("seq %d: pads %d and %d from the same seed", seq, a, b)
		}
		if a < 0 || a > DefaultMaxPad {
			t.Fatalf("seq %d: pad %d outside 0..%d", seq, a, DefaultMaxPad)
		}
		seen[a]++
	}
	if len(seen) != DefaultMaxPad+1 {
		t.Errorf("2000 children drew %d distinct pads, want all %d", len(seen), DefaultMaxPad+1)
	}
	differ := 0
	for seq := range 100 {
		if r.PadFor(42, seq) != r.PadFor(43, seq) {
			differ++
		}
	}
	if differ < 50 {
		t.Errorf("seeds 42 and 43 give the same pad to %d of 100 children", 100-differ)
	}
	f := Placement{Mode: PlacementFixed, Pad: 9}
	for seq := range 10 {
		if got := f.PadFor(1, seq); got != 9 {
			t.Errorf("fixed: seq %d pad %d, want 9", seq, got)
		}
	}
	for _, bad := range []Placement{{Mode: PlacementFixed, Pad: -1}, {Mode: PlacementRandom, MinPad: 5, MaxPad: 2}, {Mode: "sideways"}} {
		if bad.Check() == nil {
			t.Errorf("%+v: Check = nil, want an error", bad)
		}
	}
}

// TestScheduleLoaders: every block holds every (variant, loader, count)
// once, and one loader keeps Schedule's order.
func TestScheduleLoaders(t *testing.T) {
	counts, vs := []int{0, 1, 4}, []result.Variant{result.VariantOn, result.VariantDefeat}
	both := ScheduleLoaders(counts, vs, []result.Loader{result.LoaderUnprivileged, result.LoaderPrivileged}, 3, 5)
	for b, cells := range both {
		seen := map[result.Cell]bool{}
		for _, c := range cells {
			seen[c] = true
		}
		if len(cells) != 12 || len(seen) != 12 {
			t.Errorf("block %d: %d cells, %d distinct, want 12", b, len(cells), len(seen))
		}
	}
	one := ScheduleLoaders(counts, vs, []result.Loader{result.LoaderPrivileged}, 3, 5)
	plain := Schedule(counts, vs, 3, 5)
	for b := range plain {
		for i := range plain[b] {
			got, want := one[b][i], plain[b][i]
			want.Loader = result.LoaderPrivileged
			if got != want {
				t.Fatalf("block %d cell %d: %s, want %s", b, i, got, want)
			}
		}
	}
}

func TestLoaders(t *testing.T) {
	tests := []struct {
		in      string
		want    []result.Loader
		wantErr bool
	}{
		{"", []result.Loader{result.LoaderUnprivileged}, false},
		{"unprivileged", []result.Loader{result.LoaderUnprivileged}, false},
		{"privileged", []result.Loader{result.LoaderPrivileged}, false},
		{"both", []result.Loader{result.LoaderUnprivileged, result.LoaderPrivileged}, false},
		{"root", nil, true},
	}
	for _, tt := range tests {
		got, err := result.Loaders(tt.in)
		if (err != nil) != tt.wantErr || len(got) != len(tt.want) {
			t.Errorf("result.Loaders(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("result.Loaders(%q)[%d] = %s, want %s", tt.in, i, got[i], tt.want[i])
			}
		}
	}
}

func TestParseCapsAndCheck(t *testing.T) {
	const status = "Name:\tx\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n"
	c, err := sys.ParseCaps(status)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SysAdmin() || c.Bnd != 0x1ffffffffff {
		t.Fatalf("parseCaps = %s, SysAdmin %v", c, c.SysAdmin())
	}
	if _, err := sys.ParseCaps("CapEff:\t0\n"); err == nil {
		t.Error("parseCaps without CapPrm, CapBnd: nil error")
	}
	root := c
	const sa = uint64(1) << 21
	dropped := result.Caps{Eff: root.Eff &^ sa, Prm: root.Prm &^ sa, Bnd: root.Bnd &^ sa}
	tests := []struct {
		name string
		l    result.Loader
		caps result.Caps
		ok   bool
	}{
		{"unprivileged dropped", result.LoaderUnprivileged, dropped, true},
		{"unprivileged non-root, bounding kept", result.LoaderUnprivileged, result.Caps{Eff: dropped.Eff, Prm: dropped.Prm, Bnd: root.Bnd}, true},
		{"unprivileged still permitted", result.LoaderUnprivileged, result.Caps{Eff: dropped.Eff, Prm: root.Prm, Bnd: dropped.Bnd}, false},
		{"unprivileged root", result.LoaderUnprivileged, root, false},
		{"privileged root", result.LoaderPrivileged, root, true},
		{"privileged without", result.LoaderPrivileged, dropped, false},
		{"none", "", root, true},
	}
	for _, tt := range tests {
		err := result.CheckLoaderCaps(tt.l, tt.caps)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, result.ErrLoaderCaps)) {
			t.Errorf("%s: checkLoaderCaps = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestEnvironmentMitigations(t *testing.T) {
	got := result.CmdlineMitigations("mitigations=auto,no_guest_host console=ttyS0 pti=on spectre_v2_user=seccomp nospec_store_bypass_disable quiet -- pti=off")
	want := []string{"mitigations=auto,no_guest_host", "pti=on", "spectre_v2_user=seccomp", "nospec_store_bypass_disable"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	tests := []struct {
		v2, ssb string
		bhi     string
		ssbd    bool
	}{
		{"Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected", "Vulnerable", "Not affected", false},
		{"Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop", "Mitigation: Speculative Store Bypass disabled via prctl and seccomp", "SW loop, KVM: SW loop", true},
		{"Mitigation: Retpolines, IBPB: conditional, IBRS_FW", "Mitigation: Speculative Store Bypass disabled via prctl", "", false},
	}
	for _, tt := range tests {
		e := result.Environment{Vulnerabilities: map[string]string{"spectre_v2": tt.v2, "spec_store_bypass": tt.ssb}}
		if got := e.BHI(); got != tt.bhi {
			t.Errorf("BHI of %q = %q, want %q", tt.v2, got, tt.bhi)
		}
		if got := e.SeccompForcesSSBD(); got != tt.ssbd {
			t.Errorf("SeccompForcesSSBD of %q = %v, want %v", tt.ssb, got, tt.ssbd)
		}
	}
}

// TestBuildStacksCapsPads: with random placement, a cell whose stack fits
// only with a smaller pad gets a cap instead of an error; a fixed pad that
// does not fit is an error.
func TestBuildStacksCapsPads(t *testing.T) {
	p := prog(t, "allow", allow)
	// The largest count that fits with no pad at all.
	n := filters.MaxStackCount([]*filters.Program{p})
	cfg := Config{Programs: []*filters.Program{p}, Counts: []int{1, n}, Variants: []result.Variant{result.VariantOn}, Placement: DefaultPlacement()}
	_, _, caps, err := buildStacks(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cp, ok := caps[result.Cell{Variant: result.VariantOn, Filters: n}]; !ok || cp >= DefaultMaxPad {
		t.Errorf("caps %v: want a cap below %d at %d filters", caps, DefaultMaxPad, n)
	}
	if _, ok := caps[result.Cell{Variant: result.VariantOn, Filters: 1}]; ok {
		t.Errorf("caps %v: one filter needs no cap", caps)
	}
	if _, err := StackForPad(cfg.Programs, result.Cell{Variant: result.VariantOn, Filters: n}, caps[result.Cell{Variant: result.VariantOn, Filters: n}]); err != nil {
		t.Errorf("the capped pad does not fit: %v", err)
	}
	cfg.Placement = Placement{Mode: PlacementFixed, Pad: DefaultMaxPad}
	if _, _, _, err := buildStacks(cfg); err == nil {
		t.Errorf("fixed pad %d at %d filters: no error", DefaultMaxPad, n)
	}
	capped := DefaultPlacement().capped(3)
	for seq := range 200 {
		if pad := capped.PadFor(9, seq); pad < 0 || pad > 3 {
			t.Fatalf("capped PadFor = %d, want 0..3", pad)
		}
	}
}
