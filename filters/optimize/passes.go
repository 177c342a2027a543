package optimize

import "golang.org/x/net/bpf"

// A pass rewrites a program and reports whether it changed anything. Each
// keeps every input's return value; the driver (runPasses) applies them
// until none changes anything, as gVisor's pkg/bpf optimizer does. They
// clean up what the layout leaves behind (trampolines that became
// redundant, unreachable code) and also work on any valid program.
type pass func([]bpf.RawInstruction) ([]bpf.RawInstruction, bool)

// passes are applied in this order on each round.
var passes = []struct {
	name string
	fn   pass
}{
	{"threadJumps", threadJumps},
	{"jaToRet", jaToRet},
	{"sameTargets", sameTargets},
	{"removeNops", removeNops},
	{"removeUnreachable", removeUnreachable},
}

// runPasses applies passes until a round changes nothing (at most 100
// rounds) and returns the result with the names of the passes that fired.
func runPasses(insns []bpf.RawInstruction) ([]bpf.RawInstruction, []string) {
	var fired []string
	for range 100 {
		changed := false
		for _, p := range passes {
			var c bool
			insns, c = p.fn(insns)
			if c {
				fired = append(fired, p.name)
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return insns, fired
}

func isJa(in bpf.RawInstruction) bool   { return in.Op == opJa }
func isCond(in bpf.RawInstruction) bool { return in.Op&0x07 == 0x05 && in.Op != opJa }
func isRet(in bpf.RawInstruction) bool  { return in.Op&0x07 == 0x06 }

// final follows a chain of `ja` from pc.
func final(insns []bpf.RawInstruction, pc int) int {
	for n := 0; isJa(insns[pc]) && n < len(insns); n++ {
		pc = pc + 1 + int(insns[pc].K)
	}
	return pc
}

// threadJumps retargets a jump whose target is a `ja` to where the `ja`
// chain ends, when the offset fits.
func threadJumps(insns []bpf.RawInstruction) ([]bpf.RawInstruction, bool) {
	out := append([]bpf.RawInstruction(nil), insns...)
	changed := false
	for pc, in := range out {
		switch {
		case isJa(in):
			t := pc + 1 + int(in.K)
			if f := final(out, t); f != t {
				out[pc].K = uint32(f - pc - 1)
				changed = true
			}
		case isCond(in):
			for _, off := range []*uint8{&out[pc].Jt, &out[pc].Jf} {
				t := pc + 1 + int(*off)
				if f := final(out, t); f != t && f-pc-1 <= 255 {
					*off = uint8(f - pc - 1)
					changed = true
				}
			}
		}
	}
	return out, changed
}

// jaToRet replaces a `ja` to a `ret` with a copy of the `ret`.
func jaToRet(insns []bpf.RawInstruction) ([]bpf.RawInstruction, bool) {
	out := append([]bpf.RawInstruction(nil), insns...)
	changed := false
	for pc, in := range out {
		if isJa(in) {
			if t := out[pc+1+int(in.K)]; isRet(t) {
				out[pc] = t
				changed = true
			}
		}
	}
	return out, changed
}

// sameTargets turns a conditional jump with equal targets into a `ja`.
func sameTargets(insns []bpf.RawInstruction) ([]bpf.RawInstruction, bool) {
	out := append([]bpf.RawInstruction(nil), insns...)
	changed := false
	for pc, in := range out {
		if isCond(in) && in.Jt == in.Jf {
			out[pc] = bpf.RawInstruction{Op: opJa, K: uint32(in.Jt)}
			changed = true
		}
	}
	return out, changed
}

// removeNops deletes `ja 0`.
func removeNops(insns []bpf.RawInstruction) ([]bpf.RawInstruction, bool) {
	dead := make([]bool, len(insns))
	any := false
	for pc, in := range insns {
		if isJa(in) && in.K == 0 {
			dead[pc], any = true, true
		}
	}
	if !any {
		return insns, false
	}
	return deleteInsns(insns, dead), true
}

// removeUnreachable deletes instructions no path from the first reaches.
func removeUnreachable(insns []bpf.RawInstruction) ([]bpf.RawInstruction, bool) {
	reach := make([]bool, len(insns))
	stack := []int{0}
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if pc >= len(insns) || reach[pc] {
			continue
		}
		reach[pc] = true
		in := insns[pc]
		switch {
		case isRet(in):
		case isJa(in):
			stack = append(stack, pc+1+int(in.K))
		case isCond(in):
			stack = append(stack, pc+1+int(in.Jt), pc+1+int(in.Jf))
		default:
			stack = append(stack, pc+1)
		}
	}
	dead := make([]bool, len(insns))
	any := false
	for pc := range insns {
		if !reach[pc] {
			dead[pc], any = true, true
		}
	}
	if !any {
		return insns, false
	}
	return deleteInsns(insns, dead), true
}

// deleteInsns removes the dead instructions and fixes every jump offset.
// No live jump may target a dead instruction other than a `ja 0` (which
// then lands on the next live one). Distances only shrink, so conditional
// offsets stay within 255.
func deleteInsns(insns []bpf.RawInstruction, dead []bool) []bpf.RawInstruction {
	newIdx := make([]int, len(insns)+1)
	n := 0
	for pc := range insns {
		newIdx[pc] = n
		if !dead[pc] {
			n++
		}
	}
	newIdx[len(insns)] = n
	out := make([]bpf.RawInstruction, 0, n)
	for pc, in := range insns {
		if dead[pc] {
			continue
		}
		at := newIdx[pc]
		switch {
		case isJa(in):
			in.K = uint32(newIdx[pc+1+int(in.K)] - at - 1)
		case isCond(in):
			in.Jt = uint8(newIdx[pc+1+int(in.Jt)] - at - 1)
			in.Jf = uint8(newIdx[pc+1+int(in.Jf)] - at - 1)
		}
		out = append(out, in)
	}
	return out
}
