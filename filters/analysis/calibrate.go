package analysis

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
)

// CalibrationMark places a syscall at a position of CalibrationFilter's
// chain.
type CalibrationMark struct {
	// Name is the syscall's name in the filter's ABI.
	Name string
	// Pos is its 1-based position among the chain's comparisons.
	Pos int
}

// MaxCalibrationChain is the longest chain CalibrationFilter builds: every
// comparison jumps to the shared return at the end, and a conditional
// jump's offset is one byte (include/uapi/linux/filter.h: jt, jf are u8).
const MaxCalibrationChain = 250

// CalibrationFilter returns a filter that allows every syscall, built so
// that the instructions a syscall executes depend on where its number sits
// in a linear chain of comparisons, as in a name-by-name allowlist
// (go-seccomp-bpf's linear chain):
//
//	ld [nr]
//	jeq #k_i, ALLOW|DENY, next   for i = 1..chain: a mark's number jumps to
//	                             ALLOW, padding numbers (never syscalls,
//	                             0x7fff0000+i) to DENY
//	ALLOW: ret ALLOW             what every unmarked syscall reaches
//	DENY:  ret ERRNO(EPERM)
//
// A marked syscall at position p executes p+2 instructions, any other
// syscall chain+2. The filter reads only nr and never returns anything but
// ALLOW for a real syscall number, so the action cache serves every syscall
// when it is installed as is (kernel/seccomp.c: seccomp_is_const_allow);
// DefeatCache makes every syscall run it, one instruction more. It returns
// an error for a chain outside 1..MaxCalibrationChain, a mark outside it,
// two marks at one position, or a name unknown in arch.
func CalibrationFilter(arch *filters.Arch, chain int, marks ...CalibrationMark) (*filters.Program, error) {
	if chain < 1 || chain > MaxCalibrationChain {
		return nil, fmt.Errorf("calibration filter: chain of %d comparisons; want 1..%d", chain, MaxCalibrationChain)
	}
	at := map[int]int32{}
	for _, m := range marks {
		nr, ok := arch.Lookup(m.Name)
		if !ok {
			return nil, fmt.Errorf("calibration filter: %w: %q in %s", ErrUnknownSyscall, m.Name, arch.Name)
		}
		if m.Pos < 1 || m.Pos > chain {
			return nil, fmt.Errorf("calibration filter: %s at position %d, outside 1..%d", m.Name, m.Pos, chain)
		}
		if _, dup := at[m.Pos]; dup {
			return nil, fmt.Errorf("calibration filter: two marks at position %d", m.Pos)
		}
		at[m.Pos] = arch.Nr(nr)
	}
	ins := []bpf.Instruction{bpf.LoadAbsolute{Off: filters.OffsetNr, Size: 4}}
	for p := 1; p <= chain; p++ {
		// From comparison p (instruction p), ALLOW is instruction
		// chain+1 and DENY chain+2; skips count from the next one.
		toAllow := uint8(chain - p)
		if nr, ok := at[p]; ok {
			ins = append(ins, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr), SkipTrue: toAllow})
		} else {
			ins = append(ins, bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x7fff0000 + uint32(p), SkipTrue: toAllow + 1})
		}
	}
	ins = append(ins, bpf.RetConstant{Val: uint32(filters.ActionAllow)}, bpf.RetConstant{Val: uint32(filters.ActionErrno) | 1})
	raw, err := bpf.Assemble(ins)
	if err != nil {
		return nil, fmt.Errorf("calibration filter: %w", err)
	}
	return &filters.Program{Name: fmt.Sprintf("calibration-%d", chain), Source: "calibration", Insns: raw}, nil
}
