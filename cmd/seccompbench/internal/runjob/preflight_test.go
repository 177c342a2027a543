package runjob

import (
	"strings"
	"testing"
)

func TestKernelWarnings(t *testing.T) {
	tests := []struct {
		release string
		want    string // substring of the only warning, "" for none
	}{
		{"6.18.44-fc-v857", ""},
		{"5.11.0", ""},
		{"5.10.0-28-amd64", "kernel 5.10.0-28-amd64 predates the seccomp action cache (Linux 5.11)"},
		{"4.19.0", "predates"},
		{"", ""},
		{"weird", ""},
	}
	for _, tt := range tests {
		t.Run(tt.release, func(t *testing.T) {
			got := KernelWarnings(tt.release)
			if tt.want == "" && len(got) != 0 || tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)) {
				t.Errorf("KernelWarnings(%q) = %q, want %q", tt.release, got, tt.want)
			}
		})
	}
}
