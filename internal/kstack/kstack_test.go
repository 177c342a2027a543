package kstack

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports keeps the classifier pure: no kernel access, no exec, no
// clock; runner/live takes the samples and the symbol table.
func TestImports(t *testing.T) {
	boundary.ForbidImports(t, "kstack", boundary.Sources(t),
		[]string{"golang.org/x/sys/unix", "os", "os/exec", "syscall", "time", "github.com/seccompbench/seccompbench/runner"})
}

// A small symbol table laid out like x86_64's: core text from _stext to
// _etext, one module, one named BPF program; unnamed images (classic
// filters) live in the module area between them.
const testKallsyms = `ffffffff81000000 T _stext
ffffffff81000000 T _text
ffffffff81100000 T do_syscall_64
ffffffff81100400 T entry_SYSCALL_64_after_hwframe
ffffffff81200000 t syscall_trace_enter
ffffffff81200300 t syscall_exit_work
ffffffff81300000 t __seccomp_filter
ffffffff81300800 T __secure_computing
ffffffff81300900 t __x64_sys_getppid
ffffffff81400000 T ___bpf_prog_run
ffffffff81500000 t __bpf_trace_sys_exit
ffffffff81600000 D some_data
ffffffff81700000 T _etext
ffffffffc0100000 t nf_hook	[nf_tables]
ffffffffc0100100 t nf_other	[nf_tables]
ffffffffc0200000 t bpf_prog_47dbf5627e7fa461_sb_count	[bpf]
`

const (
	aImage   = 0xffffffffc0010040 // unnamed: a classic filter's image
	aSeccomp = 0xffffffff81300050
	aSecure  = 0xffffffff81300810
	aTrace   = 0xffffffff81200040
	aDo      = 0xffffffff81100040
	aEntry   = 0xffffffff81100410
	aGetppid = 0xffffffff81300910
	aInterp  = 0xffffffff81400010
	aCounter = 0xffffffffc0200010
	aBpfGlue = 0xffffffff81500010
	aExit    = 0xffffffff81200310
	aModule  = 0xffffffffc0100110
)

func testSymbols(t *testing.T) *Symbols {
	t.Helper()
	s, err := ParseKallsyms([]byte(testKallsyms))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseKallsyms(t *testing.T) {
	s := testSymbols(t)
	if s.TextStart != 0xffffffff81000000 || s.TextEnd != 0xffffffff81700000 {
		t.Errorf("text %x-%x", s.TextStart, s.TextEnd)
	}
	tests := []struct {
		addr uint64
		want string
		ok   bool
	}{
		{aSeccomp, "__seccomp_filter", true},
		{0xffffffff81600010, "__bpf_trace_sys_exit", true}, // data symbols are dropped
		{aImage, "", false},
		{0xffffffff80000000, "", false},
		{aModule, "nf_other", true},
		{aCounter, "bpf_prog_47dbf5627e7fa461_sb_count", true},
	}
	for _, tt := range tests {
		got, ok := s.Lookup(tt.addr)
		if ok != tt.ok || got.Name != tt.want {
			t.Errorf("Lookup(%x) = %q, %v; want %q, %v", tt.addr, got.Name, ok, tt.want, tt.ok)
		}
	}
	for _, bad := range []string{"0000000000000000 T _stext\n0000000000000000 T _etext\n", "ffffffff81000000 T foo\n", "zz T x\n"} {
		if _, err := ParseKallsyms([]byte(bad)); err == nil {
			t.Errorf("ParseKallsyms(%q) gave no error", bad)
		}
	}
	if _, err := ParseKallsyms([]byte("0000000000000000 T _stext\n0000000000000000 T _etext\n")); !errors.Is(err, ErrHiddenAddresses) {
		t.Errorf("hidden addresses: %v, want ErrHiddenAddresses", err)
	}
}

func TestClassify(t *testing.T) {
	c := NewClassifier(testSymbols(t))
	inSys := func(stack ...uint64) Sample { return Sample{Nr: 110, AX: -38, Stack: stack} }
	afterRet := func(stack ...uint64) Sample { return Sample{Nr: 110, AX: 0, Stack: stack} }
	tests := []struct {
		name string
		s    Sample
		want Verdict
	}{
		{"user", Sample{User: true, Nr: -1}, Verdict{Class: ClassUser}},
		{"no stack", Sample{Nr: 110}, Verdict{Class: ClassNoStack}},
		{"in __seccomp_filter", inSys(aSeccomp, aTrace, aDo, aEntry), Verdict{Class: ClassSeccomp, Part: PartEntry}},
		{"in __secure_computing", inSys(aSecure, aTrace, aDo), Verdict{Class: ClassSeccomp, Part: PartEntry}},
		{"image under __seccomp_filter", inSys(aImage, aSeccomp, aTrace, aDo, aEntry), Verdict{Class: ClassSeccomp, Part: PartFilter}},
		{"interpreter", inSys(aInterp, aSeccomp, aTrace), Verdict{Class: ClassSeccomp, Part: PartFilter}},
		{"image, unwinder skipped __seccomp_filter", inSys(aImage, aTrace, aDo), Verdict{Class: ClassSeccomp, Part: PartFilter, Inferred: true}},
		{"image alone, in a syscall", inSys(aImage), Verdict{Class: ClassSeccomp, Part: PartFilter, Inferred: true}},
		{"image alone, syscall returned", afterRet(aImage), Verdict{Class: ClassKernel}},
		{"image alone, interrupt", Sample{Nr: -1, AX: -38, Stack: Addrs{aImage}}, Verdict{Class: ClassKernel}},
		{"image called from elsewhere", inSys(aImage, aModule), Verdict{Class: ClassKernel}},
		{"syscall body", inSys(aGetppid, aDo, aEntry), Verdict{Class: ClassKernel}},
		{"counter program", inSys(aCounter), Verdict{Class: ClassKernel}},
		// A return address one past a call at the end of a function
		// belongs to that function.
		{"return address at the next symbol", inSys(aGetppid, 0xffffffff81300800, aTrace), Verdict{Class: ClassSeccomp, Part: PartEntry}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Classify(&tt.s); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestTallySamples(t *testing.T) {
	c := NewClassifier(testSymbols(t))
	ss := []Sample{
		{Time: 100, Tgid: 7, User: true, Nr: -1},
		{Time: 150, Tgid: 7, Nr: 110, AX: -38, Stack: Addrs{aImage}},
		{Time: 250, Tgid: 7, Nr: 110, AX: -38, Stack: Addrs{aSeccomp, aTrace}},
		{Time: 260, Tgid: 7, Nr: 39, AX: -38, Stack: Addrs{aCounter, aBpfGlue, aExit}},
		{Time: 270, Tgid: 8, Nr: 0, AX: -38, Stack: Addrs{aSecure, aTrace}},
		{Time: 400, Tgid: 7, Nr: 110, AX: -38, Stack: Addrs{aSeccomp}}, // outside the window
	}
	got := TallySamples(c, ss, TallyOptions{Start: 100, End: 300, BatchNs: 100, CounterOn: []Interval{{200, 300}}})
	if len(got) != 2 || got[0].Tgid != 7 || got[1].Tgid != 8 {
		t.Fatalf("got %d tallies", len(got))
	}
	p := got[0]
	if p.Samples != 4 || p.Seccomp != 2 || p.Filter != 1 || p.Inferred != 1 || p.User != 1 {
		t.Errorf("tgid 7: %+v", p)
	}
	if p.SeccompByNr[110] != 2 || len(p.SeccompByNr) != 1 {
		t.Errorf("by nr %v, want 110: 2", p.SeccompByNr)
	}
	if want := []BatchCount{{1, 2}, {1, 2}}; len(p.Batches) != 2 || p.Batches[0] != want[0] || p.Batches[1] != want[1] {
		t.Errorf("batches %v, want %v", p.Batches, want)
	}
	if p.CountedSamples != 2 || p.CounterSamples != 1 {
		t.Errorf("counted %d, counter %d; want 2, 1", p.CountedSamples, p.CounterSamples)
	}
}

// readFixture loads a stream recorded on this project's VM kind (Linux
// 6.18, x86_64, ORC unwinder) by mkfixtures.go.
func readFixture(t *testing.T, name string) (*Classifier, []Sample) {
	t.Helper()
	ks, err := os.ReadFile("testdata/" + name + ".kallsyms")
	if err != nil {
		t.Fatal(err)
	}
	syms, err := ParseKallsyms(ks)
	if err != nil {
		t.Fatal(err)
	}
	z, err := os.ReadFile("testdata/" + name + ".jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := ReadStream(zr)
	if err != nil {
		t.Fatal(err)
	}
	return NewClassifier(syms), ss
}

// TestRecordedStreams classifies real sample streams: a getppid loop under
// 16 docker-default filters with the action cache defeated spends a large
// share in seccomp, part of it in images the unwinder cannot leave; the
// same loop without filters spends none.
func TestRecordedStreams(t *testing.T) {
	t.Run("16 filters", func(t *testing.T) {
		c, ss := readFixture(t, "getppid-16-defeat")
		var n, sec, filter, inferred, nr110 int
		for i := range ss {
			v := c.Classify(&ss[i])
			n++
			if v.Class == ClassSeccomp {
				sec++
				if ss[i].Nr == 110 {
					nr110++
				}
				if v.Part == PartFilter {
					filter++
				}
				if v.Inferred {
					inferred++
				}
			}
		}
		share := float64(sec) / float64(n)
		if share < 0.15 || share > 0.85 {
			t.Errorf("seccomp share %.3f of %d samples, want a large one", share, n)
		}
		if nr110 != sec {
			t.Errorf("%d of %d seccomp samples are in getppid (110); the loop makes no other syscall", nr110, sec)
		}
		if filter == 0 || inferred == 0 || inferred == filter {
			t.Errorf("filter %d, inferred %d: want images both with and without a full callchain", filter, inferred)
		}
	})
	t.Run("no filters", func(t *testing.T) {
		c, ss := readFixture(t, "getppid-0")
		var kernel int
		for i := range ss {
			v := c.Classify(&ss[i])
			if v.Class == ClassSeccomp {
				t.Fatalf("sample %d classified seccomp without filters: %+v", i, ss[i])
			}
			if v.Class == ClassKernel {
				kernel++
			}
		}
		if kernel == 0 {
			t.Errorf("no kernel samples in %d: the fixture is not a syscall loop", len(ss))
		}
	})
}

func TestStreamRoundTrip(t *testing.T) {
	in := []Sample{{Time: 1, Tgid: 2, Tid: 3, CPU: 1, Nr: 110, AX: -38, Stack: Addrs{aImage, 0xffffffffffffffff}}, {Time: 2, User: true, Nr: -1}}
	var b bytes.Buffer
	if err := WriteStream(&b, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadStream(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Stack[1] != 0xffffffffffffffff || out[0].AX != -38 || !out[1].User {
		t.Errorf("round trip: %+v", out)
	}
	if _, err := ReadStream(bytes.NewBufferString("{\"t\":1}\nnot json\n")); err == nil {
		t.Error("bad line: no error")
	}
}
