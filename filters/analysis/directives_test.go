package analysis_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// unitSource models a unit (a file under testdata/policies, or text).
func unitSource(t *testing.T, name string, data []byte) *filters.Source {
	t.Helper()
	if data == nil {
		var err error
		if data, err = os.ReadFile("../../testdata/policies/" + name); err != nil {
			t.Fatal(err)
		}
	}
	st, err := systemd.ParseUnit(name, data, systemd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st.Source()
}

func partNamed(t *testing.T, r *analysis.PartsReport, name string) analysis.PartCost {
	t.Helper()
	for _, p := range r.Parts {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no part %s in %+v", name, r.Parts)
	return analysis.PartCost{}
}

// without is src's stack minus the filters of part name.
func without(src *filters.Source, name string) filters.Stack {
	var out filters.Stack
	off := 0
	for _, p := range src.Parts {
		if p.Name != name {
			out = append(out, src.Filters[off:off+p.Count]...)
		}
		off += p.Count
	}
	return out
}

// TestPartCostsHardened checks the hardened unit's per-directive answer
// against the whole-stack cache prediction and the emulator.
func TestPartCostsHardened(t *testing.T) {
	src := unitSource(t, "hardened.service", nil)
	r, err := analysis.PartCosts(src, filters.ArchX86_64)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Parts) != len(src.Parts) {
		t.Fatalf("%d parts, source has %d", len(r.Parts), len(src.Parts))
	}
	// The filters of each part are the source's, in order.
	next := 0
	for i, p := range r.Parts {
		if p.Name != src.Parts[i].Name || len(p.Filters) != src.Parts[i].Count {
			t.Errorf("part %d = %s with %d filters, source says %s with %d", i, p.Name, len(p.Filters), src.Parts[i].Name, src.Parts[i].Count)
		}
		for _, f := range p.Filters {
			if f.Index != next || f.Insns != src.Filters[next].Len() || f.ABI != src.Arches[next] {
				t.Errorf("%s filter %+v, want index %d, %d insns, ABI %s", p.Name, f, next, src.Filters[next].Len(), src.Arches[next])
			}
			next++
		}
	}
	// MemoryDenyWriteExecute= checks mmap's and mprotect's protection
	// argument, so it alone keeps them out of the cache.
	mdwe := partNamed(t, r, "MemoryDenyWriteExecute")
	for _, n := range []string{"mmap", "mprotect"} {
		if !slices.Contains(mdwe.Uncached, n) || !slices.Contains(mdwe.OnlyThis, n) || !slices.Contains(r.Uncached, n) {
			t.Errorf("%s: in Uncached %v, OnlyThis %v, Uncached %v: want it in all three", n, mdwe.Uncached, mdwe.OnlyThis, r.Uncached)
		}
	}
	if mdwe.Redundant != analysis.RedundantNo || mdwe.Witness == "" {
		t.Errorf("MemoryDenyWriteExecute redundant %q (%q), want no with a witness", mdwe.Redundant, mdwe.Witness)
	}
	// The whole stack's lists agree with PredictCache.
	pred := analysis.PredictCache(src.Stack(), []*filters.Arch{filters.ArchX86_64})
	cached, total := pred.Count("x86_64")
	if r.Cached != cached || r.Total != total {
		t.Errorf("cached %d of %d, PredictCache says %d of %d", r.Cached, r.Total, cached, total)
	}
	for _, n := range r.Uncached {
		nr, _ := filters.ArchX86_64.Lookup(n)
		if e, _ := pred.Lookup("x86_64", nr); e.Cached {
			t.Errorf("%s listed uncached, PredictCache caches it", n)
		}
	}
	// Every part's OnlyThis syscall becomes cached when that part goes,
	// and stays uncached with it.
	for _, p := range r.Parts {
		rest := analysis.PredictCache(without(src, p.Name), []*filters.Arch{filters.ArchX86_64})
		for _, n := range p.OnlyThis {
			nr, _ := filters.ArchX86_64.Lookup(n)
			if e, _ := rest.Lookup("x86_64", nr); !e.Cached {
				t.Errorf("%s: %s still uncached without it (%s)", p.Name, n, e.Reason)
			}
		}
		// The verdict matches equiv, and a redundant part agrees with
		// the emulator on every named syscall with sample arguments.
		res, err := equiv.Stacks(src.Stack(), without(src, p.Name))
		if err != nil {
			t.Fatal(err)
		}
		if (p.Redundant == analysis.RedundantYes) != res.Equivalent {
			t.Errorf("%s redundant %q, equiv says equivalent=%v", p.Name, p.Redundant, res.Equivalent)
		}
		if p.Redundant == analysis.RedundantYes {
			emulateSame(t, p.Name, src.Stack(), without(src, p.Name))
		}
	}
}

// emulateSame runs both stacks on every named syscall of each x86_64 ABI
// with a few argument patterns and fails where the outcomes differ.
func emulateSame(t *testing.T, name string, a, b filters.Stack) {
	t.Helper()
	argSets := [][6]uint64{{}, {1, 2, 4, 0, 0, 0}, {0x7, 0x7, 0x7, 0x7, 0x7, 0x7}, {0x02000000, 0x40, 0x800, 0, 0, 0}}
	ea, err := filters.NewExecutableStack(a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := filters.NewExecutableStack(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range filters.NativeArches() {
		for _, nr := range arch.SortedNumbers() {
			for _, args := range argSets {
				d := filters.SeccompData{Nr: arch.Nr(nr), Arch: arch.AuditArch, Args: args}
				ra, rb := ea.Exec(&d), eb.Exec(&d)
				if !equiv.OutcomeOf(ra.Ret).Same(equiv.OutcomeOf(rb.Ret)) {
					t.Errorf("%s reported redundant, but %s %s %v gives %s with it, %s without", name, arch.Name, arch.SyscallName(nr), args, equiv.OutcomeOf(ra.Ret), equiv.OutcomeOf(rb.Ret))
					return
				}
			}
		}
	}
}

// TestPartCostsRedundancy builds units whose overlap is known: a deny
// list refusing sethostname and setdomainname with the same errno as
// ProtectHostname= makes each redundant given the other (so "redundant"
// is about one directive at a time, never both); killing them instead
// (systemd's default action) makes only ProtectHostname= redundant, since
// the kill wins over its EPERM.
func TestPartCostsRedundancy(t *testing.T) {
	tests := []struct {
		name, unit         string
		hostname, syscalls string
	}{
		{"same errno", "ProtectHostname=yes\nSystemCallFilter=~sethostname setdomainname\nSystemCallErrorNumber=EPERM\n", analysis.RedundantYes, analysis.RedundantYes},
		{"kill", "ProtectHostname=yes\nSystemCallFilter=~sethostname setdomainname\n", analysis.RedundantYes, analysis.RedundantNo},
		// Two errnos tie on the action; the newest filter's wins
		// (kernel/seccomp.c: seccomp_run_filters), and SystemCallFilter=
		// is installed last.
		{"other errno", "ProtectHostname=yes\nSystemCallFilter=~sethostname setdomainname\nSystemCallErrorNumber=EACCES\n", analysis.RedundantYes, analysis.RedundantNo},
		{"one name", "ProtectHostname=yes\nSystemCallFilter=~sethostname\nSystemCallErrorNumber=EPERM\n", analysis.RedundantNo, analysis.RedundantYes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := unitSource(t, "test.service", []byte(tt.unit))
			r, err := analysis.PartCosts(src, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := partNamed(t, r, "ProtectHostname"); got.Redundant != tt.hostname {
				t.Errorf("ProtectHostname: %q (%s), want %q", got.Redundant, got.Witness, tt.hostname)
			}
			if got := partNamed(t, r, "SystemCallFilter"); got.Redundant != tt.syscalls {
				t.Errorf("SystemCallFilter: %q (%s), want %q", got.Redundant, got.Witness, tt.syscalls)
			}
			// A deny list by name reads no argument: nothing it makes
			// uncached can be allowed, so the stack's list is empty.
			if len(r.Uncached) != 0 {
				t.Errorf("uncached %v, want none", r.Uncached)
			}
		})
	}
}

func TestPartCostsNoParts(t *testing.T) {
	r, err := analysis.PartCosts(&filters.Source{Filters: []*filters.Program{{Name: "p", Insns: nil}}}, nil)
	if r != nil || err != nil {
		t.Errorf("a source without parts: %+v, %v; want nil, nil", r, err)
	}
}

// TestPartCostsLogAndRefuse: a logged call goes on and runs every filter,
// so it is uncached and listed; a call another directive refuses by
// number is counted there, and listed neither for the logging directive
// nor for the stack (it fails anyway).
func TestPartCostsLogAndRefuse(t *testing.T) {
	src := unitSource(t, "log.service", []byte("SystemCallLog=getpid uname\nSystemCallFilter=~uname\n"))
	r, err := analysis.PartCosts(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	logp := partNamed(t, r, "SystemCallLog")
	if !slices.Equal(logp.Uncached, []string{"getpid"}) {
		t.Errorf("SystemCallLog uncached %v, want [getpid] (uname is refused)", logp.Uncached)
	}
	filt := partNamed(t, r, "SystemCallFilter")
	if filt.Refused != 1 || len(filt.Uncached) != 0 {
		t.Errorf("SystemCallFilter refused %d, uncached %v; want 1 and none", filt.Refused, filt.Uncached)
	}
	if !slices.Equal(r.Uncached, []string{"getpid"}) || !slices.Equal(logp.OnlyThis, []string{"getpid"}) {
		t.Errorf("stack uncached %v, SystemCallLog only %v; want [getpid] for both", r.Uncached, logp.OnlyThis)
	}
}

// TestPartFindings: one cost finding per directive, a redundant-directive
// finding exactly for the redundant ones, naming their other effects; a
// unit of one directive gets none (its stack is that directive).
func TestPartFindings(t *testing.T) {
	src := unitSource(t, "hardened.service", nil)
	r, err := analysis.PartCosts(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := analysis.PartFindings(r, systemd.OtherEffects)
	costs, redundant := 0, 0
	for _, f := range fs {
		switch f.Code {
		case analysis.LintDirectiveCost:
			costs++
		case analysis.LintRedundantDirective:
			redundant++
			name, _, _ := strings.Cut(f.Message, "=")
			if e := systemd.OtherEffects(name); e != "" && !strings.Contains(f.Message, e) {
				t.Errorf("%s: %q does not name %q", name, f.Message, e)
			}
		}
	}
	want := 0
	for _, p := range r.Parts {
		if p.Redundant == analysis.RedundantYes {
			want++
		}
	}
	if costs != len(r.Parts) || redundant != want {
		t.Errorf("%d cost and %d redundant findings, want %d and %d", costs, redundant, len(r.Parts), want)
	}
	one, err := analysis.PartCosts(unitSource(t, "one.service", []byte("SystemCallFilter=~@mount\n")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fs := analysis.PartFindings(one, systemd.OtherEffects); len(fs) != 0 {
		t.Errorf("a one-directive unit got %d findings: %+v", len(fs), fs)
	}
}
