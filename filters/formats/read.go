package formats

import "github.com/seccompbench/seccompbench/filters/internal/input"

// ReadInput reads the file at path, refusing one over
// filters.MaxInputSize (the error wraps filters.ErrInputTooLarge): a
// regular file by its size before reading, a pipe or device after reading
// one byte more than the limit. Read errors wrap the *os.PathError. Every
// command reads its inputs (policies, units, profiles, results) through it.
func ReadInput(path string) ([]byte, error) { return input.Read(path) }
