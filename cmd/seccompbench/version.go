package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func init() {
	extraCommands = append(extraCommands, NewCmdVersion, NewCmdMan)
}

// versionLine is what `seccompbench version` and `--version` print: the
// tool version (module version and VCS revision from build info, see
// version), the Go toolchain and the platform.
func versionLine() string {
	return fmt.Sprintf("seccompbench %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// NewCmdVersion builds `seccompbench version`, which prints versionLine
// and, with --verbose, the module dependencies from build info.
func NewCmdVersion(f *Factory) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, VCS revision and Go toolchain",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(f.IO.Out, versionLine())
			if !verbose {
				return nil
			}
			bi, ok := debug.ReadBuildInfo()
			if !ok {
				return nil
			}
			for _, s := range bi.Settings {
				fmt.Fprintf(f.IO.Out, "build\t%s=%s\n", s.Key, s.Value)
			}
			for _, m := range bi.Deps {
				fmt.Fprintf(f.IO.Out, "dep\t%s\t%s\n", m.Path, m.Version)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also print build settings and module dependencies")
	return cmd
}

// NewCmdMan builds the hidden `seccompbench man DIR`, which writes one man
// page (section 1) per command into DIR, creating it. docs/man is made
// this way.
func NewCmdMan(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write man pages for every command into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("write man pages: %w", err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			hdr := &doc.GenManHeader{Title: "SECCOMPBENCH", Section: "1", Source: "seccompbench " + version(), Manual: "seccompbench manual"}
			if err := doc.GenManTree(root, hdr, dir); err != nil {
				return fmt.Errorf("write man pages: %w", err)
			}
			fmt.Fprintf(f.IO.ErrOut, "wrote man pages to %s\n", dir)
			return nil
		},
	}
}
