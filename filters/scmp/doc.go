// Package scmp is the libseccomp-shaped rule model (Filter, Rule, Cond,
// Arch) that the OCI and systemd formats build, and the compilers that lay
// it out as classic BPF: this package's own layout (Filter.Compile,
// CompilerNative) and libseccomp's (CompileLibseccomp, CompilerLibseccomp,
// only in a -tags libseccomp cgo build), plus runc's ENOSYS stub
// (RuncENOSYSStub). It imports no format package: formats build the model,
// the compilers take it.
package scmp
