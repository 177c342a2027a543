package runner

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// MinimalELF returns a static x86_64 ELF executable of 129 bytes that only
// calls exit(0): an ELF header, one PT_LOAD program header and three
// instructions (mov eax, 60; xor edi, edi; syscall). The exec workloads run
// it so that an op measures fork+execve+exit+wait4 and nothing else.
// Layout: include/uapi/linux/elf.h (Elf64_Ehdr, Elf64_Phdr).
func MinimalELF() []byte {
	const (
		base    = 0x400000
		ehsize  = 64
		phsize  = 56
		codeOff = ehsize + phsize
	)
	code := []byte{0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05}
	size := uint64(codeOff + len(code))
	le := binary.LittleEndian
	b := make([]byte, 0, size)
	b = append(b, 0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* little endian */, 1 /* version */, 0 /* SYSV ABI */)
	b = append(b, make([]byte, 8)...)
	b = le.AppendUint16(b, 2)    // e_type ET_EXEC
	b = le.AppendUint16(b, 0x3e) // e_machine EM_X86_64
	b = le.AppendUint32(b, 1)    // e_version
	b = le.AppendUint64(b, base+codeOff)
	b = le.AppendUint64(b, ehsize) // e_phoff
	b = le.AppendUint64(b, 0)      // e_shoff
	b = le.AppendUint32(b, 0)      // e_flags
	b = le.AppendUint16(b, ehsize)
	b = le.AppendUint16(b, phsize)
	b = le.AppendUint16(b, 1) // e_phnum
	b = le.AppendUint16(b, 0) // e_shentsize
	b = le.AppendUint16(b, 0) // e_shnum
	b = le.AppendUint16(b, 0) // e_shstrndx
	b = le.AppendUint32(b, 1) // p_type PT_LOAD
	b = le.AppendUint32(b, 5) // p_flags PF_R|PF_X
	b = le.AppendUint64(b, 0) // p_offset
	b = le.AppendUint64(b, base)
	b = le.AppendUint64(b, base)
	b = le.AppendUint64(b, size) // p_filesz
	b = le.AppendUint64(b, size) // p_memsz
	b = le.AppendUint64(b, 0x1000)
	return append(b, code...)
}

// execFixture is the temporary directory tree of the exec workloads: K
// directories, the program only in the last one.
type execFixture struct {
	root  string
	paths []string // candidate paths in search order; only the last exists
}

// newExecFixture writes MinimalELF into the last of k directories under a
// new temporary directory named with this process's PID
// (CleanStaleExecFixtures). Close removes it all.
func newExecFixture(k int) (*execFixture, error) {
	if k < 1 {
		return nil, fmt.Errorf("exec fixture: need at least one directory, got %d", k)
	}
	root, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", execFixturePrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("exec fixture: %w", err)
	}
	f := &execFixture{root: root}
	for i := 0; i < k; i++ {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			f.Close()
			return nil, fmt.Errorf("exec fixture: %w", err)
		}
		f.paths = append(f.paths, filepath.Join(dir, "exit0"))
	}
	if err := os.WriteFile(f.paths[k-1], MinimalELF(), 0o755); err != nil {
		f.Close()
		return nil, fmt.Errorf("exec fixture: %w", err)
	}
	return f, nil
}

// Close removes the fixture's files.
func (f *execFixture) Close() error { return os.RemoveAll(f.root) }
