package kstack

import "testing"

// FuzzParseKallsyms: no text panics the parser; a parsed table has its
// text bounds in order and answers lookups anywhere.
func FuzzParseKallsyms(f *testing.F) {
	f.Add([]byte("ffffffff81000000 T _stext\nffffffff81100000 T do_syscall_64\nffffffff81200000 t __seccomp_filter\nffffffff82000000 T _etext\n"))
	f.Add([]byte("ffffffffc0a01000 t foo\t[mod]\nffffffff81000000 T _text\nffffffff81000010 D data\nffffffff82000000 T _etext\n"))
	f.Add([]byte("0000000000000000 T _stext\n0000000000000000 T _etext\n"))
	f.Add([]byte("zz T x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseKallsyms(data)
		if err != nil {
			return
		}
		if s.TextStart > s.TextEnd {
			t.Fatalf("text %#x..%#x out of order", s.TextStart, s.TextEnd)
		}
		for _, a := range []uint64{0, s.TextStart, s.TextEnd, s.TextEnd + 1, ^uint64(0)} {
			if sym, ok := s.Lookup(a); ok && sym.Name == "" {
				t.Fatalf("lookup %#x gives a nameless symbol", a)
			}
		}
	})
}
