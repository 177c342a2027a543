// Package systemd models the seccomp filters systemd 252 installs for a
// service from its unit's directives (SystemCallFilter=,
// RestrictNamespaces=, MemoryDenyWriteExecute=, ...): one filter per
// directive and local architecture, in exec_child's order (ParseUnit,
// ParseDirectives). The system call groups come from zsyscall_groups.go,
// generated from systemd 252 by mksyscallgroups.go (opt-in).
package systemd
