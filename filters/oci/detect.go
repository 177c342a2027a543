package oci

import (
	"bytes"
	"encoding/json"
	"github.com/seccompbench/seccompbench/filters/internal/srcpos"
	"strings"
)

// topKeys are top-level keys of an OCI/Docker seccomp profile
// (runtime-spec specs-go LinuxSeccomp, moby profiles/seccomp Seccomp) that
// a Beats policy, whose keys are snake_case, never has.
var topKeys = map[string]bool{
	"defaultAction": true, "defaultErrnoRet": true, "archMap": true, "architectures": true,
	"listenerPath": true, "listenerMetadata": true, "flags": true,
}

// Detect reports whether text data is an OCI profile: it starts with "{"
// (after white space) and is an OCI profile (or a runtime config.json holding one), even when it is not valid
// JSON: it reads JSON tokens up to the end of the top-level object or the
// first syntax error and answers true if by then it has seen a top-level
// key in topKeys or a "seccomp" key inside a top-level "linux" object.
// Input that breaks off with a syntax error also counts when a string
// starting with "SCMP_" came before the error (SCMP_ACT_*, SCMP_ARCH_*,
// SCMP_CMP_* are libseccomp's tokens; Beats spells actions in lower case),
// since the keys that would decide may come after it; complete JSON
// without an OCI key stays a Beats policy, whose parser names a misplaced
// OCI token itself. A top-level "syscalls" list whose entries have "names"
// does not count: Beats JSON policies have the same shape.
func Detect(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	oci, sawSCMP := false, false
	err := srcpos.WalkJSON(data, func(path []any, isKey bool, tok json.Token, _ int) bool {
		if isKey {
			oci = len(path) == 1 && topKeys[path[0].(string)] ||
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
