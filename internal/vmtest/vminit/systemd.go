package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/internal/vmtest/protocol"
)

// The systemd-as-init check (go run ./internal/vmtest -systemd): systemd
// is PID 1; probe.service runs this binary as /vmtest/probe-daemon, which
// only sleeps under the filters systemd installed; check.service runs it
// as "vminit systemd-check UNIT", which reads the daemon's filters back
// with `seccompbench inspect` and compares them, filter by filter, with
// `seccompbench compile --systemd-stack UNIT --compiler libseccomp`, then
// powers off.

// probeDaemon blocks forever.
func probeDaemon() {
	for {
		time.Sleep(time.Hour)
	}
}

type filterSum struct {
	Index        int    `json:"index"`
	Name         string `json:"name"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
}

// systemdCheck prints one go-test-like result line per filter between
// protocol markers and powers the machine off.
func systemdCheck(unit string) {
	fmt.Printf("%s systemd-stack\n", protocol.Begin)
	start := time.Now()
	code := 0
	if err := compareStack(unit); err != nil {
		fmt.Printf("--- FAIL: TestSystemdStack (0.00s)\n    %v\n", err)
		code = 1
	} else {
		fmt.Printf("--- PASS: TestSystemdStack (0.00s)\n")
	}
	fmt.Printf("%s systemd-stack exit=%d seconds=%.1f\n", protocol.End, code, time.Since(start).Seconds())
	fmt.Println(protocol.Done)
	os.Stdout.Sync()
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
}

func compareStack(unit string) error {
	pid, err := findProc("probe-daemon", 30*time.Second)
	if err != nil {
		return err
	}
	out, err := exec.Command("/vmtest/seccompbench", "inspect", "--format", "json", "--save", "/tmp/saved", fmt.Sprint(pid)).Output()
	if err != nil {
		return fmt.Errorf("inspect %d: %w\n%s", pid, err, out)
	}
	var procs []struct {
		Pid     int         `json:"pid"`
		Filters []filterSum `json:"filters"`
	}
	if err := decodeOneOrMany(out, &procs); err != nil {
		return fmt.Errorf("decode inspect output: %w\n%s", err, out)
	}
	if len(procs) != 1 {
		return fmt.Errorf("inspect returned %d processes", len(procs))
	}
	real := procs[0].Filters
	out, err = exec.Command("/vmtest/seccompbench", "compile", "--systemd-stack", "/etc/systemd/system/"+unit, "--compiler", "libseccomp", "--format", "json").Output()
	if err != nil {
		return fmt.Errorf("compile --systemd-stack: %w\n%s", err, out)
	}
	var model struct {
		Filters []filterSum `json:"filters"`
	}
	if err := json.Unmarshal(out, &model); err != nil {
		return fmt.Errorf("decode compile output: %w", err)
	}
	fmt.Printf("    systemd installed %d filters on %s (pid %d); the model has %d\n", len(real), unit, pid, len(model.Filters))
	bad := 0
	for i := 0; i < max(len(real), len(model.Filters)); i++ {
		var r, m filterSum
		if i < len(real) {
			r = real[i]
		}
		if i < len(model.Filters) {
			m = model.Filters[i]
		}
		verdict := "PASS"
		if r.SHA256 == "" || r.SHA256 != m.SHA256 {
			verdict = "FAIL"
			bad++
			// The kernel's copy, disassembled, for comparison with
			// `compile --systemd-stack --format text` on the host.
			if out, err := exec.Command("/vmtest/seccompbench", "compile", fmt.Sprintf("/tmp/saved/filter-%02d.bpf", i)).CombinedOutput(); err == nil {
				fmt.Printf("        kernel filter %d (%s):\n%s", i, m.Name, indent(string(out), "        | "))
			}
		}
		fmt.Printf("    --- %s: TestSystemdStack/filter-%02d (0.00s)\n", verdict, i)
		fmt.Printf("        kernel: %d insns %.16s   model: %s %d insns %.16s\n", r.Instructions, r.SHA256, m.Name, m.Instructions, m.SHA256)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d filters differ from the model", bad, max(len(real), len(model.Filters)))
	}
	return nil
}

// decodeOneOrMany decodes a JSON array of processes, or one object.
func decodeOneOrMany(b []byte, procs any) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		if p, ok := m["processes"]; ok {
			return json.Unmarshal(p, procs)
		}
		b = append(append([]byte{'['}, b...), ']')
	}
	return json.Unmarshal(b, procs)
}

// findProc returns the PID of the first process whose comm is name,
// waiting up to timeout for it to appear.
func findProc(name string, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		dirs, _ := filepath.Glob("/proc/[0-9]*/comm")
		for _, d := range dirs {
			b, err := os.ReadFile(d)
			if err == nil && strings.TrimSpace(string(b)) == name {
				var pid int
				fmt.Sscanf(filepath.Base(filepath.Dir(d)), "%d", &pid)
				return pid, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no %s process after %s", name, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
