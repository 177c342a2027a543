// Package inspect reads the seccomp filters of running processes through
// runner, parses and analyzes the dumped stacks with the emulator, and
// saves them as raw BPF files: the pipeline of `seccompbench inspect` and
// of `run --pid`.
package inspect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/jitcost"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/inspect"
	"github.com/seccompbench/seccompbench/runner/jit"
)

// ErrInspect is returned when some explicitly named process could not be
// inspected; the output still covers the others.
var ErrInspect = errors.New("some processes could not be inspected")

// Options say which processes to inspect and how.
type Options struct {
	Pids     []int
	All      bool
	Disasm   bool
	Save     string // directory for raw filters and a manifest, "" for none
	Syscalls []string
	Now      func() time.Time

	// Inspect reads one process (inspect.InspectProcess unless a test
	// replaces it); ListPids lists processes for All.
	Inspect  func(pid int) (inspect.ProcessFilters, error)
	ListPids func() ([]int, error)
}

// Process is one inspected process: its report entry and the parsed stack.
type Process struct {
	Report *document.InspectProcess
	Stack  filters.Stack
}

// Collection is what Collect found.
type Collection struct {
	Processes []Process
	// Skipped counts processes of All without seccomp (or unreadable).
	Skipped int
	// Failed counts explicitly named processes that could not be
	// inspected, out of Tried.
	Failed, Tried int
}

// Reports returns the report entries of c's processes.
func (c *Collection) Reports() []*document.InspectProcess {
	var out []*document.InspectProcess
	for _, p := range c.Processes {
		out = append(out, p.Report)
	}
	return out
}

// Err is nil, or wraps ErrInspect when some named process failed.
func (c *Collection) Err() error {
	if c.Failed > 0 {
		return fmt.Errorf("%w: %d of %d", ErrInspect, c.Failed, c.Tried)
	}
	return nil
}

// Collect inspects opts.Pids (or, with All, every process in seccomp mode
// but this one), analyzing each stack and saving it under opts.Save. A
// process named explicitly that cannot be read is listed with its error;
// with All it is skipped. Errors are only those of saving.
func Collect(opts *Options) (*Collection, error) {
	pids := opts.Pids
	explicit := !opts.All
	if opts.All {
		all, err := opts.ListPids()
		if err != nil {
			return nil, err
		}
		self := os.Getpid()
		for _, p := range all {
			if p != self {
				pids = append(pids, p)
			}
		}
	}
	c := &Collection{Tried: len(pids)}
	for _, pid := range pids {
		pf, err := opts.Inspect(pid)
		if err != nil {
			if explicit {
				c.Failed++
				c.Processes = append(c.Processes, Process{Report: &document.InspectProcess{Pid: pid, SeccompMode: -1, Error: err.Error()}})
			}
			continue
		}
		if opts.All && pf.SeccompMode <= 0 {
			c.Skipped++
			continue
		}
		p := Analyze(pf, opts.Disasm, opts.Syscalls)
		if p.Report.Error != "" && explicit {
			c.Failed++
		}
		if opts.Save != "" && p.Report.Error == "" && len(p.Stack) > 0 {
			dir := opts.Save
			if len(pids) > 1 {
				dir = filepath.Join(dir, strconv.Itoa(pid))
			}
			if err := Save(dir, p, opts.Now()); err != nil {
				return nil, err
			}
			p.Report.Saved = dir
		}
		c.Processes = append(c.Processes, p)
	}
	return c, nil
}

// Analyze turns a runner result into the report form, parsing and
// analyzing the dumped stack; a failure is recorded in Report.Error.
func Analyze(pf inspect.ProcessFilters, disasm bool, syscalls []string) Process {
	j := &document.InspectProcess{Pid: pf.Pid, Name: pf.Name, Cmdline: pf.Cmdline, State: pf.State,
		SeccompMode: pf.SeccompMode, NoNewPrivs: pf.NoNewPrivs, SeccompFilters: pf.SeccompFilters,
		Filters: []document.InspectFilter{}, Groups: []document.InspectGroup{}}
	if pf.DumpErr != nil {
		j.Error = pf.DumpErr.Error()
		return Process{Report: j}
	}
	stack, err := DumpedStack(pf)
	if err != nil {
		j.Error = err.Error()
		return Process{Report: j}
	}
	groups := analysis.GroupFilters(stack)
	groupOf := map[string]int{}
	for g, gr := range groups {
		groupOf[gr.SHA256] = g
		gj := document.InspectGroup{SHA256: gr.SHA256, Instructions: gr.Instructions, Count: len(gr.Indexes), Indexes: gr.Indexes}
		if disasm {
			var b strings.Builder
			filters.FormatText(&b, stack[gr.Indexes[0]])
			gj.Disasm = b.String()
		}
		j.Groups = append(j.Groups, gj)
	}
	ji := jit.ReadJITInfo()
	jf := jitcost.Model(stack, ji.Kernel)
	for i, p := range stack {
		h := p.SHA256()
		j.Filters = append(j.Filters, document.InspectFilter{Index: i, Instructions: p.Len(), SHA256: h, Group: groupOf[h], JITBytes: jf.PerFilter[i]})
	}
	if len(stack) > 0 {
		// Modelled from each filter's size: the process's own charge is
		// not readable (classic programs have no BPF ID or kallsyms entry).
		j.JIT = jitcost.Estimate(jf, ji.Limit)
	}
	if len(stack) > 0 {
		a, err := analyzeStack(stack, syscalls)
		if err != nil {
			j.Error = err.Error()
			return Process{Report: j, Stack: stack}
		}
		j.Analysis = a
	}
	return Process{Report: j, Stack: stack}
}

// DumpedStack parses the dumped filters (validated as the kernel would)
// into a stack, index 0 = oldest.
func DumpedStack(pf inspect.ProcessFilters) (filters.Stack, error) {
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

// analyzeStack counts the cached syscalls per ABI of this machine's kernel,
// finds the most expensive uncached syscall of the native ABI
// (cmdutil.NativeArch) and costs the chosen syscalls.
func analyzeStack(stack filters.Stack, syscalls []string) (*document.InspectAnalysis, error) {
	a := &document.InspectAnalysis{PathLength: stack.PathLength()}
	native := cmdutil.NativeArch()
	costs, err := analysis.Analyze(stack, filters.KernelArches(native))
	if err != nil {
		return nil, fmt.Errorf("analyze dumped stack: %w", err)
	}
	byName := map[string]analysis.SyscallCost{}
	counts := map[string]*document.InspectCache{}
	var order []string
	for _, c := range costs {
		cj, ok := counts[c.Arch]
		if !ok {
			cj = &document.InspectCache{Arch: c.Arch}
			counts[c.Arch] = cj
			order = append(order, c.Arch)
		}
		cj.Total++
		if c.Cached {
			cj.Cached++
		}
		if c.Arch == native.Name {
			byName[c.Name] = c
			if !c.Cached && c.Action == filters.ActionAllow && (a.MaxUncached == nil || c.Executed > a.MaxUncached.Instructions) {
				s := syscallEntry(c)
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
			nr, err := analysis.LookupSyscall(native, name)
			if err != nil {
				return nil, err
			}
			if c, err = analysis.AnalyzeSyscall(stack, native, nr); err != nil {
				return nil, err
			}
		}
		a.Syscalls = append(a.Syscalls, syscallEntry(c))
	}
	return a, nil
}

func syscallEntry(c analysis.SyscallCost) document.InspectSyscall {
	name := c.Name
	if name == "" {
		name = strconv.Itoa(c.Nr)
	}
	return document.InspectSyscall{Name: name, Nr: c.Nr, Arch: c.Arch, Action: c.Action.String(), Cached: c.Cached, Instructions: c.Executed}
}
