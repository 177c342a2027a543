package output

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/report"
)

func TestResolveOutputs(t *testing.T) {
	tests := []struct {
		name      string
		format    string
		formatSet bool
		paths     []string
		want      []Spec
		wantErr   string
	}{
		{name: "stdout default", format: "table", want: []Spec{{Format: "table"}}},
		{name: "stdout markdown", format: "markdown", formatSet: true, want: []Spec{{Format: "markdown"}}},
		{name: "stdout png refused", format: "png", formatSet: true, wantErr: "binary"},
		{name: "bad format", format: "xml", formatSet: true, wantErr: "not one of"},
		{name: "one -o with --format keeps working", format: "json", formatSet: true, paths: []string{"x.out"}, want: []Spec{{Path: "x.out", Format: "json"}}},
		{name: "explicit --format beats the extension for one file", format: "json", formatSet: true, paths: []string{"x.md"}, want: []Spec{{Path: "x.md", Format: "json"}}},
		{name: "one -o by extension", format: "table", paths: []string{"r.json"}, want: []Spec{{Path: "r.json", Format: "json"}}},
		{name: "one -o unknown extension is refused", format: "table", paths: []string{"r.weird"}, wantErr: `cannot tell the format from the extension ".weird"`},
		{name: "one -o without extension is refused", format: "table", paths: []string{"result"}, wantErr: "--format"},
		{name: "a device takes --format's default", format: "table", paths: []string{"/dev/null"}, want: []Spec{{Path: "/dev/null", Format: "table"}}},
		{name: "several by extension", format: "table", paths: []string{"a.json", "b.md", "c.CSV", "d.bench", "e.svg", "f.png", "g.txt", "h.html", "i.HTM"},
			want: []Spec{{Path: "a.json", Format: "json"}, {Path: "b.md", Format: "markdown"}, {Path: "c.CSV", Format: "csv"}, {Path: "d.bench", Format: "benchstat"}, {Path: "e.svg", Format: "svg"}, {Path: "f.png", Format: "png"}, {Path: "g.txt", Format: "table"}, {Path: "h.html", Format: "html"}, {Path: "i.HTM", Format: "html"}}},
		{name: "several, unknown extension", format: "table", paths: []string{"a.json", "b.out"}, wantErr: "extension"},
		{name: "several, unknown extension with --format", format: "benchstat", formatSet: true, paths: []string{"a.json", "b.out"},
			want: []Spec{{Path: "a.json", Format: "json"}, {Path: "b.out", Format: "benchstat"}}},
		{name: "same file twice", format: "table", paths: []string{"a.json", "./a.json"}, wantErr: "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.format, tt.formatSet, tt.paths)
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
					t.Fatalf("err = %v, want a *cmdutil.FlagError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestResolveForCommands: commands with other formats than run's read the
// same extensions as theirs (.txt is compile's text, .bpf its raw) and
// refuse an extension that names a format they do not write.
func TestResolveForCommands(t *testing.T) {
	compile := []string{"text", "raw", "json"}
	tests := []struct {
		name      string
		formatSet bool
		format    string
		paths     []string
		want      []Spec
		wantErr   string
	}{
		{name: "txt is text", format: "text", paths: []string{"a.txt"}, want: []Spec{{Path: "a.txt", Format: "text"}}},
		{name: "bpf is raw", format: "text", paths: []string{"a.bpf", "a.json"}, want: []Spec{{Path: "a.bpf", Format: "raw"}, {Path: "a.json", Format: "json"}}},
		{name: "markdown is not written", format: "text", paths: []string{"a.md"}, wantErr: "writes text, raw, json, not markdown"},
		{name: "markdown file with --format", format: "json", formatSet: true, paths: []string{"a.md"}, want: []Spec{{Path: "a.md", Format: "json"}}},
		{name: "raw on stdout", format: "raw", formatSet: true, want: []Spec{{Format: "raw"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveFor(compile, tt.format, tt.formatSet, tt.paths)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !cmdutil.IsFlagError(err) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestOnceLineWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewOnceLineWriter(&b)
	w.Write([]byte("warning: a\nwarn"))
	w.Write([]byte("ing: b\nwarning: a\n"))
	w.Write([]byte("warning: b\nwarning: c\n"))
	if got, want := b.String(), "warning: a\nwarning: b\nwarning: c\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWriteOutputsFallsBackToStdout: when one -o file cannot be written
// (here: its "directory" is a plain file, as when a disk fills between the
// preflight check and the write), the other files are still written and
// the whole result goes to stdout as JSON, so nothing measured is lost.
func TestWriteOutputsFallsBackToStdout(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "examples", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := report.ReadJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good, bad := filepath.Join(dir, "r.md"), filepath.Join(plain, "r.json")
	var out, errb bytes.Buffer
	err = WriteResult([]Spec{{Path: bad, Format: "json"}, {Path: good, Format: "markdown"}}, &out, &errb, doc)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "on stdout as JSON") {
		t.Errorf("error = %v; want it to name %s and say the result is on stdout", err, bad)
	}
	if _, err := os.Stat(good); err != nil {
		t.Errorf("the writable output was not written: %v", err)
	}
	back, err := report.ReadJSON(&out)
	if err != nil {
		t.Fatalf("stdout is not the JSON result: %v", err)
	}
	if len(back.Children) != len(doc.Children) {
		t.Errorf("stdout has %d children, want %d", len(back.Children), len(doc.Children))
	}
}

func TestTextAlias(t *testing.T) {
	for _, tt := range []struct {
		formats      []string
		format, want string
	}{
		{[]string{"text", "json"}, "table", "text"},
		{[]string{"table", "json"}, "text", "table"},
		{[]string{"table", "text"}, "text", "text"},
		{[]string{"json"}, "text", "text"},
		{[]string{"text", "json"}, "json", "json"},
	} {
		if got := TextAlias(tt.formats, tt.format); got != tt.want {
			t.Errorf("TextAlias(%v, %q) = %q, want %q", tt.formats, tt.format, got, tt.want)
		}
	}
	specs, err := ResolveFor([]string{"text", "json"}, "table", true, nil)
	if err != nil || len(specs) != 1 || specs[0].Format != "text" {
		t.Errorf("ResolveFor(text, json; --format table) = %v, %v; want text", specs, err)
	}
}
