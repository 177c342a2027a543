package jsoncontract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

// TestSentences: a sentence is reported under a key Text does not allow,
// with its path; allowed keys, warnings, codes and short names are not.
func TestSentences(t *testing.T) {
	doc := `{"schema_version": 2, "kind": "budget", "current_basis": "vmallocinfo upper bound: the fit is a lower bound",
		"stack_basis": "model", "policies": ["docker-default"], "notes": ["restored bpf_jit_limit 1 left lowered by a run"],
		"validation": {"cap_eff": "0000000000000000"}}`
	got, err := Sentences(document.KindBudget, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"current_basis: vmallocinfo upper bound: the fit is a lower bound"}
	if !slices.Equal(got, want) {
		t.Errorf("budget: got %q, want %q", got, want)
	}
	lint := `{"kind": "lint", "findings": [{"code": "arch-bypass", "message": "21 syscalls denied on x86_64 are allowed", "hint": "check seccomp_data.arch first and kill", "policy": "a policy file with spaces in it"}]}`
	got, err = Sentences(document.KindLint, []byte(lint))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"findings.[].policy: a policy file with spaces in it"}; !slices.Equal(got, want) {
		t.Errorf("lint: got %q, want %q", got, want)
	}
	run := `{"kind": "run", "environment": {"vulnerabilities": {"spectre_v2": "Mitigation: Retpolines; STIBP: disabled"}}, "results": [{"warnings": ["only 2 samples; need at least 3"]}], "meaning": [{"text": "each filter adds 3 ns per op"}]}`
	got, err = Sentences(document.KindRun, []byte(run))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"meaning.[].text: each filter adds 3 ns per op"}; !slices.Equal(got, want) {
		t.Errorf("run: got %q, want %q", got, want)
	}
	if _, err := Sentences(document.KindRun, []byte("{")); err == nil {
		t.Error("no error for a document that is not JSON")
	}
}

// TestTextKeysDescribed: every key Text allows is in its kind's schema
// (Generate fails otherwise) with the reason in its description, and so
// is every warnings array.
func TestTextKeysDescribed(t *testing.T) {
	for _, k := range document.Kinds {
		b, err := Generate(k)
		if err != nil {
			t.Fatal(err)
		}
		var tree map[string]any
		if err := json.Unmarshal(b, &tree); err != nil {
			t.Fatal(err)
		}
		defs, _ := tree["$defs"].(map[string]any)
		for path, why := range Text[k] {
			node, err := schemaNode(tree, defs, strings.Split(path, "."))
			if err != nil {
				t.Errorf("%s %s: %v", k, path, err)
				continue
			}
			if d, _ := node["description"].(string); !strings.Contains(d, why) {
				t.Errorf("%s %s: description %q lacks the reason %q", k, path, d, why)
			}
		}
		if props, _ := tree["properties"].(map[string]any); props["warnings"] != nil {
			w := props["warnings"].(map[string]any)
			if d, _ := w["description"].(string); !strings.Contains(d, whyWarnings) {
				t.Errorf("%s warnings: description %q lacks the reason", k, d)
			}
		}
	}
}

// TestTextKeysListed: docs/json.md's allow-list names every key Text
// allows, so the page and the tests cannot drift apart.
func TestTextKeysListed(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "Strings that stay text")
	if !ok {
		t.Fatal(`docs/json.md lacks the allow-list ("Strings that stay text")`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for k, keys := range Text {
		for path := range keys {
			if !strings.Contains(section, "`"+path+"`") {
				t.Errorf("docs/json.md's allow-list lacks %s's key `%s`", k, path)
			}
		}
	}
}
