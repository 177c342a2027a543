package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/report/document"
)

const pulledKeyctl = "../../testdata/subset/pulled-keyctl.json"

func TestNewCmdSubsetFlags(t *testing.T) {
	if got := parseFlags(t, NewCmdSubset, []string{"p.json", "--baseline", "a", "--baseline", "b", "--class-only"}, errContaining("")); got != nil {
		if len(got.Baseline) != 2 || got.Profile[0] != "p.json" || !got.ClassOnly {
			t.Errorf("options = %+v", got)
		}
	}
	if got := parseFlags(t, NewCmdSubset, []string{"p.json", "--baseline", "a", "--strict-errno"}, errContaining("")); got != nil && !got.StrictErrno {
		t.Errorf("--strict-errno not set: %+v", got)
	}
	parseFlags(t, NewCmdSubset, []string{"p.json", "--baseline", "a", "--strict-errno", "--class-only"}, usageErrContaining("contradict"))
	parseFlags(t, NewCmdSubset, []string{"p.json"}, usageErrContaining("need --baseline"))
	parseFlags(t, NewCmdSubset, []string{"--baseline", "b"}, errContaining("requires at least 1 arg"))
	parseFlags(t, NewCmdIntersect, nil, errContaining("requires at least 1 arg"))
}

// TestSubsetKeyctl: a profile adding keyctl(6, ...) to docker-default is
// looser on all three x86 ABIs, with the argument in the witness, and
// exits 3; against itself it is a subset.
func TestSubsetKeyctl(t *testing.T) {
	ios, _, stdout, _ := cmdutil.TestIOStreams()
	err := subsetRun(&SubsetOptions{IO: ios, SubsetOptions: optimize.SubsetOptions{Profile: []string{pulledKeyctl}, Baseline: []string{"docker-default"}, Out: output.Flags{Format: "json"}}})
	if !errors.Is(err, cmdutil.ErrFindings) {
		t.Fatalf("err = %v, want cmdutil.ErrFindings", err)
	}
	var doc document.SubsetDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range doc.Findings {
		got = append(got, f.Arch+" "+f.Name+" "+f.Relation+" "+f.A+" "+f.B)
		if f.Args[0] != 6 {
			t.Errorf("%s: args %v, want args[0] = 6", f.Name, f.Args)
		}
	}
	want := []string{"x86_64 keyctl looser ALLOW ERRNO(1)", "i386 keyctl looser ALLOW ERRNO(1)", "x32 keyctl looser ALLOW ERRNO(1)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("findings = %q, want %q", got, want)
	}
	simulateFindings(t, doc)
	if doc.Cost == nil || doc.Cost.Intersected == nil || doc.Cost.Intersected.Filters != 1 || doc.Cost.Stacked.Filters != 2 {
		t.Errorf("cost = %+v", doc.Cost)
	}
	ios, _, stdout, _ = cmdutil.TestIOStreams()
	if err := subsetRun(&SubsetOptions{IO: ios, SubsetOptions: optimize.SubsetOptions{Profile: []string{pulledKeyctl}, Baseline: []string{pulledKeyctl}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "subset: ") {
		t.Errorf("printed %q", stdout)
	}
}

// TestIntersectThenSubset: the intersected filter is a subset of each
// input (by action class) and equivalent to their stack.
func TestIntersectThenSubset(t *testing.T) {
	out := filepath.Join(t.TempDir(), "i.bpf")
	ios, _, _, errOut := cmdutil.TestIOStreams()
	err := intersectRun(&IntersectOptions{IO: ios, IntersectOptions: optimize.IntersectOptions{Specs: []string{"docker-default", pulledKeyctl}, Outs: []output.Spec{{Path: out, Format: "raw"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"proven equivalent", "stacked      2 filter(s)", "intersected  1 filter(s)"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, errOut)
		}
	}
	for _, base := range []string{"docker-default", pulledKeyctl} {
		ios, _, stdout, _ := cmdutil.TestIOStreams()
		if err := subsetRun(&SubsetOptions{IO: ios, SubsetOptions: optimize.SubsetOptions{Profile: []string{out}, Baseline: []string{base}, ClassOnly: true}}); err != nil {
			t.Errorf("subset of %s: %v\n%s", base, err, stdout)
		}
	}
}

// simulateFindings replays every finding of doc with `simulate` on each
// side and checks the verdicts subset printed.
func simulateFindings(t *testing.T, doc document.SubsetDoc) {
	t.Helper()
	for _, f := range doc.Findings {
		a := f.Args
		args := fmt.Sprintf("%d,%d,%d,%d,%d,%d", a[0], a[1], a[2], a[3], a[4], a[5])
		for spec, want := range map[string]string{pulledKeyctl: f.A, "docker-default": f.B} {
			var out, errb bytes.Buffer
			code := run([]string{"simulate", spec, "--syscall", f.Name, "--args", args, "--arch", f.Arch}, strings.NewReader(""), &out, &errb)
			if code != 0 || !strings.Contains(out.String(), "verdict   "+want+" ") {
				t.Errorf("simulate %s %s %s args %s: exit %d, want verdict %s:\n%s%s", spec, f.Arch, f.Name, args, code, want, out.String(), errb.String())
			}
		}
	}
}

// TestSubsetStrictErrno: a tight allow-list compiled the runc way (its
// ENOSYS stub answers every number above exit_group) against
// docker-default is a subset by action class, exit 0, with the ERRNO(38)
// against ERRNO(1) differences as notes that name the stub; with
// --strict-errno the same differences are findings and the exit is 3.
// podman-like's ERRNO(38) is its default action, not the stub.
func TestSubsetStrictErrno(t *testing.T) {
	const tight = "../../testdata/subset/tight-allowlist.json"
	ios, _, stdout, _ := cmdutil.TestIOStreams()
	if err := subsetRun(&SubsetOptions{IO: ios, SubsetOptions: optimize.SubsetOptions{Profile: []string{tight}, Baseline: []string{"docker-default"}, Out: output.Flags{Format: "json"}}}); err != nil {
		t.Fatalf("default: %v, want a subset", err)
	}
	var doc document.SubsetDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Subset || !doc.ClassOnly || len(doc.DataNotes) == 0 {
		t.Fatalf("default: subset %v, class_only %v, %d notes; want a subset with notes", doc.Subset, doc.ClassOnly, len(doc.DataNotes))
	}
	keyctl := false
	for _, n := range doc.DataNotes {
		if n.Name == "keyctl" && n.Arch == "x86_64" {
			keyctl = true
			if n.A != "ERRNO(38)" || n.B != "ERRNO(1)" || !n.ProfileENOSYSStub || n.BaselineENOSYSStub {
				t.Errorf("keyctl note = %+v, want ERRNO(38) from the profile's stub against ERRNO(1)", n)
			}
		}
	}
	if !keyctl {
		t.Errorf("no note for x86_64 keyctl in %+v", doc.DataNotes)
	}
	var out, errb bytes.Buffer
	code := run([]string{"subset", tight, "--baseline", "docker-default"}, strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "note: same action, other data") || !strings.Contains(out.String(), "runc's ENOSYS stub") {
		t.Errorf("default text: exit %d:\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"subset", tight, "--baseline", "docker-default", "--strict-errno"}, strings.NewReader(""), &out, &errb)
	if code != 3 || !strings.Contains(out.String(), "data differs x86_64 keyctl (nr 250): profile ERRNO(38), baseline ERRNO(1)") {
		t.Errorf("--strict-errno: exit %d, want 3 with keyctl's data difference:\n%s%s", code, out.String(), errb.String())
	}
	ios, _, stdout, _ = cmdutil.TestIOStreams()
	err := subsetRun(&SubsetOptions{IO: ios, SubsetOptions: optimize.SubsetOptions{Profile: []string{"../../testdata/policies/podman-like.json"}, Baseline: []string{"docker-default"}, StrictErrno: true, Out: output.Flags{Format: "json"}}})
	if !errors.Is(err, cmdutil.ErrFindings) {
		t.Fatalf("podman-like --strict-errno: err = %v, want cmdutil.ErrFindings", err)
	}
	doc = document.SubsetDoc{}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Findings {
		if f.Name == "keyctl" && (f.ProfileENOSYSStub || f.BaselineENOSYSStub) {
			t.Errorf("podman-like keyctl: %+v, want its default action's ERRNO(38), not the stub", f)
		}
	}
}

// TestSimulateENOSYSStub: simulate says when an ERRNO(38) is runc's stub
// (keyctl is above exit_group, the tight allow-list's highest syscall)
// and not when a rule returns the verdict (read is allowed by a rule).
func TestSimulateENOSYSStub(t *testing.T) {
	const tight = "../../testdata/subset/tight-allowlist.json"
	for _, tt := range []struct {
		syscall string
		stub    bool
	}{{"keyctl", true}, {"read", false}} {
		var out, errb bytes.Buffer
		code := run([]string{"simulate", tight, "--syscall", tt.syscall, "--arch", "x86_64"}, strings.NewReader(""), &out, &errb)
		if code != 0 || strings.Contains(out.String(), "runc's ENOSYS stub") != tt.stub {
			t.Errorf("simulate %s: exit %d, want stub note %v:\n%s%s", tt.syscall, code, tt.stub, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", tight, "--syscall", "keyctl", "--arch", "x86_64", "--format", "json"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), `"enosys_stub": true`) {
		t.Errorf("simulate --format json: exit %d, want enosys_stub true:\n%s%s", code, out.String(), errb.String())
	}
}
