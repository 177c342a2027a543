package estimate

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/live"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Formats are the output formats of `estimate`.
var Formats = []string{"table", "json", "markdown", "html"}

// Flags are the values of estimate's flags that Options.Parse turns into
// Options, and those that only say how to show the estimate.
type Flags struct {
	CalTrials   int
	WithCommand bool
	// AB is --ab, the A/B design name.
	AB string
	// Budget is --budget (stats.ParseBudget); "" for none.
	Budget string
	Loader string
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --profile-name, --base, --thread and --systemd.
	Load cmdutil.LoadFlags
	// Container are --bundle, --rootfs and --runtime-bin: --command's
	// runs in runc or crun containers.
	Container cmdutil.ContainerFlags
	Out       output.Flags
	// Top is the number of syscall rows in the table (0: all).
	Top int
}

// AddFlags adds estimate's flags to fs, storing into o and fl.
func AddFlags(fs *pflag.FlagSet, o *Options, fl *Flags) {
	fs.StringVar(&o.Profile, "profile", "", "syscall profile `FILE`: strace -c / strace -f -c output, or syscall,count[,seconds] CSV")
	fs.IntVar(&o.Filters, "filters", 0, "stack depth, cycling the policies (0: one filter per policy)")
	cmdutil.AddCompilerFlag(fs, &o.Compiler)
	cmdutil.AddSystemdFlag(fs, &fl.Load)
	cmdutil.AddLoadFlags(fs, &fl.Load)
	fs.StringVar(&o.Cache, "cache", "on", "evaluate the filters as installed (on) or with the action cache defeated (defeat: pre-5.11 kernels, argument rules)")
	fs.StringArrayVar(&o.Calibrations, "calibration", nil, "a run --format json result `FILE` with a defeat fit (repeatable); default: a quick calibration now")
	fs.IntVar(&fl.CalTrials, "calibration-trials", 8, "randomized blocks per workload of the quick calibration")
	fs.StringVar(&o.SystemdUnit, "systemd-unit", "", "put the filter stack "+cmdutil.ChosenSystemd+" installs for this unit `FILE` first (with no POLICY: that stack alone)")
	fs.BoolVar(&o.ColdCalibration, "cold", false, "quick calibration with openat of a missing path (kernel work between filter runs, as in real programs) instead of getppid, gettid and getpid; see docs/estimate.md")
	fs.BoolVar(&o.StackCalibration, "stack-calibration", true, "re-anchor the quick calibration on the estimated stack's own filters (cache defeated, placement sampled), keeping the chain's per-instruction slope; =false: the calibration chain alone")
	fs.DurationVar(&o.Duration, "duration", 0, "wall time of the profiled run (e.g. 12ms), for the added time per second of work")
	fs.IntVar(&fl.Top, "top", 15, "syscall rows in the table, most added time first (0: all)")
	output.AddFlags(fs, &fl.Out, Formats, "table", "the estimate")
	output.AddExplainFlag(fs, &fl.Out)
	fs.Float64Var(&o.Confidence, "confidence", 0.95, "confidence level of every interval, a fraction in (0,1)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the block shuffles")
	fs.IntVar(&o.CPU, "cpu", -1, "CPU to pin measuring threads to (-1: the highest allowed CPU; -2: no pinning)")
	fs.StringVar(&fl.Loader, "loader", "unprivileged", "who loads the estimated stack: unprivileged (without CAP_SYS_ADMIN, as runc and non-root services) or privileged; the calibration and --validate measure with it")
	fs.BoolVar(&o.Validate, "validate", false, "also measure each profiled syscall that runner can loop on under the stack, and report the prediction error")
	fs.IntVar(&o.Trials, "trials", 10, "randomized blocks per syscall for --validate, and for measuring --command")
	fs.BoolVar(&fl.WithCommand, "command", false, "profile (unless --profile) and measure the command given after --, and compare the prediction with the measurement")
	fs.BoolVar(&o.ProcessTerm, "process-term", true, "with --command: also measure what the stack adds to a run of /bin/true (starting and ending a process under a freshly installed stack, beyond the install) and add it to the prediction")
	fs.BoolVar(&o.Indirect, "indirect", false, "experimental (docs/estimate.md: its predictions were noise on the validation set): when the program's time between syscalls is known (--duration, --command), run the indirect-cost probe under the stack (a known working set between syscalls, 5 sizes; about 10 s) and predict the indirect part: the program's own work slowed by what the filters evicted")
	cmdutil.AddContainerFlags(fs, &fl.Container)
	fs.StringVar(&fl.AB, "ab", string(DefaultAB), "with --command: how the command is compared without and with the stack: pairs (each child alternates runs without and with it, order random per pair), duet (a pair's two runs at once on two CPUs, sides swapped) or children (children under 0 and N filters in blocks, difference of medians)")
	fs.StringVar(&fl.Budget, "budget", "", "decide whether the added time per run is within `BUDGET`: with --command, absolute (5ms) or a % of the unfiltered run (2%), in wall and CPU time, measuring in rounds until a one-sided bound at --confidence decides or --max-time passes (a paired --ab); without it, absolute only, on the prediction's bracket (within only below its ceiling, over only above its floor; /bin/true's term is measured). Exit 0 within, 3 over, 4 undecided")
	fs.DurationVar(&o.ABTime, "ab-time", DefaultABTime, "with --command: measuring time for the command, spread over --trials blocks (the /bin/true probe of --process-term gets a quarter of it)")
	fs.DurationVar(&o.MaxTime, "max-time", 2*time.Minute, "with --command: a hard bound on measuring the command (no block starts after it once two are done)")
	fs.IntVar(&o.DirectFrequency, "direct-frequency", live.DefaultFrequency, "with --command: CPU samples per second per CPU of the command's processes in every other block, to measure its time inside seccomp directly and split the added time into direct, per-process and indirect parts (needs root, or CAP_PERFMON and CAP_BPF; 0: off)")
}

// Parse fills o from fl and the arguments: policies are the positional
// arguments before "--", command what follows it; in is standard input
// (for "-"), changed reports whether the user gave a flag. It returns what
// to write. Every error is a *cmdutil.FlagError (exit code 2).
func (o *Options) Parse(fl *Flags, policies, command []string, in io.Reader, changed func(string) bool) ([]output.Spec, error) {
	o.Policies, o.Command = policies, command
	if fl.WithCommand != (len(o.Command) > 0) {
		return nil, cmdutil.FlagErrorf("--command: give it with the command after --, e.g. estimate docker-default --command -- find /usr/share -name x")
	}
	if len(o.Policies) == 0 && o.SystemdUnit == "" && fl.Load.Systemd == "" {
		return nil, cmdutil.FlagErrorf("requires at least 1 arg: give at least one POLICY (or --systemd-unit FILE)")
	}
	if o.Profile == "" && !fl.WithCommand {
		return nil, cmdutil.FlagErrorf("--profile FILE is required (or --command -- CMD [ARG...])")
	}
	if o.Cache != "on" && o.Cache != "defeat" {
		return nil, cmdutil.FlagErrorf("--cache: %q is not on or defeat", o.Cache)
	}
	specs, err := fl.Out.Resolve(Formats, changed("format"))
	if err != nil {
		return nil, err
	}
	if err := o.parseNumbers(fl); err != nil {
		return nil, err
	}
	ls, err := result.Loaders(fl.Loader)
	if err != nil {
		return nil, &cmdutil.FlagError{Err: fmt.Errorf("--loader: %w", err)}
	}
	if len(ls) != 1 {
		return nil, cmdutil.FlagErrorf("--loader: an estimate models one loader; give unprivileged or privileged (run --loader both measures their difference)")
	}
	o.Loader = ls[0]
	if o.Open, err = fl.Load.Options(in); err != nil {
		return nil, err
	}
	if err := cmdutil.CheckLocalArch("estimate", o.Open); err != nil {
		return nil, err
	}
	o.Systemd = fl.Load.Systemd
	if err := o.parseContainer(fl, changed); err != nil {
		return nil, err
	}
	if err := runner.CheckCPU(o.CPU); err != nil {
		return nil, &cmdutil.FlagError{Err: fmt.Errorf("--cpu: %w", err)}
	}
	if err := o.parseAB(fl, changed); err != nil {
		return nil, err
	}
	return specs, nil
}

// parseContainer applies --bundle and --rootfs: --command's measurement
// then runs the command in containers of --runtime (runc or crun), whose
// filter is the one POLICY, so the stack is one filter deep and cached as
// installed.
func (o *Options) parseContainer(fl *Flags, changed func(string) bool) error {
	if fl.Container.Set() {
		if !fl.WithCommand {
			return cmdutil.FlagErrorf("--bundle and --rootfs need --command -- CMD [ARG...]")
		}
		if o.Filters > 1 || o.Cache != "on" || o.SystemdUnit != "" || fl.Load.Systemd != "" || changed("loader") {
			return cmdutil.FlagErrorf("--bundle, --rootfs: the runtime installs one filter, cached, with its own loader: leave --filters, --cache, --loader and the systemd flags out")
		}
	}
	ct, err := fl.Container.Spec(o.Policies, o.Command, o.Open.OCI)
	o.Container = ct
	return err
}

// parseAB applies --ab and --ab-time: the paired designs need the
// command workload's wrapper, so containers (--bundle, --rootfs) are
// measured in children.
func (o *Options) parseAB(fl *Flags, changed func(string) bool) error {
	d, err := command.ParseDesign(fl.AB)
	if err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--ab: %w", err)}
	}
	if (changed("ab") || changed("ab-time")) && !fl.WithCommand {
		return cmdutil.FlagErrorf("--ab and --ab-time need --command -- CMD [ARG...]")
	}
	// 0 would leave the command's children at the workload's default
	// (~300 ms of runs per cell): far from any --ab-time asked for.
	if o.ABTime <= 0 {
		return cmdutil.FlagErrorf("--ab-time: %s is not a positive duration (the command's measuring time; default %s)", o.ABTime, DefaultABTime)
	}
	if o.Container != nil {
		if changed("ab") && d != command.DesignChildren {
			return cmdutil.FlagErrorf("--ab %s: containers (--bundle, --rootfs) are measured with --ab children only", d)
		}
		d = command.DesignChildren
	}
	o.AB = d
	if fl.Budget == "" {
		return nil
	}
	b, err := stats.ParseBudget(fl.Budget)
	switch {
	case err != nil:
		return &cmdutil.FlagError{Err: fmt.Errorf("--budget: %w", err)}
	case !fl.WithCommand && b.Relative:
		return cmdutil.FlagErrorf("--budget %s: a %% budget needs --command -- CMD [ARG...] (the unfiltered run is measured there); without it give an absolute budget (5ms), judged on the prediction's bracket", fl.Budget)
	case !d.Paired():
		return cmdutil.FlagErrorf("--budget: needs a paired design (--ab pairs or duet), not %s (containers are measured with children only)", d)
	}
	o.Budget = &b
	return nil
}

// parseNumbers checks the confidence, depth, duration and block counts.
func (o *Options) parseNumbers(fl *Flags) error {
	if err := stats.CheckConfidence(o.Confidence); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--confidence: %w", err)}
	}
	if o.Filters < 0 {
		return cmdutil.FlagErrorf("--filters: negative count %d", o.Filters)
	}
	if o.Duration < 0 {
		return cmdutil.FlagErrorf("--duration: negative %s", o.Duration)
	}
	o.CalTrials = fl.CalTrials
	if o.CalTrials < 2 || o.Trials < 2 {
		return cmdutil.FlagErrorf("--calibration-trials and --trials: need at least 2 for a confidence interval")
	}
	if o.DirectFrequency < 0 || o.DirectFrequency > 10000 {
		return cmdutil.FlagErrorf("--direct-frequency %d: want 0 (off) to 10000 Hz", o.DirectFrequency)
	}
	return nil
}
