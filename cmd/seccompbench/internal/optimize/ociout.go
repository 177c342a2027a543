package optimize

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/subset"
	"github.com/seccompbench/seccompbench/report/document"
)

// ErrNotOCI is returned by IntersectOCI when an input is not an OCI
// profile.
var ErrNotOCI = errors.New("not an OCI seccomp profile")

// ErrOCIUnproven is returned (wrapped) by IntersectOCI when the profile
// it built, compiled back, is not at least as restrictive as the stack
// somewhere: looser (a bug), or the same action with other errno data,
// which the kernel's tie rule decides in the stack and one OCI default
// cannot always state. The profile is not written.
var ErrOCIUnproven = errors.New("the OCI intersection is not at least as restrictive as the stack")

// IntersectOCI writes to path the OCI profile of the stack of specs
// (oci.Intersect; each spec an OCI profile file or "docker-default"),
// resolved with o.OCI, compiles it back with o and proves it against
// stack s (the specs loaded by OpenStackWith with o): equivalent, or at
// least as restrictive where the OCI schema cannot state the
// intersection. A profile looser than s is not written.
func IntersectOCI(specs []string, s filters.Stack, path string, o formats.OpenOptions) (*document.OCIIntersection, error) {
	var profs []oci.Profile
	for _, spec := range specs {
		p, err := readOCI(spec)
		if err != nil {
			return nil, err
		}
		profs = append(profs, p)
	}
	data, lost, err := oci.Intersect(profs, o.OCI)
	if err != nil {
		return nil, fmt.Errorf("intersect as OCI: %w", err)
	}
	src, err := formats.LoadData(path, data, o)
	if err != nil {
		return nil, fmt.Errorf("compile the OCI intersection back: %w", err)
	}
	back := src.Stack()
	res := &document.OCIIntersection{File: path, Inexpressible: []document.OCIInexpressible{}, Stricter: []string{}}
	for _, l := range lost {
		res.Inexpressible = append(res.Inexpressible, document.OCIInexpressible{Syscall: l.Syscall, Reason: l.Reason, Written: l.Written})
	}
	if err := prove(back, s, res); err != nil {
		var ue *unprovenError
		if errors.As(err, &ue) {
			ue.specs = specs
		}
		return nil, err
	}
	err = output.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	return res, err
}

// readOCI reads one input of IntersectOCI.
func readOCI(spec string) (oci.Profile, error) {
	if spec == oci.DockerDefaultName {
		data, err := oci.DockerDefaultJSON()
		return oci.Profile{Name: spec, Data: data}, err
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return oci.Profile{}, fmt.Errorf("intersect as OCI: %w", err)
	}
	if !oci.Detect(data) {
		return oci.Profile{}, fmt.Errorf("intersect as OCI: %s: %w; --oci takes OCI/Docker/Podman JSON profiles and %q", spec, ErrNotOCI, oci.DockerDefaultName)
	}
	return oci.Profile{Name: spec, Data: data}, nil
}

// prove fills res from the exact checks of back (the written profile,
// compiled) against the stack s.
func prove(back, s filters.Stack, res *document.OCIIntersection) error {
	eq, err := equiv.Stacks(back, s)
	if err != nil {
		return fmt.Errorf("prove the OCI intersection: %w", err)
	}
	if eq.Equivalent {
		res.Equivalent, res.AtLeastAsRestrictive = true, true
		return nil
	}
	sub, err := subset.Check(back, s, subset.Options{})
	if err != nil {
		return fmt.Errorf("prove the OCI intersection: %w", err)
	}
	if !sub.Subset {
		return &unprovenError{res: sub}
	}
	res.AtLeastAsRestrictive = true
	// Where the stack is looser than the profile, the profile is stricter.
	rev, err := subset.Check(s, back, subset.Options{})
	if err != nil {
		return fmt.Errorf("prove the OCI intersection: %w", err)
	}
	for _, f := range append(rev.Findings, rev.Unnamed...) {
		name := f.Name
		if name == "" {
			name = fmt.Sprintf("nr %d", f.Nr)
		}
		res.Stricter = append(res.Stricter, f.Arch+" "+name)
	}
	return nil
}

// unprovenError is prove's refusal: where the compiled-back profile is
// not at least as restrictive as the stack of specs.
type unprovenError struct {
	specs []string
	res   subset.Result
}

func (e *unprovenError) Unwrap() error { return ErrOCIUnproven }

func (e *unprovenError) Error() string {
	var b strings.Builder
	for i, s := range e.specs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%c = %s", 'A'+rune(min(i, 25)), s)
	}
	order := b.String()
	fs := append(slices.Clone(e.res.Findings), e.res.Unnamed...)
	onlyData, first := true, "no witness"
	for i, f := range fs {
		onlyData = onlyData && f.Relation == subset.DataDiffers
		if i == 0 {
			first = fmt.Sprintf("%s %s args %#x: the OCI profile would give %s, the stack gives %s", f.Arch, cmp.Or(f.Name, fmt.Sprintf("nr %d", f.Nr)),
				f.Witness.Args, f.Profile, f.Baseline)
		}
	}
	if onlyData && len(fs) > 0 {
		return fmt.Sprintf("%v (stack %s, installed in that order): it returns other errno data on %d syscall(s), e.g. %s. "+
			"In the stack the kernel's tie rule decides the errno (the same action in several filters returns the newest filter's data, "+
			"kernel/seccomp.c: seccomp_run_filters), and one OCI profile (one default, no per-syscall default) cannot state it here; "+
			"swapping the inputs' order changes which errno wins. The OCI file is not written; the BPF filter (-o) and the summary are", ErrOCIUnproven, order, len(fs), first)
	}
	return fmt.Sprintf("%v (stack %s): it is looser on %d syscall(s), e.g. %s; the OCI file is not written", ErrOCIUnproven, order, len(fs), first)
}
