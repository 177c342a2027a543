// Command seccompbench measures what seccomp filters cost per syscall, how
// that grows as filters stack, and explains why (action cache, instructions
// executed, mitigations).
package main

import (
	"os"

	"github.com/seccompbench/seccompbench/runner"
)

func main() {
	// A re-executed measuring child must do nothing else first.
	if runner.IsChild() {
		runner.ChildMain()
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
