package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
)

// docCommandLines returns every "seccompbench ..." command line inside a
// fenced block of the Markdown file (with or without a "$ " prompt), cut at
// the first pipe, redirection or command separator, as file:line -> args.
// A ```text block is output a command printed, never a command line.
func docCommandLines(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	inBlock, output := false, false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			output = inBlock && strings.TrimPrefix(line, "```") == "text"
			continue
		}
		line = strings.TrimPrefix(line, "$ ")
		if !inBlock || output || !strings.HasPrefix(line, "seccompbench ") {
			continue
		}
		for _, sep := range []string{"|", ">", "&&", ";", "#"} {
			if i := strings.Index(line, sep); i >= 0 {
				line = line[:i]
			}
		}
		out[filepath.Base(path)+":"+strconv.Itoa(n)] = strings.Fields(line)[1:]
	}
	return out
}

// TestDocExamples parses every command line shown in docs/*.md, in
// docs/validation/*.md and in the commands' Example texts: the command exists, its flags parse and its
// arguments validate; run and compare go through their full RunE checks
// (with a runF that does nothing). Documentation that drifts from the CLI
// fails here.
func TestDocExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs found: %v", err)
	}
	validation, err := filepath.Glob(filepath.Join("..", "..", "docs", "validation", "*.md"))
	if err != nil || len(validation) == 0 {
		t.Fatalf("no docs/validation pages found: %v", err)
	}
	files = append(files, validation...)
	lines := map[string][]string{}
	for _, f := range files {
		for k, v := range docCommandLines(t, f) {
			lines[k] = v
		}
	}
	ios, _, _, _ := cmdutil.TestIOStreams()
	f := &cmdutil.Factory{IO: ios}
	root := NewCmdRoot(f)
	for _, c := range root.Commands() {
		for i, ex := range strings.Split(c.Example, "\n") {
			if ex = strings.TrimSpace(ex); strings.HasPrefix(ex, "seccompbench ") {
				for _, sep := range []string{"|", ">"} {
					if j := strings.Index(ex, sep); j >= 0 {
						ex = ex[:j]
					}
				}
				lines["Example of "+c.Name()+":"+strconv.Itoa(i+1)] = strings.Fields(ex)[1:]
			}
		}
	}
	if len(lines) < 20 {
		t.Fatalf("found only %d command lines in docs; the scanner is broken", len(lines))
	}
	for where, args := range lines {
		t.Run(where, func(t *testing.T) {
			if len(args) > 0 && args[0] == "__complete" {
				return // cobra's hidden completion entry point, added at Execute
			}
			var cmd *cobra.Command
			switch {
			case len(args) > 0 && args[0] == "run":
				cmd = NewCmdRun(f, func(*RunOptions) error { return nil })
			case len(args) > 0 && args[0] == "compare":
				cmd = NewCmdCompare(f, func(*CompareOptions) error { return nil })
			}
			if cmd != nil {
				// Under a root of its own, for the global flags (-q).
				top := &cobra.Command{Use: "seccompbench", SilenceErrors: true, SilenceUsage: true}
				cmdutil.AddQuietFlag(top, f.IO)
				top.AddCommand(cmd)
				top.SetArgs(args)
				top.SetOut(&bytes.Buffer{})
				top.SetErr(&bytes.Buffer{})
				if err := top.Execute(); err != nil {
					t.Errorf("seccompbench %s: %v", strings.Join(args, " "), err)
				}
				return
			}
			root := NewCmdRoot(f)
			root.InitDefaultCompletionCmd()
			c, rest, err := root.Find(args)
			if err != nil {
				t.Fatalf("seccompbench %s: %v", strings.Join(args, " "), err)
			}
			c.InitDefaultHelpFlag()
			c.InitDefaultVersionFlag()
			if err := c.ParseFlags(rest); err != nil {
				t.Fatalf("seccompbench %s: %v", strings.Join(args, " "), err)
			}
			if c.Args != nil {
				if err := c.Args(c, c.Flags().Args()); err != nil {
					t.Errorf("seccompbench %s: %v", strings.Join(args, " "), err)
				}
			}
		})
	}
}

// maxUserPageLines is the longest a user page of docs/*.md may be, in
// lines. Validation campaigns, dated measurement sessions, model history
// and one-off investigations belong in docs/validation/, one file each,
// with one line on the user page linking to it.
const maxUserPageLines = 500

// TestUserPageLength fails when a user page in docs/*.md is longer than
// maxUserPageLines. There are no exceptions: a page that grows past it is
// split by topic (commands.md into commands-measure.md and
// commands-policy.md, methodology.md into methodology-*.md) or sheds its
// validation to docs/validation/.
func TestUserPageLength(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs found: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := bytes.Count(data, []byte("\n"))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				got++
			}
			if got > maxUserPageLines {
				t.Errorf("docs/%s has %d lines, more than %d: move validation campaigns, dated measurements and investigations to docs/validation/ and link them, or split the page by topic", name, got, maxUserPageLines)
			}
		})
	}
}
