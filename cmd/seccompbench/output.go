package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/seccompbench/seccompbench/report"
)

// runFormats are the output formats of `run`.
var runFormats = []string{"table", "json", "markdown", "csv", "benchstat", "svg", "png"}

// formatByExt maps file extensions to output formats for -o.
var formatByExt = map[string]string{
	".txt": "table", ".json": "json", ".md": "markdown", ".markdown": "markdown",
	".csv": "csv", ".bench": "benchstat", ".benchstat": "benchstat", ".svg": "svg", ".png": "png",
}

// outputSpec is one rendering of the result: a format and a file ("" for
// stdout).
type outputSpec struct {
	Path   string
	Format string
}

// resolveOutputs decides what to write. Without -o the result goes to
// stdout in --format (png is refused: binary on a terminal). With one -o,
// an explicit --format wins, else the file's extension decides (unknown
// extensions fall back to --format). With several -o each file's
// extension decides; an explicit --format covers files whose extension is
// unknown, and without it such a file is a usage error.
func resolveOutputs(format string, formatSet bool, paths []string) ([]outputSpec, error) {
	if !slices.Contains(runFormats, format) {
		return nil, flagErrorf("--format: %q is not one of %s", format, strings.Join(runFormats, ", "))
	}
	if len(paths) == 0 {
		if format == "png" {
			return nil, flagErrorf("--format png writes binary data: give a file with -o plot.png")
		}
		return []outputSpec{{Format: format}}, nil
	}
	var out []outputSpec
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			return nil, flagErrorf("-o: empty file name")
		}
		if seen[filepath.Clean(p)] {
			return nil, flagErrorf("-o: %s given twice", p)
		}
		seen[filepath.Clean(p)] = true
		f, known := formatByExt[strings.ToLower(filepath.Ext(p))]
		switch {
		case len(paths) == 1 && formatSet:
			f = format
		case !known && (formatSet || len(paths) == 1):
			f = format
		case !known:
			return nil, flagErrorf("-o %s: cannot tell the format from the extension; use one of .txt .json .md .csv .bench .svg .png, or --format", p)
		}
		out = append(out, outputSpec{Path: p, Format: f})
	}
	return out, nil
}

// renderResult writes doc to w in format. Machine formats (csv, benchstat,
// svg, png) send their notes and the result's warnings to warn; table,
// markdown and json carry warnings inside.
func renderResult(format string, w, warn io.Writer, doc *report.Document) error {
	switch format {
	case "table":
		return report.WriteTable(w, doc)
	case "json":
		return report.WriteJSON(w, doc)
	case "markdown":
		return report.WriteMarkdown(w, doc)
	case "csv":
		return report.WriteCSV(w, warn, doc)
	case "benchstat":
		return report.WriteBenchstat(w, warn, doc)
	case "svg":
		return report.WriteSVG(w, warn, doc)
	case "png":
		return report.WritePNG(w, warn, doc)
	}
	return fmt.Errorf("render result: unknown format %q", format)
}

// onceLineWriter passes each distinct line through once, so warnings that
// several renderers report reach the user once.
type onceLineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]bool
	buf  []byte
}

func newOnceLineWriter(w io.Writer) *onceLineWriter {
	return &onceLineWriter{w: w, seen: map[string]bool{}}
}

func (o *onceLineWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(o.buf[:i+1])
		o.buf = o.buf[i+1:]
		if o.seen[line] {
			continue
		}
		o.seen[line] = true
		if _, err := io.WriteString(o.w, line); err != nil {
			return len(p), err
		}
	}
}

// writeOutputs renders doc into every output: stdout directly, files
// atomically (writeFileAtomic), announcing each file on errOut.
func writeOutputs(outs []outputSpec, stdout, errOut io.Writer, doc *report.Document) error {
	warn := newOnceLineWriter(errOut)
	for _, o := range outs {
		render := func(w io.Writer) error { return renderResult(o.Format, w, warn, doc) }
		if o.Path == "" {
			if err := render(stdout); err != nil {
				return err
			}
			continue
		}
		if err := writeFileAtomic(o.Path, render); err != nil {
			return err
		}
		fmt.Fprintf(errOut, "wrote %s (%s)\n", o.Path, o.Format)
	}
	return nil
}
