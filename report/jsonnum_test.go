package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/stats"
)

// TestJSONUndefinedNumbers: an undefined number never breaks a JSON output;
// it is null, in a *float64 field and in a float64 field of the result
// document (schema_version 2), and reads back as NaN.
func TestJSONUndefinedNumbers(t *testing.T) {
	nan := math.NaN()
	t.Run("estimate", func(t *testing.T) {
		e := &document.Estimate{Model: document.EstimateModel{EntryCILowNs: document.Nullable(nan), EntryCIHighNs: document.Nullable(math.Inf(1))}}
		var b bytes.Buffer
		if err := WriteEstimateJSON(&b, e); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `"entry_ci_low_ns": null`) || !strings.Contains(b.String(), `"entry_ci_high_ns": null`) {
			t.Errorf("undefined bounds are not null:\n%s", b.String())
		}
	})
	t.Run("document", func(t *testing.T) {
		// One child per cell: no interval anywhere.
		res := stats.Result{
			Cells: []stats.CellResult{{Variant: "on", Filters: 0, Summary: stats.Summary{N: 1, Mean: 100, Lo: nan, Hi: nan, StdDev: nan}, Overhead: stats.Diff{P: nan, Lo: nan, Hi: nan}}},
			Fits:  []stats.Fit{{Variant: "on", PerFilter: nan, PerFilterLo: nan, PerFilterHi: nan, R2: nan}},
		}
		doc := Build(document.Input{Result: res, Setup: &document.Setup{PerFilterNs: 5, PerFilterCILowNs: nan, PerFilterCIHiNs: nan, StackNs: nan}})
		var b bytes.Buffer
		if err := WriteJSON(&b, doc); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"ci_low_ns": null`, `"per_filter_ci_low_ns": null`, `"r2": null`, `"stack_ns": null`, `"per_filter_rel": null`} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("undefined number is not null: no %s in\n%s", want, b.String())
			}
		}
		if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), `"per_filter_ci_low_ns": 0`) {
			t.Errorf("an undefined number is NaN or 0:\n%s", b.String())
		}
		back, err := ReadJSON(&b)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Fits[0].PerFilterCILowNs; !math.IsNaN(got) {
			t.Errorf("per_filter_ci_low_ns null reads back as %v, want NaN", got)
		}
		if got := back.Setup.PerFilterNs; got != 5 {
			t.Errorf("setup per_filter_ns reads back as %v, want 5", got)
		}
	})
}

// TestFloatJSON: a Float is null in JSON when NaN or ±Inf, and otherwise
// the bytes encoding/json writes for the float64; null reads back as NaN
// and a number as itself.
func TestFloatJSON(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		b, err := json.Marshal(document.Float(x))
		if err != nil || string(b) != "null" {
			t.Errorf("Float(%v) marshals to %s, %v; want null", x, b, err)
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -2.5, 123.456, 1.0 / 3, 1e-7, 9.99e-7, 1e20, 1e21, -1e21, 5e-324, math.MaxFloat64} {
		want, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(document.Float(x))
		if err != nil || string(got) != string(want) {
			t.Errorf("Float(%v) marshals to %s, %v; want %s as for a float64", x, got, err, want)
		}
		var back document.Float
		if err := json.Unmarshal(got, &back); err != nil || float64(back) != x || math.Signbit(float64(back)) != math.Signbit(x) {
			t.Errorf("%s reads back as %v, %v; want %v", got, back, err, x)
		}
	}
	back := document.Float(7)
	if err := json.Unmarshal([]byte(" null "), &back); err != nil || !math.IsNaN(float64(back)) {
		t.Errorf("null reads back as %v, %v; want NaN", back, err)
	}
	for _, bad := range []string{`"1"`, `true`, `1e400`, `[]`} {
		var f document.Float
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(bad), &f); !errors.As(err, &te) {
			t.Errorf("%s into a Float: error %v, want a *json.UnmarshalTypeError", bad, err)
		}
	}
}

// TestWireJSON: the result document's structs are written as
// encoding/json writes them (keys, order, omitempty) with their float64
// fields as Float, and read back; a key absent from the JSON keeps its
// field's value, and a type error names the struct and the key.
func TestWireJSON(t *testing.T) {
	nan := math.NaN()
	c := document.CellResult{Variant: "on", Filters: 2, N: 3, MeanNs: 10.5, MedianNs: nan, StddevNs: math.Inf(1), CILowNs: 1e-7, SamplesNs: []float64{1, 2}, Pads: []int{0, 4}}
	type plain document.CellResult
	p := plain(c)
	p.MedianNs, p.StddevNs = 0, 0
	want, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want = bytes.Replace(want, []byte(`"median_ns":0,"stddev_ns":0`), []byte(`"median_ns":null,"stddev_ns":null`), 1)
	got, err := json.Marshal(c)
	if err != nil || string(got) != string(want) {
		t.Fatalf("CellResult marshals to\n%s, %v; want\n%s", got, err, want)
	}
	back := document.CellResult{Outliers: 9}
	if err := json.Unmarshal(bytes.Replace(got, []byte(`"outliers":0,`), nil, 1), &back); err != nil {
		t.Fatal(err)
	}
	if back.Variant != "on" || back.MeanNs != 10.5 || !math.IsNaN(back.MedianNs) || !math.IsNaN(back.StddevNs) || back.CILowNs != 1e-7 || back.Outliers != 9 || len(back.Pads) != 2 {
		t.Errorf("CellResult reads back as %+v", back)
	}
	var fit document.Fit
	err = json.Unmarshal([]byte(`{"variant":"on","r2":"high"}`), &fit)
	if err == nil || !strings.Contains(err.Error(), "Fit.r2") {
		t.Errorf("a string r2 gives error %v, want one naming Fit.r2", err)
	}
}
