package sym

import (
	"math/rand/v2"
	"testing"
)

// TestAssumeAgainstBruteForce applies random predicate sequences to one
// word and compares feasibility with brute force. Constants and masks use
// only the low 10 bits, so every value w behaves like w & 0x3ff when
// w < 1024 and like 1024 + (w & 0x3ff) otherwise: [0, 2048) is exhaustive.
func TestAssumeAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 3000 {
		d := Full()
		var preds []Pred
		var truths []bool
		ok := true
		for range 1 + r.IntN(6) {
			p := Pred{Word: 4, Mask: 0xffffffff, K: r.Uint32N(1024)}
			switch r.IntN(5) {
			case 0:
				p.Op = OpEq
			case 1:
				p.Op = OpGt
			case 2:
				p.Op = OpGe
			case 3:
				p.Op = OpSet
			default:
				p.Op = OpEq
				p.Mask = r.Uint32N(1024)
				p.K &= p.Mask
			}
			truth := r.IntN(2) == 0
			var err error
			d, ok, err = d.Assume(p, truth)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			preds, truths = append(preds, p), append(truths, truth)
			if !ok {
				break
			}
		}
		holds := func(w uint32) bool {
			var words [Words]uint32
			words[4] = w
			for j, p := range preds {
				if p.Eval(&words) != truths[j] {
					return false
				}
			}
			return true
		}
		want := false
		for w := uint32(0); w < 2048 && !want; w++ {
			want = holds(w)
		}
		if ok != want {
			t.Fatalf("case %d: %v %v: Assume says feasible=%v, brute force %v", i, preds, truths, ok, want)
		}
		if ok {
			w, err := d.Witness()
			if err != nil {
				t.Fatal(err)
			}
			if !holds(w[4]) {
				t.Fatalf("case %d: witness %#x violates %v %v", i, w[4], preds, truths)
			}
		}
	}
}

func TestMaskIntervals(t *testing.T) {
	x32 := Pred{Word: WordNr, Mask: 0xffffffff, Op: OpSet, K: 0x40000000}
	if !x32.IntervalExact() {
		t.Fatal("jset of the x32 bit is not interval-exact")
	}
	d, ok, err := Full().Assume(x32, true)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	got, exact := d.Intervals(WordNr)
	want := [][2]uint32{{0x40000000, 0x7fffffff}, {0xc0000000, 0xffffffff}}
	if !exact || len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("nr & 0x40000000 != 0: got %#x (exact %v), want %#x", got, exact, want)
	}
	if (Pred{Word: 4, Mask: 0x1, Op: OpEq, K: 1}).IntervalExact() {
		t.Error("a low-bit mask (2^31 intervals) reported interval-exact")
	}
}
