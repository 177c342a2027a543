package runner

import (
	"context"
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

func TestZZCalib(t *testing.T) {
	if os.Getenv("ZZCALIB") == "" {
		t.Skip()
	}
	for _, f := range []struct {
		path string
		k    int
	}{{"/tmp/def.bpf", 32}, {"/tmp/dd.bpf", 16}, {"/tmp/dd.bpf", 1}} {
		b, _ := os.ReadFile(f.path)
		p, err := filters.ParseRaw(f.path, b)
		if err != nil {
			t.Fatal(err)
		}
		stack := make([][]byte, f.k)
		for i := range stack {
			stack[i] = b
		}
		m, err := MeasureJITCharge(context.Background(), stack, int64(f.k*(p.EBPFLen()*6+100)))
		t.Logf("%s x%d: classic %d ebpf %d: %+v per filter %.1f err %v", f.path, f.k, p.Len(), p.EBPFLen(), m, m.PerFilter(), err)
	}
}
