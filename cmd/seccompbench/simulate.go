package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdSimulate(f, nil) })
}

// SimulateOptions are the flags and arguments of `seccompbench simulate`.
type SimulateOptions struct {
	IO *IOStreams

	Policies    []string
	Syscall     string
	Arch        string // "" = x86_64 for --syscall, every ABI for --all
	Args        []uint64
	All         bool
	Sort        string // cost, nr or name
	Filters     int    // stack depth by cycling the policies; 0 = one each
	DefeatCache bool
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	Format   string // table, json, svg or png (svg and png need --all)
	// Outputs are the -o FILEs, each in the format of its extension
	// (see resolveOutputs); none means stdout in Format.
	Outputs   []string
	FormatSet bool // --format was given
}

// simulateFormats are the output formats of `simulate`.
var simulateFormats = []string{"table", "json", "svg", "png"}

// simulateOutputs resolves -o and --format into what to write, refusing
// formats simulate does not render and plots without --all.
func simulateOutputs(opts *SimulateOptions) ([]outputSpec, error) {
	if !slices.Contains(simulateFormats, opts.Format) {
		return nil, flagErrorf("--format: %q is not one of %s", opts.Format, strings.Join(simulateFormats, ", "))
	}
	outs, err := resolveOutputs(opts.Format, opts.FormatSet, opts.Outputs)
	if err != nil {
		return nil, err
	}
	for _, o := range outs {
		if !slices.Contains(simulateFormats, o.Format) {
			return nil, flagErrorf("-o %s: simulate writes %s, not %s", o.Path, strings.Join(simulateFormats, ", "), o.Format)
		}
		if (o.Format == "svg" || o.Format == "png") && !opts.All {
			return nil, flagErrorf("the %s plot shows every syscall: add --all", o.Format)
		}
	}
	return outs, nil
}

// writeSimulateOutputs renders to every output: stdout directly, files
// atomically (writeFileAtomic), announcing each file on ErrOut.
func writeSimulateOutputs(opts *SimulateOptions, render func(format string, w io.Writer) error) error {
	outs, err := simulateOutputs(opts)
	if err != nil {
		return err
	}
	for _, o := range outs {
		if o.Path == "" {
			if err := render(o.Format, opts.IO.Out); err != nil {
				return err
			}
			continue
		}
		if err := writeFileAtomic(o.Path, func(w io.Writer) error { return render(o.Format, w) }); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.ErrOut, "wrote %s (%s)\n", o.Path, o.Format)
	}
	return nil
}

// NewCmdSimulate builds `seccompbench simulate`. runF, if not nil, replaces
// simulateRun (tests use it to check flag parsing).
func NewCmdSimulate(f *Factory, runF func(*SimulateOptions) error) *cobra.Command {
	opts := &SimulateOptions{IO: f.IO}
	var args string
	cmd := &cobra.Command{
		Use:   "simulate POLICY... (--syscall NAME | --all)",
		Short: "Emulate the filter stack for one syscall or for all of them",
		Long: `Run the policies' BPF filters in an emulator that follows the kernel's rules
(kernel/seccomp.c) and report the verdict, the action cache's decision and
the instructions executed in each filter.

The policies form the stack in order, the first installed first; --filters N
cycles them to N filters as run does. --syscall prints the verdict and the
path taken through each filter (--args gives the arguments, decimal or 0x
hex); --all prints one row per syscall of x86_64, i386 and x32 (or --arch),
sortable by cost. With --all, -o plot.svg or -o plot.png draws a bar per
syscall of x86_64 (or --arch): instructions executed, cached ones marked.
-o FILE may repeat; each file's extension (.txt .json .svg .png) picks its
format.

The action cache (Linux 5.11+) lets a syscall through without running any
filter when every filter returns ALLOW for it knowing only nr and arch.
Cached rows cost 0 instructions; "insns" is what the filters execute when
they do run.`,
		Example: `  seccompbench simulate default --syscall getpid
  seccompbench simulate testdata/policies/args-workload.yaml --syscall write --args 1,0,10
  seccompbench simulate default default --all --sort cost --format json
  seccompbench simulate default --all -o plot.svg -o plot.png -o table.txt`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, pos []string) error {
			opts.Policies = pos
			if (opts.Syscall == "") == !opts.All {
				return flagErrorf("give exactly one of --syscall NAME and --all")
			}
			if opts.Arch != "" {
				if _, err := filters.LookupArch(opts.Arch); err != nil {
					return &FlagError{Err: fmt.Errorf("--arch: %w", err)}
				}
			}
			var err error
			if opts.Args, err = parseArgs(args); err != nil {
				return &FlagError{Err: fmt.Errorf("--args: %w", err)}
			}
			switch opts.Sort {
			case "cost", "nr", "name":
			default:
				return flagErrorf("--sort: %q is not cost, nr or name", opts.Sort)
			}
			opts.FormatSet = cmd.Flags().Changed("format")
			if _, err := simulateOutputs(opts); err != nil {
				return err
			}
			if opts.Filters < 0 {
				return flagErrorf("--filters: negative count %d", opts.Filters)
			}
			if runF != nil {
				return runF(opts)
			}
			return simulateRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Syscall, "syscall", "", "syscall `NAME` (or number) to simulate")
	fl.BoolVar(&opts.All, "all", false, "simulate every syscall of each ABI")
	fl.StringVar(&opts.Arch, "arch", "", "ABI: x86_64, i386 or x32 (default x86_64 for --syscall, all three for --all)")
	fl.StringVar(&args, "args", "", "syscall arguments a0,a1,... (up to 6; missing ones are 0)")
	fl.StringVar(&opts.Sort, "sort", "nr", "--all row order: cost (most instructions first), nr or name")
	fl.IntVar(&opts.Filters, "filters", 0, "stack depth, cycling the policies (0: one filter per policy)")
	fl.BoolVar(&opts.DefeatCache, "defeat-cache", false, "prepend ld [instruction_pointer] to every filter, as run --cache defeat does")
	addCompilerFlag(fl, &opts.Compiler)
	fl.StringVar(&opts.Format, "format", "table", "output format: table, json, or with --all svg or png")
	fl.StringArrayVarP(&opts.Outputs, "output", "o", nil, "write to `FILE` (atomically) instead of stdout; repeat for several formats, each from its extension (.txt .json .svg .png)")
	return cmd
}

// parseArgs parses "a0,a1,..." (decimal or 0x hex, at most 6).
func parseArgs(s string) ([]uint64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > 6 {
		return nil, fmt.Errorf("%d arguments, a syscall has at most 6", len(parts))
	}
	out := make([]uint64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 0, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("argument %d: %q does not fit in 64 bits", i, p)
		}
		if err != nil {
			// Allow negative values as callers write them (-1 for AT_FDCWD-like args).
			n, nerr := strconv.ParseInt(strings.TrimSpace(p), 0, 64)
			if nerr != nil {
				return nil, fmt.Errorf("argument %d: %q is not a number", i, p)
			}
			v = uint64(n)
		}
		out[i] = v
	}
	return out, nil
}

// simulateStack opens the policies, compiling OCI profiles with comp, and
// builds the stack to simulate.
func simulateStack(specs []string, n int, defeat bool, comp scmp.Compiler, warn io.Writer) (filters.Stack, error) {
	progs, _, err := openPolicies(specs, formats.OpenOptions{Compiler: comp})
	if err != nil {
		return nil, err
	}
	printWarnings(warn, progs)
	if defeat {
		for i, p := range progs {
			progs[i] = p.DefeatCache()
		}
	}
	if n == 0 {
		n = len(progs)
	}
	s, err := filters.BuildStack(progs, n)
	if err != nil {
		return nil, fmt.Errorf("build stack: %w", err)
	}
	return s, nil
}

// simJSON is one syscall in `simulate --format json` (keys fixed by
// DESIGN.md: name, nr, arch, action, errno, cached, instructions,
// per_filter).
type simJSON struct {
	Name         string   `json:"name"`
	Nr           int      `json:"nr"`
	Arch         string   `json:"arch"`
	Args         []uint64 `json:"args,omitempty"`
	Action       string   `json:"action"`
	Ret          string   `json:"ret"`
	Errno        *int     `json:"errno"`
	Decider      int      `json:"decider"`
	Cached       bool     `json:"cached"`
	CacheCause   string   `json:"cache_cause"`
	CacheReason  string   `json:"cache_reason,omitempty"`
	Instructions int      `json:"instructions"`
	Effective    int      `json:"effective_instructions"`
	PerFilter    []int    `json:"per_filter"`
	Paths        [][]int  `json:"paths,omitempty"`
}

type simStackJSON struct {
	Index        int    `json:"index"`
	Name         string `json:"name"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
}

type simDocJSON struct {
	Stack    []simStackJSON `json:"stack"`
	Syscalls []simJSON      `json:"syscalls"`
}

func toSimJSON(c analysis.SyscallCost, sr *filters.StackResult) simJSON {
	j := simJSON{Name: c.Name, Nr: c.Nr, Arch: c.Arch, Action: c.Action.String(), Ret: filters.RetText(c.Ret),
		Decider: c.Decider, Cached: c.Cached, CacheCause: c.CacheCause, CacheReason: c.CacheReason,
		Instructions: c.Executed, Effective: c.EffectiveInstructions, PerFilter: c.PerFilter}
	res := filters.StackResult{Action: c.Action, Data: c.Data}
	if e, ok := res.Errno(); ok {
		j.Errno = &e
	}
	if sr != nil {
		j.Args = c.Args[:]
		for _, r := range sr.PerFilter {
			j.Paths = append(j.Paths, r.Path)
		}
	}
	return j
}

func stackJSON(s filters.Stack) []simStackJSON {
	out := make([]simStackJSON, len(s))
	for i, p := range s {
		out[i] = simStackJSON{Index: i, Name: p.Name, Instructions: p.Len(), SHA256: p.SHA256()}
	}
	return out
}

func simulateRun(opts *SimulateOptions) error {
	s, err := simulateStack(opts.Policies, opts.Filters, opts.DefeatCache, opts.Compiler, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	if opts.All {
		return simulateAll(opts, s)
	}
	arch := filters.ArchX86_64
	if opts.Arch != "" {
		arch, _ = filters.LookupArch(opts.Arch)
	}
	nr, err := analysis.LookupSyscall(arch, opts.Syscall)
	if err != nil {
		return &FlagError{Err: fmt.Errorf("--syscall: %w", err)}
	}
	cost, err := analysis.AnalyzeSyscall(s, arch, nr, opts.Args...)
	if err != nil {
		return fmt.Errorf("simulate %s: %w", opts.Syscall, err)
	}
	sr, err := filters.EmulateStack(s, arch.Data(nr, opts.Args...))
	if err != nil {
		return fmt.Errorf("simulate %s: %w", opts.Syscall, err)
	}
	return writeSimulateOutputs(opts, func(format string, w io.Writer) error {
		if format == "json" {
			return writeJSON(w, simDocJSON{Stack: stackJSON(s), Syscalls: []simJSON{toSimJSON(cost, &sr)}})
		}
		return writeSyscallText(w, s, cost, sr)
	})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

func writeSyscallText(w io.Writer, s filters.Stack, c analysis.SyscallCost, sr filters.StackResult) error {
	var b strings.Builder
	name := c.Name
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(&b, "syscall   %s (%s nr %d)  args %s\n", name, c.Arch, c.Nr, joinUints(c.Args[:]))
	verdict := filters.RetText(c.Ret)
	if c.Decider >= 0 {
		verdict += fmt.Sprintf(" from filter %d (%s)", c.Decider, s[c.Decider].Name)
	} else if len(s) > 0 && !c.Cached {
		verdict += " (every filter allows)"
	}
	fmt.Fprintf(&b, "verdict   %s\n", verdict)
	if c.Cached {
		fmt.Fprintf(&b, "cache     cached (%s): the kernel runs no filter for this syscall\n", c.CacheCause)
	} else {
		fmt.Fprintf(&b, "cache     not cached: %s\n", c.CacheReason)
	}
	fmt.Fprintf(&b, "cost      %d instructions run; the filters execute %d when they run (%s)\n", c.EffectiveInstructions, c.Executed, stackText(s))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILTER\tNAME\tRETURNS\tINSNS\tREAD\tPATH (lines)")
	for i := len(s) - 1; i >= 0; i-- {
		r := sr.PerFilter[i]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", i, s[i].Name, filters.RetText(r.Ret), r.Executed, r.Read, indexRanges(r.Path))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s) > 1 {
		b.WriteString("filters run newest first; the lowest action wins, ties go to the newer filter\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write simulation: %w", err)
	}
	return nil
}

// simulateCosts analyzes every syscall of --arch (all native ABIs
// without it) and sorts them by --sort.
func simulateCosts(opts *SimulateOptions, s filters.Stack) ([]*filters.Arch, []analysis.SyscallCost, error) {
	arches := filters.NativeArches()
	if opts.Arch != "" {
		a, _ := filters.LookupArch(opts.Arch)
		arches = []*filters.Arch{a}
	}
	costs, err := analysis.Analyze(s, arches)
	if err != nil {
		return nil, nil, fmt.Errorf("simulate all syscalls: %w", err)
	}
	switch opts.Sort {
	case "cost":
		analysis.SortByCost(costs)
	case "name":
		sort.SliceStable(costs, func(i, j int) bool { return costs[i].Name < costs[j].Name })
	}
	return arches, costs, nil
}

func simulateAll(opts *SimulateOptions, s filters.Stack) error {
	arches, costs, err := simulateCosts(opts, s)
	if err != nil {
		return err
	}
	return writeSimulateOutputs(opts, func(format string, w io.Writer) error {
		switch format {
		case "json":
			doc := simDocJSON{Stack: stackJSON(s), Syscalls: make([]simJSON, 0, len(costs))}
			for _, c := range costs {
				doc.Syscalls = append(doc.Syscalls, toSimJSON(c, nil))
			}
			return writeJSON(w, doc)
		case "svg":
			return report.WriteSimulateSVG(w, simulatePlot(opts, s, costs))
		case "png":
			return report.WriteSimulatePNG(w, simulatePlot(opts, s, costs))
		}
		return writeAllText(w, s, arches, costs)
	})
}

// simulatePlot is the plot of one ABI's costs (x86_64 unless --arch), in
// the --sort order.
func simulatePlot(opts *SimulateOptions, s filters.Stack, costs []analysis.SyscallCost) *report.SimulatePlot {
	arch := filters.ArchX86_64.Name
	if a, err := filters.LookupArch(opts.Arch); opts.Arch != "" && err == nil {
		arch = a.Name
	}
	p := &report.SimulatePlot{Arch: arch, Stack: stackText(s), Order: opts.Sort, CacheDefeated: opts.DefeatCache}
	for _, c := range costs {
		if c.Arch != arch {
			continue
		}
		p.Bars = append(p.Bars, report.SyscallBar{Arch: c.Arch, Name: c.Name, Nr: c.Nr, Instructions: c.Executed,
			Cached: c.Cached, Allowed: c.Action == filters.ActionAllow, Verdict: filters.RetText(c.Ret)})
	}
	return p
}

// writeAllText writes the --all table.
func writeAllText(w io.Writer, s filters.Stack, arches []*filters.Arch, costs []analysis.SyscallCost) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# stack: %s\n", stackText(s))
	for _, a := range arches {
		cached, total := 0, 0
		for _, c := range costs {
			if c.Arch == a.Name {
				total++
				if c.Cached {
					cached++
				}
			}
		}
		fmt.Fprintf(&b, "# %s: %d of %d syscalls cached\n", a.Name, cached, total)
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ARCH\tNR\tNAME\tVERDICT\tCACHED\tINSNS\tEFFECTIVE\tPER-FILTER")
	for _, c := range costs {
		cached := "no"
		if c.Cached {
			cached = "yes"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%d\t%s\n", c.Arch, c.Nr, c.Name, filters.RetText(c.Ret), cached, c.Executed, c.EffectiveInstructions, perFilterText(c.PerFilter))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write simulation: %w", err)
	}
	return nil
}

// stackText describes a stack: "1 filter: default", "32 filters: default
// repeated", "5 filters: a, b cycled (a installed first)".
func stackText(s filters.Stack) string {
	if len(s) == 0 {
		return "no filters"
	}
	var names []string
	seen := map[*filters.Program]bool{}
	for _, p := range s {
		if !seen[p] {
			seen[p] = true
			names = append(names, p.Name)
		}
	}
	switch {
	case len(s) == 1:
		return "1 filter: " + names[0]
	case len(names) == 1:
		return fmt.Sprintf("%d filters: %s repeated", len(s), names[0])
	case len(names) == len(s):
		return fmt.Sprintf("%d filters, oldest first: %s", len(s), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%d filters: %s cycled, %s installed first", len(s), strings.Join(names, ", "), names[0])
}

// perFilterText lists per-filter counts in stack order (oldest first),
// shortening "7,7,7,7" to "7 x4".
func perFilterText(n []int) string {
	if len(n) > 1 {
		same := true
		for _, v := range n {
			same = same && v == n[0]
		}
		if same {
			return fmt.Sprintf("%d x%d", n[0], len(n))
		}
	}
	return joinInts(n)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func joinUints(v []uint64) string {
	s := make([]string, len(v))
	for i, x := range v {
		if x > 0xffff {
			s[i] = fmt.Sprintf("%#x", x)
		} else {
			s[i] = strconv.FormatUint(x, 10)
		}
	}
	return strings.Join(s, ",")
}
