package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/compile"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report/document"
)

func TestNewCmdCompileCompilerFlag(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string
		wantErr bool
	}{
		{"default native", []string{"docker-default"}, "native", false},
		{"libseccomp", []string{"docker-default", "--compiler", "libseccomp"}, "libseccomp", false},
		{"unknown", []string{"docker-default", "--compiler", "gcc"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdCompile, tt.args, execWant{Err: tt.wantErr, Usage: true})
			if got != nil && got.Compiler != tt.want {
				t.Errorf("Compiler = %q, want %q", got.Compiler, tt.want)
			}
		})
	}
}

// TestCompileLayouts: an OCI profile's text and json output give both
// layouts' instruction counts when libseccomp is built in, and say how to
// get it when not.
func TestCompileLayouts(t *testing.T) {
	native, err := formats.OpenWith(oci.DockerDefaultName, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lib *filters.Program
	if scmp.LibseccompAvailable() {
		if lib, err = formats.OpenWith(oci.DockerDefaultName, formats.OpenOptions{Compiler: scmp.CompilerLibseccomp}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("text", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		if err := compileRun(&CompileOptions{IO: ios, Options: compile.Options{Policy: "docker-default", Out: output.Flags{Format: "text"}, Compiler: "native"}}); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(out.String(), "\n")
		want := fmt.Sprintf("; layouts: native %d instructions", native.Len())
		if !strings.HasPrefix(first, want) {
			t.Errorf("first line %q, want prefix %q", first, want)
		}
		if lib == nil && !strings.Contains(first, "build with -tags libseccomp") {
			t.Errorf("first line %q does not say how to get the libseccomp layout", first)
		}
		if lib != nil && !strings.Contains(first, fmt.Sprintf(" %d instructions (as runc installs it); shown: native", lib.Len())) {
			t.Errorf("first line %q lacks the libseccomp count %d", first, lib.Len())
		}
	})
	t.Run("json", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		if err := compileRun(&CompileOptions{IO: ios, Options: compile.Options{Policy: "docker-default", Out: output.Flags{Format: "json"}, Compiler: "native"}}); err != nil {
			t.Fatal(err)
		}
		var doc document.CompileDoc
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"native": native.Len()}
		if lib != nil {
			want["libseccomp"] = lib.Len()
		}
		if fmt.Sprint(doc.Layouts) != fmt.Sprint(want) || doc.Compiler != "native" {
			t.Errorf("layouts %v compiler %q, want %v native", doc.Layouts, doc.Compiler, want)
		}
	})
	t.Run("libseccomp", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		err := compileRun(&CompileOptions{IO: ios, Options: compile.Options{Policy: "docker-default", Out: output.Flags{Format: "raw"}, Compiler: "libseccomp"}})
		if lib == nil {
			if !errors.Is(err, scmp.ErrNoLibseccomp) {
				t.Fatalf("error = %v, want ErrNoLibseccomp", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), lib.Bytes()) {
			t.Errorf("raw output is not the libseccomp program")
		}
	})
	t.Run("policy: no layouts line, a note", func(t *testing.T) {
		ios, _, out, errOut := cmdutil.TestIOStreams()
		if err := compileRun(&CompileOptions{IO: ios, Options: compile.Options{Policy: "default", Out: output.Flags{Format: "text"}, Compiler: "libseccomp"}}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "layouts:") {
			t.Errorf("Beats policy output has a layouts line")
		}
		if !strings.Contains(errOut.String(), "applies to OCI profiles") {
			t.Errorf("no note that --compiler does not apply: %q", errOut.String())
		}
	})
}

// TestCompilerFlagOnAnalysisCommands: simulate, lint, estimate and sandbox
// take --compiler like compile and run, and refuse an unknown name as a
// usage error at flag parsing.
func TestCompilerFlagOnAnalysisCommands(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want execWant
		comp scmp.Compiler
	}{
		{"simulate default", []string{"docker-default", "--syscall", "openat"}, errContaining(""), scmp.CompilerNative},
		{"simulate libseccomp", []string{"docker-default", "--syscall", "openat", "--compiler", "libseccomp"}, errContaining(""), scmp.CompilerLibseccomp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdSimulate, tt.args, tt.want)
			if got != nil && got.Compiler != tt.comp {
				t.Errorf("Compiler = %v, want %v", got.Compiler, tt.comp)
			}
		})
	}
	if got := parseFlags(t, NewCmdLint, []string{"docker-default", "--compiler", "libseccomp"}, errContaining("")); got.Compiler != scmp.CompilerLibseccomp {
		t.Errorf("lint: Compiler = %v, want libseccomp", got.Compiler)
	}
	if got := parseFlags(t, NewCmdEstimate, []string{"docker-default", "--profile", "p.txt", "--compiler", "libseccomp"}, errContaining("")); got.Compiler != scmp.CompilerLibseccomp {
		t.Errorf("estimate: Compiler = %v, want libseccomp", got.Compiler)
	}
	if got := parseFlags(t, NewCmdSandbox, []string{"docker-default", "--compiler", "libseccomp", "--", "true"}, errContaining("")); got.Compiler != scmp.CompilerLibseccomp {
		t.Errorf("sandbox: Compiler = %v, want libseccomp", got.Compiler)
	}
	for _, cmd := range []string{"simulate", "lint", "estimate", "sandbox"} {
		var out, errb bytes.Buffer
		args := []string{cmd, "docker-default", "--compiler", "gcc"}
		if code := run(args, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown compiler; want native or libseccomp") {
			t.Errorf("%s --compiler gcc: exit %d, stderr %q; want exit 2 naming the choices", cmd, code, errb.String())
		}
	}
}
