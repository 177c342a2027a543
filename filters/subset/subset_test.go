package subset

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
)

func load(t testing.TB, spec string) filters.Stack {
	t.Helper()
	src, err := formats.Load(spec, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return src.Stack()
}

// dockerDefault returns docker-default's JSON, edited by edit.
func dockerDefault(t testing.TB, edit func(p map[string]any)) filters.Stack {
	t.Helper()
	data, err := oci.DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	edit(p)
	if data, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	src, err := formats.LoadData("edited.json", data, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return src.Stack()
}

// dropNames removes names from docker-default's first (unconditional
// ALLOW) entry.
func dropNames(names ...string) func(map[string]any) {
	return func(p map[string]any) {
		sc := p["syscalls"].([]any)[0].(map[string]any)
		var keep []any
		for _, n := range sc["names"].([]any) {
			if !slices.Contains(names, n.(string)) {
				keep = append(keep, n)
			}
		}
		sc["names"] = keep
	}
}

// addRule appends one syscalls entry to docker-default.
func addRule(rule map[string]any) func(map[string]any) {
	return func(p map[string]any) { p["syscalls"] = append(p["syscalls"].([]any), rule) }
}

type want struct {
	arch, name string
	rel        Relation
}

func findingsOf(res Result) []want {
	var out []want
	for _, f := range res.Findings {
		out = append(out, want{f.Arch, f.Name, f.Relation})
	}
	return out
}

func TestRealPairs(t *testing.T) {
	dd := load(t, oci.DockerDefaultName)
	keyctl := addRule(map[string]any{"names": []string{"keyctl"}, "action": "SCMP_ACT_ALLOW",
		"args": []map[string]any{{"index": 0, "value": 5, "op": "SCMP_CMP_EQ"}}})
	tests := []struct {
		name              string
		profile, baseline filters.Stack
		opt               Options
		wantSubset        bool
		want              []want // nil: not checked beyond the verdict
		wantArgs          *[6]uint64
	}{
		{name: "docker-default itself", profile: dd, baseline: dd, wantSubset: true},
		{name: "syscalls dropped", profile: dockerDefault(t, dropNames("chmod", "fchmod", "getcwd")), baseline: dd, wantSubset: true},
		{name: "baseline against dropped", profile: dd, baseline: dockerDefault(t, dropNames("getcwd")), want: []want{
			{"x86_64", "getcwd", Looser}, {"i386", "getcwd", Looser}, {"x32", "getcwd", Looser}}},
		{name: "one argument-filtered syscall added", profile: dockerDefault(t, keyctl), baseline: dd, want: []want{
			{"x86_64", "keyctl", Looser}, {"i386", "keyctl", Looser}, {"x32", "keyctl", Looser}}, wantArgs: &[6]uint64{5}},
		// Podman's profile denies with ENOSYS where Docker's says EPERM:
		// no ALLOW more, but other data on every denied syscall.
		{name: "podman against docker-default by class", profile: load(t, "../../testdata/policies/podman-like.json"), baseline: dd,
			opt: Options{ClassOnly: true}, wantSubset: true},
		{name: "docker-default against podman by class", profile: dd, baseline: load(t, "../../testdata/policies/podman-like.json"),
			opt: Options{ClassOnly: true}, wantSubset: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(tt.profile, tt.baseline, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got.Subset != tt.wantSubset {
				t.Fatalf("Subset = %v, want %v; findings %v", got.Subset, tt.wantSubset, got.Findings)
			}
			if tt.want != nil && !slices.Equal(findingsOf(got), tt.want) {
				t.Errorf("findings = %v, want %v", findingsOf(got), tt.want)
			}
			if tt.wantArgs != nil && got.Findings[0].Witness.Args != *tt.wantArgs {
				t.Errorf("witness args = %v, want %v", got.Findings[0].Witness.Args, *tt.wantArgs)
			}
			roundTrip(t, tt.profile, tt.baseline, got, tt.opt)
		})
	}
}

// roundTrip runs every witness through the emulator and checks both
// outcomes and the relation.
func roundTrip(t *testing.T, profile, baseline filters.Stack, res Result, opt Options) {
	t.Helper()
	for _, f := range slices.Concat(res.Findings, res.Unnamed) {
		rp, err := filters.EmulateStack(profile, f.Witness)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := filters.EmulateStack(baseline, f.Witness)
		if err != nil {
			t.Fatal(err)
		}
		op, ob := equiv.OutcomeOf(rp.Ret), equiv.OutcomeOf(rb.Ret)
		if !op.Same(f.Profile) || !ob.Same(f.Baseline) || !Relate(op, ob).Violates(opt.ClassOnly) {
			t.Errorf("%v: the emulator gives %v and %v", &f, op, ob)
		}
		if arch, nr, name := equiv.Describe(f.Witness); arch != f.Arch || nr != f.Nr || name != f.Name {
			t.Errorf("%v: witness is %s %d %s", &f, arch, nr, name)
		}
	}
}

// TestSPOProfile: a security-profiles-operator SeccompProfile against
// docker-default. By action class it is looser on socket alone: it
// allows socket for any family, docker-default only for families its
// 64-bit comparisons accept, so a family with the high half set is the
// witness.
func TestSPOProfile(t *testing.T) {
	src, err := formats.Load("../../testdata/policies/k8s-profiles.yaml", formats.OpenOptions{ProfileName: "checkout-api"})
	if err != nil {
		t.Fatal(err)
	}
	dd := load(t, oci.DockerDefaultName)
	got, err := Check(src.Stack(), dd, Options{ClassOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []want{{"x86_64", "socket", Looser}}
	if !slices.Equal(findingsOf(got), want) {
		t.Fatalf("findings = %v, want %v", findingsOf(got), want)
	}
	if f := got.Findings[0]; f.Witness.Args[0]>>32 == 0 || f.Profile.Action != filters.ActionAllow {
		t.Errorf("witness %v", &f)
	}
	roundTrip(t, src.Stack(), dd, got, Options{ClassOnly: true})
}

func TestPodmanDataDiffers(t *testing.T) {
	got, err := Check(load(t, "../../testdata/policies/podman-like.json"), load(t, oci.DockerDefaultName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Subset || len(got.Findings) == 0 {
		t.Fatalf("Subset = %v with %d findings, want data differences", got.Subset, len(got.Findings))
	}
	for _, f := range got.Findings {
		if f.Relation != DataDiffers || f.Profile.Data != 38 || f.Baseline.Data != 1 {
			t.Errorf("%v, want ERRNO(38) against ERRNO(1)", &f)
		}
	}
	// By action class the same differences are notes, not findings.
	cls, err := Check(load(t, "../../testdata/policies/podman-like.json"), load(t, oci.DockerDefaultName), Options{ClassOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !cls.Subset || len(cls.Findings)+len(cls.Unnamed) != 0 || len(cls.Notes) != len(got.Findings)+len(got.Unnamed) {
		t.Fatalf("ClassOnly: Subset = %v, %d findings, %d notes; want a subset with %d notes",
			cls.Subset, len(cls.Findings)+len(cls.Unnamed), len(cls.Notes), len(got.Findings)+len(got.Unnamed))
	}
	strict := map[filters.SeccompData]bool{}
	for _, f := range append(got.Findings, got.Unnamed...) {
		strict[f.Witness] = true
	}
	for _, f := range cls.Notes {
		if f.Relation != DataDiffers || !strict[f.Witness] {
			t.Errorf("note %v: want a data difference the strict check also finds", &f)
		}
	}
}

func TestSystemdUnitAgainstOCI(t *testing.T) {
	unit := load(t, "../../testdata/policies/hardened.service")
	got, err := Check(unit, load(t, oci.DockerDefaultName), Options{ClassOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var looser []string
	for _, f := range got.Findings {
		looser = append(looser, f.Arch+" "+f.Name)
	}
	// The unit's @system-service allows these; docker-default denies them.
	for _, n := range []string{"x86_64 keyctl", "x86_64 io_uring_setup", "x86_64 unshare"} {
		if !slices.Contains(looser, n) {
			t.Errorf("looser syscalls %v lack %s", looser, n)
		}
	}
	// SystemCallArchitectures=native kills the other ABIs.
	for _, f := range got.Findings {
		if f.Arch != "x86_64" {
			t.Errorf("finding on %s: %v", f.Arch, &f)
		}
	}
	roundTrip(t, unit, load(t, oci.DockerDefaultName), got, Options{ClassOnly: true})
}

func TestOrder(t *testing.T) {
	order := []filters.Action{filters.ActionKillProcess, filters.ActionKillThread, filters.ActionTrap, filters.ActionErrno,
		filters.ActionUserNotif, filters.ActionTrace, filters.ActionLog, filters.ActionAllow}
	for i, a := range order {
		for j, b := range order {
			want := Same
			switch {
			case i < j:
				want = Tighter
			case i > j:
				want = Looser
			}
			if got := Relate(equiv.OutcomeOf(uint32(a)), equiv.OutcomeOf(uint32(b))); got != want {
				t.Errorf("Relate(%v, %v) = %v, want %v", a, b, got, want)
			}
		}
	}
	tests := []struct {
		p, b uint32
		want Relation
	}{
		{uint32(filters.ActionErrno) | 1, uint32(filters.ActionErrno) | 38, DataDiffers},
		{uint32(filters.ActionErrno) | 5000, uint32(filters.ActionErrno) | 4095, Same}, // errno capped at MAX_ERRNO
		{uint32(filters.ActionTrap) | 1, uint32(filters.ActionTrap) | 2, DataDiffers},
		{uint32(filters.ActionTrace) | 1, uint32(filters.ActionTrace), DataDiffers},
		{uint32(filters.ActionLog) | 7, uint32(filters.ActionLog), Same},
		{uint32(filters.ActionAllow) | 7, uint32(filters.ActionAllow), Same},
		{uint32(filters.ActionUserNotif) | 7, uint32(filters.ActionUserNotif), Same},
		{0x00010000, uint32(filters.ActionKillProcess), Same}, // unknown action: KILL_PROCESS
		{uint32(filters.ActionLog), uint32(filters.ActionAllow), Tighter},
	}
	for _, tt := range tests {
		got := Relate(equiv.OutcomeOf(tt.p), equiv.OutcomeOf(tt.b))
		if got != tt.want {
			t.Errorf("Relate(%#x, %#x) = %v, want %v", tt.p, tt.b, got, tt.want)
		}
		if got == DataDiffers && (!got.Violates(false) || got.Violates(true)) {
			t.Errorf("DataDiffers.Violates: want true without ClassOnly, false with")
		}
	}
}

func prog(t testing.TB, ins ...bpf.Instruction) *filters.Program {
	t.Helper()
	raw, err := bpf.Assemble(ins)
	if err != nil {
		t.Fatal(err)
	}
	return &filters.Program{Name: "test", Insns: raw}
}

func TestUnnamedAndCannotProve(t *testing.T) {
	allow := prog(t, bpf.RetConstant{Val: uint32(filters.ActionAllow)})
	// Kills every arch but x86_64 and i386.
	archOnly := prog(t, bpf.LoadAbsolute{Off: 4, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchI386, SkipTrue: 1},
		bpf.RetConstant{Val: uint32(filters.ActionKillProcess)}, bpf.RetConstant{Val: uint32(filters.ActionAllow)})
	got, err := Check(filters.Stack{allow}, filters.Stack{archOnly}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Subset || len(got.Findings) != 0 || len(got.Unnamed) != 1 || got.Unnamed[0].Arch != "" {
		t.Fatalf("got %+v, want one unnamed finding on a foreign arch", got)
	}
	// Arithmetic on nr: the checker refuses rather than guesses.
	arith := prog(t, bpf.LoadAbsolute{Off: 0, Size: 4}, bpf.ALUOpConstant{Op: bpf.ALUOpAdd, Val: 1},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 60, SkipTrue: 1},
		bpf.RetConstant{Val: uint32(filters.ActionAllow)}, bpf.RetConstant{Val: uint32(filters.ActionKillProcess)})
	if _, err := Check(filters.Stack{arith}, filters.Stack{allow}, Options{}); err == nil {
		t.Fatal("arithmetic on nr: no error")
	} else if !errors.Is(err, equiv.ErrCannotProve) {
		t.Fatalf("err = %v, want ErrCannotProve", err)
	}
}
