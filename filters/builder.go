package filters

import (
	"errors"
	"fmt"

	"golang.org/x/net/bpf"
)

// errAsm is returned (wrapped) by Builder.Assemble when the program refers to
// an undefined label, jumps backwards, or can fall off its end.
var ErrAssemble = errors.New("assemble bpf")

// asmKind distinguishes the three shapes an assembler item can have.
type asmKind uint8

const (
	asmPlain asmKind = iota // no control transfer
	asmCond                 // conditional jump with two targets
	asmJA                   // unconditional jump
	asmRet                  // return: ends a path
)

// asmItem is one instruction before layout. Jump targets are item ids, not
// offsets, so inserting trampolines never invalidates them.
type asmItem struct {
	id     int
	kind   asmKind
	raw    bpf.RawInstruction
	jt, jf int // target item ids for asmCond; jt is the target of asmJA
	// pending labels, resolved to ids once the program is complete
	ljt, ljf string
}

// Builder is a small label-resolving assembler for classic BPF. Jumps name
// labels; Assemble lays the program out, turns labels into relative offsets
// and, where a conditional jump would need an offset above 255, inserts a
// `ja` trampoline next to it (ja has a 32-bit offset), repeating until every
// jump fits. Jumps may only go forward, as the kernel requires
// (kernel/bpf/core.c and net/core/filter.c: bpf_check_classic).
//
// An empty label as a jump target means "the next instruction".
type Builder struct {
	items   []*asmItem
	labels  map[string]int // label -> index into items of the instruction it precedes
	nextID  int
	err     error
	nlabels int
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{labels: map[string]int{}} }

// NewLabel returns a fresh label name with the given prefix.
func (a *Builder) NewLabel(prefix string) string {
	a.nlabels++
	return fmt.Sprintf("%s.%d", prefix, a.nlabels)
}

// Label binds name to the position of the next instruction emitted.
func (a *Builder) Label(name string) {
	if _, dup := a.labels[name]; dup && a.err == nil {
		a.err = fmt.Errorf("%w: label %q defined twice", ErrAssemble, name)
	}
	a.labels[name] = len(a.items)
}

func (a *Builder) add(it *asmItem) {
	it.id = a.nextID
	a.nextID++
	a.items = append(a.items, it)
}

// Ins emits a non-jump instruction from x/net/bpf's instruction model.
func (a *Builder) Ins(ins bpf.Instruction) {
	raw, err := ins.Assemble()
	if err != nil {
		if a.err == nil {
			a.err = fmt.Errorf("%w: %v", ErrAssemble, err)
		}
		return
	}
	kind := asmPlain
	if raw.Op&ClassMask == Ret {
		kind = asmRet
	}
	a.add(&asmItem{kind: kind, raw: raw})
}

// LoadAbs emits `ld [off]`, a 32-bit load from struct seccomp_data.
func (a *Builder) LoadAbs(off uint32) { a.Ins(bpf.LoadAbsolute{Off: off, Size: 4}) }

// Ret emits `ret #k`.
func (a *Builder) Ret(k uint32) { a.Ins(bpf.RetConstant{Val: k}) }

// AndK emits `and #k`.
func (a *Builder) AndK(k uint32) { a.Ins(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: k}) }

// JumpIf emits a conditional jump comparing A with k using op (Jeq,
// Jgt, Jge or Jset); jt and jf are labels ("" = next instruction).
func (a *Builder) JumpIf(op uint16, k uint32, jt, jf string) {
	a.add(&asmItem{kind: asmCond, raw: bpf.RawInstruction{Op: Jmp | op | K, K: k}, ljt: jt, ljf: jf})
}

// Jump emits `ja label`.
func (a *Builder) Jump(label string) {
	a.add(&asmItem{kind: asmJA, raw: bpf.RawInstruction{Op: Jmp | Ja}, ljt: label})
}

// Len returns the number of instructions emitted so far (trampolines not
// counted).
func (a *Builder) Len() int { return len(a.items) }

// Assemble resolves labels and returns the raw program. It fails with an
// error wrapping errAsm on an undefined label, a backward jump, or a last
// instruction that is not a return or jump.
func (a *Builder) Assemble() ([]bpf.RawInstruction, error) {
	if a.err != nil {
		return nil, a.err
	}
	n := len(a.items)
	if n == 0 {
		return nil, fmt.Errorf("%w: empty program", ErrAssemble)
	}
	if k := a.items[n-1].kind; k != asmRet && k != asmJA {
		return nil, fmt.Errorf("%w: program can fall off its end after instruction %d", ErrAssemble, n-1)
	}
	if err := a.resolveLabels(); err != nil {
		return nil, err
	}
	items := withTrampolines(append([]*asmItem(nil), a.items...), a.nextID)
	pos := positions(items)
	prog := make([]bpf.RawInstruction, len(items))
	for i, it := range items {
		r := it.raw
		switch it.kind {
		case asmCond:
			r.Jt = uint8(pos[it.jt] - i - 1)
			r.Jf = uint8(pos[it.jf] - i - 1)
		case asmJA:
			r.K = uint32(pos[it.jt] - i - 1)
		}
		prog[i] = r
	}
	return prog, nil
}

// resolveLabels sets the jump targets of every jump item to the ids of
// the items its labels name ("" = the next item). It fails with an error
// wrapping ErrAssemble on an undefined label, a backward jump or a jump
// past the end.
func (a *Builder) resolveLabels() error {
	n := len(a.items)
	resolve := func(i int, l string) (int, error) {
		idx := i + 1
		if l != "" {
			p, ok := a.labels[l]
			if !ok {
				return 0, fmt.Errorf("%w: undefined label %q", ErrAssemble, l)
			}
			idx = p
		}
		if idx <= i {
			return 0, fmt.Errorf("%w: backward jump to %q at instruction %d", ErrAssemble, l, i)
		}
		if idx >= n {
			return 0, fmt.Errorf("%w: jump past the end to %q at instruction %d", ErrAssemble, l, i)
		}
		return a.items[idx].id, nil
	}
	for i, it := range a.items {
		var err error
		switch it.kind {
		case asmCond:
			if it.jt, err = resolve(i, it.ljt); err == nil {
				it.jf, err = resolve(i, it.ljf)
			}
		case asmJA:
			it.jt, err = resolve(i, it.ljt)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// withTrampolines returns items with a `ja` trampoline after every
// conditional jump whose target is more than MaxCondJump instructions
// away, the jump retargeted to it; new items get ids from nextID on.
func withTrampolines(items []*asmItem, nextID int) []*asmItem {
	for {
		pos := positions(items)
		changed := false
		out := make([]*asmItem, 0, len(items)+8)
		for i, it := range items {
			out = append(out, it)
			if it.kind != asmCond {
				continue
			}
			farT := pos[it.jt]-i-1 > MaxCondJump
			farF := pos[it.jf]-i-1 > MaxCondJump
			if !farT && !farF {
				continue
			}
			changed = true
			// The trampolines sit right after the jump, so every other
			// jump that crosses this point grows by one or two: the outer
			// loop recomputes until nothing is too far.
			if farT {
				t := &asmItem{id: nextID, kind: asmJA, raw: bpf.RawInstruction{Op: Jmp | Ja}, jt: it.jt}
				nextID++
				out = append(out, t)
				it.jt = t.id
			}
			if farF {
				t := &asmItem{id: nextID, kind: asmJA, raw: bpf.RawInstruction{Op: Jmp | Ja}, jt: it.jf}
				nextID++
				out = append(out, t)
				it.jf = t.id
			}
		}
		items = out
		if !changed {
			return items
		}
	}
}

// positions maps each item's id to its index in items.
func positions(items []*asmItem) map[int]int {
	pos := make(map[int]int, len(items))
	for i, it := range items {
		pos[it.id] = i
	}
	return pos
}
