package optimize

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

const testdata = "../../../../testdata/"

// writeProfile writes an OCI profile for the test and returns its path.
func writeProfile(t *testing.T, name, json string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIntersectOCI(t *testing.T) {
	// allowSocket1 allows socket(1, ...) only; denySocket2 denies
	// socket(2, ...) only: both look at the argument, with other
	// conditions, so socket cannot be written exactly.
	allowSocket1 := writeProfile(t, "a.json", `{"defaultAction": "SCMP_ACT_ERRNO", "architectures": ["SCMP_ARCH_X86_64"],
		"syscalls": [{"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["socket"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}]}]}`)
	denySocket2 := writeProfile(t, "b.json", `{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
		"syscalls": [{"names": ["socket"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 2, "op": "SCMP_CMP_EQ"}]}]}`)
	// allowSocket allows socket whatever its arguments under a deny-all
	// default: with denySocket2 (older), socket's unmatched arguments
	// would need ALLOW under the intersection's ERRNO default.
	allowSocket := writeProfile(t, "c.json", `{"defaultAction": "SCMP_ACT_ERRNO", "architectures": ["SCMP_ARCH_X86_64"],
		"syscalls": [{"names": ["socket", "read"], "action": "SCMP_ACT_ALLOW"}]}`)
	tests := []struct {
		name           string
		specs          []string
		wantEquivalent bool
		wantLost       []string
		wantStricter   []string
	}{
		{"docker-default and podman", []string{"docker-default", testdata + "policies/podman-like.json"}, true, nil, nil},
		{"docker-default and an added keyctl rule", []string{"docker-default", testdata + "subset/pulled-keyctl.json"}, true, nil, nil},
		{"docker-default and fewer syscalls", []string{testdata + "subset/pulled-tight.json", "docker-default"}, true, nil, nil},
		{"argument rules on both sides", []string{allowSocket1, denySocket2}, false, []string{"socket"}, []string{"x86_64 socket"}},
		{"conditions on other arguments conjoin", []string{testdata + "subset/read-arg0.json", testdata + "subset/read-arg1.json"}, true, nil, nil},
		{"no per-syscall default", []string{denySocket2, allowSocket}, false, []string{"socket"}, []string{"x86_64 socket"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, err := OpenStack(tt.specs, "", scmp.CompilerNative, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "i.json")
			got, err := IntersectOCI(tt.specs, s, out, formats.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Equivalent != tt.wantEquivalent || !got.AtLeastAsRestrictive {
				t.Errorf("equivalent %v, at least as restrictive %v; want %v, true", got.Equivalent, got.AtLeastAsRestrictive, tt.wantEquivalent)
			}
			var lost []string
			for _, l := range got.Inexpressible {
				lost = append(lost, l.Syscall)
			}
			if !slices.Equal(lost, tt.wantLost) || !slices.Equal(got.Stricter, append([]string{}, tt.wantStricter...)) {
				t.Errorf("inexpressible %v, stricter %v; want %v, %v", lost, got.Stricter, tt.wantLost, tt.wantStricter)
			}
			// The file is what was proven: it loads as the same stack.
			if _, _, err := OpenStack([]string{out}, "", scmp.CompilerNative, io.Discard); err != nil {
				t.Errorf("written profile: %v", err)
			}
		})
	}
	s, _, err := OpenStack([]string{hardenedUnit}, "", scmp.CompilerNative, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := IntersectOCI([]string{hardenedUnit}, s, filepath.Join(t.TempDir(), "x.json"), formats.OpenOptions{}); !errors.Is(err, ErrNotOCI) {
		t.Errorf("a systemd unit: err = %v, want ErrNotOCI", err)
	}
}

func TestCostOf(t *testing.T) {
	s, _, err := OpenStack([]string{"docker-default", testdata + "subset/pulled-tight.json"}, "", scmp.CompilerNative, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := LoadProfile("../../../../filters/optimize/testdata/strace-f-git-status.txt", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	merged, _, err := Merge(s, "test")
	if err != nil {
		t.Fatal(err)
	}
	c, err := CostOf(s, merged, nil, prof, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Stacked.Filters != 2 || c.Intersected == nil || c.Intersected.Filters != 1 || c.Intersected.MeanPath >= c.Stacked.MeanPath {
		t.Errorf("stacked %+v, intersected %+v: want the merge shorter", c.Stacked, c.Intersected)
	}
	if c.Stacked.WeightedPath == nil || len(c.PerSyscall) == 0 || c.PerSyscall[0].Intersected == nil {
		t.Errorf("profile rows missing: %+v", c)
	}
	// Without a merge: the reason instead of the intersected cost.
	c, err = CostOf(s, nil, errors.New("too long"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Intersected != nil || c.IntersectError != "too long" || len(c.PerSyscall) != 0 {
		t.Errorf("cost without merge = %+v", c)
	}
}
