//go:build libseccomp && cgo

package snapd

import (
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/lsdiff"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// TestLibseccompSnapdDifferential: the snapd stack laid out by this
// package's model and by libseccomp itself (seccomp_rule_add, which
// snap-seccomp falls back to) give the same verdicts on inputs derived
// from the profile's rules.
func TestLibseccompSnapdDifferential(t *testing.T) {
	data, err := os.ReadFile("testdata/snap.hello.hello.src")
	if err != nil {
		t.Fatal(err)
	}
	native, err := Load("snap.hello.hello.src", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lib, err := Load("snap.hello.hello.src", data, Options{Compiler: scmp.CompilerLibseccomp})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("snap.hello.hello.src", data)
	if err != nil {
		t.Fatal(err)
	}
	rules := append(append([]scmp.Rule(nil), p.Deny...), p.Allow...)
	n, skipped := lsdiff.CompareStacks(t, filters.Stack(native.Filters), filters.Stack(lib.Filters), rules, lsdiff.RuleNames(rules))
	t.Logf("%d inputs agree (%d left out)", n, skipped)
}
