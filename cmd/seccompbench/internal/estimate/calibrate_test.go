package estimate

import (
	"fmt"
	"testing"
)

func TestCalibrationCounts(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "[0 1 2]"}, {1, "[0 1 2]"}, {2, "[0 1 2]"}, {8, "[0 1 4 8]"}, {31, "[0 1 16 31]"}, {500, "[0 1 64 127]"}}
	for _, tt := range tests {
		if got := calibrationCounts(tt.n); fmt.Sprint(got) != tt.want {
			t.Errorf("calibrationCounts(%d) = %v, want %s", tt.n, got, tt.want)
		}
	}
}
