package beats

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/internal/golden"
)

// TestFormatTextPoliciesGolden pins `compile --format text` for the
// embedded default policy and testdata policies. A compiler change that
// alters them shows up here; run with -update once the new output is
// checked.
func TestFormatTextPoliciesGolden(t *testing.T) {
	for _, spec := range []string{"default", filterstest.Policy("minimal.yaml"), filterstest.Policy("denylist.yaml"), filterstest.Policy("args-workload.yaml")} {
		name := strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
		t.Run(name, func(t *testing.T) {
			var data []byte // nil: the embedded default
			if spec != "default" {
				var err error
				if data, err = os.ReadFile(spec); err != nil {
					t.Fatal(err)
				}
			}
			src, err := LoadSource(spec, data)
			if err != nil {
				t.Fatalf("LoadSource(%s): %v", spec, err)
			}
			p := src.Filters[0]
			var b bytes.Buffer
			if err := filters.FormatText(&b, p); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "policy-"+name+".txt", b.Bytes())
		})
	}
}
