package unsupported_test

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters/unsupported"
)

func ExampleDetect() {
	format, hint, ok := unsupported.Detect([]byte("struct sock_filter f[] = {\n BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0),\n};\n"))
	fmt.Println(format, ok)
	fmt.Println(hint[:26])
	// Output:
	// c-sock-filter true
	// this is C source holding a
}
