package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// compilerUsage is the help text of every --compiler flag.
const compilerUsage = "who lays out OCI profiles (and docker-default): native or libseccomp (as runc installs them; needs a -tags libseccomp build)"

// compilerValue is a --compiler flag: a scmp.Compiler set through
// scmp.ParseCompiler, so a bad name is a usage error (exit 2) at flag
// parsing.
type compilerValue scmp.Compiler

// String returns the compiler's name ("native" or "libseccomp").
func (c *compilerValue) String() string { return scmp.Compiler(*c).String() }

// Set parses a compiler name; errors wrap scmp.ErrUnknownCompiler.
func (c *compilerValue) Set(s string) error {
	v, err := scmp.ParseCompiler(s)
	if err != nil {
		return err
	}
	*c = compilerValue(v)
	return nil
}

// Type names the value in help output.
func (c *compilerValue) Type() string { return "string" }

// printWarnings prints what the loaders noticed in the policies' sources
// (filters.Program.Warnings, e.g. OCI syscall names no table knows) on w,
// one "warning: " line each. lint reports them as findings instead.
func printWarnings(w io.Writer, progs []*filters.Program) {
	for _, p := range progs {
		for _, msg := range p.Warnings {
			fmt.Fprintf(w, "warning: %s\n", msg)
		}
	}
}

// addCompilerFlag adds --compiler to fl, storing into dst (default native).
func addCompilerFlag(fl *pflag.FlagSet, dst *scmp.Compiler) {
	fl.Var((*compilerValue)(dst), "compiler", compilerUsage)
}
