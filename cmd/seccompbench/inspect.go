package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdInspect(f, nil) })
}

// InspectOptions are the flags and arguments of `seccompbench inspect`.
type InspectOptions struct {
	IO  *IOStreams
	Now func() time.Time

	Pids     []int
	All      bool
	Disasm   bool
	Format   string // table or json
	Save     string // directory for raw filters and a manifest, "" for none
	Syscalls []string

	// Inspect reads one process (runner.InspectProcess unless a test
	// replaces it); ListPids lists processes for --all.
	Inspect  func(pid int) (runner.ProcessFilters, error)
	ListPids func() ([]int, error)
}

// defaultInspectSyscalls are the syscalls whose cost inspect shows: the
// ones a typical service makes most.
var defaultInspectSyscalls = []string{"read", "write", "openat", "close", "newfstatat", "mmap", "futex", "epoll_wait", "recvfrom", "sendto", "getpid"}

// NewCmdInspect builds `seccompbench inspect`. runF, if not nil, replaces
// inspectRun (tests use it to check flag parsing).
func NewCmdInspect(f *Factory, runF func(*InspectOptions) error) *cobra.Command {
	opts := &InspectOptions{IO: f.IO, Now: f.Now, Inspect: runner.InspectProcess, ListPids: runner.ListPids}
	var syscalls string
	cmd := &cobra.Command{
		Use:   "inspect (PID... | --all)",
		Short: "Show the seccomp filters a running process has, and what they cost",
		Long: `Read a running process's seccomp state from /proc/PID/status (mode,
no_new_privs, number of filters) and, with CAP_SYS_ADMIN, dump every filter
with ptrace(PTRACE_SECCOMP_GET_FILTER). The process is attached with
PTRACE_SEIZE (no signal is sent), stopped for the dump only, and always
detached, also on errors.

Filters are listed oldest first (index 0 = installed first). Identical
filters, as a service manager installs per directive and per architecture,
are grouped by SHA-256. The stack is then analyzed through the emulator:
how many syscalls the kernel's action cache serves without running any
filter, and the verdict and instructions executed for common syscalls
(all arguments 0).

--save DIR writes each filter as a raw BPF file (filter-00.bpf, ... oldest
first), loadable by every command that takes a POLICY, and manifest.json
with the order, hashes, PID and command line; run --pid PID measures the
dumped stack directly.

Dumping fails with EACCES without CAP_SYS_ADMIN or when seccompbench itself
runs under seccomp (as in most containers), with EPERM when ptrace is not
permitted (Yama ptrace_scope, another tracer), and with EINVAL or EMEDIUMTYPE
on kernels without CONFIG_CHECKPOINT_RESTORE.`,
		Example: `  seccompbench inspect 1234
  seccompbench inspect --all
  seccompbench inspect 1234 --disasm --format json
  seccompbench inspect 1234 --save stack/
  seccompbench run stack/filter-*.bpf --filters 0,1,2,4`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !opts.All {
				return flagErrorf("give PIDs or --all")
			}
			if len(args) > 0 && opts.All {
				return flagErrorf("give PIDs or --all, not both")
			}
			opts.Pids = nil
			for _, a := range args {
				pid, err := strconv.Atoi(a)
				if err != nil || pid <= 0 {
					return flagErrorf("%q is not a PID", a)
				}
				opts.Pids = append(opts.Pids, pid)
			}
			switch opts.Format {
			case "table", "json":
			default:
				return flagErrorf("--format: %q is not table or json", opts.Format)
			}
			opts.Syscalls = defaultInspectSyscalls
			if syscalls != "" {
				opts.Syscalls = strings.Split(syscalls, ",")
				for _, s := range opts.Syscalls {
					if _, err := analysis.LookupSyscall(filters.ArchX86_64, s); err != nil {
						return &FlagError{Err: fmt.Errorf("--syscalls: %w", err)}
					}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return inspectRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.All, "all", false, "inspect every process in seccomp mode that this user may read")
	fl.BoolVar(&opts.Disasm, "disasm", false, "print the disassembly of each distinct filter")
	fl.StringVar(&opts.Format, "format", "table", "output format: table or json")
	fl.StringVar(&opts.Save, "save", "", "write the filters as raw BPF plus manifest.json into `DIR` (DIR/PID/ for several processes)")
	fl.StringVar(&syscalls, "syscalls", "", "comma-separated x86_64 syscalls to show the cost of (default: common ones)")
	return cmd
}

// inspectFilterJSON is one filter in `inspect --format json` (keys fixed by
// DESIGN.md: index, instructions, sha256; index 0 = oldest).
type inspectFilterJSON struct {
	Index        int    `json:"index"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
	// Group is the index into groups of the filter's content.
	Group int `json:"group"`
}

type inspectGroupJSON struct {
	SHA256       string `json:"sha256"`
	Instructions int    `json:"instructions"`
	Count        int    `json:"count"`
	Indexes      []int  `json:"indexes"`
	Disasm       string `json:"disasm,omitempty"`
}

type inspectCacheJSON struct {
	Arch   string `json:"arch"`
	Cached int    `json:"cached"`
	Total  int    `json:"total"`
}

type inspectSyscallJSON struct {
	Name         string `json:"name"`
	Nr           int    `json:"nr"`
	Arch         string `json:"arch"`
	Action       string `json:"action"`
	Cached       bool   `json:"cached"`
	Instructions int    `json:"instructions"`
}

type inspectAnalysisJSON struct {
	// PathLength is the stack's sum of (converted eBPF len + 4, but the
	// newest) instructions (filters.Stack.PathLength) against
	// MAX_INSNS_PER_PATH (32768).
	PathLength int                  `json:"path_length"`
	Cache      []inspectCacheJSON   `json:"cache"`
	Syscalls   []inspectSyscallJSON `json:"syscalls"`
	// MaxUncached is the uncached x86_64 syscall that executes the most
	// instructions (all arguments 0), if any.
	MaxUncached *inspectSyscallJSON `json:"max_uncached,omitempty"`
}

// inspectJSON is one process in `inspect --format json` (keys fixed by
// DESIGN.md: pid, seccomp_mode, filters).
type inspectJSON struct {
	Pid            int                  `json:"pid"`
	Name           string               `json:"name"`
	Cmdline        []string             `json:"cmdline"`
	State          string               `json:"state"`
	SeccompMode    int                  `json:"seccomp_mode"`
	NoNewPrivs     int                  `json:"no_new_privs"`
	SeccompFilters int                  `json:"seccomp_filters"`
	Filters        []inspectFilterJSON  `json:"filters"`
	Groups         []inspectGroupJSON   `json:"groups"`
	Analysis       *inspectAnalysisJSON `json:"analysis,omitempty"`
	Saved          string               `json:"saved,omitempty"`
	Error          string               `json:"error,omitempty"`

	stack filters.Stack
}

// errInspect is returned when some explicitly named process could not be
// inspected; the output still covers the others.
var errInspect = errors.New("some processes could not be inspected")

func inspectRun(opts *InspectOptions) error {
	pids := opts.Pids
	explicit := !opts.All
	if opts.All {
		all, err := opts.ListPids()
		if err != nil {
			return err
		}
		self := os.Getpid()
		for _, p := range all {
			if p != self {
				pids = append(pids, p)
			}
		}
	}
	var out []*inspectJSON
	failed, skipped := 0, 0
	for _, pid := range pids {
		pf, err := opts.Inspect(pid)
		if err != nil {
			if explicit {
				failed++
				out = append(out, &inspectJSON{Pid: pid, SeccompMode: -1, Error: err.Error()})
			}
			continue
		}
		if opts.All && pf.SeccompMode <= 0 {
			skipped++
			continue
		}
		j := inspectProcess(pf, opts)
		if j.Error != "" && explicit {
			failed++
		}
		if opts.Save != "" && j.Error == "" && len(j.stack) > 0 {
			dir := opts.Save
			if len(pids) > 1 {
				dir = filepath.Join(dir, strconv.Itoa(pid))
			}
			if err := saveStack(dir, j, opts.Now()); err != nil {
				return err
			}
			j.Saved = dir
		}
		out = append(out, j)
	}
	if opts.Format == "json" {
		if out == nil {
			out = []*inspectJSON{}
		}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		for i, j := range out {
			if i > 0 {
				fmt.Fprintln(opts.IO.Out)
			}
			writeInspectText(opts.IO.Out, j, opts.Disasm)
		}
		if opts.All {
			fmt.Fprintf(opts.IO.Out, "\n%d processes in seccomp mode; %d others without seccomp (or unreadable) not shown\n", len(out), skipped)
		}
	}
	for _, j := range out {
		if j.Saved != "" {
			fmt.Fprintf(opts.IO.ErrOut, "saved %d filters of pid %d to %s\n", len(j.stack), j.Pid, j.Saved)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%w: %d of %d", errInspect, failed, len(pids))
	}
	return nil
}

// inspectProcess turns a runner result into the JSON form, parsing and
// analyzing the dumped stack.
func inspectProcess(pf runner.ProcessFilters, opts *InspectOptions) *inspectJSON {
	j := &inspectJSON{Pid: pf.Pid, Name: pf.Name, Cmdline: pf.Cmdline, State: pf.State,
		SeccompMode: pf.SeccompMode, NoNewPrivs: pf.NoNewPrivs, SeccompFilters: pf.SeccompFilters,
		Filters: []inspectFilterJSON{}, Groups: []inspectGroupJSON{}}
	if pf.DumpErr != nil {
		j.Error = pf.DumpErr.Error()
		return j
	}
	stack, err := dumpedStack(pf)
	if err != nil {
		j.Error = err.Error()
		return j
	}
	j.stack = stack
	groups := analysis.GroupFilters(stack)
	groupOf := map[string]int{}
	for g, gr := range groups {
		groupOf[gr.SHA256] = g
		gj := inspectGroupJSON{SHA256: gr.SHA256, Instructions: gr.Instructions, Count: len(gr.Indexes), Indexes: gr.Indexes}
		if opts.Disasm {
			var b strings.Builder
			filters.FormatText(&b, stack[gr.Indexes[0]])
			gj.Disasm = b.String()
		}
		j.Groups = append(j.Groups, gj)
	}
	for i, p := range stack {
		h := p.SHA256()
		j.Filters = append(j.Filters, inspectFilterJSON{Index: i, Instructions: p.Len(), SHA256: h, Group: groupOf[h]})
	}
	if len(stack) > 0 {
		a, err := analyzeInspected(stack, opts.Syscalls)
		if err != nil {
			j.Error = err.Error()
			return j
		}
		j.Analysis = a
	}
	return j
}

// dumpedStack parses the dumped filters (validated as the kernel would)
// into a stack, index 0 = oldest.
func dumpedStack(pf runner.ProcessFilters) (filters.Stack, error) {
	var s filters.Stack
	for i, b := range pf.Filters {
		p, err := filters.ParseRaw(fmt.Sprintf("pid %d filter %d", pf.Pid, i), b)
		if err != nil {
			return nil, fmt.Errorf("parse dumped filter: %w", err)
		}
		p.Name = fmt.Sprintf("pid%d-filter-%02d", pf.Pid, i)
		s = append(s, p)
	}
	return s, nil
}

func analyzeInspected(stack filters.Stack, syscalls []string) (*inspectAnalysisJSON, error) {
	a := &inspectAnalysisJSON{PathLength: stack.PathLength()}
	costs, err := analysis.Analyze(stack, filters.NativeArches())
	if err != nil {
		return nil, fmt.Errorf("analyze dumped stack: %w", err)
	}
	byName := map[string]analysis.SyscallCost{}
	counts := map[string]*inspectCacheJSON{}
	var order []string
	for _, c := range costs {
		cj, ok := counts[c.Arch]
		if !ok {
			cj = &inspectCacheJSON{Arch: c.Arch}
			counts[c.Arch] = cj
			order = append(order, c.Arch)
		}
		cj.Total++
		if c.Cached {
			cj.Cached++
		}
		if c.Arch == filters.ArchX86_64.Name {
			byName[c.Name] = c
			if !c.Cached && c.Action == filters.ActionAllow && (a.MaxUncached == nil || c.Executed > a.MaxUncached.Instructions) {
				s := syscallJSON(c)
				a.MaxUncached = &s
			}
		}
	}
	for _, arch := range order {
		a.Cache = append(a.Cache, *counts[arch])
	}
	for _, name := range syscalls {
		c, ok := byName[name]
		if !ok {
			nr, err := analysis.LookupSyscall(filters.ArchX86_64, name)
			if err != nil {
				return nil, err
			}
			if c, err = analysis.AnalyzeSyscall(stack, filters.ArchX86_64, nr); err != nil {
				return nil, err
			}
		}
		a.Syscalls = append(a.Syscalls, syscallJSON(c))
	}
	return a, nil
}

func syscallJSON(c analysis.SyscallCost) inspectSyscallJSON {
	name := c.Name
	if name == "" {
		name = strconv.Itoa(c.Nr)
	}
	return inspectSyscallJSON{Name: name, Nr: c.Nr, Arch: c.Arch, Action: c.Action.String(), Cached: c.Cached, Instructions: c.Executed}
}

func modeName(m int) string {
	switch m {
	case runner.SeccompModeDisabled:
		return "disabled"
	case runner.SeccompModeStrict:
		return "strict"
	case runner.SeccompModeFilter:
		return "filter"
	}
	return "unknown"
}

func writeInspectText(w io.Writer, j *inspectJSON, disasm bool) {
	cmdline := strings.Join(j.Cmdline, " ")
	if cmdline == "" && j.Name != "" {
		cmdline = "[" + j.Name + "]"
	}
	fmt.Fprintf(w, "%s\n", strings.TrimSpace(fmt.Sprintf("pid %d  %s", j.Pid, cmdline)))
	if j.SeccompMode < 0 && j.Error != "" {
		fmt.Fprintf(w, "  error     %s\n", j.Error)
		return
	}
	fmt.Fprintf(w, "  seccomp   %s mode (%d), no_new_privs %d, %d filters (Seccomp_filters)\n", modeName(j.SeccompMode), j.SeccompMode, j.NoNewPrivs, j.SeccompFilters)
	if j.Error != "" {
		fmt.Fprintf(w, "  error     %s\n", j.Error)
		return
	}
	if len(j.Filters) == 0 {
		return
	}
	fmt.Fprintf(w, "  stack     %d filters, %d distinct, path length %d of %d instructions (index 0 = oldest, installed first)\n",
		len(j.Filters), len(j.Groups), j.Analysis.PathLength, filters.MaxInsnsPerPath)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  GROUP\tCOUNT\tINSNS\tSHA256\tINDEXES")
	for g, gr := range j.Groups {
		fmt.Fprintf(tw, "  %d\t%d\t%d\t%s\t%s\n", g, gr.Count, gr.Instructions, gr.SHA256[:16], indexRanges(gr.Indexes))
	}
	tw.Flush()
	a := j.Analysis
	var parts []string
	for _, c := range a.Cache {
		parts = append(parts, fmt.Sprintf("%s %d/%d", c.Arch, c.Cached, c.Total))
	}
	fmt.Fprintf(w, "  cached    %s syscalls served by the action cache (no filter runs)\n", strings.Join(parts, ", "))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  SYSCALL\tVERDICT\tCACHED\tINSNS")
	for _, s := range a.Syscalls {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\n", s.Name, s.Action, yesNo(s.Cached), s.Instructions)
	}
	tw.Flush()
	if a.MaxUncached != nil {
		fmt.Fprintf(w, "  longest   uncached allowed x86_64 syscall: %s, %d instructions over the stack\n", a.MaxUncached.Name, a.MaxUncached.Instructions)
	}
	fmt.Fprintln(w, "  (INSNS: instructions the filters execute when they run, all arguments 0; a cached syscall runs none)")
	if disasm {
		for g, gr := range j.Groups {
			fmt.Fprintf(w, "\n  group %d (filters %s), sha256 %s:\n", g, indexRanges(gr.Indexes), gr.SHA256)
			for _, line := range strings.Split(strings.TrimRight(gr.Disasm, "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// indexRanges formats ascending indexes compactly: 0-3,7,9-10 (the
// filters of an inspect group, the executed lines of a simulate path).
func indexRanges(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			parts = append(parts, strconv.Itoa(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// inspectManifest is DIR/manifest.json of `inspect --save`.
type inspectManifest struct {
	Pid            int      `json:"pid"`
	Name           string   `json:"name"`
	Cmdline        []string `json:"cmdline"`
	SeccompMode    int      `json:"seccomp_mode"`
	NoNewPrivs     int      `json:"no_new_privs"`
	SeccompFilters int      `json:"seccomp_filters"`
	Captured       string   `json:"captured"`
	Kernel         string   `json:"kernel"`
	// Filters are in installation order: index 0 = oldest. Replaying
	// them in this order (run FILE...) rebuilds the stack.
	Filters []inspectSavedFilter `json:"filters"`
}

type inspectSavedFilter struct {
	Index        int    `json:"index"`
	File         string `json:"file"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
}

// saveStack writes each filter as DIR/filter-NN.bpf (raw struct sock_filter,
// little-endian, zero-padded so that a shell glob sorts them oldest first)
// and DIR/manifest.json.
func saveStack(dir string, j *inspectJSON, now time.Time) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save filters: %w", err)
	}
	width := max(2, len(strconv.Itoa(len(j.stack)-1)))
	m := inspectManifest{Pid: j.Pid, Name: j.Name, Cmdline: j.Cmdline, SeccompMode: j.SeccompMode, NoNewPrivs: j.NoNewPrivs,
		SeccompFilters: j.SeccompFilters, Captured: now.UTC().Format(time.RFC3339), Kernel: runner.CaptureEnvironment().Kernel}
	for i, p := range j.stack {
		name := fmt.Sprintf("filter-%0*d.bpf", width, i)
		if err := os.WriteFile(filepath.Join(dir, name), p.Bytes(), 0o644); err != nil {
			return fmt.Errorf("save filters: %w", err)
		}
		m.Filters = append(m.Filters, inspectSavedFilter{Index: i, File: name, Instructions: p.Len(), SHA256: p.SHA256()})
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("save manifest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("save manifest: %w", err)
	}
	return nil
}

// pidPolicies dumps the filters of process pid for `run --pid`: the stack
// exactly as installed, oldest first, each filter named after the process
// and its index, and described for the report.
func pidPolicies(pid int) ([]*filters.Program, []report.Policy, error) {
	pf, err := runner.InspectProcess(pid)
	if err != nil {
		return nil, nil, fmt.Errorf("inspect pid %d: %w", pid, err)
	}
	if pf.SeccompMode != runner.SeccompModeFilter {
		return nil, nil, fmt.Errorf("inspect pid %d: %w (Seccomp is %d)", pid, runner.ErrNoFilterMode, pf.SeccompMode)
	}
	if pf.DumpErr != nil {
		return nil, nil, pf.DumpErr
	}
	s, err := dumpedStack(pf)
	if err != nil {
		return nil, nil, err
	}
	var pols []report.Policy
	for i, p := range s {
		pols = append(pols, report.Policy{Path: fmt.Sprintf("pid %d (%s) filter %d of %d", pid, pf.Name, i, len(s)), SHA256: p.SHA256(), Instructions: p.Len()})
	}
	return s, pols, nil
}
