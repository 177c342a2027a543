package formats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

// TestLeadingBOM loads every text policy of testdata/policies with a
// UTF-8 byte order mark put in front: the formats whose own toolchain
// skips one (YAML parsers, systemd) give the same filters as without it;
// the others are refused at 1:1 with an error naming the mark (ErrBOM),
// not a parse error about the first character.
func TestLeadingBOM(t *testing.T) {
	accepts := map[Format]bool{Policy: true, Kubernetes: true, SystemdUnit: true}
	files := []string{"default.yaml", "default.json", "docker-default.json", "firecracker-vmm.json", "hardened.service",
		"k8s-profiles.yaml", "lxc.seccomp", "snap-default.src", "chrome-renderer.policy"}
	seen := map[Format]bool{}
	for _, f := range files {
		path := filepath.Join(filterstest.PoliciesDir, f)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		format := DetectFormat(path, data)
		seen[format] = true
		o := OpenOptions{Thread: "vmm"}
		if format == Kubernetes {
			o.ProfileName = "checkout-api"
		}
		want, err := LoadData(path, data, o)
		if err != nil {
			t.Fatalf("%s without a mark: %v", f, err)
		}
		got, err := LoadData(path, append([]byte("\xef\xbb\xbf"), data...), o)
		if !accepts[format] {
			var se *filters.SourceError
			if !errors.Is(err, ErrBOM) || !errors.As(err, &se) || se.Line != 1 || se.Col != 1 || !strings.Contains(err.Error(), "byte order mark") {
				t.Errorf("%s (%s) with a BOM: error %v; want ErrBOM at 1:1 naming the mark", f, format, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (%s) with a BOM: %v; want it read as without", f, format, err)
			continue
		}
		if len(got.Filters) != len(want.Filters) {
			t.Fatalf("%s with a BOM: %d filters, want %d", f, len(got.Filters), len(want.Filters))
		}
		for i := range want.Filters {
			if got.Filters[i].SHA256() != want.Filters[i].SHA256() {
				t.Errorf("%s with a BOM: filter %d differs from the one without", f, i)
			}
		}
	}
	for _, f := range []Format{Policy, OCI, SystemdUnit, Firecracker, LXC, Snapd, Minijail} {
		if !seen[f] {
			t.Errorf("no test file of format %s", f)
		}
	}
}
