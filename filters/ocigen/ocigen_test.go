package ocigen

import (
	"errors"

	"reflect"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/oci"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

func TestMergeArgs(t *testing.T) {
	eq := func(i uint, v uint64) specs.LinuxSeccompArg {
		return specs.LinuxSeccompArg{Index: i, Op: specs.OpEqualTo, Value: v}
	}
	meq := func(i uint, m, v uint64) specs.LinuxSeccompArg {
		return specs.LinuxSeccompArg{Index: i, Op: specs.OpMaskedEqual, Value: m, ValueTwo: v}
	}
	gt := specs.LinuxSeccompArg{Index: 1, Op: specs.OpGreaterThan, Value: 3}
	tests := []struct {
		name     string
		in, want []specs.LinuxSeccompArg
		ok       bool
		conflict int
	}{
		{"distinct", []specs.LinuxSeccompArg{eq(0, 1), gt}, []specs.LinuxSeccompArg{eq(0, 1), gt}, true, -1},
		{"masks", []specs.LinuxSeccompArg{meq(2, 1, 1), meq(2, 4, 0)}, []specs.LinuxSeccompArg{meq(2, 5, 1)}, true, -1},
		{"eq and mask", []specs.LinuxSeccompArg{eq(2, 5), meq(2, 4, 4)}, []specs.LinuxSeccompArg{eq(2, 5)}, true, -1},
		{"never", []specs.LinuxSeccompArg{meq(2, 1, 1), meq(2, 3, 0)}, nil, false, -1},
		{"to eq", []specs.LinuxSeccompArg{meq(0, 0xffffffff, 7), meq(0, 0xffffffff00000000, 0)}, []specs.LinuxSeccompArg{eq(0, 7)}, true, -1},
		{"range", []specs.LinuxSeccompArg{gt, {Index: 1, Op: specs.OpLessThan, Value: 9}}, nil, false, 1},
	}
	for _, tt := range tests {
		got, ok, conflict := MergeArgs(tt.in)
		if !reflect.DeepEqual(got, tt.want) || ok != tt.ok || conflict != tt.conflict {
			t.Errorf("%s: MergeArgs = %v, %v, %d; want %v, %v, %d", tt.name, got, ok, conflict, tt.want, tt.ok, tt.conflict)
		}
	}
}

func TestJSONLayout(t *testing.T) {
	p := &Profile{Name: "t"}
	p.Seccomp.DefaultAction = specs.ActErrno
	p.Add(Pos{Line: 7}, specs.ActAllow, nil, nil, "read", "nosuch")
	b, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"defaultAction":"SCMP_ACT_ERRNO","syscalls":[
{"names":["read"],"action":"SCMP_ACT_ALLOW"},
{"names":["nosuch"],"action":"SCMP_ACT_ALLOW"}
]}
`
	if string(b) != want {
		t.Errorf("JSON =\n%s\nwant\n%s", b, want)
	}
	prog, err := p.Compile("src.txt", []byte("x"), errTest, specsOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(prog.Warnings) != 1 || prog.Warnings[0][:10] != "src.txt:7:" {
		t.Errorf("warnings = %q, want one at src.txt:7", prog.Warnings)
	}
}

var errTest = errors.New("test format")

var specsOpts = oci.Options{}

// TestCompileErrorAt checks that a ParseOCI error about an entry is moved
// to where the entry came from.
func TestCompileErrorAt(t *testing.T) {
	p := &Profile{Name: "t", DefaultAt: Pos{Line: 1, Col: 1}}
	p.Seccomp.DefaultAction = specs.ActErrno
	p.Add(Pos{Line: 3, Col: 5}, specs.ActAllow, nil, nil, "read")
	p.Add(Pos{File: "inc.txt", Line: 9, Col: 2}, "SCMP_ACT_BOGUS", nil, nil, "write")
	_, err := p.Compile("src.txt", nil, errTest, specsOpts)
	var se *filters.SourceError
	if !errors.As(err, &se) || !errors.Is(err, errTest) || !errors.Is(err, oci.ErrBadProfile) {
		t.Fatalf("error %v: want a *filters.SourceError wrapping both sentinels", err)
	}
	if se.File != "inc.txt" || se.Line != 9 || se.Col != 2 {
		t.Errorf("error at %s:%d:%d, want inc.txt:9:2", se.File, se.Line, se.Col)
	}
}
