package output

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
)

// WriteFileAtomic writes path through a temporary file in the same
// directory, renamed over path only when complete: a failed or interrupted
// write leaves any previous file untouched.
//
// A symbolic link is followed (the link stays, its target is replaced).
// Devices and pipes (/dev/null, /dev/stdout) cannot be replaced and are
// written directly; a directory is refused.
func WriteFileAtomic(path string, render func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("write %s: is a directory; give a file name", path)
		}
		return writeDirect(path, render)
	}
	target, err := outputTarget(path)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		return fmt.Errorf("write %s: %w (any previous %s is untouched)", path, unwrapPath(err), path)
	}
	// A signal now must not end the process before the temporary file is
	// renamed or removed.
	release := interrupt.Hold()
	defer release()
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	if err := render(tmp); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fail(err)
	}
	return nil
}

// writeDirect renders into an existing device or pipe.
func writeDirect(path string, render func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := render(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// WriteEach renders to every output in outs: stdout directly, files
// atomically (WriteFileAtomic), announcing each file on errOut as
// "wrote PATH (FORMAT)". The first error stops it.
func WriteEach(outs []Spec, stdout, errOut io.Writer, render func(format string, w io.Writer) error) error {
	for _, o := range outs {
		if o.Path == "" {
			if err := render(o.Format, stdout); err != nil {
				return err
			}
			continue
		}
		if err := WriteFileAtomic(o.Path, func(w io.Writer) error { return render(o.Format, w) }); err != nil {
			return err
		}
		fmt.Fprintf(errOut, "wrote %s (%s)\n", o.Path, o.Format)
	}
	return nil
}
