//go:build ignore

// mkdocs regenerates the real outputs in the docs: it builds seccompbench,
// puts it first on PATH, reruns every "$ seccompbench ..." line of the
// ```console blocks in docs/*.md (from the repository root, through sh -c so
// pipes work) and replaces the block's output with what it printed
// (stdout and stderr), remakes docs/examples/ from one real run, and the man
// pages in docs/man.
//
// Usage, from the repository root:
//
//	go run docs/mkdocs.go               # examples, man pages, then console blocks
//	go run docs/mkdocs.go -examples=false
//	go run docs/mkdocs.go -examples=false -console=false   # man pages only
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// exampleRuns make docs/examples; each is run through sh -c from the
// repository root.
var exampleRuns = []string{
	"seccompbench run --trials 10 -q -o docs/examples/run.json -o docs/examples/run.md -o docs/examples/run.txt -o docs/examples/run.csv -o docs/examples/run.bench -o docs/examples/run.svg -o docs/examples/run.png",
	"seccompbench run testdata/policies/minimal.yaml --trials 10 -q -o docs/examples/minimal.json",
	"seccompbench run --workload getpid --trials 3 --filters 0,1,8 -q -o docs/examples/getpid.json",
	"cd docs/examples && seccompbench compare run.json minimal.json > compare.txt",
	"cd docs/examples && seccompbench compare --format markdown -o compare.md run.json minimal.json",
	"cd docs/examples && seccompbench compare --format json -o compare.json run.json minimal.json",
}

func main() {
	examples := flag.Bool("examples", true, "remake docs/examples from real runs")
	man := flag.Bool("man", true, "remake docs/man")
	console := flag.Bool("console", true, "rerun the console blocks of docs/*.md")
	flag.Parse()
	log.SetFlags(0)

	bin, err := os.MkdirTemp("", "mkdocs")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(bin)
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "seccompbench"), "./cmd/seccompbench")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		log.Fatalf("build: %v", err)
	}
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	if *examples {
		for _, c := range exampleRuns {
			log.Printf("$ %s", c)
			if out, err := sh(c); err != nil {
				log.Fatalf("%s: %v\n%s", c, err, out)
			}
		}
	}
	if *man {
		os.RemoveAll("docs/man")
		if out, err := sh("seccompbench man docs/man"); err != nil {
			log.Fatalf("man: %v\n%s", err, out)
		}
	}
	if !*console {
		return
	}
	files, _ := filepath.Glob("docs/*.md")
	for _, f := range files {
		if err := refresh(f); err != nil {
			log.Fatal(err)
		}
	}
}

// sh runs c with sh -c and returns stdout and stderr together. A non-zero
// exit is not an error for console blocks (lint exits 1 on findings), so
// only the examples check it.
func sh(c string) ([]byte, error) {
	cmd := exec.Command("sh", "-c", c)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.Bytes(), err
}

// refresh reruns the commands of every ```console block of path.
func refresh(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(src), "\n")
	var out strings.Builder
	changed := false
	for i := 0; i < len(lines); i++ {
		out.WriteString(lines[i])
		if strings.TrimSpace(lines[i]) != "```console" {
			continue
		}
		// Collect the block up to its closing fence.
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		if j == len(lines) {
			return fmt.Errorf("%s: unclosed console block at line %d", path, i+1)
		}
		var cmds []string
		for _, l := range lines[i+1 : j] {
			if c, ok := strings.CutPrefix(l, "$ "); ok {
				cmds = append(cmds, strings.TrimRight(c, "\n"))
			}
		}
		if len(cmds) == 0 {
			continue
		}
		for _, c := range cmds {
			log.Printf("%s: $ %s", path, c)
			o, _ := sh(c)
			out.WriteString("$ " + c + "\n")
			out.Write(o)
			if len(o) > 0 && o[len(o)-1] != '\n' {
				out.WriteString("\n")
			}
		}
		changed = true
		i = j - 1
	}
	if !changed {
		return nil
	}
	return os.WriteFile(path, []byte(out.String()), 0o644)
}
