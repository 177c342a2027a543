package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The runtimes check (go run ./internal/vmtest -runtimes) runs as a plan
// step: "init runtimes-check RUNTIME=BUNDLE ...". For each pair it starts
// a container with the runtime (runc or crun, the host's, copied into the
// initramfs) from /vmtest/bundles/BUNDLE, whose process is this binary as
// /container-probe (it sleeps), reads the container process's filters
// back with `seccompbench inspect --save` and compares them with
// `seccompbench compile --compiler libseccomp --runtime MODEL` of the
// bundle's config.json, then kills and deletes the container. Each pair
// is one go-test-like result, TestRuntime_RUNTIME_BUNDLE.

// containerComm is the container process's comm (internal/vmtest:
// containerComm).
const containerComm = "container-probe"

// runtimesCheck runs the check for args and exits with 0 if every pair
// matched, 1 otherwise.
func runtimesCheck(args []string) int {
	if err := cgroupAndRun(); err != nil {
		fmt.Printf("--- FAIL: TestRuntimeSetup (0.00s)\n    %v\n", err)
		return 1
	}
	code := 0
	models := map[string]string{}
	for _, a := range args {
		bin, bundle, ok := strings.Cut(a, "=")
		if !ok {
			fmt.Printf("--- FAIL: TestRuntimeSetup (0.00s)\n    argument %q is not RUNTIME=BUNDLE\n", a)
			return 1
		}
		rt := filepath.Base(bin)
		model, ok := models[bin]
		if !ok {
			var err error
			if model, err = runtimeModel(bin); err != nil {
				fmt.Printf("--- FAIL: TestRuntime_%s (0.00s)\n    %v\n", rt, err)
				code = 1
				continue
			}
			models[bin] = model
		}
		test := "TestRuntime_" + rt + "_" + bundle
		t0 := time.Now()
		fmt.Printf("=== RUN   %s\n", test)
		if err := compareContainer(test, bin, model, bundle); err != nil {
			fmt.Printf("--- FAIL: %s (%.2fs)\n    %v\n", test, time.Since(t0).Seconds(), err)
			code = 1
		} else {
			fmt.Printf("--- PASS: %s (%.2fs)\n", test, time.Since(t0).Seconds())
		}
	}
	return code
}

// cgroupAndRun gives the runtimes what a container host has: a cgroup2
// hierarchy on /sys/fs/cgroup (nothing else mounted there, so runc and
// crun see unified mode) and a tmpfs on /run for their state.
func cgroupAndRun() error {
	for _, m := range []struct{ src, dst, fstype string }{
		{"cgroup2", "/sys/fs/cgroup", "cgroup2"},
		{"tmpfs", "/run", "tmpfs"},
	} {
		if err := os.MkdirAll(m.dst, 0o755); err != nil {
			return err
		}
		if err := syscall.Mount(m.src, m.dst, m.fstype, syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount %s on %s: %w", m.fstype, m.dst, err)
		}
	}
	return nil
}

var runtimeVersion = regexp.MustCompile(`(?m)^(runc|crun) version (\d+)\.(\d+)\.(\S+)`)

// runtimeModel returns the compile --runtime value that models bin, from
// its --version: runc 1.0 and 1.1 are runc-1.1, later runc is runc,
// crun is crun. It prints the version line.
func runtimeModel(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w\n%s", bin, err, out)
	}
	m := runtimeVersion.FindStringSubmatch(string(out))
	if m == nil {
		return "", fmt.Errorf("%s --version: no version in %q", bin, out)
	}
	fmt.Printf("    %s\n", strings.TrimSpace(strings.ReplaceAll(string(out), "\n", "; ")))
	major, _ := strconv.Atoi(m[2])
	minor, _ := strconv.Atoi(m[3])
	switch {
	case m[1] == "crun":
		return "crun", nil
	case major == 1 && minor <= 1:
		return "runc-1.1", nil
	}
	return "runc", nil
}

// compareContainer starts bundle under bin, compares the container
// process's filters with the model, and removes the container.
func compareContainer(test, bin, model, bundle string) error {
	rt := filepath.Base(bin)
	id := rt + "-" + bundle
	dir := "/vmtest/bundles/" + bundle
	pidFile := "/tmp/" + id + ".pid"
	logFile := "/tmp/" + id + ".log"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin, "--debug", "--log", logFile, "run", "--detach", "--no-pivot", "--bundle", dir, "--pid-file", pidFile, id)
	// The container inherits the runtime's standard streams and keeps
	// them open: files, never pipes, or Wait would wait for the
	// container to exit.
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	run.Stdin, run.Stdout, run.Stderr = devnull, devnull, devnull
	if err := run.Run(); err != nil {
		b, _ := os.ReadFile(logFile)
		return fmt.Errorf("%s run: %w\n%s", rt, err, indent(string(b), "        | "))
	}
	defer func() {
		exec.Command(bin, "kill", id, "KILL").Run()
		for i := 0; i < 50; i++ {
			if exec.Command(bin, "delete", "--force", id).Run() == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("pid file %s: %w", pidFile, err)
	}
	if err := waitProbe(pid); err != nil {
		return err
	}
	saved := "/tmp/saved-" + id
	real, err := inspectFilters(pid, saved)
	if err != nil {
		return err
	}
	cfg := dir + "/config.json"
	m, err := compileModel(cfg, model)
	if err != nil {
		return err
	}
	fmt.Printf("    %s installed %d filter(s) on %s (pid %d; %s); the model (--runtime %s) has 1: %d insns %.16s\n",
		rt, len(real), id, pid, procFacts(pid), model, m.Instructions, m.SHA256)
	if len(real) != 1 {
		return fmt.Errorf("%d filters installed, want 1", len(real))
	}
	return compareFilter(rt, bundle, real[0], m, saved+"/filter-00.bpf", []string{"--compiler", "libseccomp", "--runtime", model, cfg})
}

// compareFilter prints the summary line comparing filter r, the one
// runtime rt installed for bundle (saved as file saved), with the model m
// (compiled with compile arguments modelArgs), and fails when r is none
// of the model's layouts, after printing both disassembled for
// comparison on the host.
func compareFilter(rt, bundle string, r filterSum, m modelSum, saved string, modelArgs []string) error {
	verdict, why := "differs", ""
	switch {
	case r.SHA256 == m.SHA256:
		verdict = "byte-identical"
	case contains(m.Variants, r.SHA256):
		verdict, why = "byte-identical", " (one of the model's other layouts: runc orders its ENOSYS stub's architectures in Go map order)"
	}
	fmt.Printf("    %s %s %s: kernel %d insns %.16s, model %d insns %.16s: %s%s\n", summaryTag, rt, bundle, r.Instructions, r.SHA256, m.Instructions, m.SHA256, verdict, why)
	if verdict != "byte-identical" {
		// Both disassembled, for comparison on the host.
		for _, c := range [][]string{
			{"compile", saved},
			append([]string{"compile"}, modelArgs...),
		} {
			out, _ := exec.Command("/vmtest/seccompbench", c...).CombinedOutput()
			fmt.Printf("        %s:\n%s", strings.Join(c, " "), indent(string(out), "        | "))
		}
		return errors.New("the installed filter differs from the model")
	}
	return nil
}

// waitProbe waits up to 20 s for the container process pid to exec the
// probe (the runtime returns once the container is started; its process
// execs the probe right after), and fails if it died under its filter.
func waitProbe(pid int) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err == nil && strings.TrimSpace(string(c)) == containerComm {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d never became %s (comm %q, %v)", pid, containerComm, strings.TrimSpace(string(c)), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := procState(pid); strings.HasPrefix(st, "Z") || strings.HasPrefix(st, "X") {
		return fmt.Errorf("the container process %d died under its filter (%s; exit status %s); kernel log:\n%s", pid, st, exitCode(pid), kernelLogTail(10))
	}
	return nil
}

// inspectFilters returns the filters `seccompbench inspect` reads from
// process pid, saving them into directory saved.
func inspectFilters(pid int, saved string) ([]filterSum, error) {
	out, err := exec.Command("/vmtest/seccompbench", "inspect", "--format", "json", "--save", saved, fmt.Sprint(pid)).Output()
	if err != nil {
		return nil, fmt.Errorf("inspect %d: %w\n%s", pid, err, out)
	}
	var procs []struct {
		Filters []filterSum `json:"filters"`
	}
	if err := decodeOneOrMany(out, &procs); err != nil || len(procs) != 1 {
		return nil, fmt.Errorf("decode inspect output (%d processes): %v\n%s", len(procs), err, out)
	}
	return procs[0].Filters, nil
}

// modelSum is what `seccompbench compile --runtime` predicts a
// runtime installs for a bundle.
type modelSum struct {
	SHA256       string   `json:"sha256"`
	Instructions int      `json:"instructions"`
	Variants     []string `json:"runtime_variants"` // the other layouts' SHA-256s
}

// compileModel compiles the bundle's config.json cfg as runtime model
// (--runtime) lays it out with libseccomp.
func compileModel(cfg, model string) (modelSum, error) {
	var m modelSum
	out, err := exec.Command("/vmtest/seccompbench", "compile", "--compiler", "libseccomp", "--runtime", model, "--format", "json", cfg).Output()
	if err != nil {
		return m, fmt.Errorf("compile %s --runtime %s: %w\n%s", cfg, model, err, out)
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return m, fmt.Errorf("decode compile output: %w", err)
	}
	return m, nil
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// procState returns the State line of /proc/PID/status, "" if unreadable.
func procState(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "State:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// exitCode returns a zombie's exit status as wait(2) encodes it: field
// 52 (exit_code) of /proc/PID/stat, from Linux 3.5 (proc(5)).
func exitCode(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		f := strings.Fields(s[i+1:])
		// Fields after the comm start at field 3.
		if len(f) >= 50 {
			if n, err := strconv.Atoi(f[49]); err == nil {
				return fmt.Sprintf("%#x (signal %d, code %d)", n, n&0x7f, n>>8)
			}
		}
	}
	return "unknown"
}

// kernelLogTail returns the kernel log's last n lines (syslog(2)
// SYSLOG_ACTION_READ_ALL), where seccomp's audit records of killed and
// trapped calls land.
func kernelLogTail(n int) string {
	buf := make([]byte, 1<<16)
	k, err := syscall.Klogctl(3, buf)
	if err != nil {
		return "(kernel log unreadable: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(buf[:k])), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return indent(strings.Join(lines, "\n")+"\n", "        | ")
}

// imageRun is the image check's step: "init image-run RUNTIME BUNDLE
// NODE" runs the bundle in the foreground, prints the container's
// standard output between the result markers, and reports one test,
// TestImage_RUNTIME: the container exited 0 and printed one JSON result
// naming NODE as its node.
func imageRun(args []string) int {
	if len(args) != 3 {
		fmt.Printf("--- FAIL: TestImage (0.00s)\n    want RUNTIME BUNDLE NODE, got %q\n", args)
		return 1
	}
	bin, bundle, node := args[0], args[1], args[2]
	test := "TestImage_" + filepath.Base(bin)
	t0 := time.Now()
	fmt.Printf("=== RUN   %s\n", test)
	err := func() error {
		out, err := os.Create("/tmp/image.out")
		if err != nil {
			return err
		}
		defer out.Close()
		errf, err := os.Create("/tmp/image.err")
		if err != nil {
			return err
		}
		defer errf.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "run", "--no-pivot", "--bundle", bundle, "image-probe")
		cmd.Stdout, cmd.Stderr = out, errf
		runErr := cmd.Run()
		exec.Command(bin, "delete", "--force", "image-probe").Run()
		stdout, _ := os.ReadFile("/tmp/image.out")
		stderr, _ := os.ReadFile("/tmp/image.err")
		fmt.Printf("    %s run (stderr):\n%s", filepath.Base(bin), indent(string(stderr), "        | "))
		fmt.Printf("%s\n%s\n%s\n", resultBegin, strings.TrimSpace(string(stdout)), resultEnd)
		if runErr != nil {
			return fmt.Errorf("%s run: %w", filepath.Base(bin), runErr)
		}
		var doc struct {
			Environment struct {
				Node          string `json:"node"`
				ParentFilters int    `json:"parent_seccomp_filters"`
			} `json:"environment"`
		}
		if err := json.Unmarshal(stdout, &doc); err != nil {
			return fmt.Errorf("the container's output is not one JSON result: %w", err)
		}
		fmt.Printf("    result: node %q, filters the container already had: %d\n", doc.Environment.Node, doc.Environment.ParentFilters)
		if doc.Environment.Node != node {
			return fmt.Errorf("result names node %q, want %q", doc.Environment.Node, node)
		}
		return nil
	}()
	return testResult(test, t0, err)
}

// testResult prints test's "--- PASS" or "--- FAIL" line (with err) in
// go test's format and returns the step's exit code, 0 or 1.
func testResult(test string, t0 time.Time, err error) int {
	if err != nil {
		fmt.Printf("--- FAIL: %s (%.2fs)\n    %v\n", test, time.Since(t0).Seconds(), err)
		return 1
	}
	fmt.Printf("--- PASS: %s (%.2fs)\n", test, time.Since(t0).Seconds())
	return 0
}

// Markers around the image container's output (internal/vmtest/image.go).
const (
	resultBegin = "VMTEST:RESULT-BEGIN"
	resultEnd   = "VMTEST:RESULT-END"
)
