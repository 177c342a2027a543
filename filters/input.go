package filters

import (
	"errors"
	"fmt"
)

// MaxInputSize is the largest input any seccompbench command reads, in
// bytes, whatever its format: a Beats policy, an OCI profile, raw BPF, a
// systemd unit, a profile of syscall counts or a run result. The largest
// real inputs are far below it (Docker's default profile is 20 KB); over
// it a file is refused before it is parsed (a 50 MB OCI file parsed for
// 6 s at 426 MB of memory before this limit covered every format).
const MaxInputSize = 16 << 20

// ErrInputTooLarge is wrapped by the errors of CheckSize and of the
// readers (formats.ReadInput) for an input over MaxInputSize.
var ErrInputTooLarge = errors.New("input too large")

// CheckSize returns an error wrapping ErrInputTooLarge, naming the input,
// when size (in bytes) exceeds MaxInputSize.
func CheckSize(name string, size int64) error {
	if size <= MaxInputSize {
		return nil
	}
	return fmt.Errorf("read %s: %w: %d bytes, the limit for every input is %d bytes (%d MiB)", name, ErrInputTooLarge, size, MaxInputSize, MaxInputSize>>20)
}
