package optimize

import (
	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters/internal/sym"
)

// Classic BPF opcodes the emitter writes (include/uapi/linux/filter.h,
// bpf_common.h).
const (
	opLdAbsW = 0x20 // BPF_LD|BPF_W|BPF_ABS
	opAndK   = 0x54 // BPF_ALU|BPF_AND|BPF_K
	opOrK    = 0x44 // BPF_ALU|BPF_OR|BPF_K
	opJa     = 0x05 // BPF_JMP|BPF_JA
	opJeqK   = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
	opJgtK   = 0x25 // BPF_JMP|BPF_JGT|BPF_K
	opJgeK   = 0x35 // BPF_JMP|BPF_JGE|BPF_K
	opJsetK  = 0x45 // BPF_JMP|BPF_JSET|BPF_K
	opRetK   = 0x06 // BPF_RET|BPF_K
)

var jumpOps = [...]uint16{sym.OpEq: opJeqK, sym.OpGt: opJgtK, sym.OpGe: opJgeK, sym.OpSet: opJsetK}

// aSpec is what the accumulator holds: (word & mask) | or, or nothing
// known (valid false).
type aSpec struct {
	valid    bool
	word     uint8
	mask, or uint32
}

func specOf(p sym.Pred) aSpec { return aSpec{valid: true, word: p.Word, mask: p.Mask, or: p.Or} }

// order returns the DAG's nodes in reverse postorder from root, visiting
// each test's true child before its false child, so that a test's false
// child tends to follow it directly (jf = 0); for a hot test the other way
// round (jt = 0). It is a topological order:
// every edge points forward.
func order(root *node) []*node {
	seen := map[*node]bool{}
	var post []*node
	var visit func(n *node)
	visit = func(n *node) {
		if seen[n] {
			return
		}
		seen[n] = true
		switch {
		case n.leaf:
		case n.hot:
			visit(n.f)
			visit(n.t)
		default:
			visit(n.t)
			visit(n.f)
		}
		post = append(post, n)
	}
	visit(root)
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

// emit lays the DAG out as classic BPF. Each test loads its word (and
// masks it) unless every path into it leaves the accumulator holding that
// value already. Jumps farther than a conditional jump's 255 instructions
// go through a trampoline placed right after the jump: a copy of the `ret`
// when the target returns, else a `ja`.
func emit(root *node) []bpf.RawInstruction {
	nodes := order(root)
	in := map[*node]aSpec{}
	seen := map[*node]bool{}
	for _, n := range nodes {
		if n.leaf {
			continue
		}
		out := specOf(n.pred)
		for _, c := range []*node{n.t, n.f} {
			if !seen[c] {
				seen[c], in[c] = true, out
			} else if in[c] != out {
				in[c] = aSpec{}
			}
		}
	}
	// Build backwards: tail[0] is the last instruction; rank is an
	// instruction's index in tail.
	var tail []bpf.RawInstruction
	rank := map[*node]int{}
	push := func(ins bpf.RawInstruction) int {
		tail = append(tail, ins)
		return len(tail) - 1
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		if n.leaf {
			rank[n] = push(bpf.RawInstruction{Op: opRetK, K: n.ret})
			continue
		}
		// Trampolines for far targets, false side first so that the true
		// one ends up right after the jump.
		tr, fr := rank[n.t], rank[n.f]
		far := func(target *node, r int) int {
			R := len(tail)
			if target.leaf {
				return push(bpf.RawInstruction{Op: opRetK, K: target.ret})
			}
			return push(bpf.RawInstruction{Op: opJa, K: uint32(R - r - 1)})
		}
		// Offsets if the jump went at rank L with no trampoline; a
		// trampoline on one side pushes the other side one further.
		L := len(tail)
		needT0, needF0 := L-tr-1 > 255, L-fr-1 > 255
		needF := needF0 || needT0 && L-fr > 255
		needT := needT0 || needF && L-tr > 255
		if needF {
			fr = far(n.f, fr)
		}
		if needT {
			tr = far(n.t, tr)
		}
		R := len(tail)
		push(bpf.RawInstruction{Op: jumpOps[n.pred.Op], K: n.pred.K, Jt: uint8(R - tr - 1), Jf: uint8(R - fr - 1)})
		if in[n] != specOf(n.pred) {
			if n.pred.Or != 0 {
				push(bpf.RawInstruction{Op: opOrK, K: n.pred.Or})
			}
			if n.pred.Mask != 0xffffffff {
				push(bpf.RawInstruction{Op: opAndK, K: n.pred.Mask})
			}
			push(bpf.RawInstruction{Op: opLdAbsW, K: uint32(n.pred.Word) * 4})
		}
		rank[n] = len(tail) - 1
	}
	out := make([]bpf.RawInstruction, len(tail))
	for i, ins := range tail {
		out[len(tail)-1-i] = ins
	}
	return out
}
