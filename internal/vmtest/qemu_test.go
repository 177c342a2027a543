package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeQEMU puts a stand-in for the host arch's QEMU binary first on PATH:
// a shell script that runs kvmScript when its arguments ask for KVM and
// tcgScript otherwise. It returns the QEMU binary name.
func fakeQEMU(t *testing.T, kvmScript, tcgScript string) string {
	t.Helper()
	bin, _, err := qemuArgs(runtime.GOARCH, accelTCG, "/k", "/i", 64, 1)
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \" $* \" in\n*\" -enable-kvm \"*)\n" + kvmScript + "\n;;\n*)\n" + tcgScript + "\n;;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, bin), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return bin
}

// fakeKVM makes kvmUsable true for the test: kvmDevice becomes an
// openable file.
func fakeKVM(t *testing.T) {
	t.Helper()
	dev := filepath.Join(t.TempDir(), "kvm")
	if err := os.WriteFile(dev, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := kvmDevice
	kvmDevice = dev
	t.Cleanup(func() { kvmDevice = old })
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// On a host whose KVM cannot run the guest, QEMU prints an internal error
// and pauses the guest without exiting (the recorded stderr, then a long
// sleep). auto must see it in seconds, kill that QEMU, boot the same
// kernel under TCG with a fresh log, and keep the KVM log beside it.
func TestBootGuestFallsBackOnKVMInternalError(t *testing.T) {
	fakeKVM(t)
	stderr := fixture(t, "kvm-internal-error.stderr")
	serial := fixture(t, "tcg-boot.serial")
	fakeQEMU(t, "cat "+stderr+" >&2; exec sleep 60", "cat "+serial+"; exit 0")
	logPath := filepath.Join(t.TempDir(), "k.log")
	g := guest{arch: runtime.GOARCH, kernel: "/k", initrd: "/i", memMB: 64, cpus: 1}
	start := time.Now()
	out, err := bootGuest(t.Context(), g, accelAuto, time.Minute, logPath, t.Logf)
	if err != nil {
		t.Fatalf("bootGuest: %v", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("fallback took %s; the KVM failure must be seen at once, not at a timeout", took)
	}
	if out.Accel != accelTCG || !strings.Contains(out.Fallback, "KVM internal error. Suberror: 1") {
		t.Errorf("outcome %+v, want tcg after a KVM internal error", out)
	}
	if s := out.String(); !strings.HasPrefix(s, "tcg (kvm: KVM internal error") {
		t.Errorf("table cell %q", s)
	}
	res, err := parseLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Errorf("TCG log does not parse as a finished run: %+v", res)
	}
	kvmLog, err := os.ReadFile(logPath + ".kvm")
	if err != nil || !strings.Contains(string(kvmLog), "emulation failure") {
		t.Errorf("KVM log kept as %s.kvm: %v, %q", logPath, err, kvmLog)
	}
	if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "KVM internal error") {
		t.Error("the TCG log repeats the KVM boot's output")
	}
}

// A guest that prints nothing under KVM within the bound is taken as
// unable to run there, and auto falls back.
func TestBootGuestFallsBackOnNoProgress(t *testing.T) {
	fakeKVM(t)
	serial := fixture(t, "tcg-boot.serial")
	fakeQEMU(t, "exec sleep 60", "cat "+serial)
	old := kvmProgressBound
	kvmProgressBound = 500 * time.Millisecond
	t.Cleanup(func() { kvmProgressBound = old })
	logPath := filepath.Join(t.TempDir(), "k.log")
	g := guest{arch: runtime.GOARCH, kernel: "/k", initrd: "/i", memMB: 64, cpus: 1}
	out, err := bootGuest(t.Context(), g, accelAuto, time.Minute, logPath, t.Logf)
	if err != nil {
		t.Fatalf("bootGuest: %v", err)
	}
	if out.Accel != accelTCG || !strings.Contains(out.Fallback, "no output on the serial console") {
		t.Errorf("outcome %+v, want tcg after no progress", out)
	}
}

// -accel kvm never falls back: the guest's death is the error, in one
// line with QEMU's first line and the serial tail.
func TestBootGuestKVMOnlyReportsCause(t *testing.T) {
	fakeKVM(t)
	stderr := fixture(t, "kvm-internal-error.stderr")
	fakeQEMU(t, "echo 'Linux version 5.10'; cat "+stderr+" >&2; exec sleep 60", "exit 0")
	logPath := filepath.Join(t.TempDir(), "k.log")
	g := guest{arch: runtime.GOARCH, kernel: "/k", initrd: "/i", memMB: 64, cpus: 1}
	out, err := bootGuest(t.Context(), g, accelKVM, time.Minute, logPath, t.Logf)
	var ge *guestError
	if !errors.As(err, &ge) {
		t.Fatalf("bootGuest: %v, want a guest error", err)
	}
	if out.Accel != accelKVM || out.Fallback != "" {
		t.Errorf("outcome %+v, want kvm without fallback", out)
	}
	msg := err.Error()
	for _, want := range []string{"guest died: KVM internal error. Suberror: 1", "serial tail: Linux version 5.10"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error %q is not one line", msg)
	}
}

// Without /dev/kvm, auto boots under TCG at once, as before.
func TestResolveAccel(t *testing.T) {
	old := kvmDevice
	kvmDevice = filepath.Join(t.TempDir(), "absent")
	t.Cleanup(func() { kvmDevice = old })
	if a, err := resolveAccel(accelAuto, runtime.GOARCH); err != nil || a != accelTCG {
		t.Errorf("auto without /dev/kvm: %q, %v; want tcg", a, err)
	}
	if _, err := resolveAccel(accelKVM, runtime.GOARCH); err == nil {
		t.Error("kvm without /dev/kvm succeeded")
	}
	if _, err := resolveAccel("hvf", runtime.GOARCH); err == nil {
		t.Error("unknown accelerator accepted")
	}
	fakeKVM(t)
	if a, _ := resolveAccel(accelAuto, "mips64"); a != accelTCG {
		t.Errorf("auto for a foreign arch: %q, want tcg", a)
	}
}

// A QEMU that exits with an error is a guest error naming QEMU's first
// line and the serial tail; a clean exit before /init's last marker is an
// error too.
func TestBootGuestDies(t *testing.T) {
	fakeQEMU(t, "exit 9", "echo 'VMTEST:KERNEL 6.1.0 amd64'; echo 'qemu-system: -kernel /k: could not load' >&2; exit 1")
	logPath := filepath.Join(t.TempDir(), "k.log")
	g := guest{arch: runtime.GOARCH, kernel: "/k", initrd: "/i", memMB: 64, cpus: 1}
	_, err := bootGuest(t.Context(), g, accelTCG, time.Minute, logPath, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "qemu: qemu-system: -kernel /k: could not load") || !strings.Contains(err.Error(), "serial tail: VMTEST:KERNEL 6.1.0 amd64") {
		t.Errorf("error %v", err)
	}
	if err := os.WriteFile(logPath, []byte("VMTEST:KERNEL 6.1.0 amd64\nKernel panic - not syncing: Attempted to kill init!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := noDoneError(logPath); !strings.Contains(err.Error(), "serial tail: Kernel panic - not syncing") {
		t.Errorf("noDoneError: %v", err)
	}
}

// QEMU that dies under KVM before the guest's first serial byte, for any
// reason, is the accelerator's failure: auto boots the same kernel under
// TCG, names the cause in the accel column, and keeps the KVM log. The
// first case is the abort recorded on an AMD EPYC host (MSR 0x10a, then
// SIGABRT); the second an exit 1 with a message kvmFailureLine does not
// know.
func TestBootGuestFallsBackOnEarlyExit(t *testing.T) {
	serial := fixture(t, "tcg-boot.serial")
	abort := fixture(t, "kvm-msr-abort.stderr")
	tests := []struct {
		name      string
		kvm       string
		wantCause string
	}{
		{"sigabrt", "cat " + abort + " >&2; kill -ABRT $$", "failed to set MSR 0x10a to 0x69 (signal: aborted)"},
		{"exit1", "echo 'qemu-system-x86_64: Property host-phys-bits not supported' >&2; exit 1", "Property host-phys-bits not supported (exit status 1)"},
		{"silent", "exit 3", "QEMU exited before any serial output (exit status 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakeKVM(t)
			fakeQEMU(t, tt.kvm, "cat "+serial+"; exit 0")
			logPath := filepath.Join(t.TempDir(), "k.log")
			g := guest{arch: runtime.GOARCH, kernel: "/k", initrd: "/i", memMB: 64, cpus: 1}
			out, err := bootGuest(t.Context(), g, accelAuto, time.Minute, logPath, t.Logf)
			if err != nil {
				t.Fatalf("bootGuest: %v", err)
			}
			if out.Accel != accelTCG || out.Fallback != tt.wantCause {
				t.Errorf("outcome %+v, want tcg after %q", out, tt.wantCause)
			}
			if s, want := out.String(), "tcg (kvm: "+tt.wantCause+"; detected in "; !strings.HasPrefix(s, want) {
				t.Errorf("accel column %q, want it to start %q", s, want)
			}
			if res, err := parseLog(logPath); err != nil || !res.OK() {
				t.Errorf("TCG log: %+v, %v; want a finished run", res, err)
			}
			if _, err := os.Stat(logPath + ".kvm"); err != nil {
				t.Errorf("KVM log not kept: %v", err)
			}
		})
	}
}

// -accel kvm reports the early abort in one line and never falls back.
func TestBootGuestKVMOnlyReportsEarlyExit(t *testing.T) {
	fakeKVM(t)
	abort := fixture(t, "kvm-msr-abort.stderr")
	fakeQEMU(t, "cat "+abort+" >&2; kill -ABRT $$", "exit 0")
	g := guest{arch: runtime.GOARCH, kernel: "/k", initrd: "/i", memMB: 64, cpus: 1}
	out, err := bootGuest(t.Context(), g, accelKVM, time.Minute, filepath.Join(t.TempDir(), "k.log"), t.Logf)
	var ge *guestError
	if !errors.As(err, &ge) || out.Fallback != "" || out.Accel != accelKVM {
		t.Fatalf("bootGuest: %+v, %v; want a kvm guest error without fallback", out, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "guest died: failed to set MSR 0x10a to 0x69 (signal: aborted)") || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want the cause in one line", msg)
	}
}

// A guest that printed and then died under KVM is the kernel's failure,
// not the accelerator's: auto does not boot it again under TCG.
func TestBootGuestNoFallbackAfterProgress(t *testing.T) {
	fakeKVM(t)
	fakeQEMU(t, "echo 'VMTEST:KERNEL 5.10.0 amd64'; echo 'Kernel panic - not syncing' ; exit 1", "echo tcg; exit 0")
	logPath := filepath.Join(t.TempDir(), "k.log")
	g := guest{arch: runtime.GOARCH, kernel: "/k", initrd: "/i", memMB: 64, cpus: 1}
	out, err := bootGuest(t.Context(), g, accelAuto, time.Minute, logPath, t.Logf)
	var ge *guestError
	if !errors.As(err, &ge) || ge.kvm {
		t.Fatalf("bootGuest: %v; want the guest's own failure", err)
	}
	if out.Accel != accelKVM || out.Fallback != "" {
		t.Errorf("outcome %+v, want kvm without fallback", out)
	}
	if !strings.Contains(err.Error(), "serial tail: Kernel panic - not syncing") {
		t.Errorf("error %q lacks the serial tail", err)
	}
}

// TestGuestArgsCarryAccel checks that every boot tells the guest's tests
// its accelerator on the kernel command line, with qemuArgs's line and
// with a guest's own (testutils.Emulated reads it).
func TestGuestArgsCarryAccel(t *testing.T) {
	for _, g := range []guest{
		{arch: "amd64", kernel: "k", initrd: "i", memMB: 512, cpus: 2},
		{arch: "arm64", kernel: "k", initrd: "i", memMB: 512, cpus: 2},
		{arch: "amd64", kernel: "k", initrd: "i", memMB: 512, cpus: 2, cmdline: "console=ttyS0 rdinit=/sbin/init"},
	} {
		for _, accel := range []string{accelKVM, accelTCG} {
			_, args, err := g.args(accel)
			if err != nil {
				t.Fatal(err)
			}
			var line string
			for i, a := range args {
				if a == "-append" {
					line = args[i+1]
				}
			}
			if !strings.HasSuffix(line, " seccompbench.accel="+accel) || !strings.Contains(line, "rdinit=") {
				t.Errorf("%s guest (cmdline %q) under %s: kernel command line %q, want it to end with seccompbench.accel=%s", g.arch, g.cmdline, accel, line, accel)
			}
		}
	}
}
