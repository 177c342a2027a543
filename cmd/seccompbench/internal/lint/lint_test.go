package lint

import (
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
)

func openOptions(t *testing.T, arch string) formats.OpenOptions {
	t.Helper()
	o, err := (&cmdutil.LoadFlags{Arch: arch}).Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestLintArchFromFilters: without --arch, a stack that checks only
// another kernel's ABIs is linted for that ABI, with an info finding
// saying so; with --arch, the flag decides and nothing is added.
func TestLintArchFromFilters(t *testing.T) {
	other := "aarch64"
	if filters.KernelArches(cmdutil.NativeArch())[0].Name == "aarch64" {
		other = "x86_64"
	}
	src, err := formats.Load("default", openOptions(t, other))
	if err != nil {
		t.Fatal(err)
	}
	s := filters.Stack(src.Filters)

	got, note := lintArch(openOptions(t, ""), s)
	if got.Name != other || note == nil || note.Code != ArchNoteCode || note.Filter != -1 {
		t.Errorf("defaulted --arch: got %s, note %+v; want %s with a %s note", got.Name, note, other, ArchNoteCode)
	}
	native := filters.KernelArches(cmdutil.NativeArch())[0].Name
	got, note = lintArch(openOptions(t, native), s)
	if got.Name != native || note != nil {
		t.Errorf("--arch %s: got %s, note %+v; want %s and no note", native, got.Name, note, native)
	}
}

// TestRunDepth: a lone systemd unit is measured at its own stack's
// depth, anything else at runjob's default depth.
func TestRunDepth(t *testing.T) {
	o := openOptions(t, "x86_64")
	unit, err := formats.Load("../../../../testdata/policies/hardened.service", o)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := formats.Load("default", o)
	if err != nil {
		t.Fatal(err)
	}
	if got := runDepth(&cmdutil.Loaded{Sources: []*filters.Source{unit}}); got != len(unit.Filters) || got < 2 {
		t.Errorf("lone unit: runDepth = %d, want its %d filters", got, len(unit.Filters))
	}
	if got := runDepth(&cmdutil.Loaded{Sources: []*filters.Source{unit, pol}}); got != runjob.DefaultDepth {
		t.Errorf("unit and policy: runDepth = %d, want runjob.DefaultDepth (%d)", got, runjob.DefaultDepth)
	}
}
