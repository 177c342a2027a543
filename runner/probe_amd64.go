package runner

// probeSled returns size bytes (a multiple of 32, at least 32) of x86-64
// code for the probe: per 32 bytes, ten `add eax, 1` (83 C0 01) and a
// taken `jmp +0` (EB 00), so the run through it fills instruction cache
// lines and branch-target entries; the last byte is `ret` (C3). It
// clobbers AX and the flags only (loop.Probe calls it).
func probeSled(size int) ([]byte, error) {
	size = max(size/32*32, 32)
	b := make([]byte, size)
	for off := 0; off < size; off += 32 {
		for i := range 10 {
			copy(b[off+3*i:], []byte{0x83, 0xC0, 0x01})
		}
		b[off+30], b[off+31] = 0xEB, 0x00
	}
	b[size-2], b[size-1] = 0x90, 0xC3 // the last jmp becomes nop; ret
	return b, nil
}
