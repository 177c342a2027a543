package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kernel is one entry of the matrix: a Debian kernel package and the
// machine QEMU emulates for it.
type Kernel struct {
	// Name is the matrix name given to -kernels, e.g. "6.1".
	Name string
	// Arch is the guest's GOARCH: "amd64" or "arm64".
	Arch string
	// Package matches the Debian binary package names that carry this
	// kernel; the one with the highest version numbers wins.
	Package *regexp.Regexp
	// Suite is where the package comes from (for the docs).
	Suite string
}

// Matrix is every kernel the harness knows, in the order it runs them.
// The packages are Debian's cloud flavour: small, with virtio, the serial
// console and seccomp built in.
var Matrix = []Kernel{
	{"6.1", "amd64", regexp.MustCompile(`^linux-image-6\.1\.0-[0-9]+-cloud-amd64$`), "bookworm"},
	{"6.12", "amd64", regexp.MustCompile(`^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64$`), "bookworm (backports kernel in bookworm-security)"},
	{"5.10", "amd64", regexp.MustCompile(`^linux-image-5\.10\.0-[0-9]+-cloud-amd64$`), "bullseye"},
	{"6.1-arm64", "arm64", regexp.MustCompile(`^linux-image-6\.1\.0-[0-9]+-cloud-arm64$`), "bookworm"},
}

// lookupKernel returns the matrix entry called name.
func lookupKernel(name string) (Kernel, error) {
	var names []string
	for _, k := range Matrix {
		if k.Name == name {
			return k, nil
		}
		names = append(names, k.Name)
	}
	return Kernel{}, fmt.Errorf("unknown kernel %q (want one of %s)", name, strings.Join(names, ", "))
}

// sources is the private APT source list: the harness keeps its own APT
// state under the cache directory, so it needs no change to the host's
// sources or architectures (bullseye and arm64 included).
const sources = `deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bullseye main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bullseye-security main
`

// apt runs apt-get or apt-cache against the private state under dir.
type apt struct {
	dir string
}

func (a apt) args(sub ...string) []string {
	d := a.dir
	return append([]string{
		"-o", "Dir::State::Lists=" + filepath.Join(d, "lists"),
		"-o", "Dir::Cache=" + filepath.Join(d, "cache"),
		"-o", "Dir::Etc::SourceList=" + filepath.Join(d, "sources.list"),
		"-o", "Dir::Etc::SourceParts=" + filepath.Join(d, "sources.list.d"),
		"-o", "APT::Architectures::=amd64",
		"-o", "APT::Architectures::=arm64",
		"-o", "Debug::NoLocking=1",
		"-q",
	}, sub...)
}

// update refreshes the package lists when they are missing or older than a
// day.
func (a apt) update(ctx context.Context, logf func(string, ...any)) error {
	stamp := filepath.Join(a.dir, "updated")
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < 24*time.Hour {
		return nil
	}
	for _, d := range []string{"lists/partial", "cache/archives/partial", "sources.list.d"} {
		if err := os.MkdirAll(filepath.Join(a.dir, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(a.dir, "sources.list"), []byte(sources), 0o644); err != nil {
		return err
	}
	logf("apt-get update (private state in %s)", a.dir)
	cmd := exec.CommandContext(ctx, "apt-get", a.args("update")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("apt-get update: %w\n%s", err, out)
	}
	return os.WriteFile(stamp, nil, 0o644)
}

// resolve returns the newest package whose name matches k.Package.
func (a apt) resolve(ctx context.Context, k Kernel) (string, error) {
	cmd := exec.CommandContext(ctx, "apt-cache", a.args("search", "--names-only", k.Package.String())...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("apt-cache search %s: %w", k.Package, err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(line, " ")
		if k.Package.MatchString(name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("kernel %s: no package matches %s", k.Name, k.Package)
	}
	sort.Slice(names, func(i, j int) bool { return versionLess(names[i], names[j]) })
	return names[len(names)-1], nil
}

// versionLess compares two package names by their runs of digits, as
// numbers: linux-image-6.1.0-9 < linux-image-6.1.0-57.
func versionLess(a, b string) bool {
	na, nb := numbers(a), numbers(b)
	for i := 0; i < len(na) && i < len(nb); i++ {
		if na[i] != nb[i] {
			return na[i] < nb[i]
		}
	}
	if len(na) != len(nb) {
		return len(na) < len(nb)
	}
	return a < b
}

var digits = regexp.MustCompile(`[0-9]+`)

func numbers(s string) []int {
	var out []int
	for _, d := range digits.FindAllString(s, -1) {
		n, _ := strconv.Atoi(d)
		out = append(out, n)
	}
	return out
}

// fetchKernel returns the path of k's vmlinuz under cacheDir, downloading
// (apt-get download) and unpacking (dpkg-deb -x) the package the first
// time. An unpacked kernel younger than a week is used without asking APT.
func fetchKernel(ctx context.Context, cacheDir string, k Kernel, logf func(string, ...any)) (string, error) {
	kdir := filepath.Join(cacheDir, "kernels", k.Name)
	if v, err := findVmlinuz(kdir); err == nil {
		if fi, err := os.Stat(filepath.Join(kdir, "package")); err == nil && time.Since(fi.ModTime()) < 7*24*time.Hour {
			return v, nil
		}
	}
	a := apt{dir: filepath.Join(cacheDir, "apt")}
	if err := a.update(ctx, logf); err != nil {
		return "", err
	}
	pkg, err := a.resolve(ctx, k)
	if err != nil {
		return "", err
	}
	if old, err := os.ReadFile(filepath.Join(kdir, "package")); err == nil && strings.TrimSpace(string(old)) == pkg {
		if v, err := findVmlinuz(kdir); err == nil {
			now := time.Now()
			os.Chtimes(filepath.Join(kdir, "package"), now, now)
			return v, nil
		}
	}
	debs := filepath.Join(cacheDir, "debs")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return "", err
	}
	logf("kernel %s: apt-get download %s:%s", k.Name, pkg, k.Arch)
	cmd := exec.CommandContext(ctx, "apt-get", a.args("download", pkg+":"+k.Arch)...)
	cmd.Dir = debs
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("apt-get download %s: %w\n%s", pkg, err, out)
	}
	matches, _ := filepath.Glob(filepath.Join(debs, pkg+"_*_"+k.Arch+".deb"))
	if len(matches) == 0 {
		return "", fmt.Errorf("apt-get download %s: no .deb in %s", pkg, debs)
	}
	sort.Strings(matches)
	deb := matches[len(matches)-1]
	if err := os.RemoveAll(kdir); err != nil {
		return "", err
	}
	tmp := kdir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", deb, tmp).CombinedOutput(); err != nil {
		return "", fmt.Errorf("dpkg-deb -x %s: %w\n%s", deb, err, out)
	}
	// Keep only the kernel image: the modules are not needed (no root
	// file system, every driver the harness uses is built in).
	v, err := findVmlinuz(tmp)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(kdir, filepath.Base(v))
	if err := os.Rename(v, dst); err != nil {
		return "", err
	}
	os.RemoveAll(tmp)
	os.Remove(deb)
	if err := os.WriteFile(filepath.Join(kdir, "package"), []byte(pkg+"\n"), 0o644); err != nil {
		return "", err
	}
	return dst, nil
}

var errNoVmlinuz = errors.New("no vmlinuz")

// findVmlinuz returns dir/vmlinuz-* or dir/boot/vmlinuz-*.
func findVmlinuz(dir string) (string, error) {
	for _, pat := range []string{"vmlinuz-*", "boot/vmlinuz-*"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		if len(m) > 0 {
			return m[0], nil
		}
	}
	return "", fmt.Errorf("%s: %w", dir, errNoVmlinuz)
}
