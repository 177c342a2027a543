package kubernetes

import (
	"errors"

	"github.com/seccompbench/seccompbench/filters/internal/srcpos"
	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// parseDocs parses data into one position-tracking tree per YAML document
// (srcpos.ParseYAML: empty documents and comment-only ones left out,
// aliases and merge keys refused), or returns a *filters.SourceError
// wrapping ErrBadProfile at the problem.
func parseDocs(file string, data []byte) ([]*srcpos.Node, error) {
	docs, err := srcpos.ParseYAML(data)
	var e *srcpos.Error
	if errors.As(err, &e) {
		return nil, ocigen.Errorf(file, e.At, ErrBadProfile, "%s", e.Msg)
	}
	return docs, err
}
