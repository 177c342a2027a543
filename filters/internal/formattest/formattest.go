// Package formattest holds what the tests of the format packages
// (filters/kubernetes, firecracker, lxc, minijail, unsupported) share:
// the sample policies and running a compiled filter on one call.
package formattest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
)

// Dirs are the sample policy directories, relative to the repository
// root: testdata/policies, where every sample lives now that the loader
// table lists their formats (the command's golden tests compile every
// file there), and testdata/formats, where they were before.
var Dirs = []string{filepath.Join("testdata", "policies"), filepath.Join("testdata", "formats")}

// root returns the repository root, found from this file's path.
func root(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("formattest: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Files returns every regular file in Dirs and their subdirectories one
// level down.
func Files(t testing.TB) []string {
	var out []string
	for _, d := range Dirs {
		for _, pat := range []string{"*", filepath.Join("*", "*")} {
			m, err := filepath.Glob(filepath.Join(root(t), d, pat))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range m {
				if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// Path returns the path of the sample policy name (it may contain a
// directory), looked up in Dirs in order.
func Path(t testing.TB, name string) string {
	t.Helper()
	for _, d := range Dirs {
		p := filepath.Join(root(t), d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("no sample policy %s in %v", name, Dirs)
	return ""
}

// Read returns the content of the sample policy name.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Verdict runs p on a call of the syscall name with args by arch's ABI
// and returns the action and data p returns.
func Verdict(t testing.TB, p *filters.Program, arch *filters.Arch, name string, args ...uint64) (filters.Action, uint16) {
	t.Helper()
	nr, err := analysis.LookupSyscall(arch, name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := filters.Emulate(p, arch.Data(nr, args...))
	if err != nil {
		t.Fatal(err)
	}
	return r.Action, r.Data
}
