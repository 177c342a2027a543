package formats

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// Every format, detected or forced, refuses an input over
// filters.MaxInputSize before parsing it, from a file and from data.
func TestSizeLimitEveryFormat(t *testing.T) {
	big := func(head string, fill byte) []byte {
		b := bytes.Repeat([]byte{fill}, filters.MaxInputSize+1)
		copy(b, head)
		return b
	}
	inputs := map[Format][]byte{
		Policy:      big("seccomp:\n  default_action: allow\n#", '#'),
		OCI:         big(`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [`+"\n", ' '),
		SystemdUnit: big("[Service]\nSystemCallFilter=@system-service\n#", '#'),
		RawBPF:      big("", 0),
	}
	for _, r := range Table {
		data, ok := inputs[r.Format]
		if !ok {
			// The limit is checked before any parser runs, so any
			// content shows it; detection may pick another format.
			data = big("# "+string(r.Format)+"\n", '#')
		}
		path := filepath.Join(t.TempDir(), "big")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, o := range []OpenOptions{{}, {Format: r.Format}} {
			t.Run(string(r.Format)+"/forced="+string(o.Format), func(t *testing.T) {
				if _, err := Load(path, o); !errors.Is(err, filters.ErrInputTooLarge) {
					t.Errorf("Load: got %v, want ErrInputTooLarge", err)
				}
				if _, err := LoadData(path, data, o); !errors.Is(err, filters.ErrInputTooLarge) {
					t.Errorf("LoadData: got %v, want ErrInputTooLarge", err)
				}
			})
		}
	}
	// At the limit, the size is no reason to refuse.
	if err := filters.CheckSize("x", filters.MaxInputSize); err != nil {
		t.Errorf("CheckSize at the limit: %v", err)
	}
}
