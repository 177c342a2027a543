package cmdutil

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestFlagValueError parses bad values the way cobra does and checks the
// rewritten message: the flag, the value and what it must be, never
// strconv's or time's words.
func TestFlagValueError(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--trials", "abc"}, `--trials: "abc" is not a whole number`},
		{[]string{"--trials", "99999999999999999999"}, `--trials: "99999999999999999999" is out of range`},
		{[]string{"--seed", "-1"}, `--seed: "-1" is not a whole number of 0 or more`},
		{[]string{"--confidence", "high"}, `--confidence: "high" is not a number`},
		{[]string{"--ab-time", "soon"}, `--ab-time: "soon" is not a duration`},
		{[]string{"--explain=maybe"}, `--explain: "maybe" is not true or false`},
	} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.Int("trials", 0, "")
		fs.Uint64("seed", 0, "")
		fs.Float64("confidence", 0, "")
		fs.Duration("ab-time", time.Second, "")
		fs.Bool("explain", false, "")
		err := fs.Parse(tt.args)
		if err == nil {
			t.Fatalf("%v: parsed", tt.args)
		}
		got := FlagValueError(err)
		if !strings.HasPrefix(got.Error(), tt.want) || strings.Contains(got.Error(), "strconv") || strings.Contains(got.Error(), "time: invalid") {
			t.Errorf("%v: %q, want it to start %q", tt.args, got, tt.want)
		}
	}
	other := errors.New("unknown flag: --x")
	if got := FlagValueError(other); got != other {
		t.Errorf("an error of another kind became %q", got)
	}
}
