package filters

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// This file is the seccomp BPF emulator: the kernel's validation rules and
// an interpreter for the classic BPF subset seccomp accepts. The emulator
// decodes each RawInstruction once into a dense opcode kind with absolute
// jump targets, then interprets that.
//
// Kernel behaviour it reproduces: A and X start at 0 (bpf_convert_filter
// clears them); loads read the native-endian (little-endian on x86_64)
// seccomp_data word at the offset (seccomp_check_filter turns them into
// 32-bit context loads); `ld #len` and `ldx #len` give 64
// (seccomp_check_filter rewrites them to immediates); division by an X of 0
// ends the filter with return value 0, i.e. SECCOMP_RET_KILL_THREAD (the
// check bpf_convert_filter emits for classic BPF_DIV|BPF_X).
//
// Differences from the kernel, all deliberate:
//   - Instruction counts are classic BPF instructions. The kernel converts
//     classic filters to eBPF (net/core/filter.c: bpf_convert_filter) and
//     usually JIT-compiles them, so its machine-level work differs; the count
//     is the filter's path length, the unit our cost model uses.
//   - Shifts by X use X&31, as x86 does for 32-bit shl/shr (the kernel's
//     interpreter and x86 JIT both end up there; C leaves shifts >= 32
//     undefined, so other architectures may differ). The kernel rejects
//     shifts by a constant >= 32, and so does Validate.
//   - Scratch cells start at 0 here and undefined in the kernel; Validate
//     rejects every program that could read one before storing it
//     (check_load_and_stores), so this never shows.
//   - The action cache and its uprobe/uretprobe exception are not modelled
//     here: Emulate and EmulateStack say what the filters return when they
//     run; PredictCache says when they do not run.
//   - x86_64 only: loads are little-endian and NativeArches are x86's.

// Executable is a validated Program decoded for the emulator: only an
// Executable runs (gVisor pkg/bpf: Compile returns the program Exec runs).
// NewExecutable makes one.
type Executable struct {
	prog  *Program
	insns []decoded
	id    int // index among the distinct programs of a compiled stack
}

// NewExecutable validates p as the kernel does on attach (see Validate)
// and decodes it for the interpreter. It returns a *ValidationError
// wrapping ErrInvalidProgram if the kernel would reject p.
func NewExecutable(p *Program) (*Executable, error) {
	insns, err := decodeInsns(p.Insns)
	if err != nil {
		return nil, err
	}
	return &Executable{prog: p, insns: insns}, nil
}

// SeccompData is struct seccomp_data as the kernel fills it for one syscall
// (include/uapi/linux/seccomp.h; offsets in OffsetNr etc.).
type SeccompData struct {
	// Nr is the syscall number, with X32SyscallBit set for x32.
	Nr int32
	// Arch is the AUDIT_ARCH_* value of the calling ABI.
	Arch uint32
	// InstructionPointer is the caller's instruction pointer.
	InstructionPointer uint64
	// Args are the six syscall arguments, each zero-extended to 64 bits.
	Args [6]uint64
}

// Bytes returns the 64-byte struct seccomp_data in native (little-endian,
// x86_64) byte order, as a filter's loads see it.
func (d SeccompData) Bytes() []byte {
	b := make([]byte, SeccompDataSize)
	binary.LittleEndian.PutUint32(b[OffsetNr:], uint32(d.Nr))
	binary.LittleEndian.PutUint32(b[OffsetArch:], d.Arch)
	binary.LittleEndian.PutUint64(b[OffsetInstructionPointer:], d.InstructionPointer)
	for i, a := range d.Args {
		binary.LittleEndian.PutUint64(b[OffsetArgs+8*i:], a)
	}
	return b
}

// Word returns the 32-bit value a `ld [off]` loads: the little-endian word
// at byte offset off (4-byte aligned, below 64), so off 16 is the low half
// of args[0]. It returns 0 for any other offset, which Validate rejects.
func (d *SeccompData) Word(off uint32) uint32 {
	switch {
	case off == OffsetNr:
		return uint32(d.Nr)
	case off == OffsetArch:
		return d.Arch
	case off == OffsetInstructionPointer:
		return uint32(d.InstructionPointer)
	case off == OffsetInstructionPointer+4:
		return uint32(d.InstructionPointer >> 32)
	case off >= OffsetArgs && off < SeccompDataSize && off&3 == 0:
		a := d.Args[(off-OffsetArgs)/8]
		if off&4 != 0 {
			return uint32(a >> 32)
		}
		return uint32(a)
	}
	return 0
}

// FieldSet is a set of seccomp_data words a filter loaded: bit i stands for
// the 4-byte word at offset 4*i (0 nr, 1 arch, 2-3 instruction_pointer low
// and high half, 4+2j and 5+2j args[j] low and high half).
type FieldSet uint16

// Has reports whether the word at byte offset off was loaded.
func (f FieldSet) Has(off uint32) bool { return off < SeccompDataSize && f&(1<<(off/4)) != 0 }

// Only reports whether f holds no words beyond those in g.
func (f FieldSet) Only(g FieldSet) bool { return f&^g == 0 }

// Field sets for the words a rule usually reads.
const (
	FieldNr   FieldSet = 1 << (OffsetNr / 4)
	FieldArch FieldSet = 1 << (OffsetArch / 4)
	FieldIP   FieldSet = 3 << (OffsetInstructionPointer / 4)
	FieldArgs FieldSet = 0xfff0
)

// Names returns the loaded words in offset order, e.g.
// ["nr", "arch", "args[0] lo"].
func (f FieldSet) Names() []string {
	var out []string
	for i := uint32(0); i < SeccompDataSize/4; i++ {
		if f&(1<<i) != 0 {
			out = append(out, FieldName(4*i))
		}
	}
	return out
}

// String returns Names joined by commas, or "-" for the empty set.
func (f FieldSet) String() string {
	if f == 0 {
		return "-"
	}
	return strings.Join(f.Names(), ",")
}

// FieldName names the seccomp_data word at byte offset off: "nr", "arch",
// "ip lo", "ip hi", "args[N] lo", "args[N] hi", or the decimal offset for
// anything else.
func FieldName(off uint32) string {
	switch {
	case off == OffsetNr:
		return "nr"
	case off == OffsetArch:
		return "arch"
	case off == OffsetInstructionPointer:
		return "ip lo"
	case off == OffsetInstructionPointer+4:
		return "ip hi"
	case off >= OffsetArgs && off < SeccompDataSize && off&3 == 0:
		half := "lo"
		if off&4 != 0 {
			half = "hi"
		}
		return fmt.Sprintf("args[%d] %s", (off-OffsetArgs)/8, half)
	}
	return fmt.Sprint(off)
}

// Result is what one filter returned for one seccomp_data.
type Result struct {
	// Ret is the filter's 32-bit return value.
	Ret uint32
	// Action and Data are Ret split by SplitRet; Action may be a value the
	// kernel does not define (see KernelAction).
	Action Action
	Data   uint16
	// Executed is the number of instructions run, the final RET included.
	Executed int
	// Path lists the PCs run, in order (nil from analyses that skip it).
	Path []int
	// Read holds the seccomp_data words the run loaded.
	Read FieldSet
}

// Program returns the program c was decoded from.
func (c *Executable) Program() *Program { return c.prog }

// Exec runs c on d and returns its result, without recording the path.
func (c *Executable) Exec(d *SeccompData) Result { return c.run(d, nil) }

// InstrumentedExec runs c on d, appending the PC of every instruction it
// executes to *path (which may start non-empty); Result.Path is *path.
func (c *Executable) InstrumentedExec(d *SeccompData, path *[]int) Result { return c.run(d, path) }

// run interprets c on d. It appends the PCs it runs to path when path is
// non-nil.
func (c *Executable) run(d *SeccompData, path *[]int) Result {
	var a, x uint32
	var mem [MemWords]uint32
	var read FieldSet
	insns := c.insns
	n := 0
	pc := 0
	for {
		in := &insns[pc]
		n++
		if path != nil {
			*path = append(*path, pc)
		}
		next := pc + 1
		switch in.op {
		case opLdAbs:
			a = d.Word(in.k)
			read |= 1 << (in.k / 4)
		case opLdLen:
			a = SeccompDataSize
		case opLdxLen:
			x = SeccompDataSize
		case opLdImm:
			a = in.k
		case opLdxImm:
			x = in.k
		case opLdMem:
			a = mem[in.k]
		case opLdxMem:
			x = mem[in.k]
		case opSt:
			mem[in.k] = a
		case opStx:
			mem[in.k] = x
		case opAddK, opAddX, opSubK, opSubX, opMulK, opMulX, opDivK,
			opAndK, opAndX, opOrK, opOrX, opXorK, opXorX,
			opLshK, opLshX, opRshK, opRshX, opNeg:
			a = alu(in.op, a, x, in.k)
		case opDivX:
			if x == 0 {
				// net/core/filter.c: bpf_convert_filter makes classic
				// programs return 0 on division by zero.
				return finish(0, n, path, read)
			}
			a /= x
		case opTax:
			x = a
		case opTxa:
			a = x
		case opJa:
			next = int(in.jt)
		case opJeqK:
			next = branch(a == in.k, in)
		case opJeqX:
			next = branch(a == x, in)
		case opJgtK:
			next = branch(a > in.k, in)
		case opJgtX:
			next = branch(a > x, in)
		case opJgeK:
			next = branch(a >= in.k, in)
		case opJgeX:
			next = branch(a >= x, in)
		case opJsetK:
			next = branch(a&in.k != 0, in)
		case opJsetX:
			next = branch(a&x != 0, in)
		case opRetK:
			return finish(in.k, n, path, read)
		case opRetA:
			return finish(a, n, path, read)
		}
		pc = next
	}
}

// alu returns the accumulator a after the arithmetic instruction op with
// index register x and immediate k (everything but opDivX, whose division
// by zero ends the program); a for any other op. Shifts by X use x's low
// five bits.
func alu(op opKind, a, x, k uint32) uint32 {
	switch op {
	case opAddK:
		a += k
	case opAddX:
		a += x
	case opSubK:
		a -= k
	case opSubX:
		a -= x
	case opMulK:
		a *= k
	case opMulX:
		a *= x
	case opDivK:
		a /= k
	case opAndK:
		a &= k
	case opAndX:
		a &= x
	case opOrK:
		a |= k
	case opOrX:
		a |= x
	case opXorK:
		a ^= k
	case opXorX:
		a ^= x
	case opLshK:
		a <<= k
	case opLshX:
		a <<= x & 31
	case opRshK:
		a >>= k
	case opRshX:
		a >>= x & 31
	case opNeg:
		a = -a
	}
	return a
}

// branch returns in's true target when cond holds, its false target
// otherwise.
func branch(cond bool, in *decoded) int {
	if cond {
		return int(in.jt)
	}
	return int(in.jf)
}

func finish(ret uint32, n int, path *[]int, read FieldSet) Result {
	act, data := SplitRet(ret)
	r := Result{Ret: ret, Action: act, Data: data, Executed: n, Read: read}
	if path != nil {
		r.Path = *path
	}
	return r
}

// Emulate validates p (see Validate) and runs it on d, recording the path.
// It returns a *ValidationError wrapping ErrInvalidProgram if the kernel
// would reject p.
func Emulate(p *Program, d SeccompData) (Result, error) {
	c, err := NewExecutable(p)
	if err != nil {
		return Result{}, fmt.Errorf("emulate filter %q: %w", p.Name, err)
	}
	path := make([]int, 0, 16)
	return c.run(&d, &path), nil
}

// MaxErrno is MAX_ERRNO (include/linux/err.h): the kernel caps the errno of
// SECCOMP_RET_ERRNO at this value (kernel/seccomp.c: __seccomp_filter).
const MaxErrno = 4095

// ENOSYS is the errno a syscall gets for SECCOMP_RET_TRACE without a tracer
// or SECCOMP_RET_USER_NOTIF without a listener (kernel/seccomp.c:
// __seccomp_filter, seccomp_do_user_notification).
const ENOSYS = 38

// KernelAction returns the action the kernel takes for a filter return value:
// the action bits if they are a defined action, else ActionKillProcess
// (kernel/seccomp.c: __seccomp_filter treats unknown actions in its default
// case like SECCOMP_RET_KILL_PROCESS: the task dies with SIGSYS and a core
// dump).
func KernelAction(ret uint32) Action {
	a, _ := SplitRet(ret)
	if a.Known() {
		return a
	}
	return ActionKillProcess
}

// StackResult is the verdict of a whole stack for one seccomp_data.
type StackResult struct {
	// Ret is the winning 32-bit return value (SECCOMP_RET_ALLOW, data 0,
	// when every filter allows, as kernel/seccomp.c: seccomp_run_filters
	// starts from it).
	Ret uint32
	// Action is what the kernel does: KernelAction(Ret).
	Action Action
	// Data is Ret's SECCOMP_RET_DATA part (errno value, trace message).
	Data uint16
	// Instructions is the number of instructions executed, summed over
	// every filter of the stack.
	Instructions int
	// Decider is the stack index of the filter whose return value won, or
	// -1 when none returned less than SECCOMP_RET_ALLOW (the kernel keeps
	// no match then either).
	Decider int
	// PerFilter holds each filter's result; index = stack index, 0 = oldest.
	PerFilter []Result
}

// Errno returns the errno the syscall fails with and true, or 0 and false
// when the action does not make it fail with an errno. ERRNO data is capped
// at MaxErrno; TRACE and USER_NOTIF give ENOSYS, assuming no tracer or
// listener is attached (kernel/seccomp.c: __seccomp_filter).
func (r StackResult) Errno() (int, bool) {
	switch r.Action {
	case ActionErrno:
		return min(int(r.Data), MaxErrno), true
	case ActionTrace, ActionUserNotif:
		return ENOSYS, true
	}
	return 0, false
}

// EmulateStack runs every filter of s on d the way kernel/seccomp.c:
// seccomp_run_filters does: newest (highest index) first, keeping a return
// value only when its action, compared as a signed 32-bit number, is lower
// than the one kept so far; the start value is SECCOMP_RET_ALLOW. So the
// lowest action wins and ties go to the newest filter. An empty stack allows
// everything. Unknown action values are treated as the kernel does (see
// KernelAction). The action cache is not modelled (see PredictCache).
//
// It returns an error wrapping ErrInvalidProgram if a filter is invalid.
func EmulateStack(s Stack, d SeccompData) (StackResult, error) {
	cs, err := NewExecutableStack(s)
	if err != nil {
		return StackResult{}, err
	}
	return cs.run(&d, true), nil
}

// NewExecutableStack decodes each distinct program of s once (see
// NewExecutable); the result has one entry per stack index. It returns an
// error wrapping ErrInvalidProgram, naming the filter's index and name, if
// a filter is invalid.
func NewExecutableStack(s Stack) (ExecutableStack, error) {
	out := make(ExecutableStack, len(s))
	seen := make(map[*Program]*Executable)
	for i, p := range s {
		if c, ok := seen[p]; ok {
			out[i] = c
			continue
		}
		c, err := NewExecutable(p)
		if err != nil {
			return nil, fmt.Errorf("compile filter %d (%q): %w", i, p.Name, err)
		}
		c.id = len(seen)
		seen[p] = c
		out[i] = c
	}
	return out, nil
}

// ExecutableStack is a Stack whose programs are decoded for the emulator,
// one entry per stack index; a program that occurs several times is decoded
// once (NewExecutableStack).
type ExecutableStack []*Executable

// Exec runs the stack on d as EmulateStack does, without recording paths
// (StackResult.PerFilter[i].Path is nil); each distinct program runs once.
func (cs ExecutableStack) Exec(d *SeccompData) StackResult { return cs.run(d, false) }

// InstrumentedExec runs the stack on d as EmulateStack does, recording
// every filter's path.
func (cs ExecutableStack) InstrumentedExec(d *SeccompData) StackResult { return cs.run(d, true) }

// run evaluates the stack. With paths false it skips recording paths and
// runs each distinct program only once.
func (cs ExecutableStack) run(d *SeccompData, paths bool) StackResult {
	res := StackResult{Ret: uint32(ActionAllow), Decider: -1, PerFilter: make([]Result, len(cs))}
	var memo []Result
	var have []bool
	if !paths {
		n := 0
		for _, c := range cs {
			n = max(n, c.id+1)
		}
		memo, have = make([]Result, n), make([]bool, n)
	}
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		var r Result
		switch {
		case paths:
			path := make([]int, 0, 16)
			r = c.run(d, &path)
		case have[c.id]:
			r = memo[c.id]
		default:
			r = c.run(d, nil)
			memo[c.id], have[c.id] = r, true
		}
		res.PerFilter[i] = r
		res.Instructions += r.Executed
		if int32(r.Ret&RetActionFull) < int32(res.Ret&RetActionFull) {
			res.Ret = r.Ret
			res.Decider = i
		}
	}
	_, res.Data = SplitRet(res.Ret)
	res.Action = KernelAction(res.Ret)
	return res
}
