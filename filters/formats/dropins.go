package formats

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/seccompbench/seccompbench/filters/systemd"
)

// ErrMaskedUnit is wrapped by ReadUnit's error for a unit that is masked:
// its file is a symlink to /dev/null (or empty) in the highest-priority
// directory that has it, so systemd does not load it at all.
var ErrMaskedUnit = errors.New("masked unit")

// ReadUnit reads a systemd unit and its drop-ins the way systemd's
// unit loader finds them (systemd.unit(5); src/shared/dropin.c and
// src/basic/conf-files.c). Without root, spec is a path: the unit file is
// read, and the drop-in directories beside it (systemd.DropInDirNames:
// UNIT.d, the template's and dash prefixes' directories, the type's
// "service.d"). With root (`--root DIR`), spec may also be a bare unit
// name, looked up in DIR's systemd.SearchPath, and the drop-in
// directories of every search-path directory are read.
//
// Drop-ins are *.conf files; they are applied sorted by file name across
// all directories, and a file name found in a higher-priority directory
// (search path first, then the more specific drop-in directory) masks
// the same name further down; a drop-in that is a symlink to /dev/null
// or empty masks without adding anything. Errors name the file; a masked
// unit wraps ErrMaskedUnit.
func ReadUnit(spec, root string) (name string, data []byte, dropIns []systemd.File, err error) {
	name = spec
	var dirs []string
	base := filepath.Base(spec)
	if root == "" {
		dirs = []string{filepath.Dir(spec)}
	} else {
		for _, d := range systemd.SearchPath {
			dirs = append(dirs, filepath.Join(root, d))
		}
		if !strings.ContainsRune(spec, '/') {
			name = ""
			for _, d := range dirs {
				p := filepath.Join(d, base)
				if _, serr := os.Lstat(p); serr == nil {
					name = p
					break
				}
			}
			if name == "" {
				return "", nil, nil, fmt.Errorf("read systemd unit: %s is in none of %s under %s: %w", base, strings.Join(systemd.SearchPath, ", "), root, fs.ErrNotExist)
			}
		}
	}
	if masks(name) {
		return "", nil, nil, fmt.Errorf("read systemd unit %s: %w: it links to /dev/null or is empty, so systemd loads nothing for it", name, ErrMaskedUnit)
	}
	data, err = ReadInput(name)
	if err != nil {
		return "", nil, nil, err
	}
	seen := map[string]bool{}
	var paths []string
	for _, d := range dirs {
		for _, dn := range systemd.DropInDirNames(base) {
			ents, rerr := os.ReadDir(filepath.Join(d, dn))
			if rerr != nil {
				if errors.Is(rerr, fs.ErrNotExist) || errors.Is(rerr, fs.ErrPermission) {
					continue
				}
				return "", nil, nil, fmt.Errorf("read drop-ins of %s: %w", name, rerr)
			}
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".conf") || seen[e.Name()] {
					continue
				}
				seen[e.Name()] = true
				p := filepath.Join(d, dn, e.Name())
				if !masks(p) {
					paths = append(paths, p)
				}
			}
		}
	}
	sort.SliceStable(paths, func(i, j int) bool { return filepath.Base(paths[i]) < filepath.Base(paths[j]) })
	for _, p := range paths {
		b, rerr := ReadInput(p)
		if rerr != nil {
			return "", nil, nil, rerr
		}
		dropIns = append(dropIns, systemd.File{Name: p, Data: b})
	}
	return name, data, dropIns, nil
}

// RootUnitName reports whether spec is a bare unit name (foo.service,
// no '/') to look up under root's search path (ReadUnit): root is set
// and no file of that name exists in the working directory.
func RootUnitName(spec, root string) bool {
	if root == "" || strings.ContainsRune(spec, '/') || systemd.DropInDirNames(spec) == nil {
		return false
	}
	_, err := os.Lstat(spec)
	return err != nil
}

// masks reports whether the file at p masks: a symlink to /dev/null, or
// an empty regular file (conf-files.c: null_or_empty_path).
func masks(p string) bool {
	if t, err := os.Readlink(p); err == nil && t == "/dev/null" {
		return true
	}
	st, err := os.Stat(p)
	return err == nil && (st.Mode().IsRegular() && st.Size() == 0 || st.Mode()&fs.ModeCharDevice != 0)
}
