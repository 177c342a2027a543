package minijail

import (
	"errors"
	"testing"
)

// FuzzLoad checks that Load never panics on a policy (includes refused),
// read by every toolchain and for the ABIs file names choose, and that
// every compiled program is non-empty.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("read: 1\nopenat: arg2 in O_RDONLY|O_CLOEXEC; return EACCES\n"))
	f.Add([]byte("tgkill: arg2 == SIGABRT\nmmap: arg2 in ~(PROT_EXEC|(PROT_WRITE))\nread: 1\nread: 1\n"))
	f.Add([]byte("getuid32: 1\n_llseek: arg2 == 0xffffffff\n"))
	f.Add([]byte("ioctl: arg1 == FIONBIO\nioctl: arg1 == 0x1277; return EPERM\nread: arg0 == 0\nread: 1\n"))
	f.Add([]byte("ARM_set_tls: 1\nARM_cacheflush: 1\nmmap2: arg2 in ~PROT_EXEC\n"))
	f.Add([]byte("riscv_flush_icache: 1\nclone: arg0 & CLONE_THREAD\n"))
	noFiles := func(string) ([]byte, error) { return nil, errors.New("no includes while fuzzing") }
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tc := range []Toolchain{ToolchainC, ToolchainAndroid, ToolchainPython} {
			// The same text as an x86_64, i386, arm and riscv64 policy:
			// each ABI's names, words and constants.
			for _, name := range []string{"fuzz.policy", "fuzz-x86.policy", "fuzz-arm.policy", "fuzz-riscv64.policy"} {
				progs, _, err := Load(name, data, Options{ReadFile: noFiles, Toolchain: tc})
				if err != nil {
					continue
				}
				if len(progs) != 1 || len(progs[0].Insns) == 0 {
					t.Fatalf("%s as %s: programs %v", name, tc, progs)
				}
			}
		}
	})
}
