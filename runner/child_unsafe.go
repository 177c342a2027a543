package runner

import (
	"unsafe"

	"github.com/seccompbench/seccompbench/runner/internal/loop"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"golang.org/x/sys/unix"
)

// This file holds the measuring child's code that handles raw pointers:
// the NOSPLIT timed path that runs once filters are installed, and the
// pointers it passes to the kernel.

// cstring keeps a NUL-terminated copy of s in st and returns its address.
func (st *measureState) cstring(s string) uintptr {
	b := append([]byte(s), 0)
	st.cstrs = append(st.cstrs, b)
	return uintptr(unsafe.Pointer(&b[0]))
}

// addrOf is the address of b's first byte (b not empty).
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }

// measure installs the filters and times the workload on the calling,
// locked thread, then spins forever. It is NOSPLIT so that no stack check
// (the runtime's synchronous preemption point) runs while filters that may
// deny futex are installed; everything it calls is NOSPLIT too.
//
//go:nosplit
func measure(st *measureState) {
	spec := st.spec
	st.ctrlPre = timeControl(st)
	// The paired baseline: the same warm-up and timed samples as below,
	// before the stack is installed (st.base is nil unless spec.Paired).
	// It runs before the install, not inside the timed loop after it.
	if st.base != nil {
		for i := 0; i < spec.Warmup; i++ {
			runWorkload(st)
		}
		for i := range st.base {
			t0 := sys.Nanotime()
			runWorkload(st)
			st.base[i] = sys.Nanotime() - t0
		}
	}
	for i := range st.progs {
		t0 := sys.Nanotime()
		_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, uintptr(spec.Flags), uintptr(unsafe.Pointer(&st.progs[i])))
		st.install[i] = sys.Nanotime() - t0
		if e != 0 {
			st.errno = uintptr(e)
			st.failedAt = i
			st.done.Store(1)
			spin()
		}
		st.installed.Add(1)
	}
	if st.notify != nil && !installNotify(st) {
		st.done.Store(1)
		spin()
	}
	st.ctrlPost = timeControl(st)
	for i := 0; i < spec.Warmup; i++ {
		runWorkload(st)
	}
	for i := range st.samples {
		t0 := sys.Nanotime()
		runWorkload(st)
		st.samples[i] = sys.Nanotime() - t0
	}
	st.done.Store(1)
	spin()
}

//go:nosplit
func timeControl(st *measureState) int64 {
	if st.spec.ControlIters == 0 {
		return 0
	}
	loop.Control(st.spec.ControlIters/4+1, &st.ctrlBuf[0]) // warm up
	t0 := sys.Nanotime()
	loop.Control(st.spec.ControlIters, &st.ctrlBuf[0])
	return sys.Nanotime() - t0
}

//go:nosplit
func runWorkload(st *measureState) {
	spec := st.spec
	switch st.loop {
	case kindMix:
		loop.Mix(spec.Iterations, st.fd)
	case kindClose:
		loop.Close(spec.Iterations, st.fd)
	case kindGetpid:
		loop.Getpid(spec.Iterations)
	case kindSyscall:
		loop.Syscall(spec.Iterations, uintptr(spec.Syscall[0]), uintptr(spec.Syscall[1]), uintptr(spec.Syscall[2]), uintptr(spec.Syscall[3]))
	case kindProbe:
		loop.Probe(spec.Iterations, uintptr(spec.Syscall[0]), &st.chase[0], st.steps, st.code, &st.sink)
	case kindNotify:
		runNotify(st)
	case kindExec:
		st.execsOK += loop.Exec(spec.Iterations, &st.execPaths[0], uint64(len(st.execPaths)), &st.argv[0], &st.envp[0], &st.status)
	}
}

// spin never returns and makes no call: the reporter goroutine exits the
// process.
//
//go:nosplit
func spin() {
	//lint:ignore SA5002 the endless loop is the point: it never returns and makes no call
	for {
	}
}
