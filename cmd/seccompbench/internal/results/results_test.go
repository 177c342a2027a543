package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

func TestSplitDocuments(t *testing.T) {
	for _, tt := range []struct {
		name    string
		in      string
		want    []string
		skipped int
		err     string // "" for none
	}{
		{name: "one", in: `{"a": 1}`, want: []string{`{"a": 1}`}},
		{name: "concatenated", in: "{\"a\":1}{\"b\":2}\n\n {\"c\":[3]}\n", want: []string{`{"a":1}`, `{"b":2}`, `{"c":[3]}`}},
		{name: "kubectl logs with warnings", in: "W1203 pod warning\n{\"a\":1}\nnote: done\n{\"b\":2}", want: []string{`{"a":1}`, `{"b":2}`}, skipped: 2},
		{name: "trailing text without newline", in: "{\"a\":1}\ntrailing", want: []string{`{"a":1}`}, skipped: 1},
		{name: "broken object names its line", in: "{\"a\":1}\n\n{\"b\": ", err: "line 3: decode result"},
		{name: "nothing", in: "  \n", err: "no result"},
		{name: "only text", in: "hello\nworld\n", skipped: 2, err: "no result"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			docs, skipped, err := SplitDocuments([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one containing %q", err, tt.err)
				}
				if tt.err == "no result" && !errors.Is(err, document.ErrNoResults) {
					t.Errorf("err %v does not wrap report.ErrNoResults", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range docs {
				got = append(got, string(d))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || skipped != tt.skipped {
				t.Errorf("got %q, %d skipped; want %q, %d", got, skipped, tt.want, tt.skipped)
			}
		})
	}
}

func TestDisplayNames(t *testing.T) {
	got := DisplayNames([]string{"h1/result.json", "h2/result.json", "a/other.json"})
	want := []string{"h1/result.json", "h2/result.json", "other.json"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadAndExpand(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "b.json"), []byte("{\"n\":2}\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "a.json"), []byte("warn\n{\"n\":1}{\"n\":3}"), 0o644))
	var errOut bytes.Buffer
	got, err := Read([]string{dir, "-"}, strings.NewReader(`{"n":4}`), &errOut)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range got {
		var v struct{ N int }
		must(json.Unmarshal(in.Data, &v))
		names = append(names, in.Name+"="+string(rune('0'+v.N)))
	}
	if want := "a.json:1=1 a.json:2=3 b.json=2 stdin=4"; strings.Join(names, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(names, " "), want)
	}
	if !strings.Contains(errOut.String(), "a.json: skipped 1 lines") {
		t.Errorf("warning %q does not name a.json's skipped line", errOut.String())
	}
	if _, err := Read([]string{t.TempDir()}, nil, &errOut); err == nil || !strings.Contains(err.Error(), "holds no files") {
		t.Errorf("empty directory: %v", err)
	}
	files, err := Expand([]string{filepath.Join(dir, "*.json")})
	if err != nil || len(files) != 2 {
		t.Errorf("Expand glob: %v, %v", files, err)
	}
	if _, err := Expand([]string{filepath.Join(dir, "*.none")}); err == nil || !strings.Contains(err.Error(), "matches no file") {
		t.Errorf("glob matching nothing: %v", err)
	}
}

// FuzzSplitDocuments: no input panics; every document returned is one
// valid JSON object found in the input, in order.
func FuzzSplitDocuments(f *testing.F) {
	f.Add([]byte("{\"a\":1}{\"b\":2}"))
	f.Add([]byte("W1203 warning\n{\"kind\":\"run\"}\n"))
	f.Add([]byte("{\"a\": [1, {\"b\": null}]}\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _, err := SplitDocuments(data)
		if err != nil {
			if docs != nil {
				t.Fatalf("error %v with %d documents", err, len(docs))
			}
			return
		}
		if len(docs) == 0 {
			t.Fatal("no error and no document")
		}
		rest := data
		for _, d := range docs {
			if !json.Valid(d) || d[0] != '{' {
				t.Fatalf("document %q is no JSON object", d)
			}
			i := bytes.Index(rest, d)
			if i < 0 {
				t.Fatalf("document %q is not in the input after the previous one", d)
			}
			rest = rest[i+len(d):]
		}
	})
}
