package report

import (
	"bytes"
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/internal/golden"
)

// TestExampleRunRenders: docs/examples/run.md and run.txt are
// docs/examples/run.json rendered by WriteMarkdown and WriteTable, so a
// change of wording shows in them without measuring again (go test
// ./report -update rewrites them).
func TestExampleRunRenders(t *testing.T) {
	b, err := os.ReadFile("../docs/examples/run.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var md, txt bytes.Buffer
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&txt, d); err != nil {
		t.Fatal(err)
	}
	// golden.Check reads testdata/golden/NAME: these names climb out to
	// the examples.
	golden.Check(t, "../../../docs/examples/run.md", md.Bytes())
	golden.Check(t, "../../../docs/examples/run.txt", txt.Bytes())
}
