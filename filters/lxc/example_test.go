package lxc_test

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/lxc"
)

// A denylist allows what it does not list.
func ExampleLoad() {
	src := []byte("2\ndenylist\n[all]\nkexec_load errno 38\n")
	progs, _, err := lxc.Load("ct.seccomp", src, lxc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"kexec_load", "read"} {
		nr, _ := analysis.LookupSyscall(filters.ArchI386, name)
		r, _ := filters.Emulate(progs[0], filters.ArchI386.Data(nr))
		fmt.Println(name, r.Action, r.Data)
	}
	// Output:
	// kexec_load errno 38
	// read allow 0
}
