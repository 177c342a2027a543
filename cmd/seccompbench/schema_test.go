package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/jsoncontract"
	"github.com/seccompbench/seccompbench/report/document"
)

// TestJSONOutputsMatchSchemas runs every command that writes JSON for real
// (in-process, a tiny run included) and validates each output against its
// checked-in schema in docs/schema: the document must say its kind, and
// its keys and types must be the schema's. Every kind is covered.
func TestJSONOutputsMatchSchemas(t *testing.T) {
	v, err := jsoncontract.NewValidator(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// budget reads the kernel's bpf_jit_limit sysctl (Linux 4.20,
	// CONFIG_BPF_JIT); with it readable, budget must succeed.
	_, limitErr := os.ReadFile("/proc/sys/net/core/bpf_jit_limit")
	budgetCodes := []int{0}
	if limitErr != nil {
		budgetCodes = []int{0, 1}
	}
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	tp := func(name string) string { return filepath.Join("..", "..", name) }
	// Each step: the command line, the exit codes it may give, and the
	// file it writes (stdout when "").
	steps := []struct {
		args  []string
		codes []int
		file  string
	}{
		{[]string{"run", "--filters", "0,1,2", "--trials", "2", "--iterations", "100", "--samples", "1", "--cache", "defeat", "--workload", "getpid", "-o", p("r.json")}, []int{0}, p("r.json")},
		{[]string{"run", "--filters", "0,1,2", "--trials", "2", "--iterations", "100", "--samples", "1", "--cache", "defeat", "--workload", "getpid", "--seed", "2", "--format", "json"}, []int{0}, ""},
		{[]string{"run", tp("testdata/policies/hardened.service"), "--filters", "0,1", "--trials", "2", "--iterations", "100", "--samples", "1", "--format", "json"}, []int{0}, ""},
		{[]string{"compare", p("r.json"), p("r.json"), "-o", p("c.json")}, []int{0}, p("c.json")},
		{[]string{"report", p("r.json"), "--format", "json"}, []int{0}, ""},
		{[]string{"estimate", "default", "--profile", tp("docs/validation-profile.csv"), "--calibration", p("r.json"), "--cache", "defeat", "-o", p("e.json")}, []int{0}, p("e.json")},
		{[]string{"simulate", "default", "--syscall", "getpid", "--format", "json"}, []int{0}, ""},
		{[]string{"simulate", "default", "--all", "-o", p("s.json")}, []int{0}, p("s.json")},
		{[]string{"simulate", tp("testdata/policies/firecracker-vmm.json"), "--syscall", "read", "--format", "json"}, []int{0}, ""},
		{[]string{"inspect", strconv.Itoa(os.Getpid()), "--format", "json"}, []int{0}, ""},
		{[]string{"compile", "default", "-o", p("compile.json")}, []int{0}, p("compile.json")},
		{[]string{"compile", "--systemd-stack", tp("testdata/policies/hardened.service"), "--format", "json", "--save", p("saved")}, []int{0}, ""},
		{[]string{"compile", "--systemd-stack", tp("testdata/policies/hardened.service"), "--save", p("saved2"), "-o", p("stack.txt")}, []int{0}, p("saved2/manifest.json")},
		{[]string{"lint", tp("testdata/policies/denylist.yaml"), "--format", "json"}, []int{3}, ""},
		{[]string{"lint", "default", "-o", p("lint.json")}, []int{0}, p("lint.json")},
		{[]string{"budget", "default", "--format", "json"}, budgetCodes, ""},
		{[]string{"budget", "default", "--systemd-unit", tp("testdata/policies/hardened.service"), "--format", "json"}, budgetCodes, ""},
		{[]string{"merge", "default", tp("testdata/policies/denylist.yaml"), "-o", p("merge.json")}, []int{0}, p("merge.json")},
		{[]string{"optimize", "default", "--format", "json"}, []int{0}, ""},
		{[]string{"equiv", "default", "default", "-o", p("equiv.json")}, []int{0}, p("equiv.json")},
		{[]string{"equiv", "default", tp("testdata/policies/denylist.yaml"), "--format", "json"}, []int{3}, ""},
		{[]string{"equiv", tp("testdata/policies/hardened.service"), tp("testdata/policies/timesyncd-like.service"), "--format", "json"}, []int{3}, ""},
		{[]string{"subset", tp("testdata/subset/pulled-keyctl.json"), "--baseline", "docker-default", "--format", "json", "--profile", tp("docs/validation-profile.csv")}, []int{3}, ""},
		{[]string{"subset", tp("testdata/subset/pulled-tight.json"), "--baseline", "docker-default", "-o", p("subset.json")}, []int{0}, p("subset.json")},
		{[]string{"intersect", "docker-default", tp("testdata/subset/pulled-keyctl.json"), "--format", "json", "--oci", p("i.json")}, []int{0}, ""},
	}
	seen := map[document.Kind]bool{}
	for _, st := range steps {
		name := strings.Join(st.args, " ")
		var out, errb bytes.Buffer
		code := run(st.args, strings.NewReader(""), &out, &errb)
		if !containsInt(st.codes, code) {
			t.Errorf("%s: exit %d, want one of %v; stderr:\n%s", name, code, st.codes, errb.String())
			continue
		}
		data := out.Bytes()
		if st.file != "" {
			if data, err = os.ReadFile(st.file); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
		}
		if code != 0 && len(data) == 0 {
			t.Logf("%s: exit %d and no output (%s); not validated", name, code, strings.TrimSpace(errb.String()))
			continue
		}
		k, err := v.Validate(data)
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, data)
			continue
		}
		seen[k] = true
		t.Logf("%s: valid %s document", name, k)
		noSentences(t, name, k, data)
	}
	for _, k := range document.Kinds {
		switch {
		case seen[k]:
		case k == document.KindBudget && limitErr != nil:
			t.Logf("budget not validated: no bpf_jit_limit on this kernel: %v", limitErr)
		case k == document.KindTop:
			// top needs CAP_PERFMON, CAP_BPF and a 5.15+ kernel: its
			// Watcher's real output, from a fake sampler, is validated by
			// internal/top's TestWindowMatchesSchema.
		default:
			t.Errorf("no command's output of kind %q was validated", k)
		}
	}
}

// noSentences fails t for every English sentence in data, a document of
// kind k written by the command name, outside the keys
// jsoncontract.Text allows (docs/json.md, "Codes, not sentences").
func noSentences(t *testing.T, name string, k document.Kind, data []byte) {
	t.Helper()
	got, err := jsoncontract.Sentences(k, data)
	if err != nil {
		t.Errorf("%s: %v", name, err)
	}
	for _, s := range got {
		t.Errorf("%s: sentence outside the keys docs/json.md allows: %.160s", name, s)
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
