package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Watch relays SIGINT, SIGTERM and SIGHUP (a dropped ssh session) until
// stop is called. The first cancels the command's context with cancel
// and a *SignalError. If no phase is held (Hold: children running,
// output being written), the signal is sent on now, for the caller to
// exit with ExitCode at once, even while the command is blocked opening
// or reading an input (a FIFO without a writer). A second signal while a
// phase is held does not lose its result: timeout(1) sends SIGINT to the
// process and then to its group, so two arrive at once. It is honoured
// after the write (the command is returning anyway), said on stderr; only
// then does the signals' default action come back, so a third ends the
// process at once (children die with it: PR_SET_PDEATHSIG).
func Watch(cancel context.CancelCauseFunc, stderr io.Writer) (now <-chan os.Signal, stop func()) {
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	nowc := make(chan os.Signal, 1)
	finished := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			var sig os.Signal
			select {
			case sig = <-sigc:
			case <-finished:
				return
			}
			if n == 0 {
				cancel(&SignalError{Signal: sig})
			}
			if Signalled() {
				nowc <- sig
				return
			}
			if n > 0 {
				// The second: the partial result is being written;
				// the next signal ends the process at once.
				signal.Stop(sigc)
				fmt.Fprintf(stderr, "seccompbench: %s again: writing the partial result first (a third signal ends at once)\n", Name(sig))
				return
			}
		}
	}()
	return nowc, func() {
		close(finished)
		signal.Stop(sigc)
	}
}
