package interrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

func TestHoldSignalled(t *testing.T) {
	if !Signalled() {
		t.Fatal("no phase held: a signal should exit at once")
	}
	outer := Hold()
	inner := Hold()
	if Signalled() {
		t.Error("two phases held: a signal exited at once")
	}
	inner()
	inner() // releasing twice releases once
	if Signalled() {
		t.Error("the outer phase is still held")
	}
	outer()
	if !Signalled() {
		t.Error("every phase released: a signal should exit at once")
	}
}

func TestNameAndExitCode(t *testing.T) {
	for _, tt := range []struct {
		sig  os.Signal
		name string
		code int
	}{
		{syscall.SIGINT, "SIGINT", 130},
		{syscall.SIGTERM, "SIGTERM", 143},
		{syscall.SIGHUP, "SIGHUP", 129},
		{syscall.SIGUSR1, syscall.SIGUSR1.String(), 128 + int(syscall.SIGUSR1)},
		{os.Interrupt, "SIGINT", 130},
	} {
		if got := Name(tt.sig); got != tt.name {
			t.Errorf("Name(%v) = %q, want %q", tt.sig, got, tt.name)
		}
		if got := ExitCode(tt.sig); got != tt.code {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.sig, got, tt.code)
		}
	}
}

func TestCodeFor(t *testing.T) {
	bySignal, cancel := context.WithCancelCause(context.Background())
	cancel(&SignalError{Signal: syscall.SIGTERM})
	plain, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		err  error
		code int
		ok   bool
	}{
		{"no error", bySignal, nil, 0, false},
		{"other error", bySignal, errors.New("boom"), 0, false},
		{"cancelled by SIGTERM", bySignal, fmt.Errorf("run: %w", context.Canceled), 143, true},
		{"cancelled without a signal", plain, context.Canceled, 130, true},
		{"the signal error itself", bySignal, &SignalError{Signal: syscall.SIGTERM}, 143, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, ok := CodeFor(tt.ctx, tt.err)
			if code != tt.code || ok != tt.ok {
				t.Errorf("got %d, %v; want %d, %v", code, ok, tt.code, tt.ok)
			}
		})
	}
	if got := (&SignalError{Signal: syscall.SIGINT}).Error(); got != "interrupted by SIGINT" {
		t.Errorf("Error() = %q", got)
	}
}
