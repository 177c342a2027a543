//go:build ignore

// mkconsts writes zconsts.go: the named constants a minijail policy may
// use, per architecture, found the way minijail finds them
// (gen_constants.sh): every macro "#define NAME value" with an upper-case
// name that the headers minijail's gen_constants-inl.h includes define
// (SIGRTMIN, SIGRTMAX, SIG_* and NULL left out, and values that start
// with a parenthesis, as gen_constants.sh's pattern leaves them out), with
// the value
// the C compiler of that architecture gives (unsigned long) NAME.
//
// It needs the C cross compilers of Debian's gcc-i686-linux-gnu,
// gcc-aarch64-linux-gnu and gcc-arm-linux-gnueabihf packages (glibc's
// headers and the kernel's UAPI headers for each architecture). Values
// are read from the assembly the compiler emits, so nothing runs on the
// target. Run: go generate ./filters/minijail (or go run mkconsts.go).
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// headers are the includes of minijail's gen_constants-inl.h, with its
// fallback definitions for names old C libraries lack.
const headers = `
#if defined(__i386__) || defined(__x86_64__)
#include <asm/prctl.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/fd.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <linux/mman.h>
#include <linux/net.h>
#include <linux/prctl.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/serial.h>
#include <linux/sockios.h>
#include <linux/termios.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/audit.h>
#include <stdint.h>
#undef BLKTRACESETUP
#undef BLKTRACESETUP2
#undef FS_IOC_FIEMAP
#if !defined(MADV_FREE)
#define MADV_FREE 8
#endif
#if !defined(MADV_GUARD_INSTALL)
#define MADV_GUARD_INSTALL 102
#endif
#if !defined(MADV_GUARD_REMOVE)
#define MADV_GUARD_REMOVE 103
#endif
`

// cflags are minijail's feature macros (common.mk: _FILE_OFFSET_BITS=64,
// _LARGEFILE_SOURCE, _LARGEFILE64_SOURCE) and _GNU_SOURCE, under which
// glibc shows what bionic always shows (O_PATH, O_TMPFILE, F_SETPIPE_SZ).
// glibc's O_LARGEFILE is 0 on 64-bit ABIs, where the kernel sets the flag
// itself; bionic takes the kernel's 0x8000 there.
var cflags = []string{"-D_GNU_SOURCE", "-D_FILE_OFFSET_BITS=64", "-D_LARGEFILE_SOURCE", "-D_LARGEFILE64_SOURCE"}

// arches are the ABIs a minijail policy is compiled for, with their C
// compilers.
var arches = []struct{ name, cc string }{
	{"x86_64", "x86_64-linux-gnu-gcc"},
	{"i386", "i686-linux-gnu-gcc"},
	{"aarch64", "aarch64-linux-gnu-gcc"},
	{"arm", "arm-linux-gnueabihf-gcc"},
}

var (
	defineRE = regexp.MustCompile(`(?m)^#define ([A-Z][A-Z0-9_]*)[ \t]+[A-Za-z0-9_]`)
	skipRE   = regexp.MustCompile(`SIGRTMAX|SIGRTMIN|SIG_|NULL`)
	errRE    = regexp.MustCompile(`(?m)^[^:\n]*v\.c:(\d+):\d+: error`)
	labelRE  = regexp.MustCompile(`(?m)^v_([A-Z0-9_]+):\n((?:\s+\.(?:quad|xword|long|word|4byte|8byte|zero|space)\s+-?\w+\n)+)`)
	wordRE   = regexp.MustCompile(`\.(quad|xword|long|word|4byte|8byte|zero|space)\s+(-?\w+)`)
)

func main() {
	dir, err := os.MkdirTemp("", "mkconsts")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tables := map[string]map[string]uint64{}
	for _, a := range arches {
		tables[a.name] = values(dir, a.name, a.cc)
		log.Printf("%s: %d constants", a.name, len(tables[a.name]))
	}
	write(tables)
}

// values returns the constants of one architecture.
func values(dir, arch, cc string) map[string]uint64 {
	h := filepath.Join(dir, arch+"-h.c")
	must(os.WriteFile(h, []byte(headers), 0o644))
	out, err := exec.Command(cc, append(cflags, "-dD", "-E", h)...).Output()
	if err != nil {
		log.Fatalf("%s -E: %v", cc, err)
	}
	seen := map[string]bool{}
	var names []string
	for _, m := range defineRE.FindAllSubmatch(out, -1) {
		n := string(m[1])
		if !skipRE.MatchString(n) && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	compileValues(dir, cc, names)
	asm, err := os.ReadFile(filepath.Join(dir, "v.s"))
	must(err)
	return parseValues(arch, asm)
}

// compileValues compiles one variable per name into dir/v.s with cc,
// dropping the names the compiler refuses (macros that are no constant
// expression) and trying again.
func compileValues(dir, cc string, names []string) {
	for try := 0; ; try++ {
		var src bytes.Buffer
		src.WriteString(headers)
		first := strings.Count(src.String(), "\n") + 1
		for _, n := range names {
			fmt.Fprintf(&src, "__attribute__((used)) static const unsigned long long v_%s = (unsigned long long)(unsigned long)(%s);\n", n, n)
		}
		c := filepath.Join(dir, "v.c")
		must(os.WriteFile(c, src.Bytes(), 0o644))
		cmd := exec.Command(cc, append(cflags, "-S", "-O0", "-w", "-o", filepath.Join(dir, "v.s"), c)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil {
			break
		}
		bad := map[int]bool{}
		for _, m := range errRE.FindAllStringSubmatch(stderr.String(), -1) {
			l, _ := strconv.Atoi(m[1])
			if i := l - first; i >= 0 && i < len(names) {
				bad[i] = true
			}
		}
		if len(bad) == 0 || try > 20 {
			log.Fatalf("%s: %s", cc, stderr.String())
		}
		var keep []string
		for i, n := range names {
			if !bad[i] {
				keep = append(keep, n)
			}
		}
		names = keep
	}
}

// parseValues reads the constants' values from the assembly of
// compileValues: one label v_NAME per constant, its value in one 8-byte
// word or two 4-byte words (little-endian), or .zero/.space for 0.
func parseValues(arch string, asm []byte) map[string]uint64 {
	vals := map[string]uint64{}
	for _, m := range labelRE.FindAllSubmatch(asm, -1) {
		var words []uint64
		size := 0
		if z := wordRE.FindSubmatch(m[2]); z != nil && (string(z[1]) == "zero" || string(z[1]) == "space") {
			vals[string(m[1])] = 0 // a zero value is emitted as .zero 8 (arm: .space 4)
			continue
		}
		for _, w := range wordRE.FindAllSubmatch(m[2], -1) {
			v, err := strconv.ParseInt(string(w[2]), 0, 64)
			if err != nil {
				u, err2 := strconv.ParseUint(string(w[2]), 0, 64)
				if err2 != nil {
					log.Fatalf("%s: %s: %v", arch, m[1], err)
				}
				v = int64(u)
			}
			words = append(words, uint64(v))
			switch string(w[1]) {
			case "quad", "xword", "8byte":
				size = 8
			default:
				size = 4
			}
		}
		var v uint64
		if size == 8 && len(words) == 1 {
			v = words[0]
		} else if size == 4 && len(words) == 2 { // little-endian: low word first
			v = words[0]&0xffffffff | words[1]<<32
		} else {
			log.Fatalf("%s: %s: %d words of %d bytes", arch, m[1], len(words), size)
		}
		vals[string(m[1])] = v
	}
	return vals
}

func write(tables map[string]map[string]uint64) {
	var b bytes.Buffer
	b.WriteString("// Code generated by mkconsts.go; DO NOT EDIT.\n\npackage minijail\n\n")
	base := tables["x86_64"]
	b.WriteString("// constantsX86_64 are the constants of x86_64 (see constants).\nvar constantsX86_64 = map[string]uint64{\n")
	for _, n := range sorted(base) {
		fmt.Fprintf(&b, "\t%q: %#x,\n", n, base[n])
	}
	b.WriteString("}\n\n// constantsDiff are, per other architecture, the constants whose value\n// differs from x86_64's or that x86_64 lacks.\nvar constantsDiff = map[string]map[string]uint64{\n")
	for _, a := range arches[1:] {
		fmt.Fprintf(&b, "\t%q: {\n", a.name)
		t := tables[a.name]
		for _, n := range sorted(t) {
			if v, ok := base[n]; !ok || v != t[n] {
				fmt.Fprintf(&b, "\t\t%q: %#x,\n", n, t[n])
			}
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n\n// constantsAbsent are, per other architecture, the x86_64 constants it\n// lacks.\nvar constantsAbsent = map[string]map[string]bool{\n")
	for _, a := range arches[1:] {
		fmt.Fprintf(&b, "\t%q: {", a.name)
		t := tables[a.name]
		for _, n := range sorted(base) {
			if _, ok := t[n]; !ok {
				fmt.Fprintf(&b, "%q: true, ", n)
			}
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	must(os.WriteFile("zconsts.go", src, 0o644))
}

func sorted(m map[string]uint64) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
