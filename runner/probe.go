package runner

import (
	"fmt"
	"math/rand/v2"

	"golang.org/x/sys/unix"
)

// probeLine is the cache line size the probe's data walk steps by, in
// bytes (64 on the x86-64 and arm64 cores this project measures).
const probeLine = 64

// probeChase returns the probe's data working set of kib KiB as an index
// cycle: the first word of every 64-byte line holds the index, in words,
// of the next line's first word, the lines in one random cycle (a fixed
// seed: every child walks the same order). Walking it reads every line
// once, each load waiting for the previous one. steps is the number of
// lines (0 for kib 0, with a one-word buffer so the loop has an address).
func probeChase(kib int) (chase []uint64, steps uint64) {
	lines := kib * 1024 / probeLine
	if lines == 0 {
		return make([]uint64, 1), 0
	}
	const words = probeLine / 8
	chase = make([]uint64, lines*words)
	order := rand.New(rand.NewPCG(1, 2)).Perm(lines)
	for i, l := range order {
		next := order[(i+1)%lines]
		chase[l*words] = uint64(next * words)
	}
	return chase, uint64(lines)
}

// probeCode maps kib KiB of the probe's code working set, executable, and
// returns its address and the mapping (to keep): probeSled's bytes. It
// returns address 0 for kib 0, and an error where no sled is written
// (probeSled) or the mapping fails.
func probeCode(kib int) (uintptr, []byte, error) {
	if kib == 0 {
		return 0, nil, nil
	}
	sled, err := probeSled(kib * 1024)
	if err != nil {
		return 0, nil, err
	}
	mem, err := unix.Mmap(-1, 0, len(sled), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0, nil, fmt.Errorf("probe code working set: mmap %d bytes: %w", len(sled), err)
	}
	copy(mem, sled)
	if err := unix.Mprotect(mem, unix.PROT_READ|unix.PROT_EXEC); err != nil {
		unix.Munmap(mem)
		return 0, nil, fmt.Errorf("probe code working set: mprotect PROT_EXEC: %w", err)
	}
	return addrOf(mem), mem, nil
}
