package minijail

import (
	"path/filepath"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
)

// abiWords maps the ABI words policy names and directories use to the
// ABI.
var abiWords = map[string]*filters.Arch{
	"x86": filters.ArchI386, "i386": filters.ArchI386, "i686": filters.ArchI386,
	"x86_64": filters.ArchX86_64, "amd64": filters.ArchX86_64,
	"arm": filters.ArchARM, "arm64": filters.ArchAArch64, "aarch64": filters.ArchAArch64,
	"riscv64": filters.ArchRISCV64,
}

// NamedABIWord reports whether word is an ABI word a policy's name or
// directory may carry (x86, x86_64, arm, arm64, aarch64, riscv64, ...).
func NamedABIWord(word string) bool {
	_, ok := abiWords[word]
	return ok
}

// NamedABI returns the ABI a policy's path names and the word that names
// it: the last "-" or "." part of the base name before ".policy", as
// AOSP (crash_dump.arm64.policy, mediacodec-x86.policy) and ChromeOS
// (*-arm64.policy) name policies, else the directory's name, as crosvm
// keeps them (jail/seccomp/aarch64/, riscv64/); nil and "" for a path
// that names none.
func NamedABI(path string) (*filters.Arch, string) {
	b := strings.TrimSuffix(filepath.Base(path), ".policy")
	if i := strings.LastIndexAny(b, "-."); i >= 0 {
		if a, ok := abiWords[b[i+1:]]; ok {
			return a, b[i+1:]
		}
	}
	if d := filepath.Base(filepath.Dir(path)); d != "." && d != "/" {
		if a, ok := abiWords[d]; ok {
			return a, d
		}
	}
	return nil, ""
}

// chooseABI returns the ABI to compile the policy called name for, and a
// note when it is not the one the name names: the user's --arch (opts.Arch
// when not opts.ArchDefault) first, then the name's, then opts.Arch (the
// host's default), then x86_64.
func chooseABI(name string, opts Options) (*filters.Arch, string, error) {
	named, word := NamedABI(name)
	if opts.Arch != nil && !opts.ArchDefault {
		if word != "" && named != opts.Arch {
			return opts.Arch, "the file name names the " + word + " ABI; compiled for " + opts.Arch.Name + " as --arch asks", nil
		}
		return opts.Arch, "", nil
	}
	switch {
	case named != nil:
		return named, "", nil
	case opts.Arch != nil:
		return opts.Arch, "", nil
	}
	return filters.ArchX86_64, "", nil
}
