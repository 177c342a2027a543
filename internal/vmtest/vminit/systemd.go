package main

import (
	"bytes"
	"encoding/json"
	"errors"
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
// --systemd-stack UNIT --compiler libseccomp` (with --systemd-version N
// when given -systemd-version N), proves each filter that differs
// equivalent or not with `seccompbench equiv`, reports further models
// (-alt-lib, -alt-native) without judging them, then powers off.

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

// checkOpts are systemd-check's options, given before the UNIT=COMM
// arguments.
type checkOpts struct {
	// version is passed to compile as --systemd-version when not "" (the
	// booted systemd's major version: without it, compile in the guest,
	// where systemd-analyze is missing, would take the newest table).
	version string
	// alts are further models every unit is compared with, reported and
	// not judged: the same compile under another libseccomp (LD_LIBRARY_PATH)
	// or with the native layout.
	alts []altModel
}

// altModel is one further model: its label and how compile is run for it.
type altModel struct {
	label    string
	libDir   string // LD_LIBRARY_PATH for compile, "" for none
	compiler string // --compiler
}

// parseCheckArgs splits systemd-check's arguments into options
// ("-systemd-version N", "-alt-lib LABEL=DIR", "-alt-native LABEL") and
// UNIT=COMM pairs.
func parseCheckArgs(args []string) (checkOpts, []string, error) {
	var o checkOpts
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if len(args) < 2 {
			return o, nil, fmt.Errorf("%s needs a value", args[0])
		}
		switch args[0] {
		case "-systemd-version":
			o.version = args[1]
		case "-alt-lib":
			label, dir, ok := strings.Cut(args[1], "=")
			if !ok {
				return o, nil, fmt.Errorf("-alt-lib %q: want LABEL=DIR", args[1])
			}
			o.alts = append(o.alts, altModel{label: label, libDir: dir, compiler: "libseccomp"})
		case "-alt-native":
			o.alts = append(o.alts, altModel{label: args[1], compiler: "native"})
		default:
			return o, nil, fmt.Errorf("unknown option %s", args[0])
		}
		args = args[2:]
	}
	return o, args, nil
}

// systemdCheck compares each UNIT=COMM of args, printing one go-test-like
// top-level result per unit (TestSystemd_UNIT, with a subtest per filter)
// between protocol markers, and powers the machine off.
func systemdCheck(args []string) {
	fmt.Printf("%s systemd-stack\n", protocol.Begin)
	start := time.Now()
	code := 0
	o, args, err := parseCheckArgs(args)
	if err != nil {
		fmt.Printf("--- FAIL: TestSystemdCheckArgs (0.00s)\n    %v\n", err)
		code = 1
	}
	// The units start together; one deadline for all of them.
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range args {
		unit, comm, ok := strings.Cut(a, "=")
		if !ok {
			unit, comm = a, "probe-daemon"
		}
		test := "TestSystemd_" + strings.TrimSuffix(unit, ".service")
		t0 := time.Now()
		if err := compareStack(test, unit, comm, o, deadline); err != nil {
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

// model runs `seccompbench compile --systemd-stack` for unit with
// compiler, the LD_LIBRARY_PATH libDir (if not "") and o's version,
// saving the filters under dir, and returns them and the text output's
// header line (which names the groups and the libseccomp that laid them
// out).
func model(unit, compiler, libDir, dir string, o checkOpts) ([]filterSum, string, error) {
	args := []string{"compile", "--systemd-stack", "/etc/systemd/system/" + unit, "--compiler", compiler, "--save", dir, "--format", "json", "-q"}
	if o.version != "" {
		args = append(args, "--systemd-version", o.version)
	}
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command("/vmtest/seccompbench", args...)
		if libDir != "" {
			cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+libDir)
		}
		return cmd.Output()
	}
	out, err := run(args...)
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return nil, "", fmt.Errorf("compile --systemd-stack --compiler %s: %w\n%s%s", compiler, err, out, stderr)
	}
	var m struct {
		Filters []filterSum `json:"filters"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, "", fmt.Errorf("decode compile output: %w", err)
	}
	header := ""
	if out, err := run(textArgs(args)...); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "filters as systemd") {
				header = strings.TrimSpace(l)
				break
			}
		}
	}
	return m.Filters, header, nil
}

// systemdRefusal is the text of systemd.ErrHandoffWrite (filters/systemd:
// the model's refusal of a unit systemd fails with EEXIST); the guest
// binary matches it in compile's error output.
const systemdRefusal = "systemd fails the unit with EEXIST"

// textArgs turns model's compile arguments into the same compile with
// text output and no --save.
func textArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--save", "--format":
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

func compareStack(test, unit, comm string, o checkOpts, deadline time.Time) error {
	pid, err := findProc(comm, deadline)
	if err != nil {
		// A unit systemd refuses (256.2 and later fail an allow list
		// holding ~write:ERRNO with EEXIST) agrees with the model when
		// the model refuses it for the same reason.
		if _, _, merr := model(unit, "libseccomp", "", "/tmp/model-"+unit, o); merr != nil && strings.Contains(merr.Error(), systemdRefusal) {
			fmt.Printf("    %s %s: the unit did not start, and the model refuses it too (%s)\n", summaryTag, unit, systemdRefusal)
			return nil
		}
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
	modelDir := "/tmp/model-" + unit
	filters, header, err := model(unit, "libseccomp", "", modelDir, o)
	if err != nil {
		return err
	}
	fmt.Printf("    systemd installed %d filters on %s (pid %d, %s; %s); the model has %d\n", len(real), unit, pid, comm, procFacts(pid), len(filters))
	if header != "" {
		fmt.Printf("    model: %s\n", header)
	}
	bad, same := 0, 0
	n := max(len(real), len(filters))
	var differ []int
	for i := 0; i < n; i++ {
		var r, m filterSum
		if i < len(real) {
			r = real[i]
		}
		if i < len(filters) {
			m = filters[i]
		}
		verdict := "PASS"
		if r.SHA256 == "" || r.SHA256 != m.SHA256 {
			verdict = "FAIL"
			bad++
			differ = append(differ, i)
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
	fmt.Printf("    %s %s: %d of %d filters byte-identical (kernel %d, model %d)%s\n", summaryTag, unit, same, n, len(real), len(filters), equivNote(saved, modelDir, differ, len(real), len(filters)))
	for _, a := range o.alts {
		altCompare(unit, saved, real, a, o)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d filters differ from the model", bad, n)
	}
	return nil
}

// altCompare compares the kernel's filters of unit (saved, real) with
// the further model a and prints its verdict line; it is reported, not
// judged.
func altCompare(unit, saved string, real []filterSum, a altModel, o checkOpts) {
	dir := "/tmp/model-" + a.label + "-" + unit
	filters, header, err := model(unit, a.compiler, a.libDir, dir, o)
	if err != nil {
		fmt.Printf("    %s %s [%s]: %v\n", summaryTag, unit, a.label, err)
		return
	}
	if header != "" {
		fmt.Printf("    model [%s]: %s\n", a.label, header)
	}
	same := 0
	var differ []int
	n := max(len(real), len(filters))
	for i := 0; i < n; i++ {
		if i < len(real) && i < len(filters) && real[i].SHA256 == filters[i].SHA256 {
			same++
			continue
		}
		differ = append(differ, i)
		var r, m filterSum
		if i < len(real) {
			r = real[i]
		}
		if i < len(filters) {
			m = filters[i]
		}
		fmt.Printf("        [%s] filter-%02d differs: kernel %d insns %.16s   model: %s %d insns %.16s\n", a.label, i, r.Instructions, r.SHA256, m.Name, m.Instructions, m.SHA256)
	}
	fmt.Printf("    %s %s [%s]: %d of %d filters byte-identical (kernel %d, model %d)%s\n", summaryTag, unit, a.label, same, n, len(real), len(filters), equivNote(saved, dir, differ, len(real), len(filters)))
}

// equivNote proves each differing filter (by index, present on both
// sides) of the kernel's saved stack equivalent to the model's under
// modelDir, or not, with `seccompbench equiv`, and says how many are.
func equivNote(saved, modelDir string, differ []int, nReal, nModel int) string {
	if len(differ) == 0 {
		return ""
	}
	eq, ne, undecided := 0, 0, 0
	var first string
	for _, i := range differ {
		if i >= nReal || i >= nModel {
			ne++
			continue
		}
		a := fmt.Sprintf("%s/filter-%02d.bpf", saved, i)
		b := fmt.Sprintf("%s/filter-%02d.bpf", modelDir, i)
		out, err := exec.Command("/vmtest/seccompbench", "equiv", a, b).CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			eq++
		case errors.As(err, &ee) && ee.ExitCode() == 3:
			ne++
			if first == "" {
				first = fmt.Sprintf("filter-%02d: %s", i, strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]))
			}
		default:
			undecided++
		}
	}
	note := fmt.Sprintf("; of the %d that differ, equiv proves %d equivalent, %d not", len(differ), eq, ne)
	if undecided > 0 {
		note += fmt.Sprintf(", %d undecided", undecided)
	}
	if first != "" {
		note += " (" + first + ")"
	}
	return note
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
