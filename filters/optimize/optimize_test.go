package optimize

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

const (
	allow  = uint32(filters.ActionAllow)
	kill   = uint32(filters.ActionKillProcess)
	errnoA = uint32(filters.ActionErrno)
)

type corpusStack struct {
	name string
	s    filters.Stack
}

// corpus returns every policy of testdata/policies as a one-filter stack,
// docker-default, and the systemd units' modeled stacks.
func corpus(t testing.TB) []corpusStack {
	t.Helper()
	root := "../../testdata/policies"
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	out := []corpusStack{{"docker-default", filters.Stack{mustOpen(t, "docker-default")}}}
	for _, e := range ents {
		path := filepath.Join(root, e.Name())
		if strings.HasSuffix(e.Name(), ".service") {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			u, err := systemd.ParseUnit(path, data, systemd.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, corpusStack{e.Name(), u.Stack()})
			continue
		}
		if e.IsDir() {
			continue // included files (minijail/)
		}
		opts := formats.OpenOptions{}
		if e.Name() == "k8s-profiles.yaml" {
			opts.ProfileName = "checkout-api"
		}
		src, err := formats.Load(path, opts)
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		for _, p := range src.Filters { // every Firecracker thread
			out = append(out, corpusStack{e.Name() + "/" + p.Name, filters.Stack{p}})
		}
	}
	return out
}

func mustOpen(t testing.TB, spec string) *filters.Program {
	t.Helper()
	p, err := formats.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func gitStatusWeights(t testing.TB) (Weights, *analysis.Profile) {
	t.Helper()
	data, err := os.ReadFile("testdata/strace-f-git-status.txt")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := analysis.ParseProfile("strace-f-git-status.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	w, err := WeightsFromProfile(prof)
	if err != nil {
		t.Fatal(err)
	}
	return w, prof
}

// inputs returns every named syscall of the three x86 ABIs with all
// arguments 0, plus boundary values of the programs' constants in nr and
// the first three arguments, and a foreign arch.
func inputs(r *rand.Rand, s filters.Stack) []filters.SeccompData {
	var out []filters.SeccompData
	for _, a := range filters.NativeArches() {
		for _, n := range a.SortedNumbers() {
			out = append(out, a.Data(n))
		}
	}
	var ks []uint32
	for _, p := range s {
		for _, in := range p.Insns {
			ks = append(ks, in.K-1, in.K, in.K+1)
		}
	}
	for range 1000 {
		d := filters.SeccompData{Nr: int32(ks[r.IntN(len(ks))]), Arch: []uint32{filters.AuditArchX86_64, filters.AuditArchI386, 0xc00000b7}[r.IntN(3)]}
		if r.IntN(2) == 0 {
			d.Nr = int32(r.IntN(500))
		}
		for i := range 3 {
			d.Args[i] = uint64(ks[r.IntN(len(ks))])
			if r.IntN(4) == 0 {
				d.Args[i] |= uint64(ks[r.IntN(len(ks))]) << 32
			}
		}
		out = append(out, d)
	}
	return out
}

// agree checks with the emulator that p returns the stack's outcome on ins.
func agree(t *testing.T, s filters.Stack, p *filters.Program, ins []filters.SeccompData) {
	t.Helper()
	for _, d := range ins {
		ra, err := filters.EmulateStack(s, d)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := filters.Emulate(p, d)
		if err != nil {
			t.Fatal(err)
		}
		if !equiv.OutcomeOf(ra.Ret).Same(equiv.OutcomeOf(rb.Ret)) {
			t.Fatalf("input %+v: stack gives %#x, merged %#x", d, ra.Ret, rb.Ret)
		}
	}
}

func TestMergeCorpus(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range corpus(t) {
		t.Run(c.name, func(t *testing.T) {
			res, err := Merge(c.s, Weights{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Check.Equivalent {
				t.Fatal("Merge returned a program without a proof")
			}
			if res.Program.Len() > filters.MaxInsns {
				t.Fatalf("merged program has %d instructions", res.Program.Len())
			}
			agree(t, c.s, res.Program, inputs(r, c.s))
			if len(res.CacheLost) != 0 {
				t.Errorf("merge lost the cache for %d syscalls, e.g. %+v", len(res.CacheLost), res.CacheLost[0])
			}
			// A second check, independent of Merge's own.
			got, err := equiv.Stacks(c.s, filters.Stack{res.Program})
			if err != nil || !got.Equivalent {
				t.Fatalf("equiv.Stacks = %+v, %v", got, err)
			}
		})
	}
}

// TestMergeHardenedShorter: the hardened unit's 35 filters run hundreds of
// instructions per syscall; one merged filter runs a few.
func TestMergeHardenedShorter(t *testing.T) {
	var hardened filters.Stack
	for _, c := range corpus(t) {
		if c.name == "hardened.service" {
			hardened = c.s
		}
	}
	res, err := Merge(hardened, Weights{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := analysis.Analyze(hardened, nil)
	if err != nil {
		t.Fatal(err)
	}
	after, err := analysis.Analyze(filters.Stack{res.Program}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range before {
		if after[i].Executed > before[i].Executed {
			t.Errorf("%s %s: %d instructions merged, %d stacked", before[i].Arch, before[i].Name, after[i].Executed, before[i].Executed)
		}
	}
	if got, want := len(res.CacheGained), 0; got < want {
		t.Errorf("gained %d", got)
	}
}

func TestOptimizeNoProfileNoLongerPath(t *testing.T) {
	// docker-default compiles to libseccomp's binary-tree shape (more than
	// 32 names, as runc asks for); the optimized layout must not lengthen
	// any syscall's path.
	for _, spec := range []string{"docker-default", "../../testdata/policies/podman-like.json", "../../testdata/policies/large-allowlist.yaml", "default"} {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			p := mustOpen(t, spec)
			res, err := Optimize(p, Weights{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Longer) != 0 {
				t.Errorf("%d syscalls have a longer path, e.g. %+v", len(res.Longer), res.Longer[0])
			}
			before, _ := analysis.Analyze(filters.Stack{p}, nil)
			after, _ := analysis.Analyze(filters.Stack{res.Program}, nil)
			for i := range before {
				if after[i].Executed > before[i].Executed {
					t.Fatalf("%s %s: %d > %d", before[i].Arch, before[i].Name, after[i].Executed, before[i].Executed)
				}
			}
		})
	}
}

// weightedPath is the profile-weighted mean of instructions executed.
func weightedPath(t *testing.T, p *filters.Program, prof *analysis.Profile) float64 {
	t.Helper()
	costs, err := analysis.EvaluateProfile(filters.Stack{p}, prof)
	if err != nil {
		t.Fatal(err)
	}
	var sum, n float64
	for _, c := range costs {
		if c.Known {
			sum += float64(c.Calls) * float64(c.Cost.Executed)
			n += float64(c.Calls)
		}
	}
	return sum / n
}

func TestOptimizeProfileHalvesWeightedPath(t *testing.T) {
	w, prof := gitStatusWeights(t)
	p := mustOpen(t, "docker-default")
	res, err := Optimize(p, w)
	if err != nil {
		t.Fatal(err)
	}
	before, after := weightedPath(t, p, prof), weightedPath(t, res.Program, prof)
	if after > before/2 {
		t.Errorf("profile-weighted path %.2f, want at most half of %.2f", after, before)
	}
	// The hottest syscall is one test away from nr being loaded: ld
	// [arch], jeq, ld [nr], at most two tests, ret. (docker-default allows
	// newfstatat inside a run of allowed numbers, so a range test is as
	// short as an exact jeq.)
	nr, _ := analysis.LookupSyscall(filters.ArchX86_64, "newfstatat")
	got, err := filters.Emulate(res.Program, filters.ArchX86_64.Data(nr))
	if err != nil {
		t.Fatal(err)
	}
	if got.Executed > 6 {
		t.Errorf("newfstatat runs %d instructions (path %v), want at most 6", got.Executed, got.Path)
	}
}

func TestMergeTooLong(t *testing.T) {
	// Each filter gives n syscalls their own errno: no two share a return.
	distinct := func(base, n int) *filters.Program {
		var ins []bpf.Instruction
		ins = append(ins, bpf.LoadAbsolute{Off: 0, Size: 4})
		for i := range n {
			ins = append(ins, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(base + i), SkipTrue: 0, SkipFalse: 1},
				bpf.RetConstant{Val: errnoA | uint32(base+i)})
		}
		ins = append(ins, bpf.RetConstant{Val: allow})
		raw, err := bpf.Assemble(ins)
		if err != nil {
			t.Fatal(err)
		}
		return &filters.Program{Name: "distinct", Insns: raw}
	}
	s := filters.Stack{distinct(0, 1200), distinct(1200, 1200)}
	_, err := Merge(s, Weights{})
	var tl *TooLongError
	if !errors.As(err, &tl) || !errors.Is(err, filters.ErrLimit) {
		t.Fatalf("Merge = %v, want a *TooLongError", err)
	}
	if tl.Have <= filters.MaxInsns || tl.FitFilters != 1 || tl.FitLen > filters.MaxInsns {
		t.Errorf("TooLongError = %+v, want over 4096 with the newest filter fitting", tl)
	}
	if !strings.Contains(err.Error(), "over BPF_MAXINSNS") {
		t.Errorf("message %q does not say by how much", err)
	}
}

func TestMergeCannotReason(t *testing.T) {
	raw, _ := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 16, Size: 4},
		bpf.ALUOpConstant{Op: bpf.ALUOpAdd, Val: 1},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 5, SkipTrue: 0, SkipFalse: 1},
		bpf.RetConstant{Val: kill},
		bpf.RetConstant{Val: allow},
	})
	_, err := Merge(filters.Stack{{Name: "add", Insns: raw}}, Weights{})
	if err == nil {
		t.Fatal("Merge accepted a program it cannot reason about")
	}
}

func TestPasses(t *testing.T) {
	ja := func(k uint32) bpf.RawInstruction { return bpf.RawInstruction{Op: opJa, K: k} }
	jeq := func(k uint32, jt, jf uint8) bpf.RawInstruction {
		return bpf.RawInstruction{Op: opJeqK, K: k, Jt: jt, Jf: jf}
	}
	ret := func(k uint32) bpf.RawInstruction { return bpf.RawInstruction{Op: opRetK, K: k} }
	ld := bpf.RawInstruction{Op: opLdAbsW}
	tests := []struct {
		name string
		fn   pass
		in   []bpf.RawInstruction
		want []bpf.RawInstruction
	}{
		{"threadJumps", threadJumps,
			[]bpf.RawInstruction{ld, jeq(1, 0, 1), ja(1), ja(0), ret(allow)},
			[]bpf.RawInstruction{ld, jeq(1, 2, 2), ja(1), ja(0), ret(allow)}},
		{"jaToRet", jaToRet,
			[]bpf.RawInstruction{ld, ja(1), ret(kill), ret(allow)},
			[]bpf.RawInstruction{ld, ret(allow), ret(kill), ret(allow)}},
		{"sameTargets", sameTargets,
			[]bpf.RawInstruction{ld, jeq(1, 1, 1), ret(kill), ret(allow)},
			[]bpf.RawInstruction{ld, ja(1), ret(kill), ret(allow)}},
		{"removeNops", removeNops,
			[]bpf.RawInstruction{ld, jeq(1, 0, 2), ja(0), ret(kill), ret(allow)},
			[]bpf.RawInstruction{ld, jeq(1, 0, 1), ret(kill), ret(allow)}},
		{"removeUnreachable", removeUnreachable,
			[]bpf.RawInstruction{ld, jeq(1, 1, 2), ret(errnoA), ret(kill), ret(allow)},
			[]bpf.RawInstruction{ld, jeq(1, 0, 1), ret(kill), ret(allow)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := tt.fn(tt.in)
			if !changed {
				t.Fatal("pass reports no change")
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
			a := &filters.Program{Name: "in", Insns: tt.in}
			b := &filters.Program{Name: "out", Insns: got}
			if r, err := equiv.Programs(a, b); err != nil || !r.Equivalent {
				t.Errorf("pass changed the program's meaning: %+v %v", r, err)
			}
			if _, again := tt.fn(got); again && tt.name != "threadJumps" {
				t.Errorf("pass not idempotent")
			}
		})
	}
}
