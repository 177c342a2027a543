package runjob

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/runner/result"
)

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	p(1, 3, result.Cell{Variant: result.VariantOn, Filters: 8})
	if got := b.String(); !strings.Contains(got, "(1/3") || !strings.Contains(got, "last variant=on filters=8") {
		t.Errorf("after 1 of 3: %q, want the count and the last cell", got)
	}
	p(2, 3, result.Cell{Variant: result.VariantDefeat, Filters: 0})
	p(3, 3, result.Cell{Variant: result.VariantDefeat, Filters: 32})
	got := b.String()
	if !strings.Contains(got, "(3/3") || !strings.Contains(got, "last variant=defeat filters=32") {
		t.Errorf("after 3 of 3: %q", got)
	}
	if !strings.HasSuffix(got, "\n") {
		t.Errorf("finished bar does not end the line: %q", got[max(0, len(got)-40):])
	}
}
