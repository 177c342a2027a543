package sys

import (
	"strings"
	"testing"
)

func TestParseProcStatus(t *testing.T) {
	st, err := ParseProcStatus([]byte("Name:\tloop\nState:\tR (running)\nTracerPid:\t0\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "loop" || st.State != "R (running)" || st.TracerPid != 0 || st.NoNewPrivs != 1 || st.SeccompMode != 2 || st.SeccompFilters != 3 {
		t.Errorf("got %+v", st)
	}
	// A kernel before 5.9 has no Seccomp_filters line: -1, not 0.
	if st, err := ParseProcStatus([]byte("Name:\tx\nSeccomp:\t0\n")); err != nil || st.SeccompFilters != -1 || st.NoNewPrivs != -1 {
		t.Errorf("missing fields: %+v, %v", st, err)
	}
	if _, err := ParseProcStatus([]byte("Seccomp:\tfilter\n")); err == nil || !strings.Contains(err.Error(), "Seccomp") {
		t.Errorf("bad number: %v", err)
	}
}

// FuzzParseProcStatus: no text panics the parser; a field it did not
// find stays -1, and what it returns for a field is that field's last
// line.
func FuzzParseProcStatus(f *testing.F) {
	f.Add([]byte("Name:\tbash\nState:\tS (sleeping)\nTracerPid:\t0\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n"))
	f.Add([]byte("Seccomp:\t2\nSeccomp_filters:\t12\nSeccomp:\t2\n"))
	f.Add([]byte("Seccomp_filters: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseProcStatus(data)
		if err != nil {
			return
		}
		if !strings.Contains(string(data), "Seccomp_filters:") && st.SeccompFilters != -1 {
			t.Fatalf("no Seccomp_filters line, got %d", st.SeccompFilters)
		}
		if strings.Contains(st.Name, "\n") || strings.Contains(st.State, "\n") {
			t.Fatalf("a field spans lines: %+v", st)
		}
	})
}
