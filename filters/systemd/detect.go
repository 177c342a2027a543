package systemd

import (
	"bufio"
	"bytes"
	"slices"
	"strings"
)

// sectionNames are the unit file sections systemd knows; a file whose
// first meaningful line is one of them is a unit.
var sectionNames = []string{
	"Unit", "Service", "Install", "Socket", "Mount", "Automount", "Swap", "Timer", "Path",
	"Slice", "Scope", "Target", "Device",
}

// Detect reports whether text data is a unit: its first line
// that is not blank or a comment is a known [Section] header, or a
// "Key=Value" assignment whose key is a directive the model reads (so a
// `--systemd` string sniffs as a unit too). YAML and JSON policies never
// start either way.
func Detect(data []byte) bool {
	t, ok := firstLine(data)
	if !ok {
		return false
	}
	if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		return slices.Contains(sectionNames, t[1:len(t)-1])
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
	return slices.Contains(boolDirectives, key)
}

// firstLine returns the first line of data that is not blank or a
// comment, trimmed.
func firstLine(data []byte) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" && t[0] != '#' && t[0] != ';' {
			return t, true
		}
	}
	return "", false
}

// NearMiss reports whether text data almost is a unit: its first line
// that is not blank or a comment is "Key=Value" with a key some section
// of systemd has (unitKeys: ExecStart=, Description=, User=...), as in a
// .service file written without its [Service] header. Such a file is read
// as a unit (its lines as [Service] ones), so what is wrong with it is
// said in systemd's terms, not YAML's.
func NearMiss(data []byte) bool {
	t, _ := firstLine(data)
	key, _, ok := strings.Cut(t, "=")
	if !ok {
		return false
	}
	key = strings.TrimSpace(key)
	for _, keys := range unitKeys {
		if keys[key] {
			return true
		}
	}
	return false
}
