// Package results reads the result documents that report takes: files,
// standard input, directories, and streams of concatenated documents such
// as `kubectl logs` collects from deploy/'s pods.
package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report/document"
)

// Input is one result document and the name report shows for it.
type Input struct {
	Name string
	Data []byte
}

// Read reads the results report's arguments name: a file
// holding one result (run -o) or several concatenated (what `kubectl
// logs` collects from the pods of deploy/'s Job or DaemonSet), "-" for
// standard input, or a directory whose regular files are read so (not
// recursively, in name order). Text between documents that is not JSON,
// such as a pod's warnings on stderr, is skipped with a warning on errOut.
func Read(paths []string, in io.Reader, errOut io.Writer) ([]Input, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if p == "-" || err != nil || !st.IsDir() {
			files = append(files, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		var names []string
		for _, e := range ents {
			if e.Type().IsRegular() {
				names = append(names, filepath.Join(p, e.Name()))
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("read results: directory %s holds no files", p)
		}
		sort.Strings(names)
		files = append(files, names...)
	}
	shown := DisplayNames(files)
	var out []Input
	for i, path := range files {
		var data []byte
		var err error
		if path == "-" {
			shown[i] = "stdin"
			data, err = formats.ReadFrom("standard input", in)
		} else {
			data, err = formats.ReadInput(path)
		}
		if err != nil && path == "-" {
			return nil, err // "read standard input: …" says it
		}
		if err != nil {
			return nil, fmt.Errorf("read result: %w", err)
		}
		docs, skipped, err := SplitDocuments(data)
		if err != nil {
			return nil, fmt.Errorf("read result %s: %w", path, err)
		}
		if skipped > 0 {
			fmt.Fprintf(errOut, "warning: %s: skipped %d lines that are not JSON between the results\n", shown[i], skipped)
		}
		for j, d := range docs {
			name := shown[i]
			if len(docs) > 1 {
				name = fmt.Sprintf("%s:%d", shown[i], j+1)
			}
			out = append(out, Input{Name: name, Data: d})
		}
	}
	return out, nil
}

// SplitDocuments returns the JSON objects data holds one after another
// (whitespace between them), skipping the lines that start with anything
// else; skipped counts those lines. A line that starts with "{" but is no
// JSON object is an error at its line. No object at all is an error.
func SplitDocuments(data []byte) (docs [][]byte, skipped int, err error) {
	pos := 0
	for {
		for pos < len(data) && (data[pos] == ' ' || data[pos] == '\t' || data[pos] == '\r' || data[pos] == '\n') {
			pos++
		}
		if pos >= len(data) {
			break
		}
		if data[pos] != '{' {
			skipped++
			nl := bytes.IndexByte(data[pos:], '\n')
			if nl < 0 {
				break
			}
			pos += nl + 1
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(data[pos:]))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			line, _ := filters.LineCol(data, pos)
			return nil, skipped, fmt.Errorf("line %d: decode result: %w", line, err)
		}
		docs = append(docs, raw)
		pos += int(dec.InputOffset())
	}
	if len(docs) == 0 {
		return nil, skipped, fmt.Errorf("no result: %w", document.ErrNoResults)
	}
	return docs, skipped, nil
}

// DisplayNames are the files' base names, or their full paths when two
// base names are equal (host1/result.json, host2/result.json).
func DisplayNames(paths []string) []string {
	count := map[string]int{}
	for _, p := range paths {
		count[filepath.Base(p)]++
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
		if count[out[i]] > 1 {
			out[i] = p
		}
	}
	return out
}

// Expand returns the files named by args: an argument that exists
// is kept, any other is expanded as a glob; a glob matching nothing is a
// usage error.
func Expand(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if _, err := os.Lstat(a); err == nil || !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, cmdutil.FlagErrorf("report: bad glob %q: %v", a, err)
		}
		if len(m) == 0 {
			return nil, cmdutil.FlagErrorf("report: %q matches no file", a)
		}
		out = append(out, m...)
	}
	return out, nil
}
