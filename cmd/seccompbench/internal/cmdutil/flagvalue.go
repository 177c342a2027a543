package cmdutil

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// FlagValueError rewrites pflag's error for a value its parser refused
// ("invalid argument \"abc\" for \"--trials\" flag: strconv.ParseInt:
// parsing \"abc\": invalid syntax") in the user's words: the flag, the
// value as given and what it must be (`--trials: "abc" is not a whole
// number`). Errors of other kinds, and values refused by this tool's own
// flag types (whose messages already say what is wrong), keep pflag's
// text with Go's parser names removed.
func FlagValueError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil {
		return err
	}
	name := "--" + ive.GetFlag().Name
	typ := ive.GetFlag().Value.Type()
	v := ive.GetValue()
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		if errors.Is(ne.Err, strconv.ErrRange) {
			return fmt.Errorf("%s: %q is out of range: too large (or too small) for %s", name, v, typeWords(typ))
		}
		return fmt.Errorf("%s: %q is not %s", name, v, typeWords(typ))
	}
	if strings.Contains(typ, "duration") {
		return fmt.Errorf("%s: %q is not a duration: give a number with a unit, e.g. 500ms, 30s, 2m or 1h30m", name, v)
	}
	cause := errors.Unwrap(err)
	if cause == nil {
		return err
	}
	if strings.Contains(cause.Error(), v) {
		return fmt.Errorf("%s: %w", name, cause) // the cause quotes the value
	}
	return fmt.Errorf("%s: %q: %w", name, v, cause)
}

// typeWords names what a pflag type's value must be, with its article.
func typeWords(typ string) string {
	switch {
	case strings.HasPrefix(typ, "uint"):
		return "a whole number of 0 or more"
	case strings.HasPrefix(typ, "int"):
		return "a whole number"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case strings.HasPrefix(typ, "bool"):
		return "true or false"
	}
	return "a valid " + typ
}
