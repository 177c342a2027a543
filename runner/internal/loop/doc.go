// Package loop holds the measuring child's timed loops: raw-syscall loops
// in assembly (loop_amd64.s, loop_arm64.s), each a NOSPLIT leaf, so the
// measuring thread makes no syscall but the workload's while it runs and
// the Go runtime gets no chance to preempt it into one.
package loop
