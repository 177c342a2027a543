package jitcost

import (
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report/document"
)

func TestModel(t *testing.T) {
	p, err := formats.Open("default")
	if err != nil {
		t.Fatal(err)
	}
	for _, kernel := range []string{"5.10.0", "6.18.0"} {
		one := Model([]*filters.Program{p}, kernel)
		two := Model([]*filters.Program{p, p}, kernel)
		if one.Source != "model" || len(one.PerFilter) != 1 || len(two.PerFilter) != 2 {
			t.Fatalf("%s: figures %+v, %+v", kernel, one, two)
		}
		if one.PerFilter[0] <= 0 || two.PerFilter[0] != one.PerFilter[0] || two.PerFilter[1] != one.PerFilter[0] {
			t.Errorf("%s: per filter %v and %v; want the same positive charge per copy", kernel, one.PerFilter, two.PerFilter)
		}
		if two.Stack < one.Stack || one.Mean != float64(one.Stack) {
			t.Errorf("%s: stack %d then %d, mean %v", kernel, one.Stack, two.Stack, one.Mean)
		}
	}
	if got := Model(nil, "6.18.0"); got.Stack != 0 || len(got.PerFilter) != 0 {
		t.Errorf("empty stack: %+v", got)
	}
}

func TestSetSetupAndEstimate(t *testing.T) {
	f := Figures{PerFilter: []int64{4096, 4096}, Stack: 8192, Mean: 4096, Source: "model"}
	st := SetSetup(nil, f, 2)
	if st.StackFilter != 2 || st.JITBytesStack != 8192 || st.JITBytesPerFilter != 4096 || st.JITSource != "model" {
		t.Errorf("new setup %+v", st)
	}
	old := &document.Setup{StackFilter: 5}
	if got := SetSetup(old, f, 2); got != old || got.StackFilter != 5 || got.JITBytesStack != 8192 {
		t.Errorf("existing setup %+v", got)
	}
	e := Estimate(f, -1)
	if e.StackBytes != 8192 || e.PerFilterBytes != 4096 || e.Limit != 0 || e.Source != "model" {
		t.Errorf("estimate %+v (limit -1 must read 0)", e)
	}
	if e := Estimate(f, 1<<20); e.Limit != 1<<20 {
		t.Errorf("limit %d", e.Limit)
	}
}
