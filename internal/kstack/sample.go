package kstack

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// Sample is one CPU sample of a thread.
type Sample struct {
	// Time is the sample's CLOCK_MONOTONIC time, in ns.
	Time uint64 `json:"t"`
	// Tgid and Tid are the thread group (process) and thread IDs.
	Tgid uint32 `json:"tgid"`
	Tid  uint32 `json:"tid"`
	// CPU is the CPU the sample was taken on.
	CPU uint32 `json:"cpu"`
	// Comm is the thread's comm (at most 15 bytes), "" if not recorded.
	Comm string `json:"comm,omitempty"`
	// User is set when the sample interrupted user mode.
	User bool `json:"user,omitempty"`
	// Nr is orig_ax of the thread's entry registers: the number of the
	// syscall it is in when the sample is in a syscall; -1 or a stale
	// value otherwise (an interrupt entry stores -1 or the vector's
	// complement).
	Nr int64 `json:"nr"`
	// AX is ax of the same registers: the syscall entry code sets it to
	// -ENOSYS (arch/x86/entry/entry_64.S) and the return value replaces
	// it when the syscall returns, so Nr >= 0 with AX == -ENOSYS means
	// the thread is inside a syscall.
	AX int64 `json:"ax"`
	// Stack is the kernel callchain, innermost first; empty for user
	// samples and when the kernel could not take it.
	Stack Addrs `json:"stack,omitempty"`
}

// enosys is -ENOSYS (include/uapi/asm-generic/errno.h: ENOSYS 38).
const enosys = -38

// InSyscall reports whether the sample's thread was inside a syscall
// (between entry and the syscall's return): Nr >= 0 and AX == -ENOSYS.
// A syscall body that has already stored -ENOSYS as its result reads the
// same; seccomp runs before any body does.
func (s *Sample) InSyscall() bool { return s.Nr >= 0 && s.AX == enosys }

// Addrs are kernel addresses; in JSON they are hex strings ("0xffff...")
// since JSON numbers lose precision above 2^53.
type Addrs []uint64

// MarshalJSON writes the addresses as hex strings.
func (a Addrs) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, v := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"', '0', 'x')
		b = strconv.AppendUint(b, v, 16)
		b = append(b, '"')
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads hex strings.
func (a *Addrs) UnmarshalJSON(b []byte) error {
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return err
	}
	out := make(Addrs, len(ss))
	for i, s := range ss {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			return fmt.Errorf("address %q: %w", s, err)
		}
		out[i] = v
	}
	*a = out
	return nil
}

// WriteStream writes samples as JSON lines, one sample per line.
func WriteStream(w io.Writer, samples []Sample) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range samples {
		if err := enc.Encode(&samples[i]); err != nil {
			return fmt.Errorf("write sample %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// ReadStream reads JSON lines written by WriteStream. Errors name the
// line.
func ReadStream(r io.Reader) ([]Sample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Sample
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("sample stream line %d: %w", line, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sample stream line %d: %w", line+1, err)
	}
	return out, nil
}
