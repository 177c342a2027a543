package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

// TestReadSchema2: a run result of schema_version 2 (English meaning and
// control verdicts) still reads, and reads as the same document as its
// schema 3 conversion: the same codes, and the same rendered text.
func TestReadSchema2(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "run-schema2.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old, err := ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if old.SchemaVersion != 2 || len(old.Meaning) == 0 || len(old.Meaning[0].Clauses) == 0 || old.Meaning[0].Text == "" {
		t.Fatalf("schema 2 file read as version %d with meaning %+v", old.SchemaVersion, old.Meaning)
	}
	if got := old.Control[0].Verdict; strings.Contains(got, " ") {
		t.Errorf("control verdict of a schema 2 file not converted to a code: %q", got)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, old); err != nil {
		t.Fatal(err)
	}
	cur, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := WriteText(&want, old, TextOptions{Explain: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&got, cur, TextOptions{Explain: true}); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("schema 3 round trip renders differently:\n%s\nwant\n%s", got.String(), want.String())
	}
	for _, s := range old.Meaning[0].Sentences {
		if !strings.Contains(got.String(), s) {
			t.Errorf("text report lacks the meaning's sentence %q", s)
		}
	}
	if len(old.Meaning[0].Sentences) == 0 {
		t.Error("the schema 2 meaning has no sentences")
	}
}

// TestCompareSchema2With3: compare reads an old (schema 2) result beside
// its schema 3 conversion and finds the same per-filter fits on both.
func TestCompareSchema2With3(t *testing.T) {
	read := func() *document.Document {
		f, err := os.Open(filepath.Join("testdata", "run-schema2.json"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		d, err := ReadJSON(f)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	old := read()
	var b bytes.Buffer
	if err := WriteJSON(&b, read()); err != nil {
		t.Fatal(err)
	}
	cur, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare([]document.NamedDocument{{Name: "old.json", Doc: old}, {Name: "new.json", Doc: cur}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Fits) == 0 {
		t.Fatal("no fits compared")
	}
	var out bytes.Buffer
	if err := WriteComparisonJSON(&out, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"kind": "compare"`) {
		t.Errorf("compare JSON of a schema 2 and a schema 3 result: %.200s", out.String())
	}
}
