package runner

import "github.com/seccompbench/seccompbench/filters"

// probeArches maps a kernelProbe's ABI to the filters ABI the emulator
// predicts with; probeABIs are the ABIs makeProbes always probes (i386 is
// added when INT $0x80 works: i386Works).
var (
	probeArches = [...]*filters.Arch{probeX86_64: filters.ArchX86_64, probeI386: filters.ArchI386, probeX32: filters.ArchX32}
	probeABIs   = []int{probeX86_64, probeX32}
)

// nativeArch is the ABI this test binary's syscalls use.
var nativeArch = filters.ArchX86_64
