// Package unsupported recognizes inputs that people give as a seccomp
// policy but that no loader here reads, so that they are refused with a
// message naming what they are and what to do instead, never with a
// misleading parse error from the YAML policy parser:
//
//   - C source holding a classic BPF program, as bubblewrap's users and
//     many sandboxes write it: "struct sock_filter f[] = { BPF_STMT(...),
//     BPF_JUMP(...) }";
//   - strace output: a "strace -c" summary table (a syscall profile for
//     `estimate --profile`), or a raw trace ("openat(AT_FDCWD, ...) = 3");
//   - nsjail configs (protobuf text format, nsjail's config.proto) with
//     no seccomp policy at all (filters/kafel reads those that have one:
//     Kafel policies and nsjail configs are formats of their own);
//   - seccompbench's own JSON output (a document with schema_version and
//     kind, e.g. subset's or run's), which describes a result, not a
//     filter;
//   - Helm chart templates (Go template actions such as
//     "{{ .Values.x }}", "{{- include ... }}", "{{- end }}" in YAML), which
//     are YAML only once `helm template` renders them.
package unsupported

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Format names returned by Detect.
const (
	CSockFilter   = "c-sock-filter"
	StraceSummary = "strace-summary"
	StraceTrace   = "strace-trace"
	NsjailConfig  = "nsjail-config"
	HelmTemplate  = "helm-template"
	// OwnOutput is a JSON document seccompbench wrote (--format json).
	OwnOutput = "seccompbench-output"
)

// NsjailNoPolicyHint is Detect's hint for an nsjail config with no
// seccomp policy; filters/formats gives the same one for a config the
// nsjail reader parsed to no policy.
const NsjailNoPolicyHint = "this is an nsjail config (protobuf text, nsjail's config.proto) with no seccomp_string or seccomp_policy_file: nsjail installs no seccomp filter for it, so there is no policy to read"

// Detect reads at most sniffBytes; a trace is recognized when at least
// traceThreshold of the first traceSample non-blank lines, and more than
// half of them, are traced calls.
const (
	sniffBytes     = 64 << 10
	traceSample    = 20
	traceThreshold = 2
)

var (
	// nsjail's config.proto fields: the seccomp ones, and the
	// message blocks and scalars almost every config has.
	nsjailSeccomp = regexp.MustCompile(`(?m)^\s*((seccomp_string|seccomp_policy_file)\s*:|seccomp_unotify\s*:\s*true\b)`)
	nsjailBlock   = regexp.MustCompile(`(?m)^\s*(mount|exec_bin|rlimit|idmap|uidmap|gidmap)\s*\{`)
	nsjailScalar  = regexp.MustCompile(`(?m)^\s*(mode\s*:\s*(ONCE|LISTEN|RERUN|EXECVE)|clone_new[a-z]+\s*:\s*(true|false)|rlimit_[a-z]+\s*:|keep_caps\s*:|mount_proc\s*:)`)
	// A Go template action as Helm writes them: trimming markers, a
	// field of the dot (.Values, .Release, .Chart, .Files), or one of
	// the actions and functions charts use. Jinja's "{{NAME}}" (systemd's
	// unit templates) has none of them.
	helmAction = regexp.MustCompile(`\{\{-?\s*(-\s|\.[A-Z]|\$|(include|template|toYaml|tpl|if|else|end|range|with|define|default|required|quote|printf)\b)`)
	// seccompbench's JSON documents open with schema_version then kind
	// (document.ContractVersion, document.Kind).
	ownOutput  = regexp.MustCompile(`^\s*\{\s*"schema_version"\s*:\s*\d+\s*,\s*"kind"\s*:\s*"([A-Za-z0-9_-]+)"`)
	cBPF       = regexp.MustCompile(`\b(BPF_STMT|BPF_JUMP)\s*\(`)
	straceHead = regexp.MustCompile(`(?m)^\s*%\s*time\s+seconds\s+usecs/call\s+calls\s+(errors\s+)?syscall`)
	// A traced call: optional pid ("[pid 12]" or "12 "), optional
	// timestamp, name(args) = result, or an unfinished/resumed call.
	straceCall = regexp.MustCompile(`^(\[pid\s+\d+\]\s+|\d+\s+)?(\d+(\.\d+)?\s+|\d\d:\d\d:\d\d(\.\d+)?\s+)?([a-z_][a-z0-9_]*\(.*\)\s+=\s+(-?\d+|0x[0-9a-f]+|\?)|[a-z_][a-z0-9_]*\(.*<unfinished \.\.\.>|<\.\.\. [a-z_][a-z0-9_]* resumed>|--- SIG[A-Z]+ |\+\+\+ (exited|killed) )`)
)

// Detect reports whether data is one of the known unsupported inputs. It
// returns the format's name (NsjailConfig, HelmTemplate,
// CSockFilter, StraceSummary, StraceTrace, OwnOutput) and a one-line hint saying what the input is and what to
// do with it, meant to follow the file name in an error. It reads at most
// the first 64 KiB, and never matches a Beats or OCI policy, a systemd
// unit or raw BPF (binary data is never matched).
func Detect(data []byte) (format, hint string, ok bool) {
	if len(data) > sniffBytes {
		data = data[:sniffBytes]
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", "", false
	}
	if m := ownOutput.FindSubmatch(data); m != nil {
		return OwnOutput, fmt.Sprintf("this is seccompbench's own JSON output (kind %q), a result, not a policy: give the policy or filter it was made from (intersect and merge write the filter with -o FILE.bpf)", m[1]), true
	}
	switch {
	case straceHead.Match(data):
		return StraceSummary, "this is strace -c output, a syscall profile, not a filter: use estimate --profile FILE", true
	case nsjailBlock.Match(data) && nsjailScalar.Match(data) && !nsjailSeccomp.Match(data):
		return NsjailConfig, NsjailNoPolicyHint, true
	case helmAction.Match(data):
		return HelmTemplate, "this is a Helm chart template (Go template actions such as {{ .Values... }}), YAML only once rendered: render it with helm template RELEASE CHART --show-only templates/FILE and pass the rendered SeccompProfile or OCI profile", true
	case bytes.Contains(data, []byte("sock_filter")) && cBPF.Match(data):
		return CSockFilter, "this is C source holding a struct sock_filter array (BPF_STMT/BPF_JUMP), not a policy: build it and write the array to a file, as bwrap --seccomp FD reads it, then pass that raw .bpf file", true
	}
	n, calls := 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if n++; n > traceSample {
			break
		}
		if straceCall.MatchString(line) {
			calls++
		}
	}
	if calls >= traceThreshold && calls*2 > n {
		return StraceTrace, "this is an strace trace, not a filter: count the calls with strace -f -c -o FILE CMD and give that summary to estimate --profile FILE", true
	}
	return "", "", false
}
