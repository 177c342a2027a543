package main

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// realUnit is one of the host's own systemd units that the -systemd check
// runs, in a VM copy (deriveUnit), under its real hardening directives.
type realUnit struct {
	// Name is the unit in the unit directory (hostUnitDir, or a Debian
	// root's usr/lib/systemd/system), e.g. "systemd-logind.service".
	Name string
	// Comm is the name of the probe daemon the VM copy runs instead of
	// the real binary: distinct per unit, so the check finds each one's
	// process by /proc/PID/comm (at most 15 bytes, TASK_COMM_LEN - 1).
	Comm string
	// Drop maps [Service] directives that the VM copy leaves out to the
	// reason: each one kept the unit from starting in the initramfs VM.
	// None of them installs a seccomp filter (the model ignores them).
	Drop map[string]string
}

// hostUnitDir is where Debian installs systemd's own units.
const hostUnitDir = "/lib/systemd/system"

// realUnits are the units of systemd's packages that the -systemd check
// compares with the model, each where the unit directory has it.
// systemd-resolved.service is in Debian's separate systemd-resolved
// package: the bookworm host does not have it installed (skipped there),
// the trixie root does (rootSuites).
var realUnits = []realUnit{
	{Name: "systemd-logind.service", Comm: "logind-probe"},
	{Name: "systemd-journald.service", Comm: "journald-probe"},
	{Name: "systemd-timesyncd.service", Comm: "timesyncd-probe"},
	{Name: "systemd-networkd.service", Comm: "networkd-probe"},
	{Name: "systemd-resolved.service", Comm: "resolved-probe"},
}

// vmName is the VM copy's unit name: "systemd-logind.service" becomes
// "vm-logind.service". The copy must not take the real name: PID 1 treats
// systemd-journald.service and its sockets specially.
func (u realUnit) vmName() string {
	return "vm-" + strings.TrimPrefix(u.Name, "systemd-")
}

// seccompKeys are the [Service] directives that decide which seccomp
// filters systemd installs (src/core/execute.c: exec_child and its
// apply_* helpers), plus those that change who loads them. deriveUnit
// refuses to drop or rewrite any of them.
var seccompKeys = []string{
	"SystemCallFilter", "SystemCallArchitectures", "SystemCallErrorNumber", "SystemCallLog",
	"RestrictAddressFamilies", "RestrictNamespaces", "RestrictRealtime", "RestrictSUIDSGID",
	"LockPersonality", "Personality", "MemoryDenyWriteExecute", "ProtectHostname", "ProtectClock",
	"ProtectKernelModules", "ProtectKernelLogs", "ProtectKernelTunables", "PrivateDevices",
	"NoNewPrivileges", "DynamicUser", "User", "PrivateUsers", "AmbientCapabilities",
	"CapabilityBoundingSet",
}

// deriveUnit writes the VM copy of unit u (its text in data, read from
// unitDir):
// the [Unit] section is replaced by a description and
// DefaultDependencies=no (its dependencies and conditions name units and
// paths the initramfs VM does not have), [Install] and other sections are
// left out, and in [Service] ExecStart= runs /vmtest/COMM (its prefix
// characters such as "!!" kept, since "+" would turn sandboxing off),
// Type= becomes simple (the probe daemon sends no READY=1) and u.Drop's
// directives are left out. Every other [Service] line is copied verbatim,
// so every seccomp-relevant directive (seccompKeys) is. changes lists
// what was changed and why, one line each, also written as comments at
// the top of the copy.
func deriveUnit(u realUnit, unitDir string, data []byte) (text string, changes []string, err error) {
	for k := range u.Drop {
		for _, s := range seccompKeys {
			if strings.EqualFold(k, s) {
				return "", nil, fmt.Errorf("derive %s: %s= decides seccomp filters and must be kept", u.Name, k)
			}
		}
	}
	lines, scanErr := serviceLines(data)
	rw, err := rewriteService(u, lines)
	if err != nil {
		return "", nil, err
	}
	if scanErr != nil {
		return "", nil, fmt.Errorf("derive %s: %w", u.Name, scanErr)
	}
	if !rw.sawExec {
		return "", nil, fmt.Errorf("derive %s: no ExecStart= in [Service]", u.Name)
	}
	var missing []string
	for k := range u.Drop {
		if !rw.dropped[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", nil, fmt.Errorf("derive %s: directives to drop are not in the unit: %s", u.Name, strings.Join(missing, ", "))
	}
	changes = append([]string{
		"[Unit] replaced by Description= and DefaultDependencies=no (its dependencies and conditions name units the VM does not have); [Install] left out",
	}, rw.changes...)
	return renderUnit(u, unitDir, rw.service, changes), changes, nil
}

// serviceLines returns the [Service] lines of unit text data, each with
// its continuation lines (a trailing backslash continues a line,
// src/shared/conf-parser.c), blank lines and comments left out, and the
// scanner's error, if any, after the lines read before it.
func serviceLines(data []byte) ([]string, error) {
	var lines []string
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for strings.HasSuffix(strings.TrimRight(line, " \t"), "\\") && sc.Scan() {
			line += "\n" + sc.Text()
		}
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if t[0] == '[' {
			section = strings.Trim(t, "[]")
			continue
		}
		if section == "Service" {
			lines = append(lines, line)
		}
	}
	return lines, sc.Err()
}

// serviceRewrite is the [Service] section of a unit as rewriteService
// rewrote it.
type serviceRewrite struct {
	service []string        // the new lines
	changes []string        // what was changed and why, one line each
	dropped map[string]bool // the directives of realUnit.Drop left out
	sawExec bool            // an ExecStart= line was rewritten
}

// rewriteService rewrites the [Service] lines of u as deriveUnit
// describes: ExecStart= runs /vmtest/COMM, Type= becomes simple (added
// when missing) and u.Drop's directives are left out.
func rewriteService(u realUnit, lines []string) (serviceRewrite, error) {
	sawType := false
	rw := serviceRewrite{dropped: map[string]bool{}}
	for _, line := range lines {
		t := strings.TrimSpace(line)
		key, value, ok := strings.Cut(t, "=")
		if !ok {
			return serviceRewrite{}, fmt.Errorf("derive %s: [Service] line %q has no '='", u.Name, t)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case key == "ExecStart":
			if rw.sawExec {
				return serviceRewrite{}, fmt.Errorf("derive %s: more than one ExecStart=", u.Name)
			}
			rw.sawExec = true
			prefix := value[:len(value)-len(strings.TrimLeft(value, "@-:+!|"))]
			if strings.Contains(prefix, "+") {
				return serviceRewrite{}, fmt.Errorf("derive %s: ExecStart=%s runs without sandboxing (\"+\"): no filters to compare", u.Name, value)
			}
			repl := "ExecStart=" + prefix + "/vmtest/" + u.Comm
			rw.service = append(rw.service, repl)
			rw.changes = append(rw.changes, fmt.Sprintf("ExecStart=%s -> %s (a probe daemon that only sleeps; prefix kept)", value, repl))
		case key == "Type":
			sawType = true
			rw.service = append(rw.service, "Type=simple")
			if value != "simple" {
				rw.changes = append(rw.changes, fmt.Sprintf("Type=%s -> Type=simple (the probe daemon sends no READY=1)", value))
			}
		case u.Drop[key] != "":
			rw.dropped[key] = true
			rw.changes = append(rw.changes, fmt.Sprintf("%s=%s dropped: %s", key, value, u.Drop[key]))
		default:
			rw.service = append(rw.service, line)
		}
	}
	if !sawType {
		rw.service = append(rw.service, "Type=simple")
	}
	return rw, nil
}

// renderUnit returns the VM copy of u (from unitDir): comments listing
// changes, a [Unit] section of its own and the [Service] lines service.
func renderUnit(u realUnit, unitDir string, service, changes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# VM copy of %s/%s made by internal/vmtest (deriveUnit):\n", unitDir, u.Name)
	fmt.Fprintf(&b, "# every [Service] line is the original's, verbatim, except:\n")
	for _, c := range changes {
		fmt.Fprintf(&b, "#  - %s\n", c)
	}
	fmt.Fprintf(&b, "[Unit]\nDescription=seccompbench VM copy of %s\nDefaultDependencies=no\n\n[Service]\n", u.Name)
	for _, l := range service {
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}
