package minijail_test

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/minijail"
)

// A call whose expression does not hold gets the action after ";".
func ExampleLoad() {
	src := []byte("read: 1\nopenat: arg2 in O_RDONLY|O_CLOEXEC; return EACCES\n")
	progs, _, err := minijail.Load("svc.policy", src, minijail.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	nr, _ := analysis.LookupSyscall(filters.ArchX86_64, "openat")
	for _, flags := range []uint64{0x80000, 0x41} { // O_CLOEXEC; O_WRONLY|O_CREAT
		r, _ := filters.Emulate(progs[0], filters.ArchX86_64.Data(nr, 0, 0, flags))
		fmt.Println(r.Action, r.Data)
	}
	// Output:
	// allow 0
	// errno 13
}
