package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestCommandFiguresKeepDigits: a whole command of about 12 ms whose
// filters add a few µs (run --workload command -- sleep 0.01): every figure
// of the table and of the sentences keeps 3 significant digits in its own
// unit, instead of "+0.0 ms" and "~0 ms (0.00 ms, CI [0.00, 0.00])".
func TestCommandFiguresKeepDigits(t *testing.T) {
	d := fixtureDoc(t, 0)
	for i := range d.Results {
		r := &d.Results[i]
		r.MeanNs, r.MedianNs, r.CILowNs, r.CIHighNs = 12.1e6, 12.0e6, 11.9e6, 12.3e6
		if r.Filters > 0 {
			r.OverheadNs, r.OverheadCILowNs, r.OverheadCIHighNs = 4560, 1230, 7890
		}
	}
	for i := range d.Fits {
		f := &d.Fits[i]
		f.BaselineNs, f.PerFilterNs, f.PerFilterCILowNs, f.PerFilterCIHighNs = 12e6, 142, -310, 594
		f.EntryNs, f.EntryCILowNs, f.EntryCIHighNs, f.PlacementSDNs = 3210, 1100, 5320, 55.5
	}
	var b bytes.Buffer
	if err := WriteText(&b, d, TextOptions{Explain: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"12.1 ms", "+4.56 µs", "[+1.23, +7.89] µs", "142 ns", "[-310, 594] ns", "3.21 µs"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"+0.0 ", "0.00 ms", "[0.00, 0.00]"} {
		if strings.Contains(out, bad) {
			t.Errorf("table has %q:\n%s", bad, out)
		}
	}
}

// TestPolicyABIInOutputs: a run of an i386 policy says so in the table
// and the Markdown.
func TestPolicyABIInOutputs(t *testing.T) {
	d := fixtureDoc(t, 0)
	d.Config.Policies[0].ABIs = []string{"i386"}
	var tab, md bytes.Buffer
	if err := WriteText(&tab, d, TextOptions{Explain: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tab.String(), "instructions, for i386)") || !strings.Contains(md.String(), "(for i386)") {
		t.Errorf("the ABI is missing:\n%s\n%s", tab.String(), md.String())
	}
}
