package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Accelerators QEMU can run a guest's CPU with, as given to -accel.
const (
	// accelAuto uses KVM when /dev/kvm opens for a guest of the host's
	// arch, and falls back to TCG for that kernel when the guest cannot
	// run under KVM (see kvmFailure).
	accelAuto = "auto"
	// accelKVM is hardware virtualisation: -enable-kvm -cpu host.
	accelKVM = "kvm"
	// accelTCG is QEMU's software emulation (Tiny Code Generator).
	accelTCG = "tcg"
)

// accelEnv names the environment variable that sets -accel's default, so
// that .ci/run and a user's shell can choose without editing a command
// line.
const accelEnv = "VMTEST_ACCEL"

// Bounds on showing boot progress: the time from QEMU's start to the
// guest's first byte on the serial console. A guest under KVM reaches its
// /init in a few seconds; one that prints nothing for kvmProgressBound is
// taken as unable to run under KVM. Under TCG a kernel with an initramfs
// of test binaries needs tens of seconds, so tcgProgressBound only turns a
// dead guest into an error long before the whole timeout.
// Variables, not constants, so that tests can shorten them.
var (
	kvmProgressBound = 30 * time.Second
	tcgProgressBound = 5 * time.Minute
)

// kvmFailureLine matches what QEMU prints on stderr when the guest cannot
// run under KVM: an internal error (emulation failure, e.g. a locked
// cmpxchg16b that the host's KVM cannot emulate), a failed KVM_RUN, or KVM
// that cannot be set up at all. QEMU pauses the guest after an internal
// error and does not exit, so only reading its stderr tells.
var kvmFailureLine = regexp.MustCompile(`(?i)KVM internal error|kvm run failed|failed to initialize kvm|Could not access KVM kernel module|kvm: .*(not supported|failed)`)

// qemuArgs returns the QEMU binary and arguments that boot kernel with
// initrd and the serial console on stdio under accel (accelKVM or
// accelTCG). No disk, no network, no display: /init's output on the
// serial port is the only channel back.
func qemuArgs(arch, accel, kernel, initrd string, memMB, cpus int) (string, []string, error) {
	if accel != accelKVM && accel != accelTCG {
		return "", nil, fmt.Errorf("accelerator %q: want %s or %s", accel, accelKVM, accelTCG)
	}
	var bin, console string
	var machine []string
	switch arch {
	case "amd64":
		bin, console = "qemu-system-x86_64", "ttyS0"
		machine = []string{"-machine", "q35"}
		if accel == accelKVM {
			machine = append(machine, "-enable-kvm", "-cpu", "host")
		} else {
			machine = append(machine, "-accel", "tcg", "-cpu", "max")
		}
	case "arm64":
		bin, console = "qemu-system-aarch64", "ttyAMA0"
		machine = []string{"-machine", "virt", "-accel", "tcg", "-cpu", "cortex-a72"}
		if accel == accelKVM {
			machine = []string{"-machine", "virt", "-enable-kvm", "-cpu", "host"}
		}
	default:
		return "", nil, fmt.Errorf("no QEMU machine for arch %q", arch)
	}
	args := append(machine,
		"-m", fmt.Sprint(memMB),
		"-smp", fmt.Sprint(cpus),
		"-kernel", kernel,
		"-initrd", initrd,
		// panic=-1 plus -no-reboot: if /init dies the kernel panics,
		// reboots at once, and QEMU exits instead of rebooting.
		"-append", "console="+console+" panic=-1 quiet loglevel=1 rdinit=/init",
		"-display", "none", "-vga", "none",
		"-serial", "stdio", "-monitor", "none",
		"-nodefaults", "-no-reboot",
	)
	return bin, args, nil
}

// kvmDevice is the device kvmUsable opens; tests point it elsewhere.
var kvmDevice = "/dev/kvm"

// kvmUsable reports whether the guest can use KVM: same arch as the host
// and /dev/kvm openable. It cannot tell whether KVM can run the guest:
// bootGuest finds that out by trying.
func kvmUsable(arch string) bool {
	if arch != runtime.GOARCH {
		return false
	}
	f, err := os.OpenFile(kvmDevice, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// guest is one VM to boot: a kernel, its initramfs and the machine.
type guest struct {
	arch    string
	kernel  string
	initrd  string
	memMB   int
	cpus    int
	cmdline string // the kernel command line; "" keeps qemuArgs's
}

// accelParam is the kernel command-line parameter that tells the guest's
// tests which accelerator runs them (testutils.Emulated reads it): timing
// under TCG is QEMU's translation, not the kernel's behaviour. The dot
// makes the kernel take it for a module parameter and leave it alone.
const accelParam = "seccompbench.accel"

// args returns the QEMU binary and arguments for g under accel. The kernel
// command line ends with accelParam=accel.
func (g guest) args(accel string) (string, []string, error) {
	bin, args, err := qemuArgs(g.arch, accel, g.kernel, g.initrd, g.memMB, g.cpus)
	if err != nil {
		return bin, args, err
	}
	for i, a := range args {
		if a == "-append" {
			if g.cmdline != "" {
				args[i+1] = g.cmdline
			}
			args[i+1] += " " + accelParam + "=" + accel
		}
	}
	return bin, args, nil
}

// bootOutcome says how a guest ran.
type bootOutcome struct {
	// Accel is the accelerator the guest's last boot ran under.
	Accel string
	// Fallback is why KVM was given up for TCG ("" if it was not): the
	// cause in one line.
	Fallback string
	// Detect is how long the failed KVM boot took to be recognised.
	Detect time.Duration
}

// String renders o for the matrix table: "kvm", "tcg", or "tcg (kvm:
// CAUSE, detected in 2s)".
func (o bootOutcome) String() string {
	if o.Fallback == "" {
		return o.Accel
	}
	return fmt.Sprintf("%s (kvm: %s; detected in %s)", o.Accel, o.Fallback, o.Detect.Round(time.Second))
}

// resolveAccel turns the -accel choice into the accelerator of the first
// boot for a guest of arch.
func resolveAccel(choice, arch string) (string, error) {
	switch choice {
	case accelAuto:
		if kvmUsable(arch) {
			return accelKVM, nil
		}
		return accelTCG, nil
	case accelKVM:
		if !kvmUsable(arch) {
			return "", fmt.Errorf("-accel kvm: %s cannot be opened for an %s guest on this %s host", kvmDevice, arch, runtime.GOARCH)
		}
		return accelKVM, nil
	case accelTCG:
		return accelTCG, nil
	}
	return "", fmt.Errorf("-accel %q: want %s, %s or %s", choice, accelAuto, accelKVM, accelTCG)
}

// bootGuest boots g under the -accel choice with the serial console (and
// QEMU's own messages) written to logPath, until QEMU exits or timeout
// passes. Under auto, a guest that cannot run under KVM (kvmFailure) is
// killed as soon as that shows and booted again under TCG with a fresh
// log; the failed boot's log is kept beside it as logPath+".kvm". A guest
// that dies or shows no progress is a *guestError.
func bootGuest(ctx context.Context, g guest, choice string, timeout time.Duration, logPath string, logf func(string, ...any)) (bootOutcome, error) {
	accel, err := resolveAccel(choice, g.arch)
	if err != nil {
		return bootOutcome{}, err
	}
	out := bootOutcome{Accel: accel}
	start := time.Now()
	err = bootOnce(ctx, g, accel, timeout, logPath)
	var ge *guestError
	if choice != accelAuto || accel != accelKVM || !errors.As(err, &ge) || !ge.kvm {
		return out, err
	}
	out.Detect = time.Since(start)
	out.Fallback = ge.cause
	if rerr := os.Rename(logPath, logPath+".kvm"); rerr != nil {
		return out, fmt.Errorf("%w (and keeping its log: %v)", err, rerr)
	}
	logf("%s cannot run under KVM (%s), detected in %s; booting again under TCG (KVM log: %s)",
		filepath.Base(g.kernel), ge.cause, out.Detect.Round(time.Second), logPath+".kvm")
	out.Accel = accelTCG
	return out, bootOnce(ctx, g, accelTCG, timeout, logPath)
}

// bootOnce boots g once under accel, writing the serial console and QEMU's
// stderr to a new file at logPath.
func bootOnce(ctx context.Context, g guest, accel string, timeout time.Duration, logPath string) error {
	bin, args, err := g.args(accel)
	if err != nil {
		return err
	}
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	bound := tcgProgressBound
	if accel == accelKVM {
		bound = kvmProgressBound
	}
	err = boot(ctx, bin, args, timeout, bound, accel == accelKVM, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// guestError is a guest that died or never showed progress: its cause in
// one line, the first line of QEMU's error and the tail of the serial log.
type guestError struct {
	bin    string
	cause  string // what was seen: "KVM internal error ...", "no serial output in 30s", "exit status 1"
	qemu   string // QEMU's first stderr line, if any
	serial string // the serial log's last non-empty line, if any
	kvm    bool   // the cause says the guest cannot run under KVM
}

func (e *guestError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: guest died: %s", e.bin, e.cause)
	if e.qemu != "" && !strings.Contains(e.cause, e.qemu) {
		fmt.Fprintf(&b, "; qemu: %s", e.qemu)
	}
	if e.serial != "" {
		fmt.Fprintf(&b, "; serial tail: %s", e.serial)
	} else {
		b.WriteString("; serial console empty")
	}
	return b.String()
}

// watch follows a QEMU run's two streams: it copies both to the log,
// notes the first byte on the serial console (boot progress), keeps the
// serial tail and QEMU's first stderr line, and signals when a stderr line
// says the guest cannot run under KVM.
type watch struct {
	log io.Writer

	mu        sync.Mutex
	tail      []byte // last bytes of the serial console
	stderrBuf []byte // stderr not yet split into lines
	firstErr  string // QEMU's first non-empty stderr line
	kvmLine   string // the stderr line that matched kvmFailureLine

	progress chan struct{} // closed at the first serial byte
	kvmFail  chan struct{} // closed when kvmLine is set
	once     sync.Once
	kvmOnce  sync.Once
}

func newWatch(log io.Writer) *watch {
	return &watch{log: log, progress: make(chan struct{}), kvmFail: make(chan struct{})}
}

const tailBytes = 4096

// serialWriter receives the guest's serial console (QEMU's stdout).
type serialWriter struct{ w *watch }

func (s serialWriter) Write(p []byte) (int, error) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(p) > 0 {
		w.once.Do(func() { close(w.progress) })
	}
	w.tail = append(w.tail, p...)
	if len(w.tail) > tailBytes {
		w.tail = w.tail[len(w.tail)-tailBytes:]
	}
	return w.log.Write(p)
}

// stderrWriter receives QEMU's own messages.
type stderrWriter struct{ w *watch }

func (s stderrWriter) Write(p []byte) (int, error) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stderrBuf = append(w.stderrBuf, p...)
	for {
		i := bytes.IndexByte(w.stderrBuf, '\n')
		if i < 0 {
			break
		}
		w.line(string(w.stderrBuf[:i]))
		w.stderrBuf = w.stderrBuf[i+1:]
	}
	return w.log.Write(p)
}

// line takes one stderr line; w.mu is held.
func (w *watch) line(l string) {
	l = strings.TrimSpace(strings.TrimRight(l, "\r"))
	if l == "" {
		return
	}
	if w.firstErr == "" {
		w.firstErr = l
	}
	if w.kvmLine == "" && kvmFailureLine.MatchString(l) {
		w.kvmLine = l
		w.kvmOnce.Do(func() { close(w.kvmFail) })
	}
}

// flush takes a last stderr line without a newline.
func (w *watch) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.stderrBuf) > 0 {
		w.line(string(w.stderrBuf))
		w.stderrBuf = nil
	}
}

// progressed reports whether the guest has written to the serial console.
func (w *watch) progressed() bool {
	select {
	case <-w.progress:
		return true
	default:
		return false
	}
}

// earlyExit words the cause of a QEMU that exited before the guest printed
// anything: QEMU's first stderr line without the binary's prefix, then how
// it exited ("failed to set MSR 0x10a to 0x69 (signal: aborted)").
func (w *watch) earlyExit(bin string, err error) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := strings.TrimPrefix(w.firstErr, bin+":")
	l = strings.TrimPrefix(strings.TrimSpace(l), "error:")
	if l = strings.TrimSpace(l); l == "" {
		return fmt.Sprintf("QEMU exited before any serial output (%v)", err)
	}
	return fmt.Sprintf("%s (%v)", l, err)
}

// kvmSeen returns the stderr line that said the guest cannot run under
// KVM, or "".
func (w *watch) kvmSeen() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.kvmLine
}

// guestError builds the one-line error for cause; kvm marks a cause that
// says the guest cannot run under KVM.
func (w *watch) guestError(bin, cause string, kvm bool) *guestError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return &guestError{bin: bin, cause: cause, qemu: w.firstErr, serial: lastLine(w.tail), kvm: kvm}
}

// lastLine returns b's last non-empty line, trimmed to 200 bytes.
func lastLine(b []byte) string {
	lines := strings.Split(strings.ReplaceAll(string(b), "\r", ""), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return l
		}
	}
	return ""
}

// boot runs QEMU until it exits or timeout passes, copying the serial
// console and QEMU's stderr to log. It returns early with a *guestError
// when QEMU's stderr says the guest cannot run under KVM, or when the
// serial console stays empty for progressBound. Under kvm, both of those
// and a QEMU that exits or aborts for any reason before the guest's first
// serial byte count as KVM failures (guestError.kvm): the guest never
// started, so the kernel under test has not been tried. A guest that has
// printed and then dies is the kernel's failure. On every early return, on timeout, on ctx's
// cancellation, and if this process dies (Pdeathsig), QEMU and anything it
// started are killed: it runs in its own process group and the whole group
// gets SIGKILL.
func boot(ctx context.Context, bin string, args []string, timeout, progressBound time.Duration, kvm bool, log io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	w := newWatch(log)
	cmd := exec.Command(bin, args...)
	cmd.Stdin = nil
	cmd.Stdout = serialWriter{w}
	cmd.Stderr = stderrWriter{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", bin, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	kill := func() error {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err := <-done
		w.flush()
		return err
	}
	var noProgress <-chan time.Time
	if progressBound > 0 {
		t := time.NewTimer(progressBound)
		defer t.Stop()
		noProgress = t.C
	}
	progress := w.progress
	for {
		select {
		case err := <-done:
			w.flush()
			if l := w.kvmSeen(); l != "" {
				return w.guestError(bin, l, kvm)
			}
			if err != nil && kvm && !w.progressed() {
				// QEMU ended before the guest printed anything: under
				// KVM that is the accelerator (a CPU model the host's
				// KVM refuses, e.g. "failed to set MSR 0x10a"), not
				// the kernel under test.
				return w.guestError(bin, w.earlyExit(bin, err), true)
			}
			if err != nil {
				return w.guestError(bin, err.Error(), false)
			}
			return nil
		case <-w.kvmFail:
			kill()
			return w.guestError(bin, w.kvmSeen(), kvm)
		case <-progress:
			progress, noProgress = nil, nil
		case <-noProgress:
			kill()
			return w.guestError(bin, fmt.Sprintf("no output on the serial console in %s", progressBound), kvm)
		case <-ctx.Done():
			kill()
			if ctx.Err() == context.DeadlineExceeded {
				return fmt.Errorf("%s: timed out after %s (killed); serial tail: %s", bin, timeout, orDash(w.guestError(bin, "", false).serial))
			}
			return fmt.Errorf("%s: %w (killed)", bin, ctx.Err())
		}
	}
}
