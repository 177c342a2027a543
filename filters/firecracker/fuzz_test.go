package firecracker

import "testing"

// FuzzLoad checks that Load never panics, that Detect accepts what Load
// compiles, and that every compiled program is named after a thread.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"t": {"default_action": "trap", "filter_action": "allow", "filter": [{"syscall": "read"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		progs, _, err := Load("fuzz.json", data, Options{})
		if err != nil {
			return
		}
		if !Detect(data) {
			t.Errorf("Detect = false for a file Load compiles")
		}
		for _, p := range progs {
			if len(p.Insns) == 0 {
				t.Fatalf("empty program %q", p.Name)
			}
		}
	})
}
