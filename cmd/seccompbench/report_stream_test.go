package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/results"
)

// fleetNodes reads docs/examples/fleet's three real results.
func fleetNodes(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, n := range []string{"node-1.json", "node-2.json", "node-3.json"} {
		b, err := os.ReadFile(filepath.Join("../../docs/examples/fleet", n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// reportRows runs report --format json on args with stdin and returns
// each row's result name and host, in order.
func reportRows(t *testing.T, stdin string, args ...string) ([]string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"report", "--format", "json"}, args...), strings.NewReader(stdin), &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	var fl struct {
		Groups []struct {
			Rows []struct {
				Result string `json:"result"`
			} `json:"rows"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(out.Bytes(), &fl); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, g := range fl.Groups {
		for _, r := range g.Rows {
			rows = append(rows, r.Result)
		}
	}
	return rows, errb.String()
}

// TestReportStream: what `kubectl logs` collects (results one after
// another, a pod's warning line between them) gives the same rows as the
// three files, from a file, from standard input and from a directory.
func TestReportStream(t *testing.T) {
	nodes := fleetNodes(t)
	stream := string(nodes[0]) + "warning: a pod's stderr line\n" + string(nodes[1]) + string(nodes[2])
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs.txt")
	if err := os.WriteFile(logs, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"logs.txt:1", "logs.txt:1", "logs.txt:2", "logs.txt:2", "logs.txt:3", "logs.txt:3"}
	got, warn := reportRows(t, "", logs)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("file: got rows %q, want %q", got, want)
	}
	if !strings.Contains(warn, "skipped 1 lines") {
		t.Errorf("no warning about the skipped line; stderr: %q", warn)
	}
	got, _ = reportRows(t, stream, "-")
	if len(got) != 6 || got[0] != "stdin:1" || got[5] != "stdin:3" {
		t.Errorf("stdin: got rows %q", got)
	}
	perNode := t.TempDir()
	for i, n := range nodes {
		if err := os.WriteFile(filepath.Join(perNode, []string{"a", "b", "c"}[i]+".json"), n, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = reportRows(t, "", perNode)
	if strings.Join(got, ",") != "a.json,a.json,b.json,b.json,c.json,c.json" {
		t.Errorf("directory: got rows %q", got)
	}
}

func TestSplitDocumentsErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "no result"},
		{"only text", "warning: x\n", "no result"},
		{"broken object", "{\"a\": 1}\n{\"b\": \n", "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := results.SplitDocuments([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
