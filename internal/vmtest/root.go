package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// debootstrapMirror is where -systemd-suite's root comes from.
const debootstrapMirror = "https://deb.debian.org/debian"

// rootSuites are the Debian suites -systemd-suite can build a root of,
// with the packages debootstrap --include adds to minbase: systemd is
// priority "important", so minbase leaves it out; timesyncd and resolved
// are packages of their own (Debian 13); dbus is named because
// debootstrap does not resolve systemd-resolved's "default-dbus-system-bus
// | dbus-system-bus" alternative by itself.
var rootSuites = map[string][]string{
	"trixie": {"systemd", "systemd-timesyncd", "systemd-resolved", "dbus"},
}

// rootStamp is the file, inside a finished root, that says how it was
// built; a root without it is rebuilt.
const rootStamp = ".seccompbench-vmtest-root"

// rootMaxAge is how long a cached root is used before debootstrap builds
// it again (picking up the suite's point releases and security updates).
const rootMaxAge = 30 * 24 * time.Hour

// debianRoot is the root file system whose systemd the -systemd check
// boots instead of the host's.
type debianRoot struct {
	// Dir is the root's directory on the host.
	Dir string
	// Suite is the Debian suite it was built from ("" for a root given
	// with -systemd-root alone).
	Suite string
	// Packages maps the packages that decide the check (systemd,
	// libseccomp2, libc6) to their installed versions, from
	// var/lib/dpkg/status.
	Packages map[string]string
}

// SystemdMajor is the major version of the root's systemd package
// ("257.13-1~deb13u1" is 257), or 0 if it has none.
func (r debianRoot) SystemdMajor() int {
	m := leadingDigits.FindString(r.Packages["systemd"])
	n, _ := strconv.Atoi(m)
	return n
}

var leadingDigits = regexp.MustCompile(`^[0-9]+`)

// describe names the root for logs and docs, e.g. "Debian trixie root
// (systemd 257.13-1~deb13u1, libseccomp2 2.6.0-2, libc6 2.41-12)", or
// "host (...)" for the host's systemd (Dir "").
func (r debianRoot) describe() string {
	var parts []string
	for _, p := range rootPackages {
		parts = append(parts, p+" "+orDash(r.Packages[p]))
	}
	what := "root " + r.Dir
	switch {
	case r.Dir == "":
		what = "host"
	case r.Suite != "":
		what = "Debian " + r.Suite + " root"
	}
	return what + " (" + strings.Join(parts, ", ") + ")"
}

// rootPackages are the packages debianRoot.Packages records.
var rootPackages = []string{"systemd", "libseccomp2", "libc6"}

// prepareRoot returns the root the -systemd check boots: dir as it is
// when suite is "", else dir built for suite with debootstrap
// --variant=minbase (rootSuites) unless it holds a finished build
// (rootStamp) younger than rootMaxAge. A build goes to dir+".tmp" first
// and is renamed into place when debootstrap succeeds, so an interrupted
// build is never taken for a root.
func prepareRoot(ctx context.Context, dir, suite string, logf func(string, ...any)) (debianRoot, error) {
	r := debianRoot{Dir: dir, Suite: suite}
	if suite != "" {
		fi, err := os.Stat(filepath.Join(dir, rootStamp))
		if err != nil || time.Since(fi.ModTime()) > rootMaxAge {
			if err := debootstrap(ctx, dir, suite, logf); err != nil {
				return r, err
			}
		} else {
			logf("reusing the %s root in %s (built %s; delete it to rebuild)", suite, dir, fi.ModTime().UTC().Format(time.DateOnly))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "usr/lib/systemd/systemd")); err != nil {
		return r, fmt.Errorf("-systemd-root %s: no systemd in it: %w", dir, err)
	}
	f, err := os.Open(filepath.Join(dir, "var/lib/dpkg/status"))
	if err != nil {
		return r, fmt.Errorf("-systemd-root %s: %w", dir, err)
	}
	defer f.Close()
	r.Packages, err = dpkgVersions(f, filepath.Join(dir, "var/lib/dpkg/status"), rootPackages)
	if err != nil {
		return r, err
	}
	if r.SystemdMajor() == 0 {
		return r, fmt.Errorf("-systemd-root %s: dpkg status lists no installed systemd package", dir)
	}
	return r, nil
}

// debootstrap builds a minbase root of suite in dir (rootSuites).
func debootstrap(ctx context.Context, dir, suite string, logf func(string, ...any)) error {
	pkgs, ok := rootSuites[suite]
	if !ok {
		return fmt.Errorf("-systemd-suite %q: no root recipe (known: %s)", suite, strings.Join(knownSuites(), ", "))
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return fmt.Errorf("building the %s root needs debootstrap (apt-get install debootstrap): %w", suite, err)
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	args := []string{"--variant=minbase", "--include=" + strings.Join(pkgs, ","), suite, tmp, debootstrapMirror}
	logf("building the %s root: debootstrap %s (a few minutes; cached in %s afterwards)", suite, strings.Join(args, " "), dir)
	cmd := exec.CommandContext(ctx, "debootstrap", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("debootstrap %s: %w\n%s", strings.Join(args, " "), err, tail(out, 2000))
	}
	stamp := fmt.Sprintf("debootstrap %s\nbuilt %s\n", strings.Join(args[:len(args)-3], " ")+" "+suite+" DIR "+debootstrapMirror, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(tmp, rootStamp), []byte(stamp), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// knownSuites lists rootSuites' keys, sorted.
func knownSuites() []string {
	var out []string
	for s := range rootSuites {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// tail returns b's last n bytes as a string.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// dpkgVersions reads a dpkg status file (deb822 paragraphs: Package:,
// Status:, Version:; name is its path, for errors) and returns the
// version of each of want that is installed ("install ok installed").
func dpkgVersions(f io.Reader, name string, want []string) (map[string]string, error) {
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
	}
	out := map[string]string{}
	var pkg, status, version string
	flush := func() {
		if wanted[pkg] && status == "install ok installed" {
			out[pkg] = version
		}
		pkg, status, version = "", "", ""
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if l == "" {
			flush()
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			continue // a continuation line
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: %q is neither a field nor a continuation line", name, line, l)
		}
		switch v = strings.TrimSpace(v); k {
		case "Package":
			pkg = v
		case "Status":
			status = v
		case "Version":
			version = v
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}

// rootSkip are the paths under a root (slash-separated, relative) that
// addRoot leaves out of the initramfs: API file systems systemd mounts
// itself, package caches and documentation, and the root's own units and
// their enablement links, so that the guest's systemd sees the check's
// units only, as the host-systemd check's initramfs does.
var rootSkip = []string{
	"dev", "proc", "sys", "run", "tmp", "debootstrap",
	"var/cache/apt", "var/lib/apt/lists", "var/log",
	"usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale", "usr/share/i18n",
	"usr/lib/systemd/system", "usr/lib/systemd/user", "etc/systemd/system", "etc/systemd/user",
	rootStamp,
}

// addRoot adds the root file system dir to fs: directories, regular files
// (with their permission bits) and symbolic links (as links: Debian 13's
// /bin, /lib and /lib64 point into /usr), except rootSkip. Device nodes,
// sockets and FIFOs are left out.
func addRoot(fs *initramfs, dir string) error {
	skip := map[string]bool{}
	for _, s := range rootSkip {
		skip[s] = true
	}
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if skip[rel] {
			if d.IsDir() {
				fs.Dir(rel)
				return filepath.SkipDir
			}
			return nil
		}
		switch t := d.Type(); {
		case t.IsDir():
			fs.Dir(rel)
		case t&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fs.Symlink(rel, target)
		case t.IsRegular():
			return fs.Copy(rel, p)
		}
		return nil
	})
}

// rootUnitDir is where a Debian 13 root's packages install systemd's
// units (usr-merged: /lib is a link to usr/lib).
func rootUnitDir(root string) string { return filepath.Join(root, "usr/lib/systemd/system") }
