package subset_test

import (
	"fmt"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/subset"
)

func Example() {
	// The baseline denies getcwd (x86_64 nr 79) with EPERM; the pulled
	// profile allows it when its second argument is 0. Neither checks
	// the arch, so i386's nr 79, settimeofday, is looser too.
	eperm := uint32(filters.ActionErrno) | 1
	allow := uint32(filters.ActionAllow)
	asm := func(ins ...bpf.Instruction) *filters.Program {
		raw, err := bpf.Assemble(ins)
		if err != nil {
			panic(err)
		}
		return &filters.Program{Name: "example", Insns: raw}
	}
	baseline := asm(bpf.LoadAbsolute{Off: 0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 79, SkipFalse: 1},
		bpf.RetConstant{Val: eperm}, bpf.RetConstant{Val: allow})
	profile := asm(bpf.LoadAbsolute{Off: 0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 79, SkipFalse: 3},
		bpf.LoadAbsolute{Off: 24, Size: 4}, // args[1], low half
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipTrue: 1},
		bpf.RetConstant{Val: eperm}, bpf.RetConstant{Val: allow})

	res, err := subset.Check(filters.Stack{profile}, filters.Stack{baseline}, subset.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("subset:", res.Subset)
	for _, f := range res.Findings {
		fmt.Println(f.Arch, f.Name, f.Relation, "args[1] =", f.Witness.Args[1], "profile", f.Profile, "baseline", f.Baseline)
	}
	// Output:
	// subset: false
	// x86_64 getcwd looser args[1] = 0 profile ALLOW baseline ERRNO(1)
	// i386 settimeofday looser args[1] = 0 profile ALLOW baseline ERRNO(1)
}
