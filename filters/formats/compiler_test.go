package formats

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// TestLibseccompBuild checks what every libseccomp entry point does in this
// build: in the default (pure Go) build, fail with ErrNoLibseccomp and the
// build hint; with -tags libseccomp, compile.
func TestLibseccompBuild(t *testing.T) {
	unit, err := os.ReadFile("../../testdata/policies/hardened.service")
	if err != nil {
		t.Fatal(err)
	}
	dd, err := oci.DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"CompileOCILibseccomp": func() error {
			_, err := oci.CompileLibseccomp("docker-default", dd, oci.Options{})
			return err
		},
		"CompileSystemdLibseccomp": func() error {
			_, err := systemd.CompileLibseccomp("hardened.service", unit, systemd.Options{})
			return err
		},
		"systemd.ParseUnit with Compiler": func() error {
			_, err := systemd.ParseUnit("hardened.service", unit, systemd.Options{Compiler: scmp.CompilerLibseccomp})
			return err
		},
		"OpenWith docker-default": func() error {
			_, err := OpenWith(oci.DockerDefaultName, OpenOptions{Compiler: scmp.CompilerLibseccomp})
			return err
		},
		"OpenWith OCI file": func() error {
			_, err := OpenWith("../../testdata/policies/vmm-like.json", OpenOptions{Compiler: scmp.CompilerLibseccomp})
			return err
		},
		"LibseccompVersion": func() error {
			_, err := scmp.LibseccompVersion()
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			if scmp.LibseccompAvailable() {
				if err != nil {
					t.Fatalf("built with libseccomp: %v", err)
				}
				return
			}
			if !errors.Is(err, scmp.ErrNoLibseccomp) {
				t.Fatalf("error = %v, want ErrNoLibseccomp", err)
			}
			if !strings.Contains(err.Error(), "-tags libseccomp") {
				t.Errorf("error %q gives no build hint", err)
			}
		})
	}
	// Formats the compiler does not apply to load the same either way.
	for _, spec := range []string{"../../testdata/policies/minimal.yaml", "../../testdata/policies/raw.bpf"} {
		a, err := OpenWith(spec, OpenOptions{Compiler: scmp.CompilerLibseccomp})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		b, err := Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		if a.SHA256() != b.SHA256() {
			t.Errorf("%s: --compiler libseccomp changed a program it does not compile", spec)
		}
	}
}

// TestCorpusPathological: pathological.yaml is sized so that the kernel's
// path limit bites at 32 filters: (len+4)*32 > 32768 >= (len+4)*31.
func TestCorpusPathological(t *testing.T) {
	p, err := Open("../../testdata/policies/pathological.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := filters.MaxStackCount([]*filters.Program{p}); got != 31 {
		t.Errorf("MaxStackCount = %d (len %d), want 31", got, p.Len())
	}
	_, err = filters.BuildStack([]*filters.Program{p}, 32)
	var le *filters.LimitError
	if !errors.As(err, &le) || le.Limit != "MAX_INSNS_PER_PATH" || le.MaxCount != 31 {
		t.Errorf("BuildStack(32) = %v, want a MAX_INSNS_PER_PATH LimitError with MaxCount 31", err)
	}
}
