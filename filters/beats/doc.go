// Package beats reads Beats / elastic go-seccomp-bpf seccomp policies (YAML
// or JSON), checks them with positions for every problem (Parse, returning
// *filters.SourceError values wrapping ErrBadPolicy), and compiles them with
// go-seccomp-bpf as Beats does (Policy.Compile). The embedded default
// policy is Default.
package beats
