package beats

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/internal/golden"
)

// TestCompileForAArch64 compiles the embedded default policy for aarch64
// and checks the program's shape and verdicts with the emulator: the arch
// check names AUDIT_ARCH_AARCH64, there is no x32 guard, aarch64 numbers
// decide, and x86_64 or arm callers get the default action.
func TestCompileForAArch64(t *testing.T) {
	pol := Default()
	p, err := pol.CompileFor(filters.ArchAArch64)
	if err != nil {
		t.Fatal(err)
	}
	if in := p.Insns[0]; in.Op != 0x20 || in.K != filters.OffsetArch { // ld [4]
		t.Errorf("insn 0 = %+v, want ld [arch]", in)
	}
	if in := p.Insns[1]; in.Op&0x07 != 0x05 || in.K != filters.AuditArchAArch64 {
		t.Errorf("insn 1 = %+v, want a jump on AUDIT_ARCH_AARCH64", in)
	}
	for pc, in := range p.Insns {
		if in.K == filters.X32SyscallBit {
			t.Errorf("insn %d compares with the x32 bit; aarch64 programs have no x32 guard", pc)
		}
	}
	x86, err := pol.CompileFor(filters.ArchX86_64)
	if err != nil {
		t.Fatal(err)
	}
	def := x86.Insns[len(x86.Insns)-1].K
	mustNr := func(a *filters.Arch, name string) int {
		n, ok := a.Lookup(name)
		if !ok {
			t.Fatalf("%s has no %s", a, name)
		}
		return n
	}
	tests := []struct {
		name string
		d    filters.SeccompData
		want uint32
	}{
		{"aarch64 getpid", filters.ArchAArch64.Data(mustNr(filters.ArchAArch64, "getpid")), uint32(filters.ActionAllow)},
		{"aarch64 openat", filters.ArchAArch64.Data(mustNr(filters.ArchAArch64, "openat")), uint32(filters.ActionAllow)},
		{"aarch64 ptrace", filters.ArchAArch64.Data(mustNr(filters.ArchAArch64, "ptrace")), def},
		{"x86_64 getpid", filters.ArchX86_64.Data(mustNr(filters.ArchX86_64, "getpid")), def},
		{"arm getpid", filters.ArchARM.Data(mustNr(filters.ArchARM, "getpid")), def},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := filters.EmulateStack(filters.Stack{p}, tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if r.Ret != tt.want {
				t.Errorf("ret = %s, want %s", filters.RetText(r.Ret), filters.RetText(tt.want))
			}
		})
	}
	// Every name the policy allows on x86_64 that aarch64 has is allowed
	// on aarch64 too; the others are reported as dropped.
	dropped := strings.Join(p.Warnings, "\n")
	for _, g := range pol.Groups {
		for _, n := range g.Names {
			nr, ok := filters.ArchAArch64.Lookup(n.Name)
			if !ok {
				if !strings.Contains(dropped, `"`+n.Name+`"`) {
					t.Errorf("%s is not on aarch64 but no warning names it", n.Name)
				}
				continue
			}
			want, err := filters.EmulateStack(filters.Stack{x86}, filters.ArchX86_64.Data(mustNr(filters.ArchX86_64, n.Name)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := filters.EmulateStack(filters.Stack{p}, filters.ArchAArch64.Data(nr))
			if err != nil {
				t.Fatal(err)
			}
			if got.Ret != want.Ret {
				t.Errorf("%s: aarch64 %s, x86_64 %s", n.Name, filters.RetText(got.Ret), filters.RetText(want.Ret))
			}
		}
	}
	if _, err := pol.CompileFor(filters.ArchX32); !errors.Is(err, filters.ErrUnknownArch) {
		t.Errorf("CompileFor(x32) error = %v, want filters.ErrUnknownArch", err)
	}
}

// TestFormatTextAArch64Golden pins the aarch64 compile output of the
// default policy and two testdata policies (cross-arch golden files:
// disassembly names come from the ABI the program's arch check
// establishes).
func TestFormatTextAArch64Golden(t *testing.T) {
	for _, spec := range []string{"default", "../../testdata/policies/minimal.yaml", "../../testdata/policies/args-workload.yaml"} {
		name := strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
		t.Run(name, func(t *testing.T) {
			var pol *Policy
			if spec == "default" {
				pol = Default()
			} else {
				var err error
				if pol, err = Load(spec); err != nil {
					t.Fatal(err)
				}
			}
			p, err := pol.CompileFor(filters.ArchAArch64)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := filters.FormatText(&b, p); err != nil {
				t.Fatal(err)
			}
			for _, w := range p.Warnings {
				b.WriteString("; warning: " + w + "\n")
			}
			golden.Check(t, "aarch64-"+name+".txt", b.Bytes())
		})
	}
}

// TestAssembleForMatchesLibrary checks assembleFor, our rebuild of
// go-seccomp-bpf's Policy.Assemble from its exported pieces, against the
// library's own Assemble for this GOARCH's ABI, instruction for
// instruction, for the embedded default and every Beats policy of the
// corpus: if a new go-seccomp-bpf version assembles differently, this
// fails rather than CompileFor silently diverging from Beats.
func TestAssembleForMatchesLibrary(t *testing.T) {
	info := elasticArch[compileArch()]
	if info == nil {
		t.Skipf("go-seccomp-bpf has no ABI for this GOARCH")
	}
	// The corpus's YAML files that are no Beats policy; every other one
	// must parse, so a regression in Parse cannot shrink the comparison.
	notBeats := map[string]bool{"k8s-profiles.yaml": true} // Kubernetes SeccompProfile documents
	pols := map[string]*Policy{"default": Default()}
	paths, _ := filepath.Glob("../../testdata/policies/*.yaml")
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(path, data)
		switch {
		case notBeats[filepath.Base(path)]:
			if err == nil {
				t.Errorf("%s parses as a Beats policy; take it off notBeats", path)
			}
		case err != nil:
			t.Errorf("parse %s: %v", path, err)
		default:
			pols[filepath.Base(path)] = p
		}
	}
	if len(pols) < 3 {
		t.Fatalf("only %d policies to compare", len(pols))
	}
	for name, pol := range pols {
		t.Run(name, func(t *testing.T) {
			sp, err := pol.ToSeccomp()
			if err != nil {
				t.Fatalf("convert for go-seccomp-bpf: %v", err)
			}
			want, wantErr := sp.Assemble()
			sp2, _ := pol.ToSeccomp()
			got, gotErr := assembleFor(sp2, info)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("errors: library %v, assembleFor %v", wantErr, gotErr)
			}
			if len(got) != len(want) {
				t.Fatalf("%d instructions, library %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("insn %d = %#v, library %#v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestRuleAt: the compiled program places each syscall where the policy
// first writes it, plain names and names_with_args alike.
func TestRuleAt(t *testing.T) {
	p, err := Parse("p.yaml", []byte("seccomp:\n  default_action: allow\n  syscalls:\n    - action: errno\n      names: [ptrace, read]\n    - action: kill_process\n      names_with_args:\n        - name: personality\n          arguments:\n            - {position: 0, operation: Equal, value: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := p.CompileFor(filters.ArchX86_64)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ptrace": "p.yaml:5:15", "read": "p.yaml:5:23", "personality": "p.yaml:8:17"}
	if !reflect.DeepEqual(prog.RuleAt, want) {
		t.Errorf("RuleAt = %v, want %v", prog.RuleAt, want)
	}
}
