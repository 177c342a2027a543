// Package jit reads what the kernel says about its BPF JIT and measures
// the JIT charge of filter stacks: holder children keep a stack loaded,
// and bpf_jit_limit is lowered for moments (restored on every exit path)
// to find what the kernel charged.
package jit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/internal/jitmem"
	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"golang.org/x/sys/unix"
)

// Paths of the JIT's sysctls (net/core/sysctl_net_core.c) and of the
// kernel's vmalloc areas (man 5 proc).
const (
	jitLimitPath   = "/proc/sys/net/core/bpf_jit_limit"
	jitHardenPath  = "/proc/sys/net/core/bpf_jit_harden"
	jitEnablePath  = "/proc/sys/net/core/bpf_jit_enable"
	vmallocInfoPat = "/proc/vmallocinfo"
)

// ErrnoENOTSUPP is errno 524, ENOTSUPP (include/linux/errno.h, kernel
// internal): seccomp(2) returns it when the filter cannot be JIT-compiled
// and the kernel has CONFIG_BPF_JIT_ALWAYS_ON (kernel/bpf/core.c:
// bpf_prog_select_runtime), e.g. when bpf_jit_charge_modmem refuses a
// caller without CAP_BPF or CAP_SYS_ADMIN because bpf_jit_limit is reached.
const ErrnoENOTSUPP = syscall.Errno(524)

// JITInfo is what this host says about its BPF JIT. Numbers are bytes;
// -1 means unreadable.
type JITInfo struct {
	// Enable is bpf_jit_enable ("1": on; "" unreadable).
	Enable string
	// Harden is bpf_jit_harden ("0" off, "1" unprivileged, "2" all;
	// constant blinding makes images bigger).
	Harden string
	// Limit is bpf_jit_limit, the bytes unprivileged loaders may be
	// charged in total.
	Limit int64
	// Vmalloc sums /proc/vmallocinfo's BPF areas; VmallocErr says why it
	// could not be read ("" when read).
	Vmalloc    jitmem.VmallocBPF
	VmallocErr string
	// Allocator is the JIT allocator this kernel uses (jitmem.AllocatorFor).
	Allocator jitmem.Allocator
	// Kernel is the release the allocator was chosen from.
	Kernel string
}

// ReadJITInfo reads the JIT sysctls and /proc/vmallocinfo (readable by
// root only). It never fails: what cannot be read is left empty or -1.
func ReadJITInfo() JITInfo {
	ji := JITInfo{Enable: firstLine(jitEnablePath), Harden: firstLine(jitHardenPath), Limit: -1}
	if v, err := strconv.ParseInt(firstLine(jitLimitPath), 10, 64); err == nil {
		ji.Limit = v
	}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		ji.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	ji.Allocator, _ = jitmem.AllocatorFor(ji.Kernel, runtime.GOARCH)
	b, err := os.ReadFile(vmallocInfoPat)
	if err == nil {
		ji.Vmalloc, err = jitmem.ParseVmallocinfo(b)
	}
	if err != nil {
		ji.VmallocErr = err.Error()
	}
	return ji
}

// HoldChild is the holder child: it loads a stack and keeps it until its
// stdin closes (HoldStack). The program's child dispatch must list it.
var HoldChild = child.Kind{Name: "hold-1", Main: holdMain}

// holdSpec is what HoldStack writes on a holder's stdin, one JSON line.
type holdSpec struct {
	Filters  [][]byte `json:"filters"`
	DropCaps bool     `json:"drop_caps"`
}

// holdReport is the holder's one JSON line on stdout.
type holdReport struct {
	Installed int    `json:"installed"`
	Errno     int    `json:"errno"`
	CapEff    string `json:"cap_eff"` // CapEff of the loading thread
	Err       string `json:"err,omitempty"`
}

// holdMain is a holder child's main: it loads the stack on a locked
// thread, without any capability when asked (capset(2) on that thread
// only: capabilities are per thread, and bpf_capable() looks at the
// calling thread's effective set), reports, then keeps the thread and its
// filters until stdin reaches EOF, and exits.
func holdMain() {
	var spec holdSpec
	rd := bufio.NewReader(os.Stdin)
	line, err := rd.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &spec)
	}
	if err != nil {
		fmt.Fprintf(os.Stdout, "{\"err\":%q}\n", "read hold spec: "+err.Error())
		os.Exit(3)
	}
	repc := make(chan holdReport, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the filters live with this thread
		var r holdReport
		if spec.DropCaps {
			hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
			var data [2]unix.CapUserData
			if err := unix.Capset(&hdr, &data[0]); err != nil {
				r.Err = "drop capabilities: " + err.Error()
				repc <- r
				return
			}
		}
		if b, err := os.ReadFile("/proc/thread-self/status"); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
					r.CapEff = strings.TrimSpace(v)
				}
			}
		}
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			r.Err = "set no_new_privs: " + err.Error()
			repc <- r
			return
		}
		fps := make([]sys.SockFprog, len(spec.Filters))
		for i, f := range spec.Filters {
			fp, ok := sys.NewSockFprog(f)
			if !ok {
				r.Err = fmt.Sprintf("filter %d: bad length %d bytes", i, len(f))
				repc <- r
				return
			}
			fps[i] = fp
		}
		// Ready; load when the parent says go (it may lower
		// bpf_jit_limit just for the loading).
		os.Stdout.Write([]byte("ready\n"))
		if _, err := rd.ReadBytes('\n'); err != nil {
			os.Exit(3)
		}
		n, _, e := sys.InstallLoop(fps, 0)
		r.Installed, r.Errno = n, int(e)
		repc <- r
		// Keep this thread (and so the filters) until the parent closes
		// stdin: a raw blocking read, outside the netpoller.
		var buf [512]byte
		for {
			k, err := unix.Read(0, buf[:])
			if err == unix.EINTR {
				continue
			}
			if k <= 0 {
				os.Exit(0)
			}
		}
	}()
	r := <-repc
	out, _ := json.Marshal(r)
	os.Stdout.Write(append(out, '\n'))
	if r.Err != "" {
		os.Exit(3)
	}
	select {} // the loading goroutine exits the process
}

// Holder is a child process that holds a loaded filter stack, and so its
// JIT charge, until Release.
type Holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// Installed is the number of filters loaded; Errno the errno of the
	// first failing seccomp(2) (0 if all loaded; ErrnoENOTSUPP when the
	// JIT limit refused it).
	Installed int
	Errno     syscall.Errno
	// CapEff is the loading thread's effective capability mask (hex, from
	// /proc/thread-self/status): all zero for an unprivileged loader.
	CapEff string
}

// HoldStack starts a holder child that loads stack (sock_filter arrays,
// oldest first), after dropping every capability of its loading thread
// when unprivileged is true, and returns once the child has reported. The
// child keeps the filters until Release; it dies with the parent
// (PR_SET_PDEATHSIG). A failing seccomp(2) is not an error: it is in
// Errno.
func HoldStack(ctx context.Context, stack [][]byte, unprivileged bool) (*Holder, error) {
	return holdStack(ctx, stack, unprivileged, nil)
}

// holdStack is HoldStack; beforeLoad, if not nil, runs once the child is
// ready to load and before it does (limitGuard lowers bpf_jit_limit
// there, so the limit is low only while filters load), and its error
// aborts.
func holdStack(ctx context.Context, stack [][]byte, unprivileged bool, beforeLoad func() error) (*Holder, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable for re-exec: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = child.Environ(HoldChild.Name)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("holder stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("holder stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start holder: %w", err)
	}
	h := &Holder{cmd: cmd, stdin: stdin}
	spec, _ := json.Marshal(holdSpec{Filters: stack, DropCaps: unprivileged})
	if _, err := stdin.Write(append(spec, '\n')); err != nil {
		h.Release()
		return nil, fmt.Errorf("write holder spec: %w", err)
	}
	type res struct {
		r   holdReport
		err error
	}
	done := make(chan res, 1)
	go func() {
		br := bufio.NewReader(stdout)
		line, err := br.ReadBytes('\n')
		if err == nil && string(line) == "ready\n" {
			if beforeLoad != nil {
				err = beforeLoad()
			}
			if err == nil {
				_, err = stdin.Write([]byte("go\n"))
			}
			if err == nil {
				line, err = br.ReadBytes('\n')
			}
		}
		var r holdReport
		if err == nil {
			err = json.Unmarshal(line, &r)
		}
		done <- res{r, err}
	}()
	select {
	case <-ctx.Done():
		h.Release()
		return nil, ctx.Err()
	case <-time.After(child.MinTimeout):
		h.Release()
		return nil, fmt.Errorf("holder: no report within %v", child.MinTimeout)
	case x := <-done:
		if x.err != nil {
			h.Release()
			return nil, fmt.Errorf("read holder report: %w", x.err)
		}
		if x.r.Err != "" {
			h.Release()
			return nil, fmt.Errorf("holder: %s", x.r.Err)
		}
		h.Installed, h.Errno, h.CapEff = x.r.Installed, syscall.Errno(x.r.Errno), x.r.CapEff
	}
	return h, nil
}

// Release ends the holder (closing its stdin) and waits for it; the kernel
// then frees its filters and gives their JIT charge back, from a work
// queue (kernel/bpf/core.c: bpf_prog_free_deferred), so shortly after.
func (h *Holder) Release() error {
	h.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		h.cmd.Process.Kill()
		return <-done
	}
}

// ErrNotRoot is returned by the JIT measurements that write bpf_jit_limit
// without the privilege to (CAP_SYS_ADMIN; net/core/sysctl_net_core.c:
// proc_dolongvec_minmax_bpf_restricted).
var ErrNotRoot = errors.New("writing bpf_jit_limit needs CAP_SYS_ADMIN")

func readJITLimit() (int64, error) {
	b, err := os.ReadFile(jitLimitPath)
	if err != nil {
		return 0, fmt.Errorf("read bpf_jit_limit: %w", err)
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read bpf_jit_limit: %s is not a number", jitLimitPath)
	}
	return v, nil
}

func writeJITLimit(v int64) error {
	if err := os.WriteFile(jitLimitPath, []byte(strconv.FormatInt(v, 10)), 0); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("set bpf_jit_limit to %d: %w (%w)", v, ErrNotRoot, err)
		}
		return fmt.Errorf("set bpf_jit_limit to %d: %w", v, err)
	}
	return nil
}

// firstLine returns the first line of file path without surrounding
// white space, "" when it cannot be read.
func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}
