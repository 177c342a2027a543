package filters

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxInputSize is the largest input any seccompbench command reads, in
// bytes, whatever its format: a Beats policy, an OCI profile, raw BPF, a
// systemd unit, a profile of syscall counts or a run result. The largest
// real inputs are far below it (Docker's default profile is 20 KB); over
// it a file is refused before it is parsed (a 50 MB OCI file parsed for
// 6 s at 426 MB of memory before this limit covered every format).
const MaxInputSize = 16 << 20

// ErrInputTooLarge is wrapped by the errors of ReadInput and CheckSize for
// an input over MaxInputSize.
var ErrInputTooLarge = errors.New("input too large")

// CheckSize returns an error wrapping ErrInputTooLarge, naming the input,
// when size (in bytes) exceeds MaxInputSize.
func CheckSize(name string, size int64) error {
	if size <= MaxInputSize {
		return nil
	}
	return fmt.Errorf("read %s: %w: %d bytes, the limit for every input is %d bytes (%d MiB)", name, ErrInputTooLarge, size, MaxInputSize, MaxInputSize>>20)
}

// ReadInput reads the file at path, refusing one over MaxInputSize: a
// regular file by its size before reading, a pipe or device after reading
// one byte more than the limit. Read errors wrap the *os.PathError.
func ReadInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := CheckSize(path, st.Size()); err != nil {
			return nil, err
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxInputSize+1))
	if err != nil {
		return nil, err
	}
	if err := CheckSize(path, int64(len(data))); err != nil {
		return nil, fmt.Errorf("read %s: %w: more than %d bytes, the limit for every input", path, ErrInputTooLarge, MaxInputSize)
	}
	return data, nil
}
