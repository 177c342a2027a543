package runner

import (
	"fmt"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
)

// probeSled is not written on arm64: code written at run time needs data
// and instruction cache maintenance (DC CVAU, IC IVAU) before it runs, which
// the loop does not do. It returns an error wrapping sys.ErrNotSupported.
func probeSled(int) ([]byte, error) {
	return nil, fmt.Errorf("probe code working set on arm64: %w", sys.ErrNotSupported)
}
