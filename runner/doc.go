// Package runner measures seccomp filter stacks on the running kernel. It is
// the only package that executes children, calls prctl(2) and seccomp(2),
// pins CPUs and reads clocks.
//
// Every measured configuration runs in a fresh child process (filters cannot
// be removed once installed): the parent re-executes its own binary with
// SECCOMPBENCH_CHILD set, sends a spec on stdin and reads a report on
// stdout. Requires Linux with CONFIG_SECCOMP_FILTER (3.5+); the action cache
// the results discuss exists from Linux 5.11.
//
// The notify workload (notify.go) adds a filter with a listener on top of
// the stack and answers its notifications from a supervisor thread in the
// parent. The JIT files (jit_linux.go, jitlimit_linux.go) read the JIT's
// sysctls and /proc/vmallocinfo, hold stacks in children without
// capabilities, and measure the JIT charge by lowering bpf_jit_limit for
// moments (restored on every exit path).
package runner
