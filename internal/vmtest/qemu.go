package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// qemuArgs returns the QEMU binary and arguments that boot kernel with
// initrd and the serial console on stdio. No disk, no network, no display:
// /init's output on the serial port is the only channel back.
func qemuArgs(arch, kernel, initrd string, memMB, cpus int) (string, []string, error) {
	var bin, console string
	var machine []string
	switch arch {
	case "amd64":
		bin, console = "qemu-system-x86_64", "ttyS0"
		machine = []string{"-machine", "q35"}
		if kvmUsable(arch) {
			machine = append(machine, "-enable-kvm", "-cpu", "host")
		} else {
			machine = append(machine, "-cpu", "max")
		}
	case "arm64":
		bin, console = "qemu-system-aarch64", "ttyAMA0"
		machine = []string{"-machine", "virt", "-cpu", "cortex-a72"}
		if kvmUsable(arch) {
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

// kvmUsable reports whether the guest can use KVM: same arch as the host
// and /dev/kvm openable.
func kvmUsable(arch string) bool {
	if arch != runtime.GOARCH {
		return false
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// boot runs QEMU until it exits or timeout passes, copying the serial
// console to log. On timeout, on ctx's cancellation, and if this process
// dies (Pdeathsig), QEMU and anything it started are killed: it runs in
// its own process group and the whole group gets SIGKILL.
func boot(ctx context.Context, bin string, args []string, timeout time.Duration, log io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = nil
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("%s: timed out after %s (killed)", bin, timeout)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", bin, err)
	}
	return nil
}
