package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/runner/internal/kerneltest"
)

const pathLimitEnv = "SECCOMPBENCH_PATHLIMIT_CHILD"

// maybeRunPathLimitChild, in a child started by TestPathLimitMatchesKernel,
// installs the sock_filter program read from stdin again and again on one
// thread until seccomp(2) fails, and prints how many it installed and the
// errno. Every return of the program is ALLOW, so nothing it installs
// stops it.
func maybeRunPathLimitChild() {
	if os.Getenv(pathLimitEnv) != "1" {
		return
	}
	prog, err := readAllStdin()
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	runtime.LockOSThread()
	n := 0
	var errno unix.Errno
	for n < 5000 {
		if _, err := kerneltest.InstallFilters([][]byte{prog}, 0); err != nil {
			errors.As(err, &errno)
			break
		}
		n++
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{"installed": n, "errno": int(errno)})
	os.Exit(0)
}

func readAllStdin() ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(os.Stdin)
	return b.Bytes(), err
}

// allowAll returns p with every return replaced by ret ALLOW: the same
// opcodes, so the same converted length, but nothing is denied.
func allowAll(p *filters.Program) *filters.Program {
	q := *p
	q.Insns = append([]bpf.RawInstruction(nil), p.Insns...)
	for i, ins := range q.Insns {
		if ins.Op&0x07 == 0x06 {
			q.Insns[i] = bpf.RawInstruction{Op: 0x06, K: uint32(filters.ActionAllow)}
		}
	}
	return &q
}

// The kernel's MAX_INSNS_PER_PATH counts converted eBPF lengths, +4 for
// every filter already attached: filters.MaxStackCount must predict exactly
// how many copies of a program the kernel accepts before ENOMEM.
func TestPathLimitMatchesKernel(t *testing.T) {
	skipIfNoSeccomp(t)
	type tc struct {
		name string
		p    *filters.Program
	}
	raw := func(name string, ins ...bpf.Instruction) tc {
		r, err := bpf.Assemble(ins)
		if err != nil {
			t.Fatal(err)
		}
		return tc{name, &filters.Program{Name: name, Insns: r}}
	}
	chain := func(n int, mk func(i int) bpf.Instruction) []bpf.Instruction {
		var ins []bpf.Instruction
		for i := 0; i < n; i++ {
			ins = append(ins, mk(i))
		}
		return append(ins, bpf.RetConstant{Val: uint32(filters.ActionAllow)})
	}
	ld := func(int) bpf.Instruction { return bpf.LoadAbsolute{Off: 0, Size: 4} }
	tests := []tc{
		raw("ld chain 1015", chain(1015, ld)...),
		raw("ld chain 2722", chain(2722, ld)...),
		raw("jeq fallthrough", chain(1500, func(i int) bpf.Instruction {
			return bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(100000 + i), SkipTrue: 0, SkipFalse: 0}
		})...),
		raw("jeq big constant both targets", chain(1500, func(i int) bpf.Instruction {
			return bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0xc000003e, SkipTrue: 0, SkipFalse: 0}
		})...),
		raw("jset both targets", append([]bpf.Instruction{bpf.LoadAbsolute{Off: 0, Size: 4}},
			chain(700, func(i int) bpf.Instruction {
				if i%2 == 0 {
					return bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x10, SkipTrue: 1, SkipFalse: 0}
				}
				return bpf.RetConstant{Val: uint32(filters.ActionAllow)}
			})...)...),
		raw("div by X", chain(900, func(i int) bpf.Instruction {
			if i%3 == 0 {
				return bpf.LoadConstant{Dst: bpf.RegX, Val: 3}
			}
			return bpf.ALUOpX{Op: bpf.ALUOpDiv}
		})...),
		raw("alu by K and X", chain(1200, func(i int) bpf.Instruction {
			switch i % 4 {
			case 0:
				return bpf.LoadConstant{Dst: bpf.RegX, Val: 7}
			case 1:
				return bpf.ALUOpX{Op: bpf.ALUOpAnd}
			case 2:
				return bpf.ALUOpConstant{Op: bpf.ALUOpShiftLeft, Val: 5}
			}
			return bpf.ALUOpConstant{Op: bpf.ALUOpDiv, Val: 3}
		})...),
	}
	for _, name := range []string{"default.yaml", "docker-default.json", "pathological.yaml", "minimal.yaml", "large-allowlist.yaml"} {
		p, err := formats.Open(filepath.Join("..", "testdata", "policies", name))
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, tc{name, allowAll(p)})
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := filters.Validate(tt.p.Insns); err != nil {
				t.Fatalf("test program invalid: %v", err)
			}
			want := filters.MaxStackCount([]*filters.Program{tt.p})
			if want >= 5000 {
				t.Fatalf("program too short for the test: %d copies fit", want)
			}
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), pathLimitEnv+"=1")
			cmd.Stdin = bytes.NewReader(tt.p.Bytes())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v: %s", err, out)
			}
			var got struct{ Installed, Errno int }
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("child output %q: %v", out, err)
			}
			if got.Installed != want || unix.Errno(got.Errno) != unix.ENOMEM {
				t.Errorf("kernel installed %d copies (then %v); MaxStackCount predicts %d (len %d, eBPF len %d)",
					got.Installed, unix.Errno(got.Errno), want, tt.p.Len(), tt.p.EBPFLen())
			}
		})
	}
}
