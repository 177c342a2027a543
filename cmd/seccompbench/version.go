package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
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

func versionRun(opts *VersionOptions) error {
	fmt.Fprint(opts.IO.Out, cmdutil.VersionLine())
	if !opts.Verbose {
		return nil
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	for _, s := range bi.Settings {
		fmt.Fprintf(opts.IO.Out, "build\t%s=%s\n", s.Key, s.Value)
	}
	for _, m := range bi.Deps {
		fmt.Fprintf(opts.IO.Out, "dep\t%s\t%s\n", m.Path, m.Version)
	}
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

func manRun(opts *ManOptions) error {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return fmt.Errorf("write man pages: %w", err)
	}
	opts.Root.DisableAutoGenTag = true
	if err := writeManTree(opts.Root, opts.Dir); err != nil {
		return fmt.Errorf("write man pages: %w", err)
	}
	fmt.Fprintf(opts.IO.ErrOut, "wrote man pages to %s\n", opts.Dir)
	return nil
}

// thDate is the date field of a page's .TH line.
var thDate = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*") "[^"]*"`)

// writeManTree writes the page of cmd and of every available subcommand,
// as cobra's doc.GenManTree does, but reproducibly: no date and no
// version (which carries the VCS revision) in the header, so that the
// same code always gives the same pages and docs/man can be checked.
func writeManTree(cmd *cobra.Command, dir string) error {
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeManTree(c, dir); err != nil {
			return err
		}
	}
	hdr := &doc.GenManHeader{Title: "SECCOMPBENCH", Section: "1", Source: "seccompbench", Manual: "seccompbench manual"}
	var b bytes.Buffer
	if err := doc.GenMan(cmd, hdr, &b); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	page := thDate.ReplaceAll(b.Bytes(), []byte(`$1 ""`))
	name := strings.ReplaceAll(cmd.CommandPath(), " ", "-") + ".1"
	return os.WriteFile(filepath.Join(dir, name), page, 0o644)
}
