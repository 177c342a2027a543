package filters

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// Format is the kind of a filter source, as DetectFormat sees it.
type Format int

// Filter source formats.
const (
	// FormatUnknown is binary data that is no sequence of sock_filter.
	FormatUnknown Format = iota
	// FormatPolicy is a Beats / go-seccomp-bpf policy, YAML or JSON
	// (ParsePolicy).
	FormatPolicy
	// FormatOCI is an OCI runtime-spec / Docker seccomp profile: a JSON
	// object with a top-level "defaultAction" key.
	FormatOCI
	// FormatRawBPF is a compiled filter: an array of struct sock_filter,
	// 8 bytes each, as bubblewrap --seccomp reads it.
	FormatRawBPF
)

var formatNames = [...]string{"unknown", "policy", "oci", "raw-bpf", "systemd-unit"}

// String returns the format's short name: "unknown", "policy", "oci",
// "raw-bpf" or "systemd-unit".
func (f Format) String() string {
	if int(f) >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// DetectFormat guesses a filter source's format from its content (the name
// is only for future use of extensions): data with a NUL byte or invalid
// UTF-8 is FormatRawBPF when its length is a multiple of SockFilterSize,
// else FormatUnknown; text starting with "{" that looksLikeOCI (a
// top-level "defaultAction" key, among others), valid JSON or not, is
// FormatOCI, so a broken profile gets the JSON syntax error with its line
// and column rather than the Beats schema's complaints; text that starts
// with a unit [Section] or a seccomp directive (looksLikeSystemdUnit) is
// FormatSystemdUnit; anything else is FormatPolicy, whose parser reports
// any remaining problem with a line number.
func DetectFormat(name string, data []byte) Format {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		if len(data) > 0 && len(data)%SockFilterSize == 0 {
			return FormatRawBPF
		}
		return FormatUnknown
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && looksLikeOCI(t) {
		return FormatOCI
	}
	if looksLikeSystemdUnit(data) {
		return FormatSystemdUnit
	}
	return FormatPolicy
}

// ErrUnsupportedFormat is returned by Open for a source whose format it
// detects but cannot load (yet), or cannot detect at all.
var ErrUnsupportedFormat = errors.New("unsupported filter format")

// Open returns the compiled filter named by spec:
//
//   - "default" or "embedded:default": the embedded default policy
//     (DefaultPolicy); a file named "default" must be written "./default";
//   - "docker-default" (DockerDefaultName): Docker's default profile for
//     Docker's default capabilities (DockerDefault);
//   - anything else: a file path, whose format DetectFormat decides.
//
// This is the one place where source formats are dispatched: a loader for
// another format adds its case to the switch below. Read errors wrap the
// *os.PathError (which names the path); policy errors are *PolicyError
// values naming the path; a format without a loader wraps
// ErrUnsupportedFormat.
func Open(spec string) (*Program, error) {
	switch spec {
	case "default", DefaultPolicyName:
		return DefaultPolicy().Compile()
	case DockerDefaultName:
		return DockerDefault(OCIOptions{})
	}
	if rest, ok := strings.CutPrefix(spec, "embedded:"); ok {
		return nil, fmt.Errorf("open filter: no embedded policy %q; the only one is %q: %w", rest, DefaultPolicyName, ErrUnsupportedFormat)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("open filter: %w", err)
	}
	switch f := DetectFormat(spec, data); f {
	case FormatPolicy:
		p, err := ParsePolicy(spec, data)
		if err != nil {
			return nil, err
		}
		return p.Compile()
	default:
		// OCI profiles, raw BPF and systemd units (detect.go).
		return openFormat(spec, data, f, OpenOptions{})
	}
}

// ociTopKeys are top-level keys of an OCI/Docker seccomp profile
// (runtime-spec specs-go LinuxSeccomp, moby profiles/seccomp Seccomp) that
// a Beats policy, whose keys are snake_case, never has.
var ociTopKeys = map[string]bool{
	"defaultAction": true, "defaultErrnoRet": true, "archMap": true, "architectures": true,
	"listenerPath": true, "listenerMetadata": true, "flags": true,
}

// looksLikeOCI reports whether data, text starting with "{", is an OCI
// profile (or a runtime config.json holding one), even when it is not valid
// JSON: it reads JSON tokens up to the end of the top-level object or the
// first syntax error and answers true if by then it has seen a top-level
// key in ociTopKeys or a "seccomp" key inside a top-level "linux" object.
// Input that breaks off with a syntax error also counts when a string
// starting with "SCMP_" came before the error (SCMP_ACT_*, SCMP_ARCH_*,
// SCMP_CMP_* are libseccomp's tokens; Beats spells actions in lower case),
// since the keys that would decide may come after it; complete JSON
// without an OCI key stays a Beats policy, whose parser names a misplaced
// OCI token itself. A top-level "syscalls" list whose entries have "names"
// does not count: Beats JSON policies have the same shape.
func looksLikeOCI(data []byte) bool {
	oci, sawSCMP := false, false
	err := jsonWalk(data, func(path []any, isKey bool, tok json.Token, _ int) bool {
		if isKey {
			oci = len(path) == 1 && ociTopKeys[path[0].(string)] ||
				len(path) == 2 && path[0] == "linux" && path[1] == "seccomp"
			return !oci
		}
		if s, ok := tok.(string); ok && strings.HasPrefix(s, "SCMP_") {
			sawSCMP = true
		}
		return true
	})
	// err: a syntax error, or the end of input inside the object.
	return oci || err != nil && sawSCMP
}
