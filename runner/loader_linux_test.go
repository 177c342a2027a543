package runner

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
)

// TestRunLoaders runs real children with both loaders: the unprivileged
// child must lack CAP_SYS_ADMIN in its effective, permitted and bounding
// sets when it calls seccomp(2), the privileged one must have it in its
// effective set (read back in the child), and every child's pad is the one
// PadFor gives for the run's seed and the child's position.
func TestRunLoaders(t *testing.T) {
	skipIfNoSeccomp(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to hold CAP_SYS_ADMIN (the privileged loader)")
	}
	p := prog(t, "allow", allow)
	cfg := Config{
		Programs: []*filters.Program{p}, Counts: []int{0, 2}, Variants: []result.Variant{result.VariantDefeat},
		Loaders: []result.Loader{result.LoaderUnprivileged, result.LoaderPrivileged}, Placement: DefaultPlacement(),
		Workload: loops("getpid"), Trials: 2, Seed: 7, Iterations: 100, Samples: 1,
	}
	got, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 {
		t.Fatalf("got %d samples, want 8 (2 loaders x 2 counts x 2 trials)", len(got))
	}
	const sa = uint64(1) << result.CapSysAdminBit
	perLoader := map[result.Loader]int{}
	for _, s := range got {
		perLoader[s.Loader]++
		switch s.Loader {
		case result.LoaderUnprivileged:
			if s.CapSysAdmin || s.Caps.Eff&sa != 0 || s.Caps.Prm&sa != 0 || s.Caps.Bnd&sa != 0 {
				t.Errorf("%s: unprivileged child has CAP_SYS_ADMIN: %s", s.Cell, s.Caps)
			}
			if s.Caps.Eff == 0 {
				t.Errorf("%s: unprivileged root child lost every capability (%s), want only CAP_SYS_ADMIN gone", s.Cell, s.Caps)
			}
		case result.LoaderPrivileged:
			if !s.CapSysAdmin || s.Caps.Eff&sa == 0 {
				t.Errorf("%s: privileged child lacks CAP_SYS_ADMIN: %s", s.Cell, s.Caps)
			}
		default:
			t.Errorf("sample with loader %q", s.Loader)
		}
		if want := cfg.Placement.PadFor(cfg.Seed, s.Seq); s.Pad != want {
			t.Errorf("%s seq %d: pad %d, want %d", s.Cell, s.Seq, s.Pad, want)
		}
	}
	if perLoader[result.LoaderUnprivileged] != 4 || perLoader[result.LoaderPrivileged] != 4 {
		t.Errorf("children per loader: %v, want 4 each", perLoader)
	}
}

// TestThreadCapsReadsOwnThread: the read-back parses a real status file
// (the test process's main thread), and a privileged loader without
// CAP_SYS_ADMIN is refused with ErrLoaderCaps instead of being measured
// under the privileged name.
func TestThreadCapsReadsOwnThread(t *testing.T) {
	skipIfNoSeccomp(t)
	c, err := sys.ThreadCaps(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 && !c.SysAdmin() {
		t.Errorf("root test process reads %s: no CAP_SYS_ADMIN", c)
	}
	if err := result.CheckLoaderCaps(result.LoaderPrivileged, result.Caps{}); !errors.Is(err, result.ErrLoaderCaps) {
		t.Errorf("privileged with no capabilities: %v, want ErrLoaderCaps", err)
	}
}
