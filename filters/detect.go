package filters

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// FormatSystemdUnit is a systemd unit file or a list of "Key=Value"
// directives (ParseSystemdUnit). It models a stack of filters, not one, so
// Open refuses it and callers use ParseSystemdUnit.
const FormatSystemdUnit Format = FormatRawBPF + 1

// ParseFormat parses a --format-in value: "auto" or "" (FormatUnknown:
// detect from content), "policy" (also "beats", "yaml", "json"), "oci"
// (also "docker"), "systemd" (also "systemd-unit", "unit") or "raw-bpf"
// (also "raw", "bpf").
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return FormatUnknown, nil
	case "policy", "beats", "yaml", "json", "beats-yaml", "beats-json":
		return FormatPolicy, nil
	case "oci", "docker", "oci-json":
		return FormatOCI, nil
	case "systemd", "systemd-unit", "unit":
		return FormatSystemdUnit, nil
	case "raw-bpf", "raw", "bpf":
		return FormatRawBPF, nil
	}
	return FormatUnknown, fmt.Errorf("parse input format %q: want auto, policy, oci, systemd or raw-bpf", s)
}

// sdSectionNames are the unit file sections systemd knows; a file whose
// first meaningful line is one of them is a unit.
var sdSectionNames = []string{
	"Unit", "Service", "Install", "Socket", "Mount", "Automount", "Swap", "Timer", "Path",
	"Slice", "Scope", "Target", "Device",
}

// looksLikeSystemdUnit reports whether text data is a unit: its first line
// that is not blank or a comment is a known [Section] header, or a
// "Key=Value" assignment whose key is a directive the model reads (so a
// `--systemd` string sniffs as a unit too). YAML and JSON policies never
// start either way.
func looksLikeSystemdUnit(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			for _, s := range sdSectionNames {
				if t[1:len(t)-1] == s {
					return true
				}
			}
			return false
		}
		key, _, ok := strings.Cut(t, "=")
		if !ok {
			return false
		}
		key = strings.TrimSpace(key)
		switch key {
		case "SystemCallFilter", "SystemCallErrorNumber", "SystemCallArchitectures", "SystemCallLog",
			"RestrictNamespaces", "RestrictAddressFamilies", "Personality":
			return true
		}
		for _, b := range sdBoolDirectives {
			if key == b {
				return true
			}
		}
		return false
	}
	return false
}

// OpenOptions are the choices Open makes by itself, for callers that expose
// them (`--format-in`, `--caps`, `--kernel`).
type OpenOptions struct {
	// Format forces the input format; FormatUnknown means detect it.
	Format Format
	// OCI resolves OCI profiles' conditions (and docker-default's).
	OCI OCIOptions
	// Compiler lays out OCI profiles and docker-default (`--compiler`):
	// CompilerNative (ParseOCI) or CompilerLibseccomp
	// (CompileOCILibseccomp, which needs a -tags libseccomp build). Beats
	// policies are always compiled by go-seccomp-bpf, as Beats does, and
	// raw BPF is taken as it is. Systemd units take it through
	// SystemdOptions.Compiler.
	Compiler Compiler
}

// OpenWith is Open with options: the built-in names are the same, a file's
// format is o.Format or detected, and OCI profiles are resolved with o.OCI.
// A systemd unit is refused with an error wrapping ErrUnsupportedFormat
// that points to ParseSystemdUnit, since it models several filters.
func OpenWith(spec string, o OpenOptions) (*Program, error) {
	if spec == DockerDefaultName {
		if o.Compiler == CompilerLibseccomp {
			b, err := DockerDefaultJSON()
			if err != nil {
				return nil, err
			}
			return CompileOCILibseccomp(DockerDefaultName, b, o.OCI)
		}
		return DockerDefault(o.OCI)
	}
	if o.Format == FormatUnknown {
		if o.OCI.Caps == nil && o.OCI.KernelVersion == "" && o.OCI.Arch == "" && !o.OCI.NoENOSYSStub && o.Compiler == CompilerNative {
			return Open(spec)
		}
		data, err := os.ReadFile(spec)
		if err != nil {
			return Open(spec) // built-in names and the read error's wording
		}
		return openFormat(spec, data, DetectFormat(spec, data), o)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("open filter: %w", err)
	}
	return openFormat(spec, data, o.Format, o)
}

// openFormat loads data of a known format. It is the dispatch for the
// formats of this file's family (OCI, raw BPF, systemd); Open calls it for
// everything but Beats policies.
func openFormat(spec string, data []byte, f Format, o OpenOptions) (*Program, error) {
	switch f {
	case FormatPolicy:
		p, err := ParsePolicy(spec, data)
		if err != nil {
			return nil, err
		}
		return p.Compile()
	case FormatOCI:
		if o.Compiler == CompilerLibseccomp {
			return CompileOCILibseccomp(spec, data, o.OCI)
		}
		return ParseOCI(spec, data, o.OCI)
	case FormatRawBPF:
		return ParseRaw(spec, data)
	case FormatSystemdUnit:
		return nil, fmt.Errorf("open filter %q: a systemd unit installs a stack of filters, not one; model it with run --systemd-unit or compile --systemd-stack: %w", spec, ErrUnsupportedFormat)
	case FormatUnknown:
		// Binary data that is no whole number of sock_filter records: the
		// raw reader says how many bytes are left over.
		if _, err := ParseRaw(spec, data); err != nil {
			return nil, fmt.Errorf("open filter %q: binary data, neither a YAML/JSON policy nor a raw BPF filter: %w", spec, err)
		}
	}
	return nil, fmt.Errorf("open filter %q: %s: %w", spec, f, ErrUnsupportedFormat)
}
