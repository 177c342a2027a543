// Command vmtest runs the runner's real-kernel tests on other kernels: it
// boots each kernel of a matrix under qemu-system-x86_64 or
// qemu-system-aarch64 with an initramfs holding the project's statically
// linked test binaries and /init (internal/vmtest/vminit), and reads the
// results back from the serial console. No root file system is needed.
//
//	go run ./internal/vmtest                      # the whole matrix
//	go run ./internal/vmtest -kernels 6.1 -short  # what .ci/run runs
//	go run ./internal/vmtest -systemd -kernels 6.1   # systemd 252 as init
//	go run ./internal/vmtest -systemd-suite trixie -kernels 6.1  # 257, Debian 13's
//	go run ./internal/vmtest -runtimes -kernels 6.1  # runc and crun containers
//
// Kernels are Debian's cloud packages (see Matrix), fetched with apt-get
// download through a private APT state and unpacked with dpkg-deb; only
// the kernel image is kept, under the cache directory (-cache, default
// $XDG_CACHE_HOME/seccompbench-vmtest), never in the repository. Without
// KVM, QEMU emulates the CPU in software (TCG): the matrix checks
// correctness only, never timings. docs/kernels.md records a run.
//
// Exit status: 0 if every kernel booted and every test passed or skipped,
// 1 if any failed or a kernel did not finish in time, 2 on bad flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/internal/vmtest/protocol"
)

// options are the command's flags.
type options struct {
	kernels  []string
	pkgs     []string
	run      string
	skip     string
	bench    string
	short    bool
	timeout  time.Duration // per kernel
	total    time.Duration // whole matrix
	cacheDir string
	logDir   string
	mdOut    string
	memMB    int
	cpus     int
	fromLogs bool
	systemd  bool
	runtimes bool
	// systemdSuite and systemdRoot choose the systemd -systemd boots:
	// the host's when both are "", else the one in the Debian root
	// systemdRoot (default CACHE/roots/SUITE), built for systemdSuite
	// with debootstrap when it is missing (root.go).
	systemdSuite string
	systemdRoot  string
	accel        string // -accel: auto, kvm or tcg
}

func main() {
	os.Exit(mainRun(os.Args[1:], os.Stdout, os.Stderr))
}

func mainRun(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "vmtest:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, opts.total)
	defer cancel()
	run := runMatrix
	if opts.fromLogs {
		run = readLogs
	}
	if opts.systemd {
		run = runSystemd
	}
	if opts.runtimes {
		run = runRuntimes
	}
	rows, err := run(ctx, opts, stderr)
	fmt.Fprint(stdout, markdownTable(rows))
	if opts.mdOut != "" {
		if werr := os.WriteFile(opts.mdOut, []byte(markdownTable(rows)), 0o644); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "vmtest:", err)
		return 1
	}
	for _, r := range rows {
		if !r.ok() {
			return 1
		}
	}
	return 0
}

// guestSkip names the runner tests the guest leaves out by default: the
// initramfs has no userland and no source tree, and these need one (the
// command workload runs sh, true and friends; TestImports parses the
// package's sources). TestForeignLoadDetected times a busy loop against a
// child on one CPU, which software emulation makes a coin toss.
const guestSkip = "^(TestCommandWorkload.*|TestImports|TestForeignLoadDetected)$"

// guestPkgs are the packages whose tests the guest runs by default: every
// runner package with tests (the real-kernel ones are the root, inspect
// and jit; the others run as they did when they were part of the root)
// and the kernel-version helpers.
var guestPkgs = []string{
	"./runner", "./runner/command", "./runner/cpulock", "./runner/inspect", "./runner/internal/fixture",
	"./runner/jit", "./runner/notify", "./runner/result", "./internal/testutils",
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("vmtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var names []string
	for _, k := range Matrix {
		names = append(names, k.Name)
	}
	cache, _ := os.UserCacheDir()
	if cache == "" {
		cache = os.TempDir()
	}
	kernels := fs.String("kernels", strings.Join(names, ","), "comma-separated kernels to boot (known: "+strings.Join(names, ", ")+")")
	pkgs := fs.String("pkgs", strings.Join(guestPkgs, ","), "comma-separated packages whose tests run in the guest")
	o := &options{}
	fs.StringVar(&o.run, "run", "", "go test -run pattern for the guest's tests (default: all)")
	fs.StringVar(&o.skip, "skip", guestSkip, "go test -skip pattern for the guest's tests (\"\" runs every test)")
	fs.BoolVar(&o.short, "short", false, "pass -test.short to the guest's tests")
	fs.StringVar(&o.bench, "bench", "", "also run the runner's benchmarks matching this pattern once (-test.benchtime 1x), e.g. CachePrediction; their figures are logged, never judged")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "bound on one kernel's boot and tests")
	fs.DurationVar(&o.total, "total", 60*time.Minute, "bound on the whole matrix")
	fs.StringVar(&o.cacheDir, "cache", filepath.Join(cache, "seccompbench-vmtest"), "directory for kernels and APT state (outside the repository)")
	fs.StringVar(&o.logDir, "logs", "", "directory for console logs (default: CACHE/logs)")
	fs.StringVar(&o.mdOut, "o", "", "also write the results table (Markdown) to this file")
	fs.IntVar(&o.memMB, "mem", 1024, "guest memory in MiB")
	fs.IntVar(&o.cpus, "cpus", 2, "guest CPUs")
	fs.BoolVar(&o.systemd, "systemd", false, "instead of the matrix: boot the first -kernels kernel (amd64) with the host's systemd as init and compare the real filters of probe units and of VM copies of the host's logind, journald, timesyncd and networkd units with the model, filter by filter")
	fs.BoolVar(&o.runtimes, "runtimes", false, "instead of the matrix: boot the first -kernels kernel (amd64) with the host's runc and crun (apt-get install runc crun) and compare the filters they install in containers under docker-default, Podman's profile and a profile with argument rules with compile --runtime's model, filter by filter")
	fs.StringVar(&o.systemdSuite, "systemd-suite", "", "with -systemd (implied): boot the systemd of a Debian root of this suite instead of the host's ("+strings.Join(knownSuites(), ", ")+"), built with debootstrap --variant=minbase into -systemd-root the first time and reused for 30 days")
	fs.StringVar(&o.systemdRoot, "systemd-root", "", "with -systemd (implied): the Debian root whose systemd to boot (default with -systemd-suite: CACHE/roots/SUITE); without -systemd-suite it must exist")
	defAccel := os.Getenv(accelEnv)
	if defAccel == "" {
		defAccel = accelAuto
	}
	fs.StringVar(&o.accel, "accel", defAccel, "how QEMU runs the guest's CPU: auto (KVM when /dev/kvm opens, falling back to TCG for a kernel whose guest cannot run under KVM), kvm, or tcg (software emulation); default from $"+accelEnv+", else auto")
	fs.BoolVar(&o.fromLogs, "from-logs", false, "boot nothing: render the table from the console logs of an earlier run (wall time is then the guest's step time)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch o.accel {
	case accelAuto, accelKVM, accelTCG:
	default:
		return nil, fmt.Errorf("-accel %q: want %s, %s or %s", o.accel, accelAuto, accelKVM, accelTCG)
	}
	for _, n := range strings.Split(*kernels, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if _, err := lookupKernel(n); err != nil {
			return nil, err
		}
		o.kernels = append(o.kernels, n)
	}
	for _, p := range strings.Split(*pkgs, ",") {
		if p = strings.TrimSpace(p); p != "" {
			o.pkgs = append(o.pkgs, p)
		}
	}
	if err := o.resolveSystemdRoot(); err != nil {
		return nil, err
	}
	if o.systemd && o.runtimes {
		return nil, errors.New("-systemd and -runtimes are separate checks: give one")
	}
	if len(o.kernels) == 0 || len(o.pkgs) == 0 {
		return nil, errors.New("need at least one kernel and one package")
	}
	if o.logDir == "" {
		o.logDir = filepath.Join(o.cacheDir, "logs")
	}
	return o, nil
}

// resolveSystemdRoot checks -systemd-suite, defaults -systemd-root to
// CACHE/roots/SUITE for it, and turns -systemd on when either is given.
func (o *options) resolveSystemdRoot() error {
	if o.systemdSuite != "" {
		if _, ok := rootSuites[o.systemdSuite]; !ok {
			return fmt.Errorf("-systemd-suite %q: no root recipe (known: %s)", o.systemdSuite, strings.Join(knownSuites(), ", "))
		}
		if o.systemdRoot == "" {
			o.systemdRoot = filepath.Join(o.cacheDir, "roots", o.systemdSuite)
		}
	}
	if o.systemdRoot != "" {
		o.systemd = true
	}
	return nil
}

// row is one kernel's outcome.
type row struct {
	kernel  Kernel
	pkg     string // Debian package booted
	res     *protocol.Result
	wall    time.Duration
	err     error // boot or harness error
	logPath string
	boot    bootOutcome
}

func (r row) ok() bool { return r.err == nil && r.res != nil && r.res.OK() }

func runMatrix(ctx context.Context, o *options, stderr io.Writer) ([]row, error) {
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "vmtest: "+format+"\n", a...) }
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "vmtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(o.logDir, 0o755); err != nil {
		return nil, err
	}
	initrds := map[string]string{} // arch -> initramfs path
	var rows []row
	for _, name := range o.kernels {
		k, _ := lookupKernel(name)
		r := row{kernel: k}
		if ctx.Err() != nil {
			r.err = fmt.Errorf("not run: %w", ctx.Err())
			rows = append(rows, r)
			continue
		}
		start := time.Now()
		r.err = func() error {
			vmlinuz, pkg, err := fetchWithPackage(ctx, o.cacheDir, k, logf)
			if err != nil {
				return err
			}
			r.pkg = pkg
			initrd, ok := initrds[k.Arch]
			if !ok {
				initrd, err = buildInitramfs(ctx, root, work, k.Arch, o, logf)
				if err != nil {
					return err
				}
				initrds[k.Arch] = initrd
			}
			g := guest{arch: k.Arch, kernel: vmlinuz, initrd: initrd, memMB: o.memMB, cpus: o.cpus}
			r.logPath = filepath.Join(o.logDir, k.Name+".log")
			logf("kernel %s: booting %s (-accel %s; log: %s)", k.Name, filepath.Base(vmlinuz), o.accel, r.logPath)
			start = time.Now()
			var bootErr error
			r.boot, bootErr = bootGuest(ctx, g, o.accel, o.timeout, r.logPath, logf)
			r.res, err = parseLog(r.logPath)
			if err != nil {
				return err
			}
			if bootErr == nil && !r.res.Done {
				bootErr = noDoneError(r.logPath)
			}
			return bootErr
		}()
		r.wall = time.Since(start)
		if r.res != nil {
			logf("kernel %s (%s %s): %s in %s", k.Name, r.res.Release, r.res.Arch, r.res.Summary(), r.wall.Round(time.Second))
		}
		if r.err != nil {
			logf("kernel %s: %v", k.Name, r.err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// fetchWithPackage fetches k (fetchKernel) and returns its vmlinuz and the
// Debian package it came from ("" when the cache does not record it).
func fetchWithPackage(ctx context.Context, cacheDir string, k Kernel, logf func(string, ...any)) (vmlinuz, pkg string, err error) {
	vmlinuz, err = fetchKernel(ctx, cacheDir, k, logf)
	if err != nil {
		return "", "", err
	}
	if p, err := os.ReadFile(filepath.Join(filepath.Dir(vmlinuz), "package")); err == nil {
		pkg = strings.TrimSpace(string(p))
	}
	return vmlinuz, pkg, nil
}

// hostToolsVM prepares a VM that runs the host's own binaries (-systemd,
// -runtimes): the module root, the first -kernels kernel, which must be
// amd64 because those binaries are (tools says which), and a new work
// directory the caller removes.
func hostToolsVM(o *options, flag, tools string) (root string, k Kernel, work string, err error) {
	if root, err = moduleRoot(); err != nil {
		return "", Kernel{}, "", err
	}
	if k, err = lookupKernel(o.kernels[0]); err != nil {
		return "", Kernel{}, "", err
	}
	if k.Arch != "amd64" {
		return "", Kernel{}, "", fmt.Errorf("%s needs an amd64 kernel (%s), not %s", flag, tools, k.Name)
	}
	work, err = os.MkdirTemp("", "vmtest"+flag+"-")
	return root, k, work, err
}

// parseLog reads a console log back into results.
func parseLog(path string) (*protocol.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return protocol.Parse(f)
}

// noDoneError is a guest that ended (QEMU exited cleanly) before /init
// printed its last marker: /init or the kernel died. It carries the serial
// log's last line, the nearest thing to a cause.
func noDoneError(logPath string) error {
	b, _ := os.ReadFile(logPath)
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	return fmt.Errorf("guest ended without %s; serial tail: %s", protocol.Done, orDash(lastLine(b)))
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the module: run from the repository")
	}
	return filepath.Dir(mod), nil
}

// buildInitramfs cross-compiles /init and the test binaries for arch
// (CGO_ENABLED=0: static, as nothing else is in the guest) and packs them
// with the repository's testdata, mirroring the repository's layout under
// /vmtest so that tests find "../testdata" from their package directory.
func buildInitramfs(ctx context.Context, root, work, arch string, o *options, logf func(string, ...any)) (string, error) {
	dir := filepath.Join(work, arch)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	gobuild := goBuilder(ctx, root, arch)
	logf("building /init and test binaries for %s", arch)
	fs := newInitramfs()
	fs.Dir("proc")
	fs.Dir("sys")
	fs.Dir("tmp")
	fs.Dir("dev")
	fs.CharDev("dev/console", 5, 1)
	initBin := filepath.Join(dir, "init")
	if err := gobuild("build", "-o", initBin, "./internal/vmtest/vminit"); err != nil {
		return "", err
	}
	if err := fs.Copy("init", initBin); err != nil {
		return "", err
	}
	plan, err := testPlan(fs, dir, o, gobuild)
	if err != nil {
		return "", err
	}
	pj, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return "", err
	}
	fs.File(protocol.PlanPath, pj, 0o644)
	if err := addTree(fs, filepath.Join(root, "testdata"), "/vmtest/testdata"); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "initramfs.cpio")
	return out, writeInitrd(fs, out)
}

// goBuilder returns a function that runs the go command in root for a
// static linux/arch build, with its output in the error.
func goBuilder(ctx context.Context, root, arch string) func(args ...string) error {
	return func(args ...string) error {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
}

// testPlan builds a test binary for each of o's packages into dir, copies
// it into fs under /vmtest, and returns the guest's plan: one step per
// package with tests, and the runner's benchmarks when o.bench asks.
func testPlan(fs *initramfs, dir string, o *options, gobuild func(args ...string) error) (protocol.Plan, error) {
	var plan protocol.Plan
	stepTimeout := max(int((o.timeout - time.Minute).Seconds()), 60)
	for _, pkg := range o.pkgs {
		rel := filepath.Clean(strings.TrimPrefix(pkg, "./"))
		name := strings.ReplaceAll(rel, "/", "-")
		bin := filepath.Join(dir, name+".test")
		if err := gobuild("test", "-c", "-o", bin, "./"+rel); err != nil {
			return plan, err
		}
		if _, err := os.Stat(bin); err != nil {
			// go test -c writes nothing for a package without tests.
			continue
		}
		guestDir := "/vmtest/" + filepath.ToSlash(rel)
		if err := fs.Copy(guestDir+"/"+name+".test", bin); err != nil {
			return plan, err
		}
		plan.Steps = append(plan.Steps, protocol.Step{
			Name: name, Path: guestDir + "/" + name + ".test", Args: testArgs(o, stepTimeout), Dir: guestDir,
			Env: []string{"SECCOMPBENCH_VMTEST=1"}, TimeoutSeconds: stepTimeout + 30,
		})
	}
	if len(plan.Steps) == 0 {
		return plan, errors.New("no test binaries to run")
	}
	if o.bench == "" {
		return plan, nil
	}
	for _, st := range plan.Steps {
		if st.Name == "runner" {
			plan.Steps = append(plan.Steps, protocol.Step{
				Name: "runner-bench", Path: st.Path, Dir: st.Dir, Env: st.Env, TimeoutSeconds: st.TimeoutSeconds,
				Args: []string{"-test.v", "-test.run", "^$", "-test.bench", o.bench, "-test.benchtime", "1x", fmt.Sprintf("-test.timeout=%ds", stepTimeout)},
			})
			break
		}
	}
	return plan, nil
}

// testArgs are a test binary's arguments in the guest: verbose, once,
// bounded by stepTimeout seconds, with o's -run, -skip and -short.
func testArgs(o *options, stepTimeout int) []string {
	args := []string{"-test.v", "-test.count=1", fmt.Sprintf("-test.timeout=%ds", stepTimeout)}
	if o.run != "" {
		args = append(args, "-test.run", o.run)
	}
	if o.skip != "" {
		args = append(args, "-test.skip", o.skip)
	}
	if o.short {
		args = append(args, "-test.short")
	}
	return args
}

// addTree adds every regular file under src to fs under dst.
func addTree(fs *initramfs, src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.ToSlash(filepath.Join(dst, rel))
		if d.IsDir() {
			fs.Dir(target)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return fs.Copy(target, p)
	})
}

// markdownTable renders the rows as the table docs/kernels.md carries.
func markdownTable(rows []row) string {
	var b strings.Builder
	b.WriteString("| kernel | arch | package | release | accel | passed | failed | skipped | wall | result |\n")
	b.WriteString("|---|---|---|---|---|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		rel, p, f, s := "-", 0, 0, 0
		if r.res != nil {
			if r.res.Release != "" {
				rel = r.res.Release
			}
			p, f, s = r.res.Counts()
		}
		result := "ok"
		switch {
		case r.err != nil:
			result = "error: " + strings.SplitN(r.err.Error(), "\n", 2)[0]
		case !r.ok():
			result = "FAIL"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %d | %d | %s | %s |\n",
			r.kernel.Name, r.kernel.Arch, orDash(r.pkg), rel, orDash(r.boot.String()), p, f, s, r.wall.Round(time.Second), result)
	}
	b.WriteString(notes(rows))
	return b.String()
}

// notes lists, per kernel, every failed and skipped test (subtests
// included) with its skip reason: what differs between kernels.
func notes(rows []row) string {
	var b strings.Builder
	for _, r := range rows {
		if r.res == nil {
			continue
		}
		for _, st := range r.res.Steps {
			for _, name := range st.Failed {
				fmt.Fprintf(&b, "- %s: FAIL %s/%s\n", r.kernel.Name, st.Name, name)
			}
			for _, name := range st.Skipped {
				reason := st.SkipReasons[name]
				if reason == "" {
					reason = "(no reason logged)"
				}
				fmt.Fprintf(&b, "- %s: skip %s/%s: %s\n", r.kernel.Name, st.Name, name, reason)
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// readLogs builds the rows from the console logs under o.logDir, for
// re-rendering a run without booting again.
func readLogs(_ context.Context, o *options, _ io.Writer) ([]row, error) {
	var rows []row
	for _, name := range o.kernels {
		k, _ := lookupKernel(name)
		r := row{kernel: k, logPath: filepath.Join(o.logDir, k.Name+".log")}
		if p, err := os.ReadFile(filepath.Join(o.cacheDir, "kernels", k.Name, "package")); err == nil {
			r.pkg = strings.TrimSpace(string(p))
		}
		f, err := os.Open(r.logPath)
		if err != nil {
			r.err = err
			rows = append(rows, r)
			continue
		}
		r.res, r.err = protocol.Parse(f)
		f.Close()
		if r.res != nil {
			var secs float64
			for _, st := range r.res.Steps {
				secs += st.Seconds
			}
			r.wall = time.Duration(secs * float64(time.Second))
		}
		rows = append(rows, r)
	}
	return rows, nil
}
