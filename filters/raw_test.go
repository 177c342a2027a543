package filters

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRawErrors(t *testing.T) {
	retAllow := []byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f}
	ldArgsBad := []byte{0x20, 0, 0, 0, 64, 0, 0, 0} // ld [64]: past seccomp_data
	tests := []struct {
		name   string
		data   []byte
		want   string
		wantPC int // -2: no *ValidationError expected
	}{
		{"empty", nil, "empty file", -2},
		{"size not a multiple of 8", make([]byte, 12), "size 12 bytes is not a multiple of 8", -2},
		{"load out of range", append(append([]byte{}, ldArgsBad...), retAllow...), "instruction 0 (byte offset 0)", 0},
		{"no return at the end", append(append([]byte{}, retAllow...), ldArgsBad[:4]...), "not a multiple", -2},
		{"last is not ret", append(append([]byte{}, retAllow...), 0x20, 0, 0, 0, 0, 0, 0, 0), "instruction 1 (byte offset 8)", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRaw("f.bpf", tt.data)
			if !errors.Is(err, ErrBadRaw) {
				t.Fatalf("error = %v, want ErrBadRaw", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "f.bpf: ") {
				t.Errorf("error %q does not start with f.bpf: and mention %q", err, tt.want)
			}
			var ve *ValidationError
			if got := errors.As(err, &ve); got != (tt.wantPC != -2) {
				t.Fatalf("errors.As ValidationError = %v, want %v", got, tt.wantPC != -2)
			}
			if ve != nil && ve.PC != tt.wantPC {
				t.Errorf("PC = %d, want %d", ve.PC, tt.wantPC)
			}
		})
	}
}
