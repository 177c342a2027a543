// Package complete is shell completion beyond file names: the values of
// flags such as --workload, --format, --cache and --loader, syscall names
// for --syscall (per --arch), and the built-in policy names.
package complete

import (
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/beats"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/runner/workload"
)

// flagValues are the values shell completion offers for a flag, by name.
// For the flags in filtered, whose values differ between commands, the
// flag's own help text names the values that command takes (run's --cache
// has both, estimate's has not), so only candidates its usage mentions
// are offered, or all of them when it mentions none.
func flagValues() map[string][]string {
	var formatIn []string
	for _, r := range formats.Table {
		formatIn = append(formatIn, r.Names[0])
	}
	return map[string][]string{
		"workload":  append(workload.Names(), "command"),
		"format":    {"text", "table", "json", "markdown", "csv", "benchstat", "raw", "svg", "png"},
		"cache":     {"on", "defeat", "both"},
		"loader":    {"unprivileged", "privileged", "both"},
		"compiler":  {"native", "libseccomp"},
		"arch":      {"x86_64", "i386", "x32", "aarch64", "arm"},
		"thread":    {"vmm", "api", "vcpu"},
		"format-in": append([]string{"auto"}, formatIn...),
	}
}

// builtinPolicies are the POLICY names served without a file.
func builtinPolicies() []string {
	return []string{"default", beats.DefaultName, oci.DockerDefaultName}
}

// filtered are the flags whose values differ between commands.
var filtered = map[string]bool{"format": true, "cache": true, "loader": true}

var wordRE = regexp.MustCompile(`[a-z0-9_-]+`)

// Register teaches shell completion the values of c's flags
// and its subcommands' (flagValues; --syscall: the syscall names of the
// ABI --arch names, this machine's by default) and, for commands that take
// POLICY arguments, the built-in policy names next to file names.
func Register(c *cobra.Command) {
	values := flagValues()
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "syscall" || f.Name == "syscalls" {
			_ = c.RegisterFlagCompletionFunc(f.Name, completeSyscalls)
			return
		}
		cands, ok := values[f.Name]
		if !ok {
			return
		}
		used := map[string]bool{}
		for _, w := range wordRE.FindAllString(f.Usage, -1) {
			used[w] = true
		}
		offer := cands
		if filtered[f.Name] {
			offer = nil
			for _, v := range cands {
				if used[v] {
					offer = append(offer, v)
				}
			}
			if len(offer) == 0 {
				offer = cands
			}
		}
		_ = c.RegisterFlagCompletionFunc(f.Name, cobra.FixedCompletions(offer, cobra.ShellCompDirectiveNoFileComp))
	})
	if strings.Contains(c.Use, "POLICY") && c.ValidArgsFunction == nil {
		c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var out []string
			for _, b := range builtinPolicies() {
				if strings.HasPrefix(b, toComplete) {
					out = append(out, b)
				}
			}
			// Files complete too (ShellCompDirectiveDefault).
			return out, cobra.ShellCompDirectiveDefault
		}
	}
	for _, sub := range c.Commands() {
		Register(sub)
	}
}

// completeSyscalls completes syscall names of the ABI --arch names, or of
// this machine's; a comma-separated list completes its last name.
func completeSyscalls(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	arch := cmdutil.NativeArch()
	if f := cmd.Flags().Lookup("arch"); f != nil && f.Value.String() != "" {
		if a, err := filters.LookupArch(f.Value.String()); err == nil {
			arch = a
		}
	}
	prefix := ""
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		prefix, toComplete = toComplete[:i+1], toComplete[i+1:]
	}
	var out []string
	for name := range arch.Names {
		if strings.HasPrefix(name, toComplete) {
			out = append(out, prefix+name)
		}
	}
	slices.Sort(out)
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
