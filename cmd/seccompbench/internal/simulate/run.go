package simulate

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/chart"
	"github.com/seccompbench/seccompbench/report/document"
)

// Options are what `simulate` evaluates and how it writes it: its
// arguments and flags, checked by the command.
type Options struct {
	// Policies are POLICY..., the stack in install order; Syscall is
	// --syscall (a name or number) and Args its arguments (--args); All
	// is --all.
	Policies    []string
	Syscall     string
	Args        []uint64
	All         bool
	Sort        string // cost, nr or name
	Filters     int    // stack depth by cycling the policies; 0 = one each
	DefeatCache bool   // --cache defeat: ld [instruction_pointer] first
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --profile-name, --base and --thread. --arch names the ABI --syscall
	// simulates and, through its kernel (filters.KernelArches), the host
	// the policies are for and the ABIs --all covers ("": this machine's
	// native ABI).
	Load   cmdutil.LoadFlags
	Format string // table, json, svg or png (svg and png need --all)
	// Outputs are the -o FILEs, each in the format of its extension
	// (see output.Resolve); none means stdout in Format.
	Outputs   []string
	FormatSet bool // --format was given
}

// Formats are the output formats of `simulate`.
var Formats = []string{"table", "json", "svg", "png"}

// Specs resolves -o and --format into what to write, refusing formats
// simulate does not render and plots without --all (*cmdutil.FlagError).
func (opts *Options) Specs() ([]output.Spec, error) {
	outs, err := output.ResolveFor(Formats, opts.Format, opts.FormatSet, opts.Outputs)
	if err != nil {
		return nil, err
	}
	for _, o := range outs {
		if (o.Format == "svg" || o.Format == "png") && !opts.All {
			return nil, cmdutil.FlagErrorf("the %s plot shows every syscall: add --all", o.Format)
		}
	}
	return outs, nil
}

// writeOutputs renders to every output: stdout directly, files
// atomically, announcing each file on ErrOut.
func writeOutputs(ios *cmdutil.IOStreams, opts *Options, render func(format string, w io.Writer) error) error {
	outs, err := opts.Specs()
	if err != nil {
		return err
	}
	return output.WriteEach(outs, ios.Out, ios.ErrOut, render)
}

// Run simulates opts' stack for --syscall or --all and writes the
// verdicts and costs to ios or -o's files. When --arch is left out and the
// filters are for another ABI than this machine's, it simulates theirs
// and says so on ios.ErrOut (setting opts.Load.Arch).
func Run(ios *cmdutil.IOStreams, opts *Options) error {
	o, err := opts.Load.Options(ios.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	l, err := opts.Load.LoadPolicies(opts.Policies, o)
	if err != nil {
		return err
	}
	l.PrintWarnings(ios.ErrOut)
	alts, err := l.Alternatives()
	if err != nil {
		return err
	}
	res := l.OCIResolution(o)
	var stacks []Named
	for _, a := range alts {
		s, err := Build(a.Progs, opts.Filters, opts.DefeatCache)
		if err != nil {
			return err
		}
		stacks = append(stacks, Named{Name: a.Name, Stack: s})
	}
	if len(stacks) > 1 {
		for _, out := range opts.Outputs {
			if strings.HasSuffix(out, ".svg") || strings.HasSuffix(out, ".png") {
				return cmdutil.FlagErrorf("-o %s: the policies hold alternative filters (%s); plot one with --thread", out, Names(stacks))
			}
		}
		if opts.Format == "svg" || opts.Format == "png" {
			return cmdutil.FlagErrorf("--format %s: the policies hold alternative filters (%s); plot one with --thread", opts.Format, Names(stacks))
		}
	}
	if opts.Load.Arch == "" && len(stacks) > 0 {
		// Simulate the ABI the filters are for when it is not this
		// machine's: an i386 minijail policy, an aarch64 Firecracker file.
		if abis := filters.StackABIs(stacks[0].Stack); len(abis) > 0 && !slices.Contains(abis, cmdutil.NativeArch().Name) {
			opts.Load.Arch = abis[0]
			fmt.Fprintf(ios.ErrOut, "note: the filters are for %s, not %s: simulating %s calls (--arch chooses)\n",
				strings.Join(abis, ", "), cmdutil.NativeArch().Name, abis[0])
		}
	}
	if opts.All {
		return all(ios, opts, stacks, res)
	}
	type result struct {
		cost analysis.SyscallCost
		sr   filters.StackResult
	}
	var rs []result
	for _, n := range stacks {
		cost, sr, err := Syscall(n.Stack, opts.Load.Arch, opts.Syscall, opts.Args)
		if err != nil {
			return err
		}
		rs = append(rs, result{cost, sr})
	}
	return writeOutputs(ios, opts, func(format string, w io.Writer) error {
		var docs []document.SimulateDoc
		for i, n := range stacks {
			if format == "json" {
				doc := report.NewSimulateDoc(n.Stack, []analysis.SyscallCost{rs[i].cost}, &rs[i].sr)
				doc.Alternative, doc.OCI = n.Name, res
				docs = append(docs, doc)
				continue
			}
			if err := report.WriteSimulateAltHeader(w, i, n.Name, res); err != nil {
				return err
			}
			if err := report.WriteSimulateSyscallText(w, n.Stack, rs[i].cost, rs[i].sr); err != nil {
				return err
			}
		}
		return report.WriteSimulateDocs(w, docs)
	})
}

// all is Run for --all: every syscall of every ABI of --arch's kernel.
func all(ios *cmdutil.IOStreams, opts *Options, stacks []Named, res *document.OCIResolution) error {
	type result struct {
		arches []*filters.Arch
		costs  []analysis.SyscallCost
	}
	var rs []result
	for _, n := range stacks {
		arches, costs, err := Costs(n.Stack, opts.Load.Arch, opts.Sort)
		if err != nil {
			return err
		}
		rs = append(rs, result{arches, costs})
	}
	return writeOutputs(ios, opts, func(format string, w io.Writer) error {
		s, costs := stacks[0].Stack, rs[0].costs
		switch format {
		case "svg":
			return chart.WriteSimulateSVG(w, Plot(s, costs, opts.Load.Arch, opts.Sort, opts.DefeatCache))
		case "png":
			return chart.WriteSimulatePNG(w, Plot(s, costs, opts.Load.Arch, opts.Sort, opts.DefeatCache))
		}
		var docs []document.SimulateDoc
		for i, n := range stacks {
			if format == "json" {
				doc := report.NewSimulateDoc(n.Stack, rs[i].costs, nil)
				doc.Alternative, doc.OCI = n.Name, res
				docs = append(docs, doc)
				continue
			}
			if err := report.WriteSimulateAltHeader(w, i, n.Name, res); err != nil {
				return err
			}
			if err := report.WriteSimulateAllText(w, n.Stack, rs[i].arches, rs[i].costs); err != nil {
				return err
			}
		}
		return report.WriteSimulateDocs(w, docs)
	})
}
