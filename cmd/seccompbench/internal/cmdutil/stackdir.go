package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report/document"
)

// ErrEmptyStackDir is returned by OpenStackDir for a directory that holds
// no filter.
var ErrEmptyStackDir = errors.New("stack directory holds no filter")

// OpenStackDir reads a directory written by inspect --save or compile
// --save: the files its manifest.json (document.InspectManifest) lists, in
// index order, each named as the manifest names it (a modeled systemd
// filter's "Directive/arch"), else its filter-*.bpf files sorted by name.
// Every file must be raw BPF. An empty directory wraps ErrEmptyStackDir.
func OpenStackDir(dir string) (filters.Stack, error) {
	var files, names []string
	manifest := filepath.Join(dir, "manifest.json")
	b, err := formats.ReadInput(manifest)
	switch {
	case err == nil:
		// A manifest from before kinds existed has none; refuse only a
		// document that says it is something else.
		if k, _, legacy, err := document.DetectKind(b); err == nil && !legacy && k != document.KindManifest {
			return nil, fmt.Errorf("read %s: %w", manifest, &document.KindError{Got: k, Want: document.KindManifest})
		}
		var m document.InspectManifest
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("read %s: %w", manifest, err)
		}
		sort.SliceStable(m.Filters, func(i, j int) bool { return m.Filters[i].Index < m.Filters[j].Index })
		for _, f := range m.Filters {
			files = append(files, filepath.Join(dir, f.File))
			names = append(names, f.Name)
		}
	case errors.Is(err, fs.ErrNotExist):
		// Glob fails only on a malformed pattern, and this one is fixed.
		files, _ = filepath.Glob(filepath.Join(dir, "filter-*.bpf"))
		sort.Strings(files)
	default:
		return nil, fmt.Errorf("read stack directory: %w", err)
	}
	if len(files) == 0 {
		if err == nil {
			return nil, fmt.Errorf("read %s: lists no filter: %w", manifest, ErrEmptyStackDir)
		}
		return nil, fmt.Errorf("read stack directory %s: is a directory without manifest.json or filter-*.bpf files (a directory POLICY is one inspect --save or compile --save wrote): %w", dir, ErrEmptyStackDir)
	}
	var s filters.Stack
	for i, f := range files {
		data, err := formats.ReadInput(f)
		if err != nil {
			return nil, fmt.Errorf("read stack directory: %w", err)
		}
		p, err := filters.ParseRaw(f, data)
		if err != nil {
			return nil, fmt.Errorf("read stack directory: %w", err)
		}
		if i < len(names) && names[i] != "" {
			p.Name = names[i]
		}
		s = append(s, p)
	}
	return s, nil
}
