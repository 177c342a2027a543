package systemd

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// FuzzParseSystemdUnit: any unit either fails with a *SourceError naming a
// line or models a stack of valid programs whose directive counts add up.
func FuzzParseSystemdUnit(f *testing.F) {
	f.Add([]byte("[Service]\nSystemCallFilter=@system-service\nSystemCallFilter=~@mount\nRestrictNamespaces=~user\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseUnit("fuzz.service", data, Options{})
		if err != nil {
			var se *filters.SourceError
			if !errors.As(err, &se) {
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
