package formats

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// FuzzParseOCI: any input either fails with a *SourceError or compiles to a
// kernel-valid program whose verdicts equal the rule database's, for every
// x86 ABI and a few syscalls and argument values.
func FuzzParseOCI(f *testing.F) {
	f.Add([]byte(`{"defaultAction":"SCMP_ACT_ERRNO","architectures":["SCMP_ARCH_X86"],"syscalls":[{"names":["read","clone"],"action":"SCMP_ACT_ALLOW","args":[{"index":0,"value":16,"valueTwo":0,"op":"SCMP_CMP_MASKED_EQ"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := oci.Parse("fuzz.json", data, oci.Options{})
		if err != nil {
			var se *filters.SourceError
			if !asSourceError(err, &se) {
				t.Fatalf("error %v is no *SourceError", err)
			}
			return
		}
		if err := filters.Validate(p.Insns); err != nil {
			t.Fatalf("compiled program invalid: %v", err)
		}
		db, err := oci.buildFilter("fuzz.json", data, oci.Options{})
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
					if want := db.verdict(d.Arch, uint32(d.Nr), d.Args); got.Ret != want {
						t.Fatalf("%s %s(%#x): program %#x, database %#x", a.Name, name, v, got.Ret, want)
					}
				}
			}
		}
	})
}

// FuzzParseSystemdUnit: any unit either fails with a *SourceError naming a
// line or models a stack of valid programs whose directive counts add up.
func FuzzParseSystemdUnit(f *testing.F) {
	f.Add([]byte("[Service]\nSystemCallFilter=@system-service\nSystemCallFilter=~@mount\nRestrictNamespaces=~user\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := systemd.ParseUnit("fuzz.service", data, systemd.Options{})
		if err != nil {
			var se *filters.SourceError
			if !asSourceError(err, &se) {
				t.Fatalf("error %v is no *SourceError", err)
			}
			return
		}
		n := 0
		for _, d := range st.Directives {
			if d.Count <= 0 {
				t.Fatalf("directive %s with %d filters", d.Name, d.Count)
			}
			n += d.Count
		}
		if n != len(st.Programs) || len(st.Arches) != n {
			t.Fatalf("counts %d, programs %d, arches %d", n, len(st.Programs), len(st.Arches))
		}
		for _, p := range st.Programs {
			if err := filters.Validate(p.Insns); err != nil {
				t.Fatalf("%s invalid: %v", p.Name, err)
			}
		}
		if !strings.HasSuffix(st.String(), fmt.Sprintf("\n%d filters\n", n)) {
			t.Fatal("String() does not end with the filter count")
		}
	})
}

// FuzzParseRaw: whatever ParseRaw accepts round-trips through Bytes.
func FuzzParseRaw(f *testing.F) {
	f.Add([]byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := filters.ParseRaw("fuzz.bpf", data)
		if err != nil {
			var se *filters.SourceError
			if !asSourceError(err, &se) {
				t.Fatalf("error %v is no *SourceError", err)
			}
			return
		}
		if !bytes.Equal(p.Bytes(), data) {
			t.Fatal("Bytes() differs from the input")
		}
		q, err := filters.ParseRaw("again.bpf", p.Bytes())
		if err != nil || !reflect.DeepEqual(q.Insns, p.Insns) {
			t.Fatalf("second parse: %v", err)
		}
	})
}

func asSourceError(err error, target **filters.SourceError) bool { return errors.As(err, target) }
