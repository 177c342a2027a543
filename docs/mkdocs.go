//go:build ignore

// mkdocs regenerates what the docs show of seccompbench: it builds
// seccompbench, puts it first on PATH, and from the repository root
//
//   - reruns every "$ seccompbench ..." line of the ```console blocks of
//     README.md and docs/*.md (through sh -c, so pipes work) and replaces
//     the output under it with what it printed (stdout and stderr);
//   - remakes the examples in docs/examples that derive from the measured
//     ones (compare.*);
//   - writes the man pages in docs/man, one per command.
//
// Blocks marked "<!-- mkdocs: kernel -->" and the measured examples
// (run.*, minimal.json, getpid.json) take figures: they are rerun only
// with -run-examples, which should be run on a quiet machine. Blocks
// marked "<!-- mkdocs: manual -->" are never rerun. docs/README.md says
// what the drift test (internal/docgen) checks.
//
// Usage, from the repository root:
//
//	go run docs/mkdocs.go                 # man pages, derived examples, checked console blocks
//	go run docs/mkdocs.go -run-examples   # the same plus measured examples and kernel blocks (quiet machine)
//	go run docs/mkdocs.go -console=false  # man pages and derived examples only
//	go run docs/mkdocs.go -run-examples -n  # list what would run, run nothing
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"regexp"

	"github.com/seccompbench/seccompbench/internal/docgen"
)

func main() {
	measure := flag.Bool("run-examples", false, "also rerun what measures: the measured examples and the kernel console blocks (use a quiet machine)")
	man := flag.Bool("man", true, "remake docs/man")
	console := flag.Bool("console", true, "rerun the console blocks of README.md and docs/*.md")
	dry := flag.Bool("n", false, "print the commands that would run, run none")
	flag.Parse()
	log.SetFlags(0)
	if *dry {
		list(*measure, *man, *console)
		return
	}

	bin, err := os.MkdirTemp("", "mkdocs")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(bin)
	if err := docgen.Build(".", bin); err != nil {
		log.Fatal(err)
	}
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	for _, e := range docgen.Examples {
		if e.Kernel && !*measure {
			continue
		}
		log.Printf("$ %s", e.Cmd)
		if out, err := docgen.Shell("", e.Cmd); err != nil {
			log.Fatalf("%s: %v\n%s", e.Cmd, err, out)
		}
	}
	if *man {
		os.RemoveAll("docs/man")
		if out, err := docgen.Shell("", "seccompbench man docs/man"); err != nil {
			log.Fatalf("man: %v\n%s", err, out)
		}
	}
	if !*console {
		return
	}
	files, err := docgen.Sources(".")
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		if err := refresh(f, *measure); err != nil {
			log.Fatal(err)
		}
	}
}

// list prints what main would run with the same flags.
func list(measure, man, console bool) {
	for _, e := range docgen.Examples {
		if !e.Kernel || measure {
			fmt.Printf("docs/examples: $ %s\n", e.Cmd)
		}
	}
	if man {
		fmt.Println("docs/man: $ seccompbench man docs/man")
	}
	if !console {
		return
	}
	files, err := docgen.Sources(".")
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		blocks, err := docgen.ParseFile(f, f)
		if err != nil {
			log.Fatal(err)
		}
		for _, b := range blocks {
			if b.Mode == docgen.Manual || (b.Mode == docgen.Kernel && !measure) {
				continue
			}
			for _, c := range b.Commands {
				fmt.Printf("%s:%d (%s): $ %s\n", f, b.Line, b.Mode, c.Line)
			}
		}
	}
}

// trailingBlanks are the blanks at the ends of lines, which Markdown does
// not show (tabwriter pads the last column).
var trailingBlanks = regexp.MustCompile(`(?m)[ \t]+$`)

// refresh reruns the console blocks of path that are checked, and the
// kernel ones when measure is set.
func refresh(path string, measure bool) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rerun := func(b docgen.Block) bool {
		return b.Mode == docgen.Checked || (measure && b.Mode == docgen.Kernel)
	}
	out, err := docgen.Rewrite(path, string(src), rerun, func(c string) (string, error) {
		log.Printf("%s: $ %s", path, c)
		// A non-zero exit is part of what a block shows (lint exits 3 on
		// findings), not an error.
		o, _ := docgen.Shell("", c)
		return trailingBlanks.ReplaceAllString(string(o), ""), nil
	})
	if err != nil {
		return err
	}
	if bytes.Equal([]byte(out), src) {
		return nil
	}
	return os.WriteFile(path, []byte(out), 0o644)
}
