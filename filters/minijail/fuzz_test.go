package minijail

import (
	"errors"
	"testing"
)

// FuzzLoad checks that Load never panics on a policy (includes refused)
// and that every compiled program is non-empty.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("read: 1\nopenat: arg2 in O_RDONLY|O_CLOEXEC; return EACCES\n"))
	f.Add([]byte("tgkill: arg2 == SIGABRT\nmmap: arg2 in ~(PROT_EXEC|(PROT_WRITE))\nread: 1\nread: 1\n"))
	f.Add([]byte("getuid32: 1\n_llseek: arg2 == 0xffffffff\n"))
	noFiles := func(string) ([]byte, error) { return nil, errors.New("no includes while fuzzing") }
	f.Fuzz(func(t *testing.T, data []byte) {
		progs, _, err := Load("fuzz.policy", data, Options{ReadFile: noFiles})
		if err != nil {
			// The same text as an i386 policy: 32-bit names and words.
			progs, _, err = Load("fuzz-x86.policy", data, Options{ReadFile: noFiles})
		}
		if err != nil {
			return
		}
		if len(progs) != 1 || len(progs[0].Insns) == 0 {
			t.Fatalf("programs %v", progs)
		}
	})
}
