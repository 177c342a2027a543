package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/manpage"
)

// VersionOptions are the flags of `seccompbench version`.
type VersionOptions struct {
	IO      *cmdutil.IOStreams
	Verbose bool
}

// NewCmdVersion builds `seccompbench version`, which prints
// cmdutil.VersionLine and, with --verbose, the module dependencies from
// build info. runF, if not nil, replaces versionRun.
func NewCmdVersion(f *cmdutil.Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, VCS revision and Go toolchain",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "also print build settings and module dependencies")
	return cmd
}

// versionRun prints the version (cmdutil.WriteVersion).
func versionRun(opts *VersionOptions) error {
	cmdutil.WriteVersion(opts.IO.Out, opts.Verbose)
	return nil
}

// ManOptions are the arguments of `seccompbench man`.
type ManOptions struct {
	IO  *cmdutil.IOStreams
	Dir string
	// Root is the command tree to document.
	Root *cobra.Command
}

// NewCmdMan builds `seccompbench man DIR`, listed in --help, which writes one man
// page (section 1) per command into DIR, creating it. docs/man is made
// this way. runF, if not nil, replaces manRun.
func NewCmdMan(f *cmdutil.Factory, runF func(*ManOptions) error) *cobra.Command {
	opts := &ManOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write man pages for every command into DIR",
		Long: `Write one man page (section 1) per command into DIR, creating it:
seccompbench.1, seccompbench-run.1 and so on, without a date or version in
their headers, so the same build always writes the same pages (docs/man is
made this way). Read one with man -l DIR/seccompbench-run.1.` + cmdutil.ExitStatusHelp(""),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir, opts.Root = args[0], cmd.Root()
			if runF != nil {
				return runF(opts)
			}
			return manRun(opts)
		},
	}
}

// manRun writes the pages (manpage.WriteTree) and says where.
func manRun(opts *ManOptions) error {
	if err := manpage.WriteTree(opts.Root, opts.Dir); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "wrote man pages to %s\n", opts.Dir)
	return nil
}
