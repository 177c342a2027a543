package minijail

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// ErrIncludeNotFound is wrapped by the error for an @include no candidate
// path (includeCandidates) holds.
var ErrIncludeNotFound = errors.New("included policy not found")

// IncludeRoot remaps an absolute @include prefix to a directory of a
// checkout (--include-root OLD=NEW): @include OLD/x.policy reads
// NEW/x.policy.
type IncludeRoot struct {
	Old, New string
}

// ParseIncludeRoot parses "OLD=NEW" with OLD absolute.
func ParseIncludeRoot(s string) (IncludeRoot, error) {
	old, nw, ok := strings.Cut(s, "=")
	if !ok || !filepath.IsAbs(old) || nw == "" {
		return IncludeRoot{}, fmt.Errorf("parse include root %q: want OLD=NEW with OLD an absolute path, e.g. /system/etc/seccomp_policy=out/policies", s)
	}
	return IncludeRoot{Old: filepath.Clean(old), New: nw}, nil
}

// includeCandidates returns the paths an "@include path" in file from may
// name, in the order they are tried. A relative path (which starts with
// "./": include refuses others) is read as the toolchain tc reads it: the
// Python compiler beside the including file (parser.py
// _parse_include_statement joins it to the including file's directory);
// the C parser relative to its working directory (syscall_filter.c
// compile_file fopens it as written), and, where no such file is there,
// beside the including file (readInclude notes it). An absolute one, which
// names where the policy is installed (/system/etc/seccomp_policy/…,
// /apex/…, /usr/share/policy/crosvm/…), is tried under each matching
// --include-root remap, then by its base name in each --include-path
// directory, then beside the including file (as crosvm's jail/build.rs
// compiles its policies: it rewrites /usr/share/policy/crosvm to the
// policy directory), and last as it is.
func includeCandidates(from, path string, tc Toolchain, opts Options) []string {
	if !filepath.IsAbs(path) {
		beside := filepath.Join(filepath.Dir(from), path)
		if tc == ToolchainPython || filepath.Clean(path) == beside {
			return []string{beside}
		}
		return []string{filepath.Clean(path), beside}
	}
	var out []string
	clean := filepath.Clean(path)
	for _, r := range opts.IncludeRoots {
		if rest, ok := strings.CutPrefix(clean, r.Old); ok && (rest == "" || rest[0] == '/') {
			out = append(out, filepath.Join(r.New, rest))
		}
	}
	base := filepath.Base(clean)
	for _, d := range opts.IncludePath {
		out = append(out, filepath.Join(d, base))
	}
	out = append(out, filepath.Join(filepath.Dir(from), base))
	return append(out, clean)
}

// implicitRelative reports whether path neither starts with "/" nor with
// "./", which both minijail compilers refuse: syscall_filter.c's
// is_implicit_relative_path ("implicit relative path ... not supported,
// use ./") and parser.py, whose PATH token is "(?:\.)?/\S+" ("invalid
// include path").
func implicitRelative(path string) bool {
	return !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "./")
}

// readInclude reads the first candidate of an @include that exists, and
// the path read.
func (p *parser) readInclude(from, path string, at ocigen.Pos) (string, []byte, error) {
	tc := p.out.Toolchain
	cands := includeCandidates(from, path, tc, p.opts)
	for i, c := range cands {
		data, err := p.read(c)
		if err == nil {
			if i > 0 && !filepath.IsAbs(path) {
				p.out.Info = append(p.out.Info, ocigen.Warning("", at,
					"@include %s read from %s, beside the including file: %s reads ./ relative to its working directory, which holds no %s; run it from %s, or give --minijail-toolchain python (which reads beside the including file)",
					path, c, tc.Describe(), path, filepath.Dir(from)))
			}
			return c, data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, errf(at, "@include %s: %v", path, err)
		}
	}
	if !filepath.IsAbs(path) {
		return "", nil, errf(at, "@include %s: %w: no file %s", path, ErrIncludeNotFound, strings.Join(cands, " or "))
	}
	return "", nil, errf(at, "@include %s: %w (tried %s); give --include-path DIR (a directory holding %s) or --include-root %s=DIR (where that directory is in your checkout)",
		path, ErrIncludeNotFound, strings.Join(cands, ", "), filepath.Base(path), filepath.Dir(filepath.Clean(path)))
}
