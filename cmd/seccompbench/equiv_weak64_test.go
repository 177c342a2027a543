package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
)

// TestEquivWeak64BitComparison is the regression for a libseccomp that
// compiles a 64-bit argument comparison weaker than written (the class of
// libseccomp's 64-bit comparison advisories: one 32-bit half of the
// argument goes untested). The profile allows read only for args[0] == 0;
// the filter "the runtime produced" is our own compile of it with the
// test of args[0]'s high half patched out by hand, as such a compiler
// emits it. equiv, run the documented way (PROFILE FILTER.bpf), must say
// "different" with a witness whose args[0] has the high half set, exit 3.
func TestEquivWeak64BitComparison(t *testing.T) {
	const profile = "../../testdata/subset/read-arg0.json"
	src, err := formats.Load(profile, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := src.Stack()
	if len(s) != 1 {
		t.Fatalf("%d filters, want 1", len(s))
	}
	insns := append([]bpf.RawInstruction(nil), s[0].Insns...)
	hi := bpf.RawInstruction{Op: filters.Ld | filters.W | filters.Abs, K: filters.OffsetArgs + 4}
	patched := 0
	for pc := 0; pc+1 < len(insns); pc++ {
		if insns[pc] == hi && insns[pc+1].Op == filters.Jmp|filters.Jeq|filters.K && insns[pc+1].K == 0 {
			insns[pc+1].Jf = insns[pc+1].Jt // high half: any value goes on to the low half's test
			patched++
		}
	}
	if patched == 0 {
		t.Fatalf("no test of args[0]'s high half in the compiled profile:\n%v", s[0].Insns)
	}
	weak := &filters.Program{Name: "weak", Insns: insns}
	path := filepath.Join(t.TempDir(), "weak.bpf")
	if err := os.WriteFile(path, weak.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"equiv", profile, path}, strings.NewReader(""), &out, &errb)
	t.Logf("equiv printed:\n%s", out.String())
	if code != 3 || !strings.HasPrefix(out.String(), "different: ") || !strings.Contains(out.String(), " read ") ||
		!strings.Contains(out.String(), "args [0x100000000 ") {
		t.Fatalf("equiv: exit %d, want 3 with a read witness whose args[0] has the high half set:\n%s%s", code, out.String(), errb.String())
	}
	// The unpatched compile is equivalent: the verdict comes from the patch.
	good := filepath.Join(t.TempDir(), "good.bpf")
	if err := os.WriteFile(good, s[0].Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"equiv", profile, good}, strings.NewReader(""), &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "equivalent: ") {
		t.Errorf("equiv of the faithful compile: exit %d:\n%s%s", code, out.String(), errb.String())
	}
}
