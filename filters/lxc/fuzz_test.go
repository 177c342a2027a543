package lxc

import "testing"

// FuzzLoad checks that Load never panics, that Detect accepts what Load
// compiles, and that errors and programs come one at a time.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("2\ndenylist\n[all]\nmount errno 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		progs, _, err := Load("fuzz.seccomp", data, Options{})
		if err != nil {
			if progs != nil {
				t.Fatal("programs with an error")
			}
			return
		}
		if !Detect(data) {
			t.Errorf("Detect = false for a policy Load compiles")
		}
		if len(progs) != 1 || len(progs[0].Insns) == 0 {
			t.Fatalf("programs %v", progs)
		}
	})
}
