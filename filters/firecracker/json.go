package firecracker

import (
	"errors"

	"github.com/seccompbench/seccompbench/filters/internal/srcpos"
	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// parseJSON decodes data into the shared position-tracking tree
// (srcpos.ParseJSON), or returns a *filters.SourceError wrapping
// ErrBadFilter at the syntax error, duplicate key or excess nesting.
func parseJSON(file string, data []byte) (*srcpos.Node, error) {
	n, err := srcpos.ParseJSON(data)
	var e *srcpos.Error
	if errors.As(err, &e) {
		return nil, ocigen.Errorf(file, e.At, ErrBadFilter, "%s", e.Msg)
	}
	return n, err
}
