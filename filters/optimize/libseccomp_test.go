//go:build libseccomp

package optimize

import (
	"testing"

	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// TestOptimizeLibseccompTree compares with docker-default as libseccomp
// lays it out for runc (binary tree, ENOSYS stub): no syscall longer
// without a profile, the git-status-weighted path halved with it.
func TestOptimizeLibseccompTree(t *testing.T) {
	p, err := formats.OpenWith(oci.DockerDefaultName, formats.OpenOptions{Compiler: scmp.CompilerLibseccomp})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Optimize(p, Weights{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Longer) != 0 {
		t.Errorf("%d syscalls longer than libseccomp's tree, e.g. %+v", len(res.Longer), res.Longer[0])
	}
	w, prof := gitStatusWeights(t)
	res, err = Optimize(p, w)
	if err != nil {
		t.Fatal(err)
	}
	if before, after := weightedPath(t, p, prof), weightedPath(t, res.Program, prof); after > before/2 {
		t.Errorf("profile-weighted path %.2f, want at most half of libseccomp's %.2f", after, before)
	}
}
