// Package input reads the files the filters packages take by path (a
// Beats policy given to beats.Load, a minijail @include), refusing one
// over filters.MaxInputSize. It is the filters tree's one reader of files:
// the machine in filters does no I/O. Commands read through
// formats.ReadInput, which calls Read.
package input

import (
	"fmt"
	"io"
	"os"

	"github.com/seccompbench/seccompbench/filters"
)

// Read reads the file at path, refusing one over filters.MaxInputSize: a
// regular file by its size before reading, a pipe or device after reading
// one byte more than the limit. Read errors wrap the *os.PathError; an
// input over the limit wraps filters.ErrInputTooLarge.
func Read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := filters.CheckSize(path, st.Size()); err != nil {
			return nil, err
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, filters.MaxInputSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > filters.MaxInputSize {
		return nil, tooLarge(path)
	}
	return data, nil
}

// ReadFrom reads r (standard input, named name in errors) to its end,
// refusing it once it holds more than filters.MaxInputSize bytes: it
// reads one byte more than the limit, so the error (wrapping
// filters.ErrInputTooLarge) says "more than", never a size it did not
// read. Read errors are returned as r gives them.
func ReadFrom(name string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, filters.MaxInputSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > filters.MaxInputSize {
		return nil, tooLarge(name)
	}
	return data, nil
}

// tooLarge is the error for an input read past the limit, whose whole
// size is unknown.
func tooLarge(name string) error {
	return fmt.Errorf("read %s: %w: more than %d bytes, the limit for every input (%d MiB)", name, filters.ErrInputTooLarge, filters.MaxInputSize, filters.MaxInputSize>>20)
}
