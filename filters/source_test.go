package filters

import (
	"bytes"
	"testing"
)

// naiveLineCol is the definition Lines must agree with: count the line
// breaks before off.
func naiveLineCol(data []byte, off int) (line, col int) {
	if off < 0 || off > len(data) {
		return 0, 0
	}
	return 1 + bytes.Count(data[:off], []byte{'\n'}), off - bytes.LastIndexByte(data[:off], '\n')
}

func TestLines(t *testing.T) {
	for _, tt := range []struct {
		name      string
		data      string
		off       int
		line, col int
	}{
		{"start", "ab\ncd", 0, 1, 1},
		{"first line", "ab\ncd", 1, 1, 2},
		{"the break itself", "ab\ncd", 2, 1, 3},
		{"after the break", "ab\ncd", 3, 2, 1},
		{"end", "ab\ncd", 5, 2, 3},
		{"end after a break", "ab\n", 3, 2, 1},
		{"blank lines", "\n\n\nx", 3, 4, 1},
		{"empty", "", 0, 1, 1},
		{"negative", "ab", -1, 0, 0},
		{"past the end", "ab", 3, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line, col := NewLines([]byte(tt.data)).LineCol(tt.off)
			if line != tt.line || col != tt.col {
				t.Errorf("LineCol(%q, %d) = %d:%d, want %d:%d", tt.data, tt.off, line, col, tt.line, tt.col)
			}
			if line, col := LineCol([]byte(tt.data), tt.off); line != tt.line || col != tt.col {
				t.Errorf("one-shot LineCol(%q, %d) = %d:%d, want %d:%d", tt.data, tt.off, line, col, tt.line, tt.col)
			}
		})
	}
	// Every offset of a mixed input agrees with counting.
	data := []byte("{\n  \"a\": 1,\r\n\n\t\"b\": [true]\n}\n\n")
	lines := NewLines(data)
	for off := -1; off <= len(data)+1; off++ {
		gl, gc := lines.LineCol(off)
		wl, wc := naiveLineCol(data, off)
		if gl != wl || gc != wc {
			t.Errorf("offset %d: got %d:%d, want %d:%d", off, gl, gc, wl, wc)
		}
	}
}
