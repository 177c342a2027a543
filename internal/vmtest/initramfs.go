package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
)

// Mode bits of a cpio entry (the st_mode layout, include/uapi/linux/stat.h).
const (
	modeDir  = 0o040000
	modeReg  = 0o100000
	modeChar = 0o020000
	modeLink = 0o120000
)

// entry is one file of an initramfs: a directory, a regular file (from
// Data, or copied from Src), a symbolic link (its target in Data) or a
// character device.
type entry struct {
	Name         string // path without leading "/"
	Mode         uint32 // type and permission bits
	Data         []byte // contents, if Src is ""
	Src          string // host file to copy, if set
	Major, Minor uint32 // device numbers of a character device
}

// initramfs is the contents of an initramfs, written in the "newc" cpio
// format the kernel unpacks (Documentation/driver-api/early-userspace/
// buffer-format.rst; init/initramfs.c). Parent directories are added
// automatically; entries are written sorted by name, so parents come first.
type initramfs struct {
	entries map[string]entry
}

func newInitramfs() *initramfs { return &initramfs{entries: map[string]entry{}} }

func (f *initramfs) addDirs(name string) {
	for d := path.Dir(name); d != "." && d != "/"; d = path.Dir(d) {
		if _, ok := f.entries[d]; !ok {
			f.entries[d] = entry{Name: d, Mode: modeDir | 0o755}
		}
	}
}

// Dir adds a directory.
func (f *initramfs) Dir(name string) {
	name = strings.TrimPrefix(name, "/")
	f.addDirs(name)
	f.entries[name] = entry{Name: name, Mode: modeDir | 0o755}
}

// File adds a regular file with the given contents and permission bits.
func (f *initramfs) File(name string, data []byte, perm uint32) {
	name = strings.TrimPrefix(name, "/")
	f.addDirs(name)
	f.entries[name] = entry{Name: name, Mode: modeReg | perm&0o7777, Data: data}
}

// Copy adds the host file src as name, keeping src's permission bits.
func (f *initramfs) Copy(name, src string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("add %s to initramfs: %s is not a regular file", name, src)
	}
	name = strings.TrimPrefix(name, "/")
	f.addDirs(name)
	f.entries[name] = entry{Name: name, Mode: modeReg | uint32(fi.Mode().Perm()), Src: src}
	return nil
}

// Symlink adds a symbolic link name pointing at target. In newc a link's
// data is its target, without a NUL (init/initramfs.c: do_symlink).
func (f *initramfs) Symlink(name, target string) {
	name = strings.TrimPrefix(name, "/")
	f.addDirs(name)
	f.entries[name] = entry{Name: name, Mode: modeLink | 0o777, Data: []byte(target)}
}

// CharDev adds a character device node, e.g. dev/console (5, 1), which the
// kernel opens as init's stdin, stdout and stderr (init/main.c:
// console_on_rootfs) before any devtmpfs is mounted.
func (f *initramfs) CharDev(name string, major, minor uint32) {
	name = strings.TrimPrefix(name, "/")
	f.addDirs(name)
	f.entries[name] = entry{Name: name, Mode: modeChar | 0o600, Major: major, Minor: minor}
}

// WriteTo writes the archive in newc format, ending with the TRAILER!!!
// entry. Each header is 110 ASCII bytes ("070701" and 13 eight-digit hex
// fields); name and data are each padded to a multiple of 4 bytes.
func (f *initramfs) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	names := make([]string, 0, len(f.entries))
	for n := range f.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	ino := uint32(1)
	for _, n := range names {
		e := f.entries[n]
		if err := writeEntry(cw, ino, e); err != nil {
			return cw.n, err
		}
		ino++
	}
	if err := writeEntry(cw, ino, entry{Name: "TRAILER!!!"}); err != nil {
		return cw.n, err
	}
	return cw.n, bw.Flush()
}

func writeEntry(w *countWriter, ino uint32, e entry) error {
	size := int64(len(e.Data))
	var src *os.File
	if e.Src != "" {
		var err error
		src, err = os.Open(e.Src)
		if err != nil {
			return err
		}
		defer src.Close()
		fi, err := src.Stat()
		if err != nil {
			return err
		}
		size = fi.Size()
	}
	nlink := uint32(1)
	if e.Mode&0o170000 == modeDir {
		nlink = 2
	}
	// Fields: ino mode uid gid nlink mtime filesize devmajor devminor
	// rdevmajor rdevminor namesize check. mtime is 0 so that the same
	// inputs give the same bytes.
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		ino, e.Mode, 0, 0, nlink, 0, uint32(size), 0, 0, e.Major, e.Minor, len(e.Name)+1, 0)
	if _, err := io.WriteString(w, hdr+e.Name+"\x00"); err != nil {
		return err
	}
	if err := w.pad(); err != nil {
		return err
	}
	if src != nil {
		n, err := io.Copy(w, src)
		if err != nil {
			return err
		}
		if n != size {
			return fmt.Errorf("copy %s: file changed size (%d, want %d bytes)", e.Src, n, size)
		}
	} else if _, err := w.Write(e.Data); err != nil {
		return err
	}
	return w.pad()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// pad writes zero bytes up to the next multiple of 4.
func (c *countWriter) pad() error {
	if r := c.n % 4; r != 0 {
		_, err := c.Write(make([]byte, 4-r))
		return err
	}
	return nil
}
