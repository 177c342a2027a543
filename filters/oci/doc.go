// Package oci reads OCI runtime-spec / Docker seccomp profiles through
// github.com/moby/profiles/seccomp, resolves their conditions (capabilities,
// minimum kernel, architectures) as runc does, builds the filters/scmp rule
// model and compiles it (Parse natively, CompileLibseccomp as runc 1.1+
// does). DockerDefault is Docker's default profile.
package oci
