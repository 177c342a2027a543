package report

import (
	"bytes"
	"math"
	"testing"

	"github.com/seccompbench/seccompbench/stats"
)

// Statistics that are not available come as NaN from stats; the document
// must still encode (JSON has no NaN) and keep the cell.
func TestBuildEncodesNaN(t *testing.T) {
	nan := math.NaN()
	in := Input{
		Config: Config{Variants: []string{"on"}, Confidence: 0.95},
		Result: stats.Result{Cells: []stats.CellResult{{Variant: "on", Filters: 1,
			Summary:  stats.Summary{N: 1, Mean: 5, Median: 5, StdDev: nan, Lo: nan, Hi: nan},
			Overhead: stats.Diff{Delta: nan, Lo: nan, Hi: nan, Pct: nan, P: nan}}}},
		Drift:   []Drift{{Variant: "on", SlopeNsPerChild: nan, P: nan}},
		Control: []Control{{Variant: "on", SlowdownPct: math.Inf(1)}},
		Setup:   &Setup{StackNs: nan},
	}
	d := Build(in)
	var b bytes.Buffer
	if err := WriteJSON(&b, d); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	back, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Results) != 1 || back.Results[0].MeanNs != 5 {
		t.Errorf("results after round trip: %+v", back.Results)
	}
}
