package runner

// elfMachine is e_machine EM_AARCH64 (include/uapi/linux/elf-em.h).
const elfMachine = 0xb7

// elfExitCode is MinimalELF's code, three little-endian A64 instructions:
// movz x8, #93 (exit, include/uapi/asm-generic/unistd.h); movz x0, #0;
// svc #0. MinimalELF puts it at offset 120, which keeps it 4-byte aligned
// as A64 requires.
var elfExitCode = []byte{
	0xa8, 0x0b, 0x80, 0xd2, // movz x8, #93
	0x00, 0x00, 0x80, 0xd2, // movz x0, #0
	0x01, 0x00, 0x00, 0xd4, // svc #0
}
