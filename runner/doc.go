// Package runner measures seccomp filter stacks on the running kernel. It is
// the only package that executes children, calls prctl(2) and seccomp(2),
// pins CPUs and reads clocks.
//
// Every measured configuration runs in a fresh child process (filters cannot
// be removed once installed): the parent re-executes its own binary with
// SECCOMPBENCH_CHILD set, sends a spec on stdin and reads a report on
// stdout. Requires Linux with CONFIG_SECCOMP_FILTER (3.5+); the action cache
// the results discuss exists from Linux 5.11.
package runner
