package jitmem

import "testing"

// FuzzParseVmallocinfo: no text panics the parser, and the sums it
// returns are never negative.
func FuzzParseVmallocinfo(f *testing.F) {
	f.Add([]byte("0x0000000000000000-0x0000000000000000 2101248 bpf_prog_pack_alloc+0x1b/0x40 pages=512 vmalloc N0=512\n"))
	f.Add([]byte("0xffffc90000000000-0xffffc90000003000   12288 bpf_jit_alloc_exec+0x10/0x20 pages=2 vmalloc\n0xffffc90000004000-0xffffc90000006000 8192 other+0x1 pages=1 vmalloc\n"))
	f.Add([]byte("0x0-0x0 notanumber bpf_prog_pack_alloc+0x1b/0x40\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseVmallocinfo(data)
		if err != nil {
			return
		}
		if v.Packs < 0 || v.PackBytes < 0 || v.Images < 0 {
			t.Fatalf("negative sums %+v", v)
		}
	})
}
