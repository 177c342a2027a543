package firecracker_test

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/firecracker"
)

// Load compiles one filter per thread category; dword comparisons other
// than eq and masked_eq come with a warning naming the line.
func ExampleLoad() {
	src := []byte(`{
  "vcpu": {
    "default_action": {"errno": 1},
    "filter_action": "allow",
    "filter": [
      {"syscall": "ioctl", "args": [{"index": 1, "type": "dword", "op": "eq", "val": 44672}]},
      {"syscall": "madvise", "args": [{"index": 2, "type": "dword", "op": "le", "val": 4}]}
    ]
  }
}`)
	progs, warnings, err := firecracker.Load("vcpu.json", src, firecracker.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	nr, _ := analysis.LookupSyscall(filters.ArchX86_64, "ioctl")
	r, _ := filters.Emulate(progs[0], filters.ArchX86_64.Data(nr, 9, 44672)) // KVM_RUN
	fmt.Println(progs[0].Name, r.Action)
	fmt.Println(warnings[0][:61])
	// Output:
	// vcpu allow
	// vcpu.json:7:39: dword le on argument 2 of madvise is compared
}
