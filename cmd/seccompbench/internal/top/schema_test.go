package top

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/seccompbench/seccompbench/internal/jsoncontract"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
)

// TestWindowMatchesSchema: the document a Watcher builds, here from a fake
// sampler's stream (the real one needs CAP_PERFMON, CAP_BPF and Linux
// 5.15), written by the writer top --format json uses, is valid against
// docs/schema/top.schema.json. The command tests cannot run top on every
// machine, so this is where the top schema meets a real output.
func TestWindowMatchesSchema(t *testing.T) {
	v, err := jsoncontract.NewValidator(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts func(*Options)
	}{
		{"predicted", func(*Options) {}},
		{"dump refused", func(o *Options) {
			o.Dump = func(int) ([][]byte, error) { return nil, fs.ErrPermission }
		}},
		{"status unreadable", func(o *Options) {
			o.Status = func(int) (result.ProcStatus, error) { return result.ProcStatus{}, fs.ErrNotExist }
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, _ := fakeOptions(t)
			tt.opts(o)
			top := window5s(t, o)
			var b bytes.Buffer
			if err := report.WriteTopJSON(&b, top); err != nil {
				t.Fatal(err)
			}
			k, err := v.Validate(b.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, b.Bytes())
			}
			if k != document.KindTop {
				t.Errorf("kind %q, want %q", k, document.KindTop)
			}
			sentences, err := jsoncontract.Sentences(k, b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sentences {
				t.Errorf("sentence outside the keys docs/json.md allows: %.160s", s)
			}
		})
	}
}
