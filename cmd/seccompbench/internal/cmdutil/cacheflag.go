package cmdutil

import (
	"fmt"

	"github.com/spf13/pflag"
)

// cacheValue is --cache on|defeat over a bool that is true for defeat.
type cacheValue struct{ defeat *bool }

func (v cacheValue) String() string {
	if v.defeat != nil && *v.defeat {
		return "defeat"
	}
	return "on"
}

func (v cacheValue) Set(s string) error {
	switch s {
	case "on":
		*v.defeat = false
	case "defeat":
		*v.defeat = true
	default:
		return fmt.Errorf("%q is not on or defeat", s)
	}
	return nil
}

func (cacheValue) Type() string { return "on|defeat" }

// AddCacheFlag adds --cache on|defeat to fl for commands that build one
// stack: defeat sets *defeat, and every filter then starts with
// ld [instruction_pointer], so the kernel's action cache (5.11+,
// kernel/seccomp.c: seccomp_cache_prepare) can prove nothing about it,
// as run --cache defeat does. --defeat-cache stays as a deprecated
// alias for --cache defeat (cobra prints the deprecation on use).
func AddCacheFlag(fl *pflag.FlagSet, defeat *bool) {
	fl.Var(cacheValue{defeat}, "cache", "evaluate the filters as installed (on) or with the action cache defeated (defeat: ld [instruction_pointer] first in every filter, as run --cache defeat does)")
	fl.BoolVar(defeat, "defeat-cache", false, "the same as --cache defeat")
	// MarkDeprecated only fails for a flag that is not defined.
	_ = fl.MarkDeprecated("defeat-cache", "use --cache defeat")
}
