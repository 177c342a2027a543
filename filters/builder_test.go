package filters

import (
	"errors"
	"testing"
)

// TestBPFAsmLongJumps checks that conditional jumps farther than 255
// instructions get ja trampolines and still reach their targets.
func TestBPFAsmLongJumps(t *testing.T) {
	tests := []struct {
		name    string
		pad     int // instructions between the jump and its target
		nr      int32
		wantRet uint32
	}{
		{"near taken", 10, 7, 111},
		{"near not taken", 10, 8, 222},
		{"far taken", 600, 7, 111},
		{"far not taken", 600, 8, 222},
		{"boundary 255 taken", 255, 7, 111},
		{"boundary 256 taken", 256, 7, 111},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewBuilder()
			a.LoadAbs(OffsetNr)
			a.JumpIf(Jeq, 7, "hit", "miss")
			for i := 0; i < tt.pad; i++ {
				a.Ret(uint32(ActionKillProcess)) // never reached
			}
			a.Label("hit")
			a.Ret(uint32(ActionErrno) | 111)
			for i := 0; i < tt.pad; i++ {
				a.Ret(uint32(ActionKillProcess))
			}
			a.Label("miss")
			a.Ret(uint32(ActionErrno) | 222)
			insns, err := a.Assemble()
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(insns); err != nil {
				t.Fatalf("assembled program invalid: %v", err)
			}
			r, err := Emulate(&Program{Name: "asm", Insns: insns}, SeccompData{Nr: tt.nr, Arch: AuditArchX86_64})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Ret & RetData; got != tt.wantRet {
				t.Errorf("ret data = %d, want %d", got, tt.wantRet)
			}
			wantLen := 2*tt.pad + 4
			if tt.pad >= 255 {
				// The miss branch is out of reach; its trampoline pushes
				// the hit branch (255 away) out of reach too.
				wantLen += 2
			}
			if len(insns) != wantLen {
				t.Errorf("len = %d, want %d", len(insns), wantLen)
			}
		})
	}
}

func TestBPFAsmErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(a *Builder)
	}{
		{"undefined label", func(a *Builder) { a.LoadAbs(0); a.Jump("nowhere"); a.Ret(0) }},
		{"backward jump", func(a *Builder) { a.Label("top"); a.LoadAbs(0); a.JumpIf(Jeq, 1, "top", ""); a.Ret(0) }},
		{"falls off the end", func(a *Builder) { a.LoadAbs(0) }},
		{"duplicate label", func(a *Builder) { a.Label("x"); a.LoadAbs(0); a.Label("x"); a.Ret(0) }},
		{"jump past the end", func(a *Builder) { a.LoadAbs(0); a.JumpIf(Jeq, 1, "end", ""); a.Ret(0); a.Label("end") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewBuilder()
			tt.build(a)
			if _, err := a.Assemble(); !errors.Is(err, ErrAssemble) {
				t.Errorf("Assemble error = %v, want errAsm", err)
			}
		})
	}
}
