// Command vminit is the /init of the VM test harness's initramfs
// (internal/vmtest). The kernel runs it as PID 1 with no root file system
// but the initramfs itself. It mounts /proc, /sys and a tmpfs on /tmp,
// prints the kernel release, runs each step of /vmtest/plan.json with its
// output on the console (the serial port the host reads), brackets every
// step with marker lines (see package internal/vmtest/protocol) and powers
// the machine off.
//
// It uses package syscall only: internal/vmtest is test tooling, and the
// project keeps golang.org/x/sys/unix to runner/.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/internal/vmtest/protocol"
)

func main() {
	switch {
	case isProbeDaemon(os.Args[0]):
		probeDaemon()
	case len(os.Args) >= 2 && os.Args[1] == "image-run":
		os.Exit(imageRun(os.Args[2:]))
	case len(os.Args) >= 2 && os.Args[1] == "in-container":
		os.Exit(inContainer(os.Args[2:]))
	case len(os.Args) >= 2 && os.Args[1] == "runtimes-check":
		os.Exit(runtimesCheck(os.Args[2:]))
	case len(os.Args) >= 3 && os.Args[1] == "systemd-check":
		systemdCheck(os.Args[2:])
		return
	}
	err := run()
	if err != nil {
		fmt.Printf("%s %v\n", protocol.Error, err)
	}
	fmt.Println(protocol.Done)
	os.Stdout.Sync()
	// LINUX_REBOOT_CMD_POWER_OFF (include/uapi/linux/reboot.h). QEMU runs
	// with -no-reboot, so a panic (PID 1 exiting) also ends it.
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}

func run() error {
	mounts := []struct{ src, dst, fstype string }{
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"tmpfs", "/tmp", "tmpfs"},
		{"devtmpfs", "/dev", "devtmpfs"},
	}
	for _, m := range mounts {
		if err := os.MkdirAll(m.dst, 0o755); err != nil {
			return err
		}
		if err := syscall.Mount(m.src, m.dst, m.fstype, 0, ""); err != nil && m.fstype != "devtmpfs" {
			return fmt.Errorf("mount %s on %s: %w", m.fstype, m.dst, err)
		}
	}
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		fmt.Printf("%s %s %s\n", protocol.Kernel, strings.TrimSpace(string(rel)), runtime.GOARCH)
	}
	data, err := os.ReadFile(protocol.PlanPath)
	if err != nil {
		return err
	}
	var plan protocol.Plan
	if err := json.Unmarshal(data, &plan); err != nil {
		return fmt.Errorf("decode %s: %w", protocol.PlanPath, err)
	}
	for _, st := range plan.Steps {
		fmt.Printf("%s %s\n", protocol.Begin, st.Name)
		start := time.Now()
		code := runStep(st)
		fmt.Printf("%s %s exit=%d seconds=%.1f\n", protocol.End, st.Name, code, time.Since(start).Seconds())
	}
	return nil
}

// runStep runs one step with the console as its stdout and stderr and
// returns its exit code: -1 if it could not start or was killed, 124 on
// the step's timeout.
func runStep(st protocol.Step) int {
	ctx := context.Background()
	if st.TimeoutSeconds > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(st.TimeoutSeconds)*time.Second)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, st.Path, st.Args...)
	cmd.Dir = st.Dir
	cmd.Env = append([]string{"PATH=/bin:/vmtest", "HOME=/tmp", "TMPDIR=/tmp"}, st.Env...)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stdout
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		fmt.Printf("step %s: timed out after %ds\n", st.Name, st.TimeoutSeconds)
		return 124
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Printf("step %s: %v\n", st.Name, err)
		return -1
	}
	return 0
}
