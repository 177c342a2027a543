package report

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Statistics that are not available come as NaN from stats; the document
// must still encode (JSON has no NaN) and keep the cell.
func TestBuildEncodesNaN(t *testing.T) {
	nan := math.NaN()
	in := document.Input{
		Config: document.Config{Variants: []string{"on"}, Confidence: 0.95},
		Result: stats.Result{Cells: []stats.CellResult{{Variant: "on", Filters: 1,
			Summary:  stats.Summary{N: 1, Mean: 5, Median: 5, StdDev: nan, Lo: nan, Hi: nan},
			Overhead: stats.Diff{Delta: nan, Lo: nan, Hi: nan, Pct: nan, P: nan}}}},
		Drift:   []document.Drift{{Variant: "on", SlopeNsPerChild: nan, P: nan}},
		Control: []document.Control{{Variant: "on", SlowdownPct: math.Inf(1)}},
		Setup:   &document.Setup{StackNs: nan},
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

// Two copies at 100 and 200 ns/op run 1e7 + 5e6 ops/s together.
func TestBuildThroughput(t *testing.T) {
	in := document.Input{Config: document.Config{Variants: []string{"on", "defeat"}},
		Samples: []result.Sample{
			{Cell: result.Cell{Variant: "defeat", Filters: 1}, Seq: 0, NsPerOp: 150, Copies: []result.Copy{{CPU: 1, NsPerOp: 100}, {CPU: 0, NsPerOp: 200}}},
			{Cell: result.Cell{Variant: "on", Filters: 1}, Seq: 1, NsPerOp: 100, Copies: []result.Copy{{CPU: 1, NsPerOp: 100}, {CPU: 0, NsPerOp: 100}}},
			{Cell: result.Cell{Variant: "defeat", Filters: 1}, Seq: 2, NsPerOp: 150, Copies: []result.Copy{{CPU: 1, NsPerOp: 100}, {CPU: 0, NsPerOp: 200}}},
		}}
	d := Build(in)
	if len(d.Throughput) != 2 {
		t.Fatalf("throughput %+v", d.Throughput)
	}
	on, def := d.Throughput[0], d.Throughput[1]
	if on.Variant != "on" || math.Abs(on.OpsPerSecTotal-2e7) > 1e-3 || math.Abs(on.OpsPerSecCopy-1e7) > 1e-3 {
		t.Errorf("on: %+v, want 2e7 total, 1e7 per copy", on)
	}
	if def.Variant != "defeat" || math.Abs(def.OpsPerSecTotal-1.5e7) > 1e-3 || def.ChildrenInCells != 2 || def.FastestCopyNs != 100 || def.SlowestCopyNs != 200 {
		t.Errorf("defeat: %+v, want 1.5e7 total over 2 children, copies 100..200 ns", def)
	}
	if len(d.Children) != 3 || len(d.Children[0].Copies) != 2 {
		t.Errorf("children %+v", d.Children)
	}
}

// A copy that failed (no ns per op) adds no rate and is neither a copy of
// the per-copy mean nor the fastest copy.
func TestBuildThroughputFailedCopy(t *testing.T) {
	in := document.Input{Config: document.Config{Variants: []string{"on"}},
		Samples: []result.Sample{
			{Cell: result.Cell{Variant: "on", Filters: 1}, Seq: 0, NsPerOp: 100, Copies: []result.Copy{{CPU: 0, NsPerOp: 100}, {CPU: 1, NsPerOp: math.NaN()}}},
			{Cell: result.Cell{Variant: "on", Filters: 1}, Seq: 1, NsPerOp: 150, Copies: []result.Copy{{CPU: 0, NsPerOp: 100}, {CPU: 1, NsPerOp: 200}}},
		}}
	d := Build(in)
	if len(d.Throughput) != 1 {
		t.Fatalf("throughput %+v", d.Throughput)
	}
	got := d.Throughput[0]
	// Totals 1e7 and 1.5e7 per child; rates 1e7, 1e7, 5e6 over three
	// measured copies.
	if math.Abs(got.OpsPerSecTotal-1.25e7) > 1e-3 || math.Abs(got.OpsPerSecCopy-2.5e7/3) > 1e-3 || got.FastestCopyNs != 100 || got.SlowestCopyNs != 200 {
		t.Errorf("got %+v, want 1.25e7 total, %.0f per copy, copies 100..200 ns", got, 2.5e7/3)
	}
}

// TestReadJSONRefusesOtherDocuments: JSON that is not a run result (the
// output of compare, simulate, inspect, ...) or has another schema version
// is refused with a message saying what it is and what it should be; a
// document of another kind wraps ErrWrongKind.
func TestReadJSONRefusesOtherDocuments(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{`{"stack": [], "rows": []}`, `not a seccompbench JSON document (no "kind", and its keys match none), want a run result`},
		{`{"schema_version": 1, "kind": "compare", "cells": []}`, "a compare document, want a run result"},
		{`{"schema_version": 1, "kind": "comparison", "cells": []}`, "a compare document"},
		{`{"schema_version": 1, "kind": "inspect", "processes": []}`, "an inspect document, want a run result"},
		{`[{"pid": 1, "seccomp_mode": 2}]`, `an inspect document (no "kind"; recognised by its keys), want a run result`},
		{`{"schema_version": 1, "stack": [], "syscalls": []}`, "a simulate document"},
		{`{"schema_version": 7, "kind": "run"}`, "schema_version 7, want 1"},
		{`{"schema_version": 0, "config": {}, "results": []}`, "no schema_version"},
		{`{"kind": `, "decode json"},
	} {
		_, err := ReadJSON(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadJSON(%s) = %v, want an error containing %q", tt.in, err, tt.want)
		}
		if wrong := strings.Contains(tt.want, ", want a run result") || strings.Contains(tt.want, " document"); wrong != errors.Is(err, document.ErrWrongKind) {
			t.Errorf("ReadJSON(%s): errors.Is(%v, ErrWrongKind) = %v, want %v", tt.in, err, !wrong, wrong)
		}
	}
	// A run result from before kinds existed (schema_version 1, no kind)
	// is still read.
	if _, err := ReadJSON(strings.NewReader(`{"schema_version": 1, "config": {}, "results": []}`)); err != nil {
		t.Errorf("legacy run result: %v", err)
	}
}
