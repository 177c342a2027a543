package estimate

import (
	"testing"

	"github.com/seccompbench/seccompbench/filters/formats"
)

// TestWithUnitReadsDropIns: estimate --systemd-unit models the unit
// merged with its override.conf, the same stack as the unit resolved by
// hand into one file.
func TestWithUnitReadsDropIns(t *testing.T) {
	const dir = "../../../../filters/formats/testdata/dropins/"
	got, err := withUnit(&Options{SystemdUnit: dir + "logind/systemd-logind.service"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := formats.Load(dir+"resolved/systemd-logind.service", formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.Filters) {
		t.Fatalf("%d filters, want %d (the drop-in was not applied)", len(got), len(want.Filters))
	}
	for i := range got {
		if got[i].SHA256() != want.Filters[i].SHA256() {
			t.Errorf("filter %d differs", i)
		}
	}
}
