package oci

import (
	"errors"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// FuzzParseOCI: any input either fails with a *SourceError or compiles to a
// kernel-valid program whose verdicts equal the rule database's, for every
// x86 ABI and a few syscalls and argument values.
func FuzzParseOCI(f *testing.F) {
	f.Add([]byte(`{"defaultAction":"SCMP_ACT_ERRNO","architectures":["SCMP_ARCH_X86"],"syscalls":[{"names":["read","clone"],"action":"SCMP_ACT_ALLOW","args":[{"index":0,"value":16,"valueTwo":0,"op":"SCMP_CMP_MASKED_EQ"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.json", data, Options{})
		if err != nil {
			var se *filters.SourceError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is no *SourceError", err)
			}
			return
		}
		if err := filters.Validate(p.Insns); err != nil {
			t.Fatalf("compiled program invalid: %v", err)
		}
		db, err := buildFilter("fuzz.json", data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []*filters.Arch{filters.ArchX86_64, filters.ArchI386, filters.ArchX32} {
			for _, name := range []string{"read", "clone", "personality", "socket", "futex", "ioctl"} {
				n, _ := a.Lookup(name)
				for _, v := range []uint64{0, 1, 8, 16, 0xffffffff, 0x100000000} {
					d := a.Data(n, v, v, v, v, v, v)
					got, err := filters.Emulate(p, d)
					if err != nil {
						t.Fatal(err)
					}
					if want := db.Verdict(d.Arch, uint32(d.Nr), d.Args); got.Ret != want {
						t.Fatalf("%s %s(%#x): program %#x, database %#x", a.Name, name, v, got.Ret, want)
					}
				}
			}
		}
	})
}
