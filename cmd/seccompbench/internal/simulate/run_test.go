package simulate

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/report/chart"
	"github.com/seccompbench/seccompbench/report/document"
)

// TestRunPlots writes every format at once and checks each file:
// the SVG is XML with the legend, the PNG decodes at the documented size,
// the table and JSON are the usual ones; stdout stays empty.
func TestRunPlots(t *testing.T) {
	dir := t.TempDir()
	path := func(n string) string { return filepath.Join(dir, n) }
	ios, _, out, errOut := cmdutil.TestIOStreams()
	opts := &Options{Policies: []string{"default"}, All: true, Sort: "nr", Format: "table",
		Outputs: []string{path("p.svg"), path("p.png"), path("t.txt"), path("t.json")}}
	if err := Run(ios, opts); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing (every output went to a file)", out)
	}
	for _, n := range []string{"p.svg", "p.png", "t.txt", "t.json"} {
		if !strings.Contains(errOut.String(), "wrote "+path(n)) {
			t.Errorf("stderr does not announce %s: %q", n, errOut)
		}
	}

	svg, err := os.ReadFile(path("p.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("svg is not XML: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			texts = append(texts, string(cd))
		}
	}
	all := strings.Join(texts, "\n")
	for _, w := range []string{chart.SimulateLegendCached, chart.SimulateLegendAllowed, "stack: 1 filter: default", "x86_64 syscall number", "kill(2): 129"} {
		if !strings.Contains(all, w) {
			t.Errorf("svg lacks %q", w)
		}
	}

	f, err := os.Open(path("p.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	if img.Bounds().Dx() != 1440 || img.Bounds().Dy() != 780 {
		t.Errorf("png is %v, want 1440×780", img.Bounds())
	}

	txt, err := os.ReadFile(path("t.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(txt), "# x86_64: 119 of 383 syscalls cached") {
		t.Errorf("table lacks the x86_64 cache line:\n%.300s", txt)
	}
	var doc document.SimulateDoc
	b, err := os.ReadFile(path("t.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Syscalls) == 0 {
		t.Errorf("json: %v, %d syscalls", err, len(doc.Syscalls))
	}
}
