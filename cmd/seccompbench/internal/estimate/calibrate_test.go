package estimate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/stats"
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

// TestNegativeCostWarnings: a negative cached cost (the fresh-user run's
// -170.5 ns) is flagged; a model of positive costs is not.
func TestNegativeCostWarnings(t *testing.T) {
	m := stats.CostModel{Entry: stats.Estimate{Center: 60}, PerFilter: stats.Estimate{Center: 40}, Cached: stats.Estimate{Center: -170.5}}
	w := negativeCostWarnings(m)
	if len(w) != 1 || !strings.Contains(w[0], "per cached syscall -170.5 ns") {
		t.Errorf("warnings %q, want one naming the cached cost", w)
	}
	m.Cached.Center = 14
	if w := negativeCostWarnings(m); len(w) != 0 {
		t.Errorf("warnings %q for positive costs", w)
	}
}
