package filters

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"

	"golang.org/x/net/bpf"
)

// ErrBadRaw is returned (wrapped in a *SourceError) when a raw BPF file is
// not an array of struct sock_filter or is not a filter the kernel would
// attach.
var ErrBadRaw = errors.New("invalid raw BPF filter")

// ParseRaw reads a compiled filter: an array of struct sock_filter
// {u16 code; u8 jt; u8 jf; u32 k}, 8 bytes each, little-endian (the native
// order of x86_64; what bubblewrap --seccomp reads and libseccomp's
// seccomp_export_bpf writes, and what Program.Bytes produces). The program
// is checked with Validate against the rules the kernel applies on attach
// (kernel/seccomp.c: seccomp_prepare_filter, seccomp_check_filter;
// net/core/filter.c: bpf_check_classic).
//
// Errors are *SourceError values wrapping ErrBadRaw: a size that is not a
// multiple of 8 bytes (the error gives the size and the stray bytes), an
// empty file, or a validation failure, whose *ValidationError (with the
// offending instruction index, also given as a byte offset in the message)
// stays reachable through errors.As.
func ParseRaw(name string, data []byte) (*Program, error) {
	if len(data) == 0 {
		return nil, &SourceError{File: name, Err: fmt.Errorf("%w: empty file; want struct sock_filter records of %d bytes", ErrBadRaw, SockFilterSize)}
	}
	if r := len(data) % SockFilterSize; r != 0 {
		return nil, &SourceError{File: name, Err: fmt.Errorf("%w: size %d bytes is not a multiple of %d (sizeof(struct sock_filter)): %d stray bytes at the end",
			ErrBadRaw, len(data), SockFilterSize, r)}
	}
	insns := DecodeSockFilters(data, binary.LittleEndian)
	if err := Validate(insns); err != nil {
		e := &SourceError{File: name, Err: fmt.Errorf("%w: %w", ErrBadRaw, err)}
		var ve *ValidationError
		if errors.As(err, &ve) && ve.PC >= 0 {
			// A binary file has no lines: name the instruction and its
			// byte offset instead.
			e.Err = fmt.Errorf("%w: instruction %d (byte offset %d): %w", ErrBadRaw, ve.PC, ve.PC*SockFilterSize, err)
		}
		return nil, e
	}
	return SourceProgram(name, data, insns), nil
}

// DecodeSockFilters reads b as an array of struct sock_filter
// {u16 code; u8 jt; u8 jf; u32 k}, SockFilterSize bytes each, with code and
// k in the given byte order. The caller checks that len(b) is a multiple of
// SockFilterSize; a partial record at the end is ignored.
func DecodeSockFilters(b []byte, order binary.ByteOrder) []bpf.RawInstruction {
	insns := make([]bpf.RawInstruction, len(b)/SockFilterSize)
	for i := range insns {
		r := b[i*SockFilterSize:]
		insns[i] = bpf.RawInstruction{
			Op: order.Uint16(r[0:2]),
			Jt: r[2],
			Jf: r[3],
			K:  order.Uint32(r[4:8]),
		}
	}
	return insns
}

// LooksRaw reports whether data can only be a raw BPF filter: it is binary
// (has a NUL byte or is not valid UTF-8) and a non-zero multiple of
// SockFilterSize bytes long.
func LooksRaw(data []byte) bool {
	return len(data) > 0 && len(data)%SockFilterSize == 0 && IsBinary(data)
}

// IsBinary reports whether data is not text: it has a NUL byte or is not
// valid UTF-8. No text format (YAML, JSON, unit files) is binary.
func IsBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// LoadRaw is ParseRaw returning the shared loaded shape: one filter,
// format "raw-bpf".
func LoadRaw(name string, data []byte) (*Source, error) {
	p, err := ParseRaw(name, data)
	if err != nil {
		return nil, err
	}
	return &Source{Name: name, Format: "raw-bpf", Filters: []*Program{p}}, nil
}
