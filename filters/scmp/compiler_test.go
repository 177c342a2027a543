package scmp

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/formats"
)

func TestParseCompiler(t *testing.T) {
	tests := []struct {
		in      string
		want    Compiler
		wantErr bool
	}{
		{"", CompilerNative, false},
		{"native", CompilerNative, false},
		{"libseccomp", CompilerLibseccomp, false},
		{"LibSeccomp", CompilerLibseccomp, false},
		{"gcc", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseCompiler(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrUnknownCompiler) {
				t.Errorf("ParseCompiler(%q) error = %v, want ErrUnknownCompiler", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseCompiler(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if round, _ := ParseCompiler(got.String()); round != got {
			t.Errorf("ParseCompiler(%v.String()) = %v", got, round)
		}
	}
}

// TestLibseccompBuild checks what every libseccomp entry point does in this
// build: in the default (pure Go) build, fail with ErrNoLibseccomp and the
// build hint; with -tags libseccomp, compile.
func TestLibseccompBuild(t *testing.T) {
	unit, err := os.ReadFile("../testdata/policies/hardened.service")
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
		"ParseSystemdUnit with Compiler": func() error {
			_, err := systemd.ParseUnit("hardened.service", unit, systemd.Options{Compiler: CompilerLibseccomp})
			return err
		},
		"OpenWith docker-default": func() error {
			_, err := formats.OpenWith(oci.DockerDefaultName, formats.OpenOptions{Compiler: CompilerLibseccomp})
			return err
		},
		"OpenWith OCI file": func() error {
			_, err := formats.OpenWith("../testdata/policies/vmm-like.json", formats.OpenOptions{Compiler: CompilerLibseccomp})
			return err
		},
		"LibseccompVersion": func() error {
			_, err := LibseccompVersion()
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			if LibseccompAvailable() {
				if err != nil {
					t.Fatalf("built with libseccomp: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNoLibseccomp) {
				t.Fatalf("error = %v, want ErrNoLibseccomp", err)
			}
			if !strings.Contains(err.Error(), "-tags libseccomp") {
				t.Errorf("error %q gives no build hint", err)
			}
		})
	}
	// Formats the compiler does not apply to load the same either way.
	for _, spec := range []string{"../testdata/policies/minimal.yaml", "../testdata/policies/raw.bpf"} {
		a, err := formats.OpenWith(spec, formats.OpenOptions{Compiler: CompilerLibseccomp})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		b, err := formats.Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		if a.SHA256() != b.SHA256() {
			t.Errorf("%s: --compiler libseccomp changed a program it does not compile", spec)
		}
	}
}
