package runjob

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/runner/result"
)

func TestObservations(t *testing.T) {
	s := result.Sample{Cell: result.Cell{Variant: result.VariantDefeat, Filters: 4}, Block: 2, Seq: 9, NsPerOp: 123.5,
		InstallNs: []int64{10, 20}, ControlBeforeNs: 1.5, ControlAfterNs: 1.75}
	got := Observations([]result.Sample{s})
	o := got[0]
	if len(got) != 1 || o.Variant != "defeat" || o.Filters != 4 || o.Block != 2 || o.Seq != 9 || o.NsPerOp != 123.5 ||
		!slices.Equal(o.InstallNs, s.InstallNs) || o.ControlBeforeNs != 1.5 || o.ControlAfterNs != 1.75 {
		t.Errorf("Observations = %+v, want every field of %+v", got, s)
	}
	if names := VariantNames([]result.Variant{result.VariantOn, result.VariantDefeat}); !slices.Equal(names, []string{"on", "defeat"}) {
		t.Errorf("VariantNames = %v", names)
	}
}

// TestClipCounts: default counts stop at the deepest stack that fits; given
// counts are left alone (run then refuses the stack).
func TestClipCounts(t *testing.T) {
	p, err := formats.OpenWith(oci.DockerDefaultName, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	progs := []*filters.Program{p}
	variants := []result.Variant{result.VariantOn, result.VariantDefeat}
	fit := maxFittingCount(progs, variants)
	tests := []struct {
		name      string
		countsSet bool
		want      string
		warn      bool
	}{
		{"default counts", false, fmt.Sprint([]int{0, 1, 2, 4, 8, 16, fit}), true},
		{"given counts", true, "[0 1 2 4 8 16 32]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &Job{Counts: []int{0, 1, 2, 4, 8, 16, 32}, CountsSet: tt.countsSet}
			w := j.clipCounts(progs, variants)
			if fmt.Sprint(j.Counts) != tt.want || (w != "") != tt.warn || tt.warn && !strings.Contains(w, "MAX_INSNS_PER_PATH") {
				t.Errorf("counts %v, warning %q; want %s, warning %v", j.Counts, w, tt.want, tt.warn)
			}
		})
	}
	if fit < 16 || fit >= 32 {
		t.Errorf("docker-default fits %d times; the test wants a depth between 16 and 31", fit)
	}
}
