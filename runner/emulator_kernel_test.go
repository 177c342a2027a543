//go:build linux && (amd64 || arm64)

package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/kerneltest"
)

// The emulator-vs-kernel agreement test (issue 3): every testdata policy,
// and a few stacks of them, with every return value remapped to an action
// that never runs the syscall, is installed on one thread of a child
// process; that thread calls a broad set of syscall numbers and argument
// values, and the errno the kernel returned must equal the one
// filters.EmulateStack predicts for the remapped stack, every time.

// probeChildEnv makes the test binary a probe child (runProbeChild) instead
// of running tests.
const probeChildEnv = "SECCOMPBENCH_PROBE_CHILD"

// ABIs a probe is made through.
const (
	probeX86_64 = iota // SYSCALL, table number as is
	probeI386          // INT $0x80
	probeX32           // SYSCALL, table number | X32SyscallBit
)

// kernelProbe is one syscall the probe child makes.
type kernelProbe struct {
	ABI  int       `json:"abi"`
	Nr   uint32    `json:"nr"` // table number, without the x32 bit
	Args [6]uint64 `json:"args"`
}

func (p kernelProbe) arch() *filters.Arch {
	return probeArches[p.ABI]
}

func (p kernelProbe) String() string {
	return fmt.Sprintf("%s nr %d args %#x", p.arch(), p.Nr, p.Args)
}

// probeChildSpec is what the parent writes on the probe child's stdin.
type probeChildSpec struct {
	Filters [][]byte      `json:"filters"` // sock_filter arrays, oldest first
	Flags   uint          `json:"flags"`
	Probes  []kernelProbe `json:"probes"`
}

// probeChildReport is what the probe child writes on stdout.
type probeChildReport struct {
	Rets      []int64 `json:"rets"` // raw result per probe: -errno when denied
	Installed int     `json:"installed"`
	Err       string  `json:"err,omitempty"`
}

// maybeRunProbeChild runs the probe child and exits when this process is
// one; otherwise it returns at once. TestMain calls it first.
func maybeRunProbeChild() {
	if os.Getenv(probeChildEnv) != "1" {
		return
	}
	// The recipe of docs/limits.md, "The Go-runtime trap": no GC (and no async preemption, from the
	// parent's GODEBUG), two Ps so that the spinning prober cannot starve
	// the reporter.
	debug.SetGCPercent(-1)
	runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	rep := runProbeChild(os.Stdin)
	out, _ := json.Marshal(rep)
	os.Stdout.Write(append(out, '\n'))
	if rep.Err != "" {
		os.Exit(3)
	}
	os.Exit(0)
}

// probeState is everything the probing thread touches after installing.
type probeState struct {
	probes    []kernelProbe
	rets      []int64
	installed int
	err       error
	done      uint32 // set to 1 by storeFlag, read with atomic.LoadUint32
}

// runProbeChild installs the spec's filters on a locked thread, makes every
// probe there with raw syscalls only, and reports from this (unfiltered)
// thread. The probing thread spins forever afterwards; os.Exit ends it.
func runProbeChild(in io.Reader) probeChildReport {
	var spec probeChildSpec
	if err := json.NewDecoder(in).Decode(&spec); err != nil {
		return probeChildReport{Err: fmt.Sprintf("decode probe spec: %v", err)}
	}
	st := &probeState{probes: spec.Probes, rets: make([]int64, len(spec.Probes))}
	var tid atomic.Int64
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the process
		tid.Store(int64(unix.Gettid()))
		// A fresh time slice, so that sysmon does not mark this goroutine
		// for preemption while kerneltest.InstallFilters returns.
		runtime.Gosched()
		probeThread(st, spec.Filters, spec.Flags)
	}()
	// Poll with raw nanosleep, never block on the prober (see ChildMain).
	pause := unix.NsecToTimespec(int64(time.Millisecond))
	for atomic.LoadUint32(&st.done) == 0 {
		unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&pause)), 0, 0)
		if t := tid.Load(); t != 0 {
			if _, err := os.Stat("/proc/self/task/" + strconv.FormatInt(t, 10)); err != nil {
				return probeChildReport{Err: fmt.Sprintf("probing thread %d died", t)}
			}
		}
	}
	rep := probeChildReport{Rets: st.rets, Installed: st.installed}
	if st.err != nil {
		rep.Rets, rep.Err = nil, st.err.Error()
	}
	return rep
}

// probeThread installs filters on the calling, locked thread, makes the
// probes, publishes the results and spins forever. NORACE, like everything
// it runs after the first filter: the race detector's hooks may make
// syscalls the filters deny (its trace buffers grow with mmap; with mmap
// denied the child died with SIGSEGV under -race).
//
//go:norace
func probeThread(st *probeState, progs [][]byte, flags uint) {
	n, err := kerneltest.InstallFilters(progs, flags)
	st.installed, st.err = n, err
	if err == nil {
		probeAll(st.probes, st.rets)
	}
	kerneltest.StoreFlag(&st.done, 1)
	probeSpin()
}

// probeSpin never returns; the reporter exits the process. Unlike spin it
// calls no race-detector hook either.
//
//go:nosplit
//go:norace
func probeSpin() {
	//lint:ignore SA5002 the endless loop is the point: it never returns and makes no call
	for {
	}
}

// probeAll makes every probe and stores the raw results. NOSPLIT, calling
// only NOSPLIT assembly: no preemption point, no syscall but the probes.
// NORACE: the race detector's hooks may make syscalls the filters deny.
//
//go:nosplit
//go:norace
func probeAll(ps []kernelProbe, rets []int64) {
	for i := range ps {
		p := &ps[i]
		switch p.ABI {
		case probeX86_64:
			rets[i] = int64(kerneltest.Probe64(uintptr(p.Nr), uintptr(p.Args[0]), uintptr(p.Args[1]), uintptr(p.Args[2]), uintptr(p.Args[3]), uintptr(p.Args[4]), uintptr(p.Args[5])))
		case probeX32:
			rets[i] = int64(kerneltest.Probe64(uintptr(p.Nr|filters.X32SyscallBit), uintptr(p.Args[0]), uintptr(p.Args[1]), uintptr(p.Args[2]), uintptr(p.Args[3]), uintptr(p.Args[4]), uintptr(p.Args[5])))
		case probeI386:
			rets[i] = int64(kerneltest.Probe32(p.Nr, uint32(p.Args[0]), uint32(p.Args[1]), uint32(p.Args[2]), uint32(p.Args[3]), uint32(p.Args[4]), uint32(p.Args[5])))
		}
	}
}

// startProbeChild runs a probe child with spec and returns its report and
// PID.
func startProbeChild(t *testing.T, spec probeChildSpec) (probeChildReport, int, error) {
	t.Helper()
	in, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	// exec.Cmd keeps the last of duplicate variables.
	cmd.Env = append(os.Environ(), probeChildEnv+"=1", "GODEBUG=asyncpreemptoff=1", "GOGC=off", child.Env+"=")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	runErr := cmd.Run()
	var rep probeChildReport
	decErr := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &rep)
	pid := 0
	if cmd.Process != nil {
		pid = cmd.Process.Pid
	}
	switch {
	case runErr != nil && decErr == nil && rep.Err != "":
		return rep, pid, fmt.Errorf("probe child: %s", rep.Err)
	case runErr != nil:
		return rep, pid, fmt.Errorf("probe child: %w; stderr: %s", runErr, firstLines(stderr.String(), 5))
	case decErr != nil:
		return rep, pid, fmt.Errorf("decode probe child report: %w", decErr)
	}
	return rep, pid, nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// i386Works reports whether INT $0x80 syscalls work in a child (they fault
// without IA-32 emulation): getpid through it must return the child's PID.
func i386Works(t *testing.T) (bool, string) {
	getpid, _ := filters.ArchI386.Lookup("getpid")
	rep, pid, err := startProbeChild(t, probeChildSpec{Probes: []kernelProbe{{ABI: probeI386, Nr: uint32(getpid)}}})
	if err != nil {
		return false, err.Error()
	}
	if len(rep.Rets) != 1 || rep.Rets[0] != int64(pid) {
		return false, fmt.Sprintf("i386 getpid returned %v, want %d", rep.Rets, pid)
	}
	return true, ""
}

// installFlags are the flags the probe child installs with; the remap
// prefix lets exactly these seccomp(2) calls through.
const installFlags = unix.SECCOMP_FILTER_FLAG_SPEC_ALLOW

// installerPrefix lets the probe child's own
// seccomp(SECCOMP_SET_MODE_FILTER, installFlags, prog) calls through every
// filter already installed, so the next can be attached; every other
// seccomp_data falls through to the program after it. No probe matches it
// (makeProbes drops such argument sets, and the test checks that the
// emulator allows no probe).
func installerPrefix() []bpf.RawInstruction {
	checks := []struct{ off, val uint32 }{
		{filters.OffsetArch, probeArches[probeX86_64].AuditArch},
		{filters.OffsetNr, unix.SYS_SECCOMP},
		{filters.OffsetArgs + 0, unix.SECCOMP_SET_MODE_FILTER}, // args[0], low word
		{filters.OffsetArgs + 4, 0},                            // args[0], high word
		{filters.OffsetArgs + 8, installFlags},                 // args[1], low word
		{filters.OffsetArgs + 12, 0},                           // args[1], high word
	}
	var ins []bpf.Instruction
	for i, c := range checks {
		// Skip to the first instruction after the prefix on mismatch:
		// the remaining checks (2 instructions each) and the ret.
		skip := 2*(len(checks)-i-1) + 1
		ins = append(ins,
			bpf.LoadAbsolute{Off: c.off, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: c.val, SkipFalse: uint8(skip)})
	}
	ins = append(ins, bpf.RetConstant{Val: uint32(filters.ActionAllow)})
	raw, err := bpf.Assemble(ins)
	if err != nil {
		panic(err)
	}
	return raw
}

// Remap modes.
const (
	// remapDistinct turns every return value into ERRNO with a data value
	// unique to (stack position, original value): the errno says which
	// return of which filter decided. As all filters return ERRNO, the
	// newest always decides (ties go to the newest).
	remapDistinct = "distinct"
	// remapPrecedence turns ALLOW, LOG, TRACE and USER_NOTIF into TRACE
	// (ENOSYS without a tracer: seccomp(2)) and every other action into a
	// distinct ERRNO, so which filter decides depends on the verdicts of
	// all of them: ERRNO beats TRACE, and ties go to the newest.
	remapPrecedence = "precedence"
)

// remapStack returns s with installerPrefix prepended to every program and
// every `ret #k` remapped as mode says. It returns an error for a `ret a`,
// whose value the remap cannot control.
func remapStack(s filters.Stack, mode string) (filters.Stack, error) {
	prefix := installerPrefix()
	out := make(filters.Stack, len(s))
	next := uint32(1) // errno values handed out so far + 1
	for i, p := range s {
		q := *p
		q.Name = fmt.Sprintf("%s#%d", p.Name, i)
		q.Insns = append(append([]bpf.RawInstruction(nil), prefix...), p.Insns...)
		codes := map[uint32]uint32{}
		for j := len(prefix); j < len(q.Insns); j++ {
			in := &q.Insns[j]
			switch in.Op {
			case 0x06: // BPF_RET|BPF_K (include/uapi/linux/filter.h)
			case 0x16: // BPF_RET|BPF_A
				return nil, fmt.Errorf("remap %s: instruction %d returns the accumulator", p.Name, j-len(prefix))
			default:
				continue
			}
			if mode == remapPrecedence {
				switch filters.KernelAction(in.K) {
				case filters.ActionAllow, filters.ActionLog, filters.ActionTrace, filters.ActionUserNotif:
					in.K = uint32(filters.ActionTrace)
					continue
				}
			}
			c, ok := codes[in.K]
			if !ok {
				if next > filters.MaxErrno {
					return nil, fmt.Errorf("remap: more than %d distinct return values", filters.MaxErrno)
				}
				c = uint32(filters.ActionErrno) | next
				next++
				codes[in.K] = c
			}
			in.K = c
		}
		out[i] = &q
	}
	return out, nil
}

// argPool returns argument words worth probing: small values, boundaries,
// and every jump constant of the stack's programs with its neighbours, so
// that argument rules see values on both sides of their comparisons.
func argPool(s filters.Stack) []uint32 {
	seen := map[uint32]bool{}
	var pool []uint32
	add := func(v uint32) {
		if !seen[v] {
			seen[v] = true
			pool = append(pool, v)
		}
	}
	for _, v := range []uint32{0, 1, 2, 3, 9, 0x7fffffff, 0x80000000, 0xffffffff} {
		add(v)
	}
	for _, p := range s {
		for _, in := range p.Insns {
			// BPF_JMP with a BPF_K operand, other than BPF_JA.
			if in.Op&0x07 == 0x05 && in.Op&0x08 == 0 && in.Op&0xf0 != 0x00 {
				add(in.K - 1)
				add(in.K)
				add(in.K + 1)
			}
		}
	}
	return pool
}

// makeProbes lists the syscalls to make: every number 0..1023 of each ABI
// (and a few edge numbers) without arguments, plus argument samples from
// pool for the numbers that exist. x86_64 numbers 335 (uretprobe) and 336
// (uprobe) are left out: kernel/seccomp.c: seccomp_uprobe_exception lets
// them through without running any filter (uprobe since Linux 6.18,
// uretprobe since its 2025 fix), and uretprobe outside a uretprobe
// trampoline kills the caller (SIGILL on Linux 6.18: docs/limits.md,
// "Kernel features and versions").
func makeProbes(rng *rand.Rand, pool []uint32, i386 bool) []kernelProbe {
	word := func() uint32 {
		if rng.IntN(8) == 0 {
			return rng.Uint32()
		}
		return pool[rng.IntN(len(pool))]
	}
	arg64 := func() uint64 {
		v := uint64(word())
		if rng.IntN(4) == 0 {
			v |= uint64(word()) << 32
		}
		return v
	}
	const maxNr, argsBelow = 1023, 480
	var ps []kernelProbe
	abis := append([]int(nil), probeABIs...)
	if i386 {
		abis = append(abis, probeI386)
	}
	for _, abi := range abis {
		nrs := make([]uint32, 0, maxNr+5)
		for nr := uint32(0); nr <= maxNr; nr++ {
			nrs = append(nrs, nr)
		}
		if abi != probeX32 {
			nrs = append(nrs, 0x3fffffff, 0x7fffffff, 0x80000000, 0xffffffff)
		}
		for _, nr := range nrs {
			if abi == probeX86_64 && (nr == 335 || nr == 336) {
				continue
			}
			ps = append(ps, kernelProbe{ABI: abi, Nr: nr})
			if nr >= argsBelow {
				continue
			}
			samples := map[int]int{probeX86_64: 3, probeI386: 2, probeX32: 1}[abi]
			for range samples {
				p := kernelProbe{ABI: abi, Nr: nr}
				for k := range p.Args {
					if abi == probeI386 {
						p.Args[k] = uint64(word())
					} else {
						p.Args[k] = arg64()
					}
				}
				if abi == probeX86_64 && nr == unix.SYS_SECCOMP && p.Args[0] == unix.SECCOMP_SET_MODE_FILTER && p.Args[1] == installFlags {
					continue // would match installerPrefix
				}
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// kernelStack is one stack to check.
type kernelStack struct {
	name  string
	stack filters.Stack
	modes []string
}

// kernelStacks returns every testdata policy that compiles, alone (distinct
// programs only), and some multi-filter stacks.
func kernelStacks(t *testing.T) []kernelStack {
	t.Helper()
	files, err := filepath.Glob("../testdata/policies/*")
	if err != nil {
		t.Fatal(err)
	}
	specs := append([]string{"default", oci.DockerDefaultName}, files...)
	var singles []kernelStack
	var progs []*filters.Program
	byName := map[string]*filters.Program{}
	seen := map[string]string{}
	var units []kernelStack
	for _, spec := range specs {
		name := filepath.Base(spec)
		if strings.HasSuffix(spec, ".service") {
			data, err := os.ReadFile(spec)
			if err != nil {
				t.Fatal(err)
			}
			st, err := systemd.ParseUnit(spec, data, systemd.Options{})
			if err != nil {
				t.Logf("skip %s: %v", name, err)
				continue
			}
			units = append(units, kernelStack{name: name, stack: st.Stack(), modes: []string{remapDistinct, remapPrecedence}})
			continue
		}
		p, err := formats.Open(spec)
		if err != nil {
			t.Logf("skip %s: %v", name, err)
			continue
		}
		byName[name] = p
		if prev, ok := seen[p.SHA256()]; ok {
			t.Logf("%s: same program as %s", name, prev)
			continue
		}
		seen[p.SHA256()] = name
		progs = append(progs, p)
		singles = append(singles, kernelStack{name: name, stack: filters.Stack{p}, modes: []string{remapDistinct}})
	}
	out := append(singles, units...)
	both := []string{remapDistinct, remapPrecedence}
	out = append(out, kernelStack{name: "all-distinct", stack: filters.Stack(progs), modes: both})
	var cyc []*filters.Program
	for _, n := range []string{"minimal.yaml", "args-workload.yaml", "denylist.yaml"} {
		if p := byName[n]; p != nil {
			cyc = append(cyc, p)
		}
	}
	if len(cyc) > 0 {
		st, err := filters.BuildStack(cyc, 32)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, kernelStack{name: "cycled-32", stack: st, modes: both})
	}
	return out
}

func TestEmulatorAgreesWithKernel(t *testing.T) {
	skipIfNoSeccomp(t)
	i386, why := i386Works(t)
	if !i386 {
		t.Logf("i386 probes skipped: INT $0x80 does not work here: %s", why)
	}
	t.Logf("x86_64 numbers 335 (uretprobe) and 336 (uprobe) are not probed: kernel/seccomp.c: seccomp_uprobe_exception bypasses the filters for them")
	rng := rand.New(rand.NewPCG(3, 3))
	var agree, total int
	for _, ks := range kernelStacks(t) {
		for _, mode := range ks.modes {
			t.Run(ks.name+"/"+mode, func(t *testing.T) {
				rs, err := remapStack(ks.stack, mode)
				if err != nil {
					t.Skip(err)
				}
				if _, err := filters.BuildStack(rs, len(rs)); err != nil {
					t.Skipf("remapped stack over a kernel limit: %v", err)
				}
				probes := makeProbes(rng, argPool(ks.stack), i386)
				want := make([]int, len(probes))
				for i, p := range probes {
					r, err := filters.EmulateStack(rs, p.arch().Data(int(p.Nr), p.Args[:]...))
					if err != nil {
						t.Fatal(err)
					}
					e, ok := r.Errno()
					if !ok || (r.Action != filters.ActionErrno && r.Action != filters.ActionTrace) {
						// Safety: such a probe would run the syscall or
						// kill the child.
						t.Fatalf("%s: remapped stack gives %s, want ERRNO or TRACE", p, filters.RetText(r.Ret))
					}
					want[i] = e
				}
				spec := probeChildSpec{Flags: installFlags, Probes: probes}
				for _, p := range rs {
					spec.Filters = append(spec.Filters, p.Bytes())
				}
				rep, _, err := startProbeChild(t, spec)
				if err != nil {
					t.Fatalf("%d filters: %v", len(rs), err)
				}
				if rep.Installed != len(rs) || len(rep.Rets) != len(probes) {
					t.Fatalf("child installed %d of %d filters and made %d of %d probes", rep.Installed, len(rs), len(rep.Rets), len(probes))
				}
				n, bad := 0, 0
				for i, got := range rep.Rets {
					if got == -int64(want[i]) {
						n++
						continue
					}
					if bad++; bad <= 5 {
						t.Errorf("%s: kernel returned %d, emulator predicts -%d", probes[i], got, want[i])
					}
				}
				t.Logf("%d filters, %s: %d/%d probes agree", len(rs), mode, n, len(probes))
				agree += n
				total += len(probes)
				if n != len(probes) {
					t.Errorf("%d of %d probes disagree", len(probes)-n, len(probes))
				}
			})
		}
	}
	t.Logf("total: %d/%d probes agree", agree, total)
}
