package suggest

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	set := map[string]bool{"pwrite64": true, "pwritev": true, "pwritev2": true, "pread64": true, "getuid": true,
		"umount2": true, "mmap": true, "openat": true, "open": true}
	tests := []struct {
		in   string
		n    int
		want []string
	}{
		// x86_64 calls it pwrite64; pwritev is one letter away but another call.
		{"pwrite", 1, []string{"pwrite64"}},
		{"PWRITE", 1, []string{"pwrite64"}},
		{"pread", 3, []string{"pread64"}},
		{"getuid32", 1, []string{"getuid"}},
		{"umount", 1, []string{"umount2"}},
		{"opnat", 1, []string{"openat"}},
		{"mmapp", 3, []string{"mmap"}},
		{"xyzzyq", 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Closest(tt.in, set, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
