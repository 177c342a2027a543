package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
)

// TestPolicyFlagsEverywhere walks the command tree: every command that
// reads a policy (it has --compiler, the flag that lays policies out)
// has every flag cmdutil.AddLoadFlags registers, with the same usage,
// so `--format-in` or `--arch` is never an unknown flag on one of them.
func TestPolicyFlagsEverywhere(t *testing.T) {
	var ref pflag.FlagSet
	cmdutil.AddLoadFlags(&ref, &cmdutil.LoadFlags{})
	ios, _, _, _ := cmdutil.TestIOStreams()
	root := NewCmdRoot(&cmdutil.Factory{IO: ios})
	var readers []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Flags().Lookup("compiler") == nil {
			return
		}
		readers = append(readers, c.Name())
		ref.VisitAll(func(want *pflag.Flag) {
			got := c.Flags().Lookup(want.Name)
			switch {
			case got == nil:
				t.Errorf("%s reads a policy but has no --%s", c.CommandPath(), want.Name)
			case got.Usage != want.Usage:
				t.Errorf("%s --%s: usage %q, want the shared %q", c.CommandPath(), want.Name, got.Usage, want.Usage)
			}
		})
	}
	walk(root)
	slices.Sort(readers)
	// The commands the issue found without --format-in and --arch must
	// be among those checked.
	for _, name := range []string{"budget", "equiv", "merge", "optimize", "sandbox"} {
		if !slices.Contains(readers, name) {
			t.Errorf("%s is not among the commands that read a policy: %v", name, readers)
		}
	}
}

// TestPolicyFlagsParse runs the new policy flags through merge, equiv
// and optimize end to end: --format-in forces the format (a wrong one is
// an error naming it) and --arch picks the ABI the policy compiles for.
func TestPolicyFlagsParse(t *testing.T) {
	const pol = "../../testdata/policies/docker-default.json"
	for _, args := range [][]string{
		{"merge", pol, "--arch", "x86_64", "--format-in", "oci"},
		{"optimize", pol, "--arch", "x86_64", "--format-in", "oci"},
		{"equiv", pol, pol, "--arch", "x86_64", "--format-in", "oci"},
	} {
		ios, _, out, errOut := cmdutil.TestIOStreams()
		root := NewCmdRoot(&cmdutil.Factory{IO: ios})
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Errorf("%v: %v (stderr %s)", args, err, errOut)
			continue
		}
		if out.Len() == 0 {
			t.Errorf("%v: nothing written", args)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", pol, "--format-in", "nosuch"}, "--format-in"},
		// Forced to read the OCI profile as a Beats policy: it fails, so
		// the flag reached the loader.
		{[]string{"optimize", pol, "--format-in", "policy"}, pol},
		{[]string{"equiv", pol, pol, "--arch", "nosuch"}, "nosuch"},
		{[]string{"budget", pol, "--format-in", "nosuch"}, "--format-in"},
	} {
		ios, _, _, _ := cmdutil.TestIOStreams()
		root := NewCmdRoot(&cmdutil.Factory{IO: ios})
		root.SetArgs(tt.args)
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want an error naming %s", tt.args, err, tt.want)
		}
	}
}

// TestCacheFlag: simulate and sandbox take --cache on|defeat, and the
// old --defeat-cache still works as its deprecated alias.
func TestCacheFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"a.yaml", "--cache", "defeat", "--", "true"}, true},
		{[]string{"a.yaml", "--cache", "on", "--", "true"}, false},
		{[]string{"a.yaml", "--defeat-cache", "--", "true"}, true},
		{[]string{"a.yaml", "--", "true"}, false},
	} {
		ios, _, _, _ := cmdutil.TestIOStreams()
		var got *SandboxOptions
		cmd := NewCmdSandbox(&cmdutil.Factory{IO: ios}, func(o *SandboxOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		if err := cmd.Execute(); err != nil {
			t.Errorf("sandbox %v: %v", tt.args, err)
			continue
		}
		if got.DefeatCache != tt.want {
			t.Errorf("sandbox %v: DefeatCache %v, want %v", tt.args, got.DefeatCache, tt.want)
		}
	}
	ios, _, _, _ := cmdutil.TestIOStreams()
	cmd := NewCmdSimulate(&cmdutil.Factory{IO: ios}, func(*SimulateOptions) error { return nil })
	cmd.SetArgs([]string{"default", "--cache", "both"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "on or defeat") {
		t.Errorf("simulate --cache both: %v, want an error naming on or defeat", err)
	}
}

// TestTextTableOneName: text and table name the default text format on
// every command, whichever of the two it calls it: the output is the
// same bytes.
func TestTextTableOneName(t *testing.T) {
	for _, args := range [][]string{
		{"lint", "default"},
		{"compile", "default"},
		{"report", "../../docs/examples/run.json"},
	} {
		var got []string
		for _, f := range []string{"text", "table"} {
			ios, _, out, errOut := cmdutil.TestIOStreams()
			root := NewCmdRoot(&cmdutil.Factory{IO: ios})
			root.SetArgs(append(slices.Clone(args), "--format", f))
			if err := root.Execute(); err != nil {
				t.Fatalf("%v --format %s: %v (stderr %s)", args, f, err, errOut)
			}
			got = append(got, out.String())
		}
		if got[0] != got[1] || got[0] == "" {
			t.Errorf("%v: --format text and --format table differ or are empty:\n%s\n---\n%s", args, got[0], got[1])
		}
	}
}

// TestReadmeListsEveryCommand: the README's command table has a row
// for every command of the root (completion and man share one; help
// is cobra's).
func TestReadmeListsEveryCommand(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	ios, _, _, _ := cmdutil.TestIOStreams()
	for _, c := range NewCmdRoot(&cmdutil.Factory{IO: ios}).Commands() {
		if c.Name() == "help" {
			continue
		}
		if !strings.Contains(readme, "`"+c.Name()+" ") && !strings.Contains(readme, "`"+c.Name()+"`") {
			t.Errorf("README.md's command table has no row for %s", c.Name())
		}
	}
}
