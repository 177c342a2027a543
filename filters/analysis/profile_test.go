package analysis

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
)

type entryWant struct {
	name    string
	arch    string
	nr      int
	known   bool
	calls   int64
	errors  int64
	seconds float64 // NaN: none
}

func checkEntries(t *testing.T, got []ProfileEntry, want []entryWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		secOK := (math.IsNaN(w.seconds) && math.IsNaN(g.Seconds)) || math.Abs(g.Seconds-w.seconds) < 1e-12
		if g.Name != w.name || g.Arch != w.arch || g.Nr != w.nr || g.Known != w.known || g.Calls != w.calls || g.Errors != w.errors || !secOK {
			t.Errorf("entry %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestParseProfile(t *testing.T) {
	tests := []struct {
		file       string
		format     string
		entries    []entryWant
		calls      int64
		seconds    float64
		hasSeconds bool
		warnings   []string // substrings, in order
	}{
		{
			file: "strace-mixed.txt", format: "strace",
			entries: []entryWant{
				{"openat", "x86_64", 257, true, 100, 10, 0.0006},
				{"read", "x86_64", 0, true, 100, 0, 0.0003},
				{"syscall_0x1c1", "x86_64", 449, true, 1, 0, 0.00005},
				{"no_such_call", "x86_64", -1, false, 2, 2, 0.00005},
				{"getpid", "i386", 20, true, 10, 0, 0.00001},
			},
			calls: 213, seconds: 0.00101, hasSeconds: true,
			warnings: []string{`"no_such_call" is not a x86_64 syscall`, "total row says 11 calls, the rows sum to 10"},
		},
		{
			file: "strace-f-git-status.txt", format: "strace",
			calls: 567, seconds: 0.002268, hasSeconds: true,
		},
		{
			file: "profile.csv", format: "csv",
			entries: []entryWant{
				{"read", "x86_64", 0, true, 1000, 0, 0.002},
				{"write", "x86_64", 1, true, 500, 0, 0.003},
				{"getpid", "x86_64", 39, true, 10, 0, 0.00001},
			},
			calls: 1510, seconds: 0.00501, hasSeconds: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile("testdata/profiles/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ParseProfile(tt.file, data)
			if err != nil {
				t.Fatal(err)
			}
			if p.Format != tt.format {
				t.Errorf("format %q, want %q", p.Format, tt.format)
			}
			if tt.entries != nil {
				checkEntries(t, p.Entries, tt.entries)
			}
			if p.TotalCalls != tt.calls || p.HasSeconds != tt.hasSeconds || math.Abs(p.TotalSeconds-tt.seconds) > 1e-12 {
				t.Errorf("totals: %d calls, %g s, has %v; want %d, %g, %v", p.TotalCalls, p.TotalSeconds, p.HasSeconds, tt.calls, tt.seconds, tt.hasSeconds)
			}
			if len(p.Warnings) != len(tt.warnings) {
				t.Fatalf("warnings %q, want %d", p.Warnings, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(p.Warnings[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, p.Warnings[i], w)
				}
			}
		})
	}
}

func TestParseProfileInline(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name    string
		in      string
		entries []entryWant
		err     string // substring; "" = no error
	}{
		{"csv without header or seconds", "close,3\nclose,2\n4,1\n",
			[]entryWant{{"close", "x86_64", 3, true, 5, 0, nan}, {"4", "x86_64", 4, true, 1, 0, nan}}, ""},
		{"csv bad count", "read,1\nwrite,x\n", nil, "in:2:"},
		{"csv too many fields", "read,1,2,3\n", nil, "want syscall,count[,seconds]"},
		{"csv negative seconds", "read,1,-1\n", nil, "seconds"},
		{"empty", "# nothing\n", nil, "no syscalls"},
		{"strace short row", "% time     seconds  usecs/call     calls    errors syscall\n------ -----\n 1.0 read\n", nil, "in:3:"},
		{"strace -U columns", "calls    errors name\n--------- ---------\n       7         1 close\n       2           dup\n--------- ---------\n       9         1 total\n",
			[]entryWant{{"close", "x86_64", 3, true, 7, 1, nan}, {"dup", "x86_64", 32, true, 2, 0, nan}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProfile("in", []byte(tt.in))
			if tt.err != "" {
				var se *filters.SourceError
				if err == nil || !errors.Is(err, ErrBadProfile) || !errors.As(err, &se) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want a *SourceError wrapping ErrBadProfile containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkEntries(t, p.Entries, tt.entries)
		})
	}
}

func TestEvaluateProfile(t *testing.T) {
	// read: allowed by number (cacheable); write: allowed after an
	// argument load (not cacheable); anything else: ERRNO(1).
	raw, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: filters.OffsetNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 1}, // read
		bpf.RetConstant{Val: uint32(filters.ActionAllow)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipFalse: 2}, // write: args
		bpf.LoadAbsolute{Off: filters.OffsetArgs, Size: 4},
		bpf.RetConstant{Val: uint32(filters.ActionAllow)},
		bpf.RetConstant{Val: uint32(filters.ActionErrno) | 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &filters.Program{Name: "t", Insns: raw}
	prof, err := ParseProfile("p.csv", []byte("read,10\nwrite,5\ngetpid,1\nbogus,7\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := EvaluateProfile(filters.Stack{p, p}, prof)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name     string
		action   filters.Action
		cached   bool
		executed int
	}{
		{"read", filters.ActionAllow, true, 6},    // 3 per filter
		{"write", filters.ActionAllow, false, 10}, // 5 per filter
		{"getpid", filters.ActionErrno, false, 8}, // 4 per filter
		{"bogus", 0, false, 0},                    // unknown: not evaluated
	}
	for i, w := range want {
		c := got[i].Cost
		if got[i].Name != w.name || c.Action != w.action || c.Cached != w.cached || c.Executed != w.executed {
			t.Errorf("%s: got action %v cached %v executed %d, want %v %v %d", got[i].Name, c.Action, c.Cached, c.Executed, w.action, w.cached, w.executed)
		}
	}
}

func TestGroupFilters(t *testing.T) {
	mk := func(k uint32) *filters.Program {
		raw, err := bpf.Assemble([]bpf.Instruction{bpf.RetConstant{Val: k}})
		if err != nil {
			t.Fatal(err)
		}
		return &filters.Program{Name: "p", Insns: raw}
	}
	a, b, c := mk(uint32(filters.ActionAllow)), mk(uint32(filters.ActionErrno)|1), mk(uint32(filters.ActionAllow))
	got := GroupFilters(filters.Stack{a, b, c, b, a})
	want := [][]int{{0, 2, 4}, {1, 3}} // a and c have the same bytes
	if len(got) != len(want) {
		t.Fatalf("got %d groups, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if fmt.Sprint(got[i].Indexes) != fmt.Sprint(w) || got[i].Instructions != 1 || len(got[i].SHA256) != 64 {
			t.Errorf("group %d: got %+v, want indexes %v", i, got[i], w)
		}
	}
	if got[0].SHA256 == got[1].SHA256 {
		t.Error("different filters share a hash")
	}
}

func TestParseProfileBinary(t *testing.T) {
	for _, in := range [][]byte{{0x7f, 'E', 'L', 'F', 0, 1}, {0xff, 0xfe, 'r', 'e', 'a', 'd', ',', '1'}} {
		_, err := ParseProfile("x.prof", in)
		if !errors.Is(err, ErrBadProfile) || !strings.Contains(err.Error(), "binary data") {
			t.Errorf("ParseProfile(%q) = %v, want a binary-data ErrBadProfile", in, err)
		}
	}
}
