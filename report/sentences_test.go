package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/seccompbench/seccompbench/internal/jsoncontract"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// TestJSONHasNoSentences: the JSON of the golden fixture and every
// committed JSON document of the current schema version (the examples
// in docs/examples, this package's test data and golden files) carries
// English only under the keys docs/json.md allows (jsoncontract.Text).
// Files of older schema versions are left out: they are kept to show that
// readers still read the sentences those versions held.
func TestJSONHasNoSentences(t *testing.T) {
	var fresh bytes.Buffer
	if err := report.WriteJSON(&fresh, report.FixtureDoc(t, 0)); err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{"fixture": fresh.Bytes()}
	var paths []string
	for _, glob := range []string{"../docs/examples/*.json", "../docs/examples/*/*.json", "testdata/*.json", "testdata/golden/*.json"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[p] = b
	}
	checked := map[document.Kind]int{}
	for name, b := range docs {
		k, version, legacy, err := document.DetectKind(b)
		if err != nil || legacy || version != k.Version() {
			t.Logf("%s: not checked (kind %q, schema_version %d, no kind: %v, %v)", name, k, version, legacy, err)
			continue
		}
		got, err := jsoncontract.Sentences(k, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range got {
			t.Errorf("%s: sentence outside the keys docs/json.md allows: %.160s", name, s)
		}
		checked[k]++
	}
	for _, k := range []document.Kind{document.KindRun, document.KindCompare, document.KindEstimate, document.KindInspect, document.KindLint} {
		if checked[k] == 0 {
			t.Errorf("no committed %s document checked", k)
		}
	}
}
