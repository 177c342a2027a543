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
// is PID 1; probe.service runs this binary as /vmtest/probe-daemon, and
// each VM copy of a host unit runs it under a name of its own
// (/vmtest/logind-probe, ...); all only sleep under the filters systemd
// installed. check.service runs it as "vminit systemd-check UNIT=COMM...",
// which reads each daemon's filters back with `seccompbench inspect` and
// compares them, filter by filter, with `seccompbench compile
// --systemd-stack UNIT --compiler libseccomp`, then powers off.

// probeDaemon blocks forever.
func probeDaemon() {
	for {
		time.Sleep(time.Hour)
	}
}

// isProbeDaemon reports whether argv0 names a probe daemon.
func isProbeDaemon(argv0 string) bool {
	b := filepath.Base(argv0)
	return b == "probe-daemon" || strings.HasSuffix(b, "-probe")
}

type filterSum struct {
	Index        int    `json:"index"`
	Name         string `json:"name"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
}

// summaryTag starts the per-unit verdict line the host collects
// (internal/vmtest/systemd.go: unitSummaries).
const summaryTag = "unit verdict:"

// systemdCheck compares each UNIT=COMM of args, printing one go-test-like
// top-level result per unit (TestSystemd_UNIT, with a subtest per filter)
// between protocol markers, and powers the machine off.
func systemdCheck(args []string) {
	fmt.Printf("%s systemd-stack\n", protocol.Begin)
	start := time.Now()
	code := 0
	// The units start together; one deadline for all of them.
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range args {
		unit, comm, ok := strings.Cut(a, "=")
		if !ok {
			unit, comm = a, "probe-daemon"
		}
		test := "TestSystemd_" + strings.TrimSuffix(unit, ".service")
		t0 := time.Now()
		if err := compareStack(test, unit, comm, deadline); err != nil {
			fmt.Printf("--- FAIL: %s (%.2fs)\n    %v\n", test, time.Since(t0).Seconds(), err)
			code = 1
		} else {
			fmt.Printf("--- PASS: %s (%.2fs)\n", test, time.Since(t0).Seconds())
		}
	}
	fmt.Printf("%s systemd-stack exit=%d seconds=%.1f\n", protocol.End, code, time.Since(start).Seconds())
	fmt.Println(protocol.Done)
	os.Stdout.Sync()
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
}

func compareStack(test, unit, comm string, deadline time.Time) error {
	pid, err := findProc(comm, deadline)
	if err != nil {
		fmt.Printf("    %s %s: %v (the unit did not start; see systemd's messages above)\n", summaryTag, unit, err)
		return err
	}
	saved := "/tmp/saved-" + unit
	out, err := exec.Command("/vmtest/seccompbench", "inspect", "--format", "json", "--save", saved, fmt.Sprint(pid)).Output()
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
	fmt.Printf("    systemd installed %d filters on %s (pid %d, %s; %s); the model has %d\n", len(real), unit, pid, comm, procFacts(pid), len(model.Filters))
	bad, same := 0, 0
	n := max(len(real), len(model.Filters))
	for i := 0; i < n; i++ {
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
			if out, err := exec.Command("/vmtest/seccompbench", "compile", fmt.Sprintf("%s/filter-%02d.bpf", saved, i)).CombinedOutput(); err == nil {
				fmt.Printf("        kernel filter %d (%s):\n%s", i, m.Name, indent(string(out), "        | "))
			}
		} else {
			same++
		}
		fmt.Printf("    --- %s: %s/filter-%02d (0.00s)\n", verdict, test, i)
		fmt.Printf("        kernel: %d insns %.16s   model: %s %d insns %.16s\n", r.Instructions, r.SHA256, m.Name, m.Instructions, m.SHA256)
	}
	fmt.Printf("    %s %s: %d of %d filters byte-identical (kernel %d, model %d)\n", summaryTag, unit, same, n, len(real), len(model.Filters))
	if bad > 0 {
		return fmt.Errorf("%d of %d filters differ from the model", bad, n)
	}
	return nil
}

// procFacts says under which identity and sandbox pid runs, from
// /proc/PID/status (Uid, NoNewPrivs, Seccomp_filters, CapEff and
// Speculation_Store_Bypass, which SECCOMP_FILTER_FLAG_SPEC_ALLOW
// decides) and whether its
// mount namespace is PID 1's: evidence that the unit's other directives
// (User=, ProtectSystem=, PrivateTmp=, ...) took effect too.
func procFacts(pid int) string {
	var facts []string
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ":")
			switch k {
			case "Uid":
				if f := strings.Fields(v); len(f) > 0 {
					facts = append(facts, "uid "+f[0])
				}
			case "NoNewPrivs", "Seccomp_filters", "CapEff", "Speculation_Store_Bypass":
				facts = append(facts, k+" "+strings.TrimSpace(v))
			}
		}
	}
	own, err1 := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid))
	init, err2 := os.Readlink("/proc/1/ns/mnt")
	switch {
	case err1 != nil || err2 != nil:
	case own == init:
		facts = append(facts, "PID 1's mount namespace")
	default:
		facts = append(facts, "own mount namespace")
	}
	return strings.Join(facts, ", ")
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
// waiting until deadline for it to appear.
func findProc(name string, deadline time.Time) (int, error) {
	start := time.Now()
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
			return 0, fmt.Errorf("no %s process after %s", name, time.Since(start).Round(time.Second))
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
