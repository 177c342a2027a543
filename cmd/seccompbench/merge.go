package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/optimize"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdMerge(f, nil) })
}

// MergeOptions are the flags and arguments of `seccompbench merge`.
type MergeOptions struct {
	IO *IOStreams

	// Specs are the stack's sources, oldest first: policies, one systemd
	// unit, or one directory of raw filters.
	Specs []string
	// Systemd is directive text modeled as a unit (--systemd).
	Systemd string
	Output  string // -o FILE, "" for stdout
	Format  string // raw, text or json; "" = raw with -o, text without
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler filters.Compiler
}

// NewCmdMerge builds `seccompbench merge`. runF, if not nil, replaces
// mergeRun (tests use it to check flag parsing).
func NewCmdMerge(f *Factory, runF func(*MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "merge POLICY... | UNIT | DIR | --systemd DIRECTIVES",
		Short: "Merge a stack of filters into one equivalent filter",
		Long: `Merge a stack of seccomp filters into one classic BPF filter that gives every
syscall the same outcome as the stack: the same action and the same data
(errno, trap data) under the kernel's precedence (the lowest action wins,
ties go to the newest filter; kernel/seccomp.c: seccomp_run_filters), for
every arch value, syscall number and argument.

The stack is POLICY... (installed in the order given, the first oldest), a
systemd unit (the filters systemd 252 installs for it), --systemd with
directive text, or a directory written by inspect --save (its manifest.json,
else its filter-*.bpf files in name order).

Every merged program is proven equivalent to the stack by the exact checker
(see equiv) before it is written; merge refuses to write one that is not,
and refuses a result over BPF_MAXINSNS (4096 instructions), saying by how
much and how many of the newest filters would fit. Syscalls the stack's
action cache skips stay cacheable; merge lists any syscall whose cache
status changes (a lost cache can make a merged filter slower).

Output: -o FILE writes the filter (--format raw, the default with -o: an
array of struct sock_filter, little-endian, loadable by every command that
takes a POLICY); --format text is a disassembly, --format json the program
with the checks. A summary goes to standard error.`,
		Example: `  seccompbench merge testdata/policies/hardened.service -o merged.bpf
  seccompbench equiv merged.bpf testdata/policies/hardened.service
  seccompbench merge default testdata/policies/denylist.yaml --format text`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Systemd != "" && len(args) > 0 {
				return flagErrorf("merge: give POLICY..., UNIT or DIR, or --systemd, not both")
			}
			if opts.Systemd == "" && len(args) == 0 {
				return flagErrorf("merge: need POLICY..., a UNIT, a DIR or --systemd")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Specs = args
			if err := resolveProgramFormat(&opts.Format, opts.Output); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return mergeRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Output, "output", "o", "", "write the merged filter to `FILE`")
	fl.StringVar(&opts.Format, "format", "", "output format: raw, text or json (default raw with -o, else text)")
	fl.StringVar(&opts.Systemd, "systemd", "", "model the stack of these systemd directives, e.g. 'SystemCallFilter=@system-service'")
	addCompilerFlag(fl, &opts.Compiler)
	return cmd
}

// resolveProgramFormat checks --format and picks its default.
func resolveProgramFormat(format *string, output string) error {
	switch *format {
	case "":
		*format = "text"
		if output != "" {
			*format = "raw"
		}
	case "raw", "text", "json":
	default:
		return flagErrorf("--format: %q is not raw, text or json", *format)
	}
	return nil
}

func mergeRun(opts *MergeOptions) error {
	s, desc, err := openStack(opts.IO.ErrOut, opts.Specs, opts.Systemd, opts.Compiler)
	if err != nil {
		return err
	}
	res, err := optimize.Merge(s, optimize.Weights{})
	if err != nil {
		return fmt.Errorf("merge %s: %w", desc, err)
	}
	res.Program.Name = "merged"
	res.Program.Source = desc
	sum, err := summarize(s, res, nil)
	if err != nil {
		return err
	}
	sum.Command = "merge"
	if err := writeBuilt(opts.IO, opts.Output, opts.Format, res.Program, sum); err != nil {
		return err
	}
	return writeSummary(opts.IO.ErrOut, desc, sum)
}

// openStack loads a stack: --systemd directives, one systemd unit, one
// directory of raw filters, or policies in installation order.
func openStack(errOut io.Writer, specs []string, systemd string, comp filters.Compiler) (filters.Stack, string, error) {
	if systemd != "" {
		u, err := filters.ParseSystemdDirectives("--systemd", systemd, filters.SystemdOptions{Compiler: comp})
		if err != nil {
			return nil, "", fmt.Errorf("model --systemd: %w", err)
		}
		return u.Stack(), "--systemd", nil
	}
	if len(specs) == 1 {
		s, ok, err := openStackFile(specs[0], comp)
		if ok || err != nil {
			return s, specs[0], err
		}
	}
	progs, _, err := openPolicies(specs, filters.OpenOptions{Compiler: comp})
	if err != nil {
		return nil, "", err
	}
	printWarnings(errOut, progs)
	return filters.Stack(progs), strings.Join(specs, " "), nil
}

// openStackFile loads spec when it is a directory of raw filters or a
// systemd unit; ok is false for anything else.
func openStackFile(spec string, comp filters.Compiler) (s filters.Stack, ok bool, err error) {
	fi, err := os.Stat(spec)
	if err != nil {
		return nil, false, nil // a built-in name, or openPolicies reports it
	}
	if fi.IsDir() {
		s, err := openStackDir(spec)
		return s, true, err
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, true, fmt.Errorf("open stack: %w", err)
	}
	if filters.DetectFormat(spec, data) != filters.FormatSystemdUnit {
		return nil, false, nil
	}
	u, err := filters.ParseSystemdUnit(spec, data, filters.SystemdOptions{Compiler: comp})
	if err != nil {
		return nil, true, fmt.Errorf("model unit: %w", err)
	}
	return u.Stack(), true, nil
}

// savedManifest is the part of inspect --save's manifest.json a stack
// needs: the filter files, index 0 = oldest.
type savedManifest struct {
	Filters []struct {
		Index int    `json:"index"`
		File  string `json:"file"`
	} `json:"filters"`
}

// openStackDir reads a directory written by inspect --save: the files
// manifest.json lists in index order, else filter-*.bpf sorted by name.
func openStackDir(dir string) (filters.Stack, error) {
	var files []string
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	switch {
	case err == nil:
		var m savedManifest
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, "manifest.json"), err)
		}
		sort.Slice(m.Filters, func(i, j int) bool { return m.Filters[i].Index < m.Filters[j].Index })
		for _, f := range m.Filters {
			files = append(files, filepath.Join(dir, f.File))
		}
	case errors.Is(err, fs.ErrNotExist):
		files, err = filepath.Glob(filepath.Join(dir, "filter-*.bpf"))
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		sort.Strings(files)
	default:
		return nil, fmt.Errorf("read stack directory: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("read stack directory %s: no manifest.json and no filter-*.bpf files (as inspect --save writes them)", dir)
	}
	var s filters.Stack
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read stack directory: %w", err)
		}
		p, err := filters.ParseRaw(f, data)
		if err != nil {
			return nil, err
		}
		s = append(s, p)
	}
	return s, nil
}

// builtSummary describes a merged or optimized program next to its input,
// for the summary and --format json. Paths are instructions executed, all
// arguments 0, over every named syscall of x86_64, i386 and x32.
type builtSummary struct {
	Command            string  `json:"command"`
	Filters            int     `json:"filters"`
	InstructionsBefore int     `json:"instructions_before"`
	Instructions       int     `json:"instructions"`
	Equivalent         bool    `json:"equivalent"`
	InputClasses       int     `json:"input_classes"`
	MeanPathBefore     float64 `json:"mean_path_before"`
	MeanPathAfter      float64 `json:"mean_path_after"`
	// Weighted paths are the profile-weighted means (optimize --profile).
	WeightedPathBefore float64                `json:"weighted_path_before,omitempty"`
	WeightedPathAfter  float64                `json:"weighted_path_after,omitempty"`
	CacheLost          []optimize.CacheChange `json:"cache_lost"`
	CacheGained        []optimize.CacheChange `json:"cache_gained"`
	Longer             []optimize.CacheChange `json:"longer,omitempty"`
	Program            []compileJSONInsn      `json:"program,omitempty"`
	Passes             []string               `json:"passes,omitempty"`
	Profile            string                 `json:"profile,omitempty"`
}

func summarize(s filters.Stack, res *optimize.Result, prof *filters.Profile) (*builtSummary, error) {
	sum := &builtSummary{Filters: len(s), Instructions: res.Program.Len(), Equivalent: res.Check.Equivalent,
		InputClasses: res.Check.Paths, CacheLost: res.CacheLost, CacheGained: res.CacheGained, Longer: res.Longer, Passes: res.Passes}
	if sum.CacheLost == nil {
		sum.CacheLost = []optimize.CacheChange{}
	}
	if sum.CacheGained == nil {
		sum.CacheGained = []optimize.CacheChange{}
	}
	for _, p := range s {
		sum.InstructionsBefore += p.Len()
	}
	var err error
	if sum.MeanPathBefore, err = meanPath(s); err != nil {
		return nil, err
	}
	if sum.MeanPathAfter, err = meanPath(filters.Stack{res.Program}); err != nil {
		return nil, err
	}
	if prof != nil {
		sum.Profile = prof.Source
		if sum.WeightedPathBefore, err = weightedPath(s, prof); err != nil {
			return nil, err
		}
		if sum.WeightedPathAfter, err = weightedPath(filters.Stack{res.Program}, prof); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// meanPath is the mean number of instructions the stack executes over
// every named syscall of the x86 ABIs, arguments 0, cache ignored.
func meanPath(s filters.Stack) (float64, error) {
	costs, err := filters.Analyze(s, nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range costs {
		n += c.Executed
	}
	return float64(n) / float64(len(costs)), nil
}

// weightedPath is the call-weighted mean of instructions executed over the
// profile's known syscalls.
func weightedPath(s filters.Stack, prof *filters.Profile) (float64, error) {
	costs, err := filters.EvaluateProfile(s, prof)
	if err != nil {
		return 0, err
	}
	var sum, n float64
	for _, c := range costs {
		if c.Known {
			sum += float64(c.Calls) * float64(c.Cost.Executed)
			n += float64(c.Calls)
		}
	}
	if n == 0 {
		return 0, nil
	}
	return sum / n, nil
}

// writeBuilt writes the program to output (stdout when "") in format.
func writeBuilt(ios *IOStreams, output, format string, p *filters.Program, sum *builtSummary) error {
	render := func(w io.Writer) error {
		switch format {
		case "raw":
			_, err := w.Write(p.Bytes())
			return err
		case "json":
			for _, l := range filters.Disassemble(p, filters.ArchX86_64) {
				sum.Program = append(sum.Program, compileJSONInsn{Line: l.PC, Op: l.Raw.Op, Jt: l.Raw.Jt, Jf: l.Raw.Jf, K: l.Raw.K,
					Text: l.Text, Comment: l.Comment, Targets: l.Targets})
			}
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(sum)
		}
		return filters.FormatText(w, p)
	}
	if output == "" {
		if err := render(ios.Out); err != nil {
			return fmt.Errorf("write filter: %w", err)
		}
		return nil
	}
	return writeFileAtomic(output, render)
}

// writeSummary prints what was built and checked, for people.
func writeSummary(w io.Writer, desc string, sum *builtSummary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d filter(s), %d instructions -> 1 filter, %d instructions; proven equivalent over %d input classes\n",
		desc, sum.Filters, sum.InstructionsBefore, sum.Instructions, sum.InputClasses)
	fmt.Fprintf(&b, "mean path over every x86_64/i386/x32 syscall (args 0): %.2f -> %.2f instructions\n", sum.MeanPathBefore, sum.MeanPathAfter)
	if sum.Profile != "" {
		fmt.Fprintf(&b, "profile-weighted mean path (%s): %.2f -> %.2f instructions\n", sum.Profile, sum.WeightedPathBefore, sum.WeightedPathAfter)
	}
	list := func(what string, cs []optimize.CacheChange) {
		if len(cs) == 0 {
			fmt.Fprintf(&b, "%s: none\n", what)
			return
		}
		names := make([]string, 0, len(cs))
		for _, c := range cs {
			n := c.Name
			if n == "" {
				n = fmt.Sprint(c.Nr)
			}
			names = append(names, c.Arch+"/"+n)
		}
		if len(names) > 12 {
			names = append(names[:12], fmt.Sprintf("... (%d in all)", len(cs)))
		}
		fmt.Fprintf(&b, "%s (%d): %s\n", what, len(cs), strings.Join(names, " "))
	}
	list("action cache lost (cached before, not after)", sum.CacheLost)
	list("action cache gained", sum.CacheGained)
	if sum.Command == "optimize" && sum.Profile == "" {
		list("syscalls with a longer path than the input", sum.Longer)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}
