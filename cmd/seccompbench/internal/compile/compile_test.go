package compile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report/document"
)

func TestCompileRun(t *testing.T) {
	p, err := formats.Open("default")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("text", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		if err := Run(ios, nil, &Options{Policy: "default", Out: output.Flags{Format: "text"}}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"ld [arch]", "; getpid", "ret ALLOW", "jeq #0xc000003e"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("text output lacks %q", want)
			}
		}
	})
	t.Run("raw", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		if err := Run(ios, nil, &Options{Policy: "default", Out: output.Flags{Format: "raw"}}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), p.Bytes()) || out.Len() != 8*p.Len() {
			t.Errorf("raw output is %d bytes, want the %d-byte sock_filter array", out.Len(), 8*p.Len())
		}
	})
	t.Run("json", func(t *testing.T) {
		ios, _, out, _ := cmdutil.TestIOStreams()
		if err := Run(ios, nil, &Options{Policy: "default", Out: output.Flags{Format: "json"}}); err != nil {
			t.Fatal(err)
		}
		var doc document.CompileDoc
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, n := range doc.Counts {
			sum += n
		}
		if doc.Instructions != p.Len() || len(doc.Program) != p.Len() || sum != p.Len() || doc.SHA256 != p.SHA256() {
			t.Errorf("json: instructions %d, program %d, counts sum %d, sha %s; want %d and %s", doc.Instructions, len(doc.Program), sum, doc.SHA256, p.Len(), p.SHA256())
		}
		if doc.Program[0].Text != "ld [arch]" {
			t.Errorf("program[0].text = %q, want ld [arch]", doc.Program[0].Text)
		}
	})
}
