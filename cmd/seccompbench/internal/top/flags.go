package top

import (
	"cmp"
	"fmt"
	"strconv"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/stats"
)

// Formats are the output formats of `top`.
var Formats = []string{"table", "json"}

// Flags are top's flags beyond the sampling Options: the window, the
// outputs, --budget and --serve.
type Flags struct {
	// Duration is the one-shot window; 0 refreshes like top(1).
	Duration time.Duration
	// Refresh is the live view's window.
	Refresh time.Duration
	// Out are --format (table or json) and -o; Specs what to write
	// (stdout in Out.Format when nil).
	Out   output.Flags
	Specs []output.Spec
	// MaxSyscalls bounds the syscalls listed per process in the table.
	MaxSyscalls int
	// BudgetText is --budget and Budget its value (nil: none), a % of
	// the targets' CPU time; MaxTime is --max-time.
	BudgetText string
	Budget     *stats.Budget
	MaxTime    time.Duration
	// Serve is --serve: the address to serve /metrics on ("" for the
	// terminal view); ServeTop is --serve-top, the groups exported with
	// their own series.
	Serve    string
	ServeTop int
}

// Resolve checks the flags of f and o and fills o.Pids from pids (the
// --pid values), f.Specs from --format (formatChanged: given on the
// command line) and -o, and f.Budget from --budget. Errors are
// *cmdutil.FlagError (exit status 2), Options.Validate's among them.
func (f *Flags) Resolve(o *Options, pids []string, formatChanged bool) error {
	n := 0
	for _, set := range []bool{len(pids) > 0, o.Cgroup != "", o.All} {
		if set {
			n++
		}
	}
	if n != 1 {
		return cmdutil.FlagErrorf("give exactly one of --pid, --cgroup and --all")
	}
	o.Pids = nil
	for _, a := range pids {
		pid, err := strconv.Atoi(a)
		if err != nil || pid <= 0 {
			return cmdutil.FlagErrorf("--pid: %q is not a PID", a)
		}
		o.Pids = append(o.Pids, pid)
	}
	var err error
	if f.Specs, err = f.Out.Resolve(Formats, formatChanged); err != nil {
		return err
	}
	if f.Duration < 0 || f.Refresh <= 0 {
		return cmdutil.FlagErrorf("--duration and --refresh must be positive")
	}
	if err := o.Validate(); err != nil {
		return err
	}
	if f.Serve != "" && (f.Duration > 0 || len(f.Out.Outputs) > 0) {
		return cmdutil.FlagErrorf("--serve: keeps sampling windows of --refresh; it takes neither --duration nor -o")
	}
	if f.ServeTop < 1 {
		return cmdutil.FlagErrorf("--serve-top: %d is not a positive number of groups", f.ServeTop)
	}
	if f.BudgetText != "" && f.Serve != "" {
		return cmdutil.FlagErrorf("--budget decides once and exits; --serve keeps serving: give one of them")
	}
	if f.BudgetText != "" {
		b, err := stats.ParseBudget(f.BudgetText)
		switch {
		case err != nil:
			return &cmdutil.FlagError{Err: fmt.Errorf("--budget: %w", err)}
		case !b.Relative:
			return cmdutil.FlagErrorf("--budget: a share of the targets' CPU time, e.g. 1%%, not %s", f.BudgetText)
		case f.Duration > 0:
			return cmdutil.FlagErrorf("--budget samples windows of --refresh until it decides (or --max-time); drop --duration")
		case f.MaxTime <= 0:
			return cmdutil.FlagErrorf("--max-time must be positive")
		}
		f.Budget = &b
		return nil
	}
	if f.Duration == 0 && len(f.Out.Outputs) > 0 {
		return cmdutil.FlagErrorf("-o needs --duration (the live view writes to the terminal)")
	}
	return nil
}

// View is how f shows the windows (Report's View).
func (f *Flags) View() View {
	return View{
		Duration: f.Duration, Refresh: f.Refresh, Specs: f.Specs,
		Format: cmp.Or(f.Out.Format, "table"), MaxSyscalls: f.MaxSyscalls, Explain: f.Out.Explain,
		Budget: f.Budget, MaxTime: f.MaxTime,
	}
}
