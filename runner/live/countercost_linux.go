package live

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
)

// CounterCostRounds and CounterCostCalls are what CounterCost measures
// by default: 7 rounds of 20,000 calls with the counter off and 20,000
// with it on (about 0.1 s of calls on this project's VM kind, plus the
// RCU grace period each detach waits for).
const (
	CounterCostRounds = 7
	CounterCostCalls  = 20000
)

// CounterCost measures what the syscall counter adds to each call it
// counts, in ns of CPU time of the calling thread: a thread of this
// process, under a one-instruction SECCOMP_RET_ALLOW filter (so that its
// syscalls take the seccomp entry path, as a filtered target's do: the
// action cache answers them), counted as a target, makes calls getppid
// calls with the counter detached and as many attached, rounds times in
// alternating order, timing each block with CLOCK_THREAD_CPUTIME_ID. The
// cost is the median over rounds of (on − off) / calls, at least 0.
//
// The counter's cost is more than the samples that land in its program
// show: attaching sets SYSCALL_WORK_SYSCALL_TRACEPOINT on every thread
// (kernel/tracepoint.c: syscall_regfunc), so each syscall also takes
// syscall_exit_work and the raw tracepoint's dispatch
// (kernel/trace/bpf_trace.c: bpf_trace_run2). top uses this figure to
// take the counter's slowdown out of the calls it scales to a window.
//
// The filter stays on that one thread, which exits with it (its
// goroutine ends locked to it, so the Go runtime ends the thread); the
// process's other threads are unaffected. Call it when no window is
// being counted: it attaches and detaches the counter, and it clears the
// counts of this process. Errors come from installing the filter
// (seccomp(2)), the targets map or the counter. Requires at least Linux
// 5.15.
func (s *Session) CounterCost(rounds, calls int) (float64, error) {
	if rounds < 1 || calls < 1 {
		return 0, fmt.Errorf("counter cost: %d rounds of %d calls", rounds, calls)
	}
	type result struct {
		ns  float64
		err error
	}
	var run func() result
	run = func() result {
		done := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			if unix.Gettid() == unix.Getpid() {
				// The main thread is never ended by the Go runtime, so the
				// filter would stay on it (and it may later dump other
				// processes' stacks, which the kernel refuses to a
				// filtered caller: kernel/seccomp.c: seccomp_get_filter).
				// Keep it busy here, so the retry lands
				// on another thread.
				r := run()
				runtime.UnlockOSThread()
				done <- r
				return
			}
			// Never unlocked: the thread carries the filter and must end
			// with this goroutine.
			ns, err := s.counterCost(rounds, calls)
			done <- result{ns, err}
		}()
		return <-done
	}
	r := run()
	return r.ns, r.err
}

// allowAll is the one-instruction filter "ret #SECCOMP_RET_ALLOW"
// (include/uapi/linux/filter.h: BPF_RET|BPF_K = 0x06; SECCOMP_RET_ALLOW
// = 0x7fff0000), as struct sock_filter in native byte order.
func allowAll() []byte {
	b := make([]byte, 8)
	binary.NativeEndian.PutUint16(b[0:], 0x06)
	binary.NativeEndian.PutUint32(b[4:], 0x7fff0000)
	return b
}

func (s *Session) counterCost(rounds, calls int) (float64, error) {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("counter cost: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	f := allowAll()
	fp, _ := sys.NewSockFprog(f)
	if n, _, errno := sys.InstallLoop([]sys.SockFprog{fp}, 0); n != 1 {
		return 0, fmt.Errorf("counter cost: install an allow-all filter on the calibrating thread: %w", errno)
	}
	runtime.KeepAlive(f)
	self := uint32(os.Getpid())
	var was uint8
	known := s.targets.Lookup(self, &was) == nil
	if !known {
		if err := s.targets.Put(self, uint8(1)); err != nil {
			return 0, fmt.Errorf("counter cost: add this process to the targets: %w", err)
		}
		defer s.targets.Delete(self)
	}
	defer s.dropCounts(self)
	var per []float64
	for r := range rounds {
		var off, on float64
		for k := range 2 {
			attached := (k == 0) == (r%2 == 0)
			if attached {
				if err := s.CountOn(); err != nil {
					return 0, err
				}
			}
			t := threadCPU()
			for range calls {
				unix.RawSyscall(unix.SYS_GETPPID, 0, 0, 0)
			}
			t = threadCPU() - t
			if attached {
				on = t
				if err := s.CountOff(); err != nil {
					return 0, err
				}
			} else {
				off = t
			}
		}
		per = append(per, (on-off)/float64(calls))
	}
	slices.Sort(per)
	return max(0, per[len(per)/2]), nil
}

// threadCPU is the calling thread's CPU time, in ns
// (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return float64(ts.Nano())
}

// dropCounts deletes the counts of thread group tgid.
func (s *Session) dropCounts(tgid uint32) {
	var k, v uint64
	var keys []uint64
	it := s.counts.Iterate()
	for it.Next(&k, &v) {
		if uint32(k>>32) == tgid {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if err := s.counts.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return
		}
	}
}
