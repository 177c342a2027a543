package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/internal/golden"
)

// TestCompileHashesUnchanged holds the bytes every compiler produces to the
// hashes recorded before the package split (issue 11): `compile --format
// raw` of every policy in testdata/policies, of "default" and of
// "docker-default", and the sha256 of every filter of each unit's modeled
// stack (`compile --systemd-stack --format json`). A refactor that changes
// one instruction of any of them fails here; an intended change of layout
// rewrites testdata/golden/compile-hashes.txt with -update and says why in
// its commit.
func TestCompileHashesUnchanged(t *testing.T) {
	var b bytes.Buffer
	compileRaw := func(label string, args ...string) {
		var out, errb bytes.Buffer
		code := run(append([]string{"compile", "--format", "raw"}, args...), strings.NewReader(""), &out, &errb)
		if code != 0 {
			fmt.Fprintf(&b, "%s exit %d\n", label, code)
			return
		}
		sum := sha256.Sum256(out.Bytes())
		fmt.Fprintf(&b, "%s %s %d\n", label, hex.EncodeToString(sum[:]), out.Len()/8)
	}
	paths, err := filepath.Glob("../../testdata/policies/*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var units []string
	for _, p := range paths {
		name := filepath.Base(p)
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			continue // minijail/: files the minijail sample includes
		}
		switch {
		case strings.HasSuffix(name, ".service"):
			units = append(units, p)
			continue
		case name == "firecracker-vmm.json":
			for _, th := range []string{"vmm", "api", "vcpu"} {
				compileRaw(name+"#"+th, p, "--thread", th)
			}
			continue
		case strings.HasSuffix(name, ".src"):
			// A snapd profile is a stack (deny, allow): each filter
			// as compile --save writes it.
			dir := t.TempDir()
			var out, errb bytes.Buffer
			if code := run([]string{"compile", p, "--save", dir}, strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("compile %s --save: exit %d: %s", p, code, errb.String())
			}
			for i := range 2 {
				data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("filter-%02d.bpf", i)))
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(data)
				fmt.Fprintf(&b, "%s[%d] %s %d\n", name, i, hex.EncodeToString(sum[:]), len(data)/8)
			}
			continue
		case name == "k8s-profiles.yaml":
			for _, prof := range []string{"go-runtime-base", "checkout-api"} {
				compileRaw(name+"#"+prof, p, "--profile-name", prof)
			}
			continue
		}
		compileRaw(name, p)
	}
	compileRaw("default", "default")
	compileRaw("docker-default", "docker-default")
	if scmp.LibseccompAvailable() {
		compileRaw("docker-default/libseccomp", "docker-default", "--compiler", "libseccomp")
		compileRaw("docker-default.json/libseccomp", "../../testdata/policies/docker-default.json", "--compiler", "libseccomp")
	}
	for _, u := range units {
		compilers := []string{"native"}
		if scmp.LibseccompAvailable() {
			compilers = append(compilers, "libseccomp")
		}
		for _, c := range compilers {
			var out, errb bytes.Buffer
			code := run([]string{"compile", "--systemd-stack", u, "--format", "json", "--compiler", c}, strings.NewReader(""), &out, &errb)
			if code != 0 {
				t.Fatalf("compile --systemd-stack %s: exit %d: %s", u, code, errb.String())
			}
			var doc struct {
				Filters []struct {
					Name         string `json:"name"`
					Instructions int    `json:"instructions"`
					SHA256       string `json:"sha256"`
				} `json:"filters"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("compile --systemd-stack %s json: %v", u, err)
			}
			for i, f := range doc.Filters {
				fmt.Fprintf(&b, "%s/%s[%d] %s %s %d\n", filepath.Base(u), c, i, f.Name, f.SHA256, f.Instructions)
			}
		}
	}
	name := "compile-hashes.txt"
	if scmp.LibseccompAvailable() {
		name = "compile-hashes-libseccomp.txt"
	}
	golden.Check(t, name, b.Bytes())
}
