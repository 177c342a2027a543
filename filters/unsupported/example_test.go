package unsupported_test

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters/unsupported"
)

func ExampleDetect() {
	format, hint, ok := unsupported.Detect([]byte("POLICY p { ALLOW { read } }\nUSE p DEFAULT KILL\n"))
	fmt.Println(format, ok)
	fmt.Println(hint[:26])
	// Output:
	// kafel true
	// this is a Kafel policy (ns
}
