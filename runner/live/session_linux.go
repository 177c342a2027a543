package live

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/internal/kstack"
)

// DefaultFrequency is the default sampling rate per CPU, in Hz: 99, not
// 100, so the samples do not lock step with periodic work (the scheduler
// tick runs at 100-1000 Hz), as perf users sample. Each sample cost the
// CPU it interrupted about 80 us on this project's VM kind (docs/validation/2026-12-02-top-overhead.md;
// the hrtimer interrupt in a guest and the callchain walk, not
// measured apart): 997 Hz slowed a syscall-bound loop by 8 %, 199 Hz with
// the counter by 2.1-3.1 % (intervals up to 5.7 %), 99 Hz with the counter
// by 1.4-1.9 %, about 1.6 % [1.1, 2.2] pooled over three runs.
const DefaultFrequency = 99

// ringBytes is the ring buffer's size, in bytes: at 997 Hz (--frequency)
// on 64 CPUs, 0.2 s of samples.
const ringBytes = 16 << 20

// maxTargets bounds the targets map, in thread groups.
const maxTargets = 4096

// maxCounts bounds the call-count map, in (thread group, syscall) pairs.
const maxCounts = 1 << 16

// Options say what a Session samples.
type Options struct {
	// Pids are the thread groups to sample; ignored with All.
	Pids []int
	// All samples every process on the machine.
	All bool
	// Frequency is the sampling rate per CPU, in Hz; 0 means
	// DefaultFrequency.
	Frequency int
	// Follow adds every process a target forks to the targets, from the
	// fork on (a sched_process_fork raw tracepoint program; the child's
	// tgid offset comes from the kernel's BTF), so the descendants of a
	// process started later are sampled without knowing their IDs.
	// SetTargets still replaces the whole set. Ignored with All. Errors
	// setting it up wrap ErrFollow.
	Follow bool
	// Paused opens the cpu-clock events disabled: no sample is taken
	// until SetEnabled(true).
	Paused bool
}

// Session samples CPU time with perf's software cpu-clock event on every
// online CPU, runs a BPF program on each sample that records the kernel
// callchain and the thread's syscall number into a ring buffer, and can
// count syscalls per thread group with a sys_exit raw tracepoint
// (attached only while counting, since it slows every syscall on the
// machine), and with Options.Follow a sched_process_fork raw tracepoint
// that adds a target's children to the targets. Close detaches everything; the kernel also detaches when
// this process exits (perf and BPF objects are file descriptors).
//
// Requires at least Linux 5.15 (bpf_task_pt_regs) on x86_64.
type Session struct {
	// Period is the sampling period, in ns of CPU time per sample.
	Period time.Duration

	cfg, targets, ring, lost, counts *ebpf.Map
	sampler, counter, follower       *ebpf.Program
	perfFDs                          []int
	reader                           *ringbuf.Reader
	counterLink, followLink          link.Link

	mu      sync.Mutex
	samples []kstack.Sample
	readErr error
	// done is closed when drain returns; nil until it starts.
	done chan struct{}
}

// Open sets up the sampling: it checks permissions, creates the maps,
// loads both programs, opens one cpu-clock event per online CPU with the
// sampling program attached and enables them. Errors are
// *PermissionError (wrapping ErrPermission) when the kernel refuses, or
// wrap ErrNotSupported; nothing stays attached after an error.
func Open(opts Options) (*Session, error) { return open(opts, true) }

// open is Open; check false leaves every refusal to the kernel (tests
// check that its refusals map to *PermissionError too).
func open(opts Options, check bool) (_ *Session, err error) {
	if check {
		if err := CheckPermissions(); err != nil {
			return nil, err
		}
	}
	freq := opts.Frequency
	if freq <= 0 {
		freq = DefaultFrequency
	}
	s := &Session{Period: time.Second / time.Duration(freq)}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := s.createMaps(); err != nil {
		return nil, err
	}
	var cfg [cfgSize]byte
	if opts.All {
		binary.NativeEndian.PutUint32(cfg[cfgAll:], 1)
	}
	if err := s.cfg.Put(uint32(0), cfg[:]); err != nil {
		return nil, fmt.Errorf("configure sampler: %w", err)
	}
	if !opts.All {
		if err := s.SetTargets(opts.Pids); err != nil {
			return nil, err
		}
	}
	if err := s.loadPrograms(); err != nil {
		return nil, err
	}
	if opts.Follow && !opts.All {
		if err := s.follow(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFollow, err)
		}
	}
	if s.reader, err = ringbuf.NewReader(s.ring); err != nil {
		return nil, fmt.Errorf("read the sample ring buffer: %w", err)
	}
	if err := s.openEvents(); err != nil {
		return nil, err
	}
	s.done = make(chan struct{})
	go s.drain()
	if !opts.Paused {
		if err := s.SetEnabled(true); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// createMaps creates the session's BPF maps: the sampler's configuration,
// the target thread groups, the sample ring buffer, the lost-sample
// counter and the per-syscall counts.
func (s *Session) createMaps() (err error) {
	mk := func(name string, spec *ebpf.MapSpec) (*ebpf.Map, error) {
		spec.Name = name
		m, err := ebpf.NewMap(spec)
		if err != nil {
			return nil, bpfError("create BPF map "+name, err)
		}
		return m, nil
	}
	if s.cfg, err = mk("sb_cfg", &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: cfgSize, MaxEntries: 1}); err != nil {
		return err
	}
	if s.targets, err = mk("sb_targets", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 4, ValueSize: 1, MaxEntries: maxTargets}); err != nil {
		return err
	}
	if s.ring, err = mk("sb_ring", &ebpf.MapSpec{Type: ebpf.RingBuf, MaxEntries: ringBytes}); err != nil {
		return err
	}
	if s.lost, err = mk("sb_lost", &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1}); err != nil {
		return err
	}
	if s.counts, err = mk("sb_counts", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: maxCounts}); err != nil {
		return err
	}
	return nil
}

// loadPrograms loads the sampling (BPF_PROG_TYPE_PERF_EVENT) and the
// syscall counting (BPF_PROG_TYPE_RAW_TRACEPOINT) programs over the
// session's maps.
func (s *Session) loadPrograms() (err error) {
	s.sampler, err = ebpf.NewProgram(&ebpf.ProgramSpec{Name: "sb_sample", Type: ebpf.PerfEvent, License: "Dual MIT/GPL",
		Instructions: samplerProgram(s.cfg.FD(), s.targets.FD(), s.ring.FD(), s.lost.FD())})
	if err != nil {
		return bpfError("load the sampling program (BPF_PROG_TYPE_PERF_EVENT)", err)
	}
	s.counter, err = ebpf.NewProgram(&ebpf.ProgramSpec{Name: "sb_count", Type: ebpf.RawTracepoint, License: "Dual MIT/GPL",
		Instructions: counterProgram(s.cfg.FD(), s.targets.FD(), s.counts.FD())})
	if err != nil {
		return bpfError("load the syscall counting program (BPF_PROG_TYPE_RAW_TRACEPOINT)", err)
	}
	return nil
}

// openEvents opens one disabled cpu-clock perf event per online CPU,
// sampling every s.Period, and attaches the sampling program to each.
func (s *Session) openEvents() error {
	cpus, err := onlineCPUs()
	if err != nil {
		return err
	}
	for _, cpu := range cpus {
		attr := unix.PerfEventAttr{
			Type:   unix.PERF_TYPE_SOFTWARE,
			Config: unix.PERF_COUNT_SW_CPU_CLOCK,
			Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
			Sample: uint64(s.Period.Nanoseconds()),
			Bits:   unix.PerfBitDisabled,
		}
		fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			op := fmt.Sprintf("perf_event_open(cpu-clock, cpu %d)", cpu)
			switch {
			case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
				return &PermissionError{Op: op, Err: err, Need: perfNeed()}
			case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
				return fmt.Errorf("%s: %w: %w", op, err, ErrNotSupported)
			}
			return fmt.Errorf("%s: %w", op, err)
		}
		s.perfFDs = append(s.perfFDs, fd)
		if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, s.sampler.FD()); err != nil {
			return bpfError(fmt.Sprintf("attach the sampling program to cpu %d (PERF_EVENT_IOC_SET_BPF)", cpu), err)
		}
	}
	return nil
}

// bpfError maps a refused BPF step to a *PermissionError and a missing
// feature to ErrNotSupported.
func bpfError(op string, err error) error {
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return &PermissionError{Op: op, Err: err, Need: bpfNeed()}
	case errors.Is(err, ebpf.ErrNotSupported):
		return fmt.Errorf("%s: %w: %w (needs Linux 5.15)", op, err, ErrNotSupported)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// onlineCPUs parses /sys/devices/system/cpu/online ("0-3,5").
func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, fmt.Errorf("list online CPUs: %w", err)
	}
	var cpus []int
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, found := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		z := a
		var err2 error
		if found {
			z, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || z < a {
			return nil, fmt.Errorf("list online CPUs: bad range %q in /sys/devices/system/cpu/online", part)
		}
		for c := a; c <= z; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// SetTargets replaces the thread groups sampled and counted (ignored when
// the Session samples all processes).
func (s *Session) SetTargets(pids []int) error {
	if len(pids) > maxTargets {
		return fmt.Errorf("set targets: %d processes, at most %d", len(pids), maxTargets)
	}
	want := map[uint32]bool{}
	for _, p := range pids {
		want[uint32(p)] = true
	}
	var k uint32
	var v uint8
	var stale []uint32
	it := s.targets.Iterate()
	for it.Next(&k, &v) {
		if !want[k] {
			stale = append(stale, k)
		}
	}
	for _, k := range stale {
		if err := s.targets.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return fmt.Errorf("set targets: %w", err)
		}
	}
	for p := range want {
		if err := s.targets.Put(p, uint8(1)); err != nil {
			return fmt.Errorf("set targets: pid %d: %w", p, err)
		}
	}
	return nil
}

// AddTargets adds thread groups to those sampled and counted, keeping
// the others (and those the fork-following program added). Errors name
// the pid the map refused (it holds 4096 thread groups).
func (s *Session) AddTargets(pids []int) error {
	for _, p := range pids {
		if err := s.targets.Put(uint32(p), uint8(1)); err != nil {
			return fmt.Errorf("add target pid %d: %w", p, err)
		}
	}
	return nil
}

// PruneTargets removes the thread groups that have ended (no /proc/PID)
// from the targets and returns how many it removed: the fork-following
// program only adds, so without pruning a target that forks often fills
// the map (then new children are not followed), and an ended child's ID,
// once reused, would sample an unrelated process.
func (s *Session) PruneTargets() (int, error) {
	var k uint32
	var v uint8
	var gone []uint32
	it := s.targets.Iterate()
	for it.Next(&k, &v) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(int(k))); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, k)
		}
	}
	if err := it.Err(); err != nil {
		return 0, fmt.Errorf("prune targets: %w", err)
	}
	n := 0
	for _, k := range gone {
		if err := s.targets.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return n, fmt.Errorf("prune targets: pid %d: %w", k, err)
		}
		n++
	}
	return n, nil
}

// drain reads records from the ring buffer until Close.
func (s *Session) drain() {
	defer close(s.done)
	var rec ringbuf.Record
	for {
		if err := s.reader.ReadInto(&rec); err != nil {
			if errors.Is(err, ringbuf.ErrFlushed) {
				continue
			}
			if !errors.Is(err, os.ErrClosed) {
				s.mu.Lock()
				s.readErr = fmt.Errorf("read samples: %w", err)
				s.mu.Unlock()
			}
			return
		}
		smp, ok := decodeSample(rec.RawSample)
		if !ok {
			continue
		}
		s.mu.Lock()
		s.samples = append(s.samples, smp)
		s.mu.Unlock()
	}
}

// decodeSample decodes one ring buffer record (layout: the rec*
// constants).
func decodeSample(b []byte) (kstack.Sample, bool) {
	if len(b) < recSize {
		return kstack.Sample{}, false
	}
	ne := binary.NativeEndian
	smp := kstack.Sample{
		Time: ne.Uint64(b[recTime:]),
		Tgid: ne.Uint32(b[recTgid:]),
		Tid:  ne.Uint32(b[recTid:]),
		CPU:  ne.Uint32(b[recCPU:]),
		User: ne.Uint32(b[recUser:]) != 0,
		Nr:   int64(ne.Uint64(b[recNr:])),
		AX:   int64(ne.Uint64(b[recAX:])),
		Comm: cString(b[recComm : recComm+16]),
	}
	n := int64(ne.Uint64(b[recStack:]))
	if !smp.User && n > 0 {
		n = min(n/8, StackDepth)
		smp.Stack = make(kstack.Addrs, n)
		for i := range smp.Stack {
			smp.Stack[i] = ne.Uint64(b[recIPs+8*i:])
		}
	}
	return smp, true
}

// cString returns b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// Take returns the samples collected since the last Take, and the first
// error of the reader, if any.
func (s *Session) Take() ([]kstack.Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.samples
	s.samples = nil
	return out, s.readErr
}

// Flush makes samples already in the ring buffer available to Take.
func (s *Session) Flush() {
	if s.reader != nil {
		_ = s.reader.Flush()
	}
	// The reader hands the records to drain; give it a moment to append
	// them.
	time.Sleep(20 * time.Millisecond)
}

// CPUs returns the number of CPUs sampled (one cpu-clock event each).
func (s *Session) CPUs() int { return len(s.perfFDs) }

// Lost returns the number of samples dropped because the ring buffer was
// full.
func (s *Session) Lost() uint64 {
	var v uint64
	if s.lost == nil || s.lost.Lookup(uint32(0), &v) != nil {
		return 0
	}
	return v
}

// CountOn attaches the syscall counter (the sys_exit raw tracepoint). While
// it is attached every syscall of every process takes the tracepoint path
// (kernel/tracepoint.c: syscall_regfunc sets SYSCALL_WORK_SYSCALL_TRACEPOINT
// on all threads), so callers keep it on for a small share of the time.
func (s *Session) CountOn() error {
	if s.counterLink != nil {
		return nil
	}
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "sys_exit", Program: s.counter})
	if err != nil {
		return bpfError("attach the syscall counter (raw tracepoint sys_exit)", err)
	}
	s.counterLink = l
	return nil
}

// CountOff detaches the syscall counter.
func (s *Session) CountOff() error {
	if s.counterLink == nil {
		return nil
	}
	err := s.counterLink.Close()
	s.counterLink = nil
	if err != nil {
		return fmt.Errorf("detach the syscall counter: %w", err)
	}
	return nil
}

// CallCount is the number of calls of one syscall by one thread group.
type CallCount struct {
	Tgid  uint32
	Nr    int32
	Calls uint64
}

// TakeCounts returns the calls counted since the last TakeCounts and
// clears them.
func (s *Session) TakeCounts() ([]CallCount, error) {
	var k, v uint64
	var out []CallCount
	var keys []uint64
	it := s.counts.Iterate()
	for it.Next(&k, &v) {
		out = append(out, CallCount{Tgid: uint32(k >> 32), Nr: int32(uint32(k)), Calls: v})
		keys = append(keys, k)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("read syscall counts: %w", err)
	}
	for _, k := range keys {
		if err := s.counts.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return nil, fmt.Errorf("clear syscall counts: %w", err)
		}
	}
	return out, nil
}

// Close disables and closes the perf events, detaches the counter and
// frees the programs and maps. It is safe to call on a partly opened
// Session.
func (s *Session) Close() error {
	var errs []error
	for _, fd := range s.perfFDs {
		_ = unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_DISABLE, 0)
		if err := unix.Close(fd); err != nil {
			errs = append(errs, fmt.Errorf("close perf event: %w", err))
		}
	}
	s.perfFDs = nil
	if err := s.CountOff(); err != nil {
		errs = append(errs, err)
	}
	if s.followLink != nil {
		if err := s.followLink.Close(); err != nil {
			errs = append(errs, fmt.Errorf("detach the fork-following program: %w", err))
		}
		s.followLink = nil
	}
	if s.reader != nil {
		_ = s.reader.Close()
		if s.done != nil {
			<-s.done
		}
		s.reader = nil
	}
	for _, p := range []*ebpf.Program{s.sampler, s.counter, s.follower} {
		if p != nil {
			_ = p.Close()
		}
	}
	for _, m := range []*ebpf.Map{s.cfg, s.targets, s.ring, s.lost, s.counts} {
		if m != nil {
			_ = m.Close()
		}
	}
	return errors.Join(errs...)
}
