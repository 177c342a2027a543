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
	// Name is the host unit in hostUnitDir, e.g. "systemd-logind.service".
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

// realUnits are the host units the -systemd check compares with the
// model. systemd-resolved.service is not among them: Debian 12 ships it
// in its own package (systemd-resolved), which the host does not have
// installed.
var realUnits = []realUnit{
	{Name: "systemd-logind.service", Comm: "logind-probe"},
	{Name: "systemd-journald.service", Comm: "journald-probe"},
	{Name: "systemd-timesyncd.service", Comm: "timesyncd-probe"},
	{Name: "systemd-networkd.service", Comm: "networkd-probe"},
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

// deriveUnit writes the VM copy of the host unit u (its text in data):
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
func deriveUnit(u realUnit, data []byte) (text string, changes []string, err error) {
	for k := range u.Drop {
		for _, s := range seccompKeys {
			if strings.EqualFold(k, s) {
				return "", nil, fmt.Errorf("derive %s: %s= decides seccomp filters and must be kept", u.Name, k)
			}
		}
	}
	var service []string
	section := ""
	sawExec, sawType := false, false
	dropped := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		// A trailing backslash continues the line (src/shared/conf-parser.c).
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
		if section != "Service" {
			continue
		}
		key, value, ok := strings.Cut(t, "=")
		if !ok {
			return "", nil, fmt.Errorf("derive %s: [Service] line %q has no '='", u.Name, t)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case key == "ExecStart":
			if sawExec {
				return "", nil, fmt.Errorf("derive %s: more than one ExecStart=", u.Name)
			}
			sawExec = true
			prefix := value[:len(value)-len(strings.TrimLeft(value, "@-:+!|"))]
			if strings.Contains(prefix, "+") {
				return "", nil, fmt.Errorf("derive %s: ExecStart=%s runs without sandboxing (\"+\"): no filters to compare", u.Name, value)
			}
			repl := "ExecStart=" + prefix + "/vmtest/" + u.Comm
			service = append(service, repl)
			changes = append(changes, fmt.Sprintf("ExecStart=%s -> %s (a probe daemon that only sleeps; prefix kept)", value, repl))
		case key == "Type":
			sawType = true
			service = append(service, "Type=simple")
			if value != "simple" {
				changes = append(changes, fmt.Sprintf("Type=%s -> Type=simple (the probe daemon sends no READY=1)", value))
			}
		case u.Drop[key] != "":
			dropped[key] = true
			changes = append(changes, fmt.Sprintf("%s=%s dropped: %s", key, value, u.Drop[key]))
		default:
			service = append(service, line)
		}
	}
	if err := sc.Err(); err != nil {
		return "", nil, fmt.Errorf("derive %s: %w", u.Name, err)
	}
	if !sawExec {
		return "", nil, fmt.Errorf("derive %s: no ExecStart= in [Service]", u.Name)
	}
	if !sawType {
		service = append(service, "Type=simple")
	}
	var missing []string
	for k := range u.Drop {
		if !dropped[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", nil, fmt.Errorf("derive %s: directives to drop are not in the unit: %s", u.Name, strings.Join(missing, ", "))
	}
	changes = append([]string{
		"[Unit] replaced by Description= and DefaultDependencies=no (its dependencies and conditions name units the VM does not have); [Install] left out",
	}, changes...)
	var b strings.Builder
	fmt.Fprintf(&b, "# VM copy of %s/%s made by internal/vmtest (deriveUnit):\n", hostUnitDir, u.Name)
	fmt.Fprintf(&b, "# every [Service] line is the host's, verbatim, except:\n")
	for _, c := range changes {
		fmt.Fprintf(&b, "#  - %s\n", c)
	}
	fmt.Fprintf(&b, "[Unit]\nDescription=seccompbench VM copy of %s\nDefaultDependencies=no\n\n[Service]\n", u.Name)
	for _, l := range service {
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String(), changes, nil
}
