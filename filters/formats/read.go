package formats

import (
	"io"

	"github.com/seccompbench/seccompbench/filters/internal/input"
)

// ReadInput reads the file at path, refusing one over
// filters.MaxInputSize (the error wraps filters.ErrInputTooLarge): a
// regular file by its size before reading, a pipe or device after reading
// one byte more than the limit. Read errors wrap the *os.PathError. Every
// command reads its inputs (policies, units, profiles, results) through it.
func ReadInput(path string) ([]byte, error) { return input.Read(path) }

// ReadFrom reads r, an input with no size to check first (standard input,
// named name in errors), refusing it once it holds more than
// filters.MaxInputSize bytes; the error wraps filters.ErrInputTooLarge and
// says "more than 16777216 bytes", since the rest was not read. Every
// command reads standard input through it.
func ReadFrom(name string, r io.Reader) ([]byte, error) { return input.ReadFrom(name, r) }
