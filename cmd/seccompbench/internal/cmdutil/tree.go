package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// StrictCompletion adds cobra's completion command to root now, not when
// the root executes, so that a shell it has no script for (`completion
// tcsh`), or none, is a usage error naming the shells it has (exit 2)
// rather than its help with exit 0.
func StrictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sub := range c.Commands() {
			shells = append(shells, sub.Name())
		}
		want := strings.Join(shells[:len(shells)-1], ", ") + " or " + shells[len(shells)-1]
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return FlagErrorf("completion: name a shell: %s", want)
			}
			return FlagErrorf("completion: no script for shell %q; want %s", args[0], want)
		}
	}
}

// UsageArgs makes the positional-argument checks of c and its
// subcommands (cobra.MinimumNArgs and the like) return *FlagError, so a
// missing or extra argument is a usage error (exit 2) like a bad flag.
func UsageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				if IsFlagError(err) {
					return err
				}
				return &FlagError{Err: fmt.Errorf("%s: %w (usage: %s)", cmd.Name(), err, cmd.UseLine())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		UsageArgs(sub)
	}
}
