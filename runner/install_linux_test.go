package runner

import (
	"errors"
	"runtime"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/internal/kerneltest"
)

// TestInstallFiltersErrors checks kerneltest.InstallFilters' failures. Each
// case runs on its own locked thread, which is never unlocked, so the
// runtime ends it (and its no_new_privs) with the goroutine. The successful
// path is exercised by TestEmulatorAgreesWithKernel.
func TestInstallFiltersErrors(t *testing.T) {
	skipIfNoSeccomp(t)
	invalid := (&filters.Program{Insns: []bpf.RawInstruction{{Op: 0x20, K: filters.OffsetNr}}}).Bytes() // no ret
	allowAll := (&filters.Program{Insns: []bpf.RawInstruction{{Op: 0x06, K: uint32(filters.ActionAllow)}}}).Bytes()
	tests := []struct {
		name      string
		progs     [][]byte
		flags     uint
		wantN     int        // filters attached
		wantErrno unix.Errno // 0: an error before any syscall
	}{
		{"empty program", [][]byte{nil}, 0, 0, 0},
		{"length not a multiple of 8", [][]byte{allowAll[:5]}, 0, 0, 0},
		{"new listener flag", [][]byte{allowAll}, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 0},
		{"invalid program", [][]byte{invalid, allowAll}, 0, 0, unix.EINVAL},
		{"invalid second program", [][]byte{allowAll, invalid}, 0, 1, unix.EINVAL},
		{"unknown flag", [][]byte{allowAll}, 1 << 30, 0, unix.EINVAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				n   int
				err error
			}
			done := make(chan result, 1)
			go func() {
				runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
				n, err := kerneltest.InstallFilters(tt.progs, tt.flags)
				done <- result{n, err}
			}()
			got := <-done
			if got.n != tt.wantN {
				t.Errorf("installed = %d, want %d", got.n, tt.wantN)
			}
			if got.err == nil {
				t.Fatal("err = nil, want an error")
			}
			var errno unix.Errno
			if !errors.As(got.err, &errno) {
				errno = 0
			}
			if errno != tt.wantErrno {
				t.Errorf("errno = %v (err %v), want %v", errno, got.err, tt.wantErrno)
			}
		})
	}
}
