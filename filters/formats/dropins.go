package formats

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// ErrMaskedUnit is wrapped by ReadUnit's error for a unit that is masked:
// its file is a symlink to /dev/null (or empty) in the highest-priority
// directory that has it, so systemd does not load it at all.
var ErrMaskedUnit = errors.New("masked unit")

// ReadUnit is LookupUnit without its warnings (entries of the search
// path it skipped), for callers that read a unit by path without --root.
func ReadUnit(spec, root string) (name string, data []byte, dropIns []systemd.File, err error) {
	u, err := LookupUnit(spec, root)
	if err != nil {
		return "", nil, nil, err
	}
	return u.Name, u.Data, u.DropIns, nil
}

// Unit is a systemd unit file as LookupUnit found it.
type Unit struct {
	// Name is the path the unit was read from (below root with --root).
	Name string
	// Data is the unit file's content.
	Data []byte
	// DropIns are its drop-ins, in the order systemd applies them.
	DropIns []systemd.File
	// Warnings name the entries skipped on the way: a symlink loop or an
	// unreadable entry, or (with --root) a symlink whose target is not in
	// the root; each is a file that systemd skips too.
	Warnings []*filters.SourceError
}

// LookupUnit reads a systemd unit and its drop-ins the way systemd's
// unit loader finds them (systemd.unit(5); src/shared/dropin.c and
// src/basic/conf-files.c). Without root, spec is a path: the unit file is
// read, and the drop-in directories beside it (systemd.DropInDirNames:
// UNIT.d, the template's and dash prefixes' directories, the type's
// "service.d"). With root (`--root DIR`), spec may also be a bare unit
// name, looked up in DIR's systemd.SearchPath, and the drop-in
// directories of every search-path directory are read.
//
// With root, every path below it is resolved inside it, as systemd does
// for --root (src/basic/chase.c: chase with CHASE_PREFIX_ROOT): an
// absolute symlink target is taken relative to root, ".." stops at root,
// and a link to /dev/null masks whether or not root has a dev/null. A
// symlink whose target is missing inside root is absent (install.c's
// unit_file_search goes on to the next directory on -ENOENT), so a unit
// enabled with an absolute link to a file only the host has is not read
// from the host; LookupUnit says so in a warning.
//
// Drop-ins are *.conf files; they are applied sorted by file name across
// all directories, and a file name found in a higher-priority directory
// (search path first, then the more specific drop-in directory) masks
// the same name further down; a drop-in that is a symlink to /dev/null
// or empty masks without adding anything. An entry that cannot be
// resolved (a symlink loop, no permission, a dangling link) is skipped
// with a warning, as conf-files.c skips it. Errors name the file; a
// masked unit wraps ErrMaskedUnit.
func LookupUnit(spec, root string) (*Unit, error) {
	u := &Unit{Name: spec}
	dirs := systemd.SearchPath
	if root == "" {
		dirs = []string{filepath.Dir(spec)}
	}
	base := filepath.Base(spec)
	name, devNull := spec, false // name: the path to read on the host
	if root != "" && !strings.ContainsRune(spec, '/') {
		var err error
		if name, devNull, err = u.find(root, base); err != nil {
			return nil, err
		}
	}
	if devNull || masks(name) {
		return nil, maskedError(u.Name)
	}
	data, err := ReadInput(name)
	if err != nil {
		return nil, err
	}
	u.Data = data
	if err := u.readDropIns(root, dirs, base); err != nil {
		return nil, err
	}
	return u, nil
}

// skip adds the warning that the entry p was skipped for err.
func (u *Unit) skip(p string, err error) {
	u.Warnings = append(u.Warnings, &filters.SourceError{File: p, Msg: "skipped, as systemd skips it: " + err.Error()})
}

// find looks the unit file base up in root's search path, setting
// u.Name to the entry found; it returns the host path to read, or
// devNull for an entry linking to /dev/null. Entries that cannot be
// resolved are skipped (u.skip); none found wraps fs.ErrNotExist.
func (u *Unit) find(root, base string) (name string, devNull bool, err error) {
	for _, d := range systemd.SearchPath {
		p := filepath.Join(root, d, base)
		rdir, null, err := chaseRoot(root, d)
		if errors.Is(err, fs.ErrNotExist) || null {
			continue
		}
		if err != nil {
			u.skip(filepath.Join(root, d), err)
			continue
		}
		r, null, err := chaseRoot(root, filepath.Join(d, base))
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := os.Lstat(filepath.Join(rdir, base)); lerr == nil {
				u.skip(p, err) // a dangling link: absent, as for systemd
			}
			continue
		}
		if err != nil {
			u.skip(p, err)
			continue
		}
		u.Name = p
		if null {
			return p, true, nil
		}
		return r, false, nil
	}
	return "", false, fmt.Errorf("read systemd unit: %s is in none of %s under %s: %w", base, strings.Join(systemd.SearchPath, ", "), root, fs.ErrNotExist)
}

// readDropIns reads the drop-ins of the unit base from the drop-in
// directories of dirs (below root when it is set) into u.DropIns, in
// the order systemd applies them (LookupUnit).
func (u *Unit) readDropIns(root string, dirs []string, base string) error {
	seen := map[string]bool{}
	var shown []string           // the paths to report
	hosts := map[string]string{} // shown path: host path to read
	for _, d := range dirs {
		for _, dn := range systemd.DropInDirNames(base) {
			dir := filepath.Join(d, dn)
			hostDir, ok := u.dropInDir(root, dir)
			if !ok {
				continue
			}
			ents, rerr := os.ReadDir(hostDir)
			if rerr != nil {
				if !errors.Is(rerr, fs.ErrNotExist) {
					u.skip(filepath.Join(root, dir), rerr)
				}
				continue
			}
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".conf") || seen[e.Name()] {
					continue
				}
				p := filepath.Join(root, dir, e.Name())
				host, null := filepath.Join(hostDir, e.Name()), false
				var cerr error
				if root != "" {
					host, null, cerr = chaseRoot(root, filepath.Join(dir, e.Name()))
				} else if _, cerr = os.Stat(host); cerr == nil {
					null = masks(host)
				}
				if cerr != nil {
					// Unreadable, looping or dangling: skipped, and it
					// masks nothing below it.
					u.skip(p, cerr)
					continue
				}
				seen[e.Name()] = true
				if !null && !masks(host) {
					shown = append(shown, p)
					hosts[p] = host
				}
			}
		}
	}
	sort.SliceStable(shown, func(i, j int) bool { return filepath.Base(shown[i]) < filepath.Base(shown[j]) })
	for _, p := range shown {
		b, err := ReadInput(hosts[p])
		if err != nil {
			return err
		}
		u.DropIns = append(u.DropIns, systemd.File{Name: p, Data: b})
	}
	return nil
}

// dropInDir returns the host path of the drop-in directory dir (below
// root when it is set, resolved inside it); ok is false for one that is
// missing or masked, or cannot be resolved (then with a warning).
func (u *Unit) dropInDir(root, dir string) (host string, ok bool) {
	if root == "" {
		return dir, true
	}
	r, null, err := chaseRoot(root, dir)
	if errors.Is(err, fs.ErrNotExist) || null {
		return "", false
	}
	if err != nil {
		u.skip(filepath.Join(root, dir), err)
		return "", false
	}
	return r, true
}

// chaseMax is how many symlinks chaseRoot follows before it gives up with
// ELOOP: systemd's CHASE_MAX (src/basic/chase.h), 32.
const chaseMax = 32

// chaseRoot resolves rel, a path below root, inside root as systemd's
// chase does with CHASE_PREFIX_ROOT (src/basic/chase.c): component by
// component, an absolute symlink target restarting from root and ".."
// never climbing above it. It returns the resolved file's path on the
// host (root joined with the in-root path), or devNull true when a
// symlink on the way names /dev/null (a mask, whether or not root has a
// dev/null: install.c's null_or_empty_path_with_root compares the
// target's name). A missing component wraps fs.ErrNotExist; more than
// chaseMax symlinks wraps syscall.ELOOP. Errors say where inside root
// the resolution stopped, not which entry it started from.
func chaseRoot(root, rel string) (host string, devNull bool, err error) {
	todo := strings.Split(rel, "/")
	done := "/"
	follows, link := 0, "" // link: the last symlink's target, for errors
	where := func(next string) string {
		if link == "" {
			return fmt.Sprintf("inside %s, %s", root, next)
		}
		return fmt.Sprintf("links to %s; inside %s, %s", link, root, next)
	}
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = path.Dir(done) // path.Dir("/") is "/": root is the top
			continue
		}
		next := path.Join(done, c)
		h := filepath.Join(root, next)
		st, lerr := os.Lstat(h)
		if errors.Is(lerr, fs.ErrNotExist) {
			return "", false, &chaseError{where(next) + " does not exist, so systemd treats the entry as absent", fs.ErrNotExist}
		}
		if lerr != nil {
			return "", false, &chaseError{where(next) + ": " + errors.Unwrap(lerr).Error(), lerr}
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			if len(todo) > 0 && !st.IsDir() {
				return "", false, &chaseError{where(next) + " is not a directory", syscall.ENOTDIR}
			}
			done = next
			continue
		}
		if follows++; follows > chaseMax {
			return "", false, &chaseError{fmt.Sprintf("a symlink loop: more than %d symlinks to follow inside %s", chaseMax, root), syscall.ELOOP}
		}
		t, rerr := os.Readlink(h)
		if rerr != nil {
			return "", false, rerr
		}
		link = t
		if path.IsAbs(t) {
			done = "/"
		}
		if path.Clean(path.Join(done, t)) == "/dev/null" {
			return "", true, nil
		}
		todo = append(strings.Split(t, "/"), todo...)
	}
	return filepath.Join(root, done), false, nil
}

// chaseError is chaseRoot's error: Msg says where the resolution
// stopped; Err is what it matches (fs.ErrNotExist, syscall.ELOOP, …).
type chaseError struct {
	Msg string
	Err error
}

// Error is Msg.
func (e *chaseError) Error() string { return e.Msg }

// Unwrap is Err.
func (e *chaseError) Unwrap() error { return e.Err }

// RootUnitName reports whether spec is a bare unit name (foo.service,
// no '/', a unit type's suffix: systemd.IsUnitName) to look up under
// root's search path (LookupUnit): root is set and no file of that name
// exists in the working directory.
func RootUnitName(spec, root string) bool {
	if root == "" || strings.ContainsRune(spec, '/') || !systemd.IsUnitName(spec) {
		return false
	}
	_, err := os.Lstat(spec)
	return err != nil
}

// ErrBareUnit is matched (with fs.ErrNotExist) by MissingUnit's error.
var ErrBareUnit = errors.New("a bare unit name is looked up only with --root DIR")

// bareUnitError is MissingUnit's error for Name.
type bareUnitError struct{ Name string }

// Error says what is missing and that only --root looks it up.
func (e *bareUnitError) Error() string {
	return fmt.Sprintf("open %s: no such file; %v (in the unit search path under DIR: %s)", e.Name, ErrBareUnit, strings.Join(systemd.SearchPath, ", "))
}

// Is matches ErrBareUnit and fs.ErrNotExist.
func (e *bareUnitError) Is(target error) bool {
	return target == ErrBareUnit || target == fs.ErrNotExist
}

// MissingUnit returns an error when spec is a bare unit name (no '/', a
// unit type's suffix) that is no file in the working directory and root
// is empty: only --root looks such a name up. The error names spec and
// matches ErrBareUnit and fs.ErrNotExist; nil otherwise.
func MissingUnit(spec, root string) error {
	if root != "" || strings.ContainsRune(spec, '/') || !systemd.IsUnitName(spec) {
		return nil
	}
	if _, err := os.Lstat(spec); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return &bareUnitError{Name: spec}
}

// maskedError is the error for the masked unit file p.
func maskedError(p string) error {
	return fmt.Errorf("read systemd unit %s: %w: it links to /dev/null or is empty, so systemd would not load or start it", p, ErrMaskedUnit)
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
