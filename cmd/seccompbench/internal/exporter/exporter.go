package exporter

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
)

// Windower is what the exporter needs of `top`: one measured window at
// a time (top.Watcher).
type Windower interface {
	Window(ctx context.Context, d time.Duration) (*document.Top, error)
}

// OtherCgroup is the cgroup label of the bucket that sums every group
// beyond the top N.
const OtherCgroup = "other"

// DefaultTopN is the default number of target groups exported with
// their own series (--serve-top).
const DefaultTopN = 20

// Config says how the exporter groups and what it reads.
type Config struct {
	// TopN is the number of groups with their own series, ranked by
	// seccomp seconds since the exporter started; the rest add to the
	// "other" bucket. At least 1.
	TopN int
	// Cgroup returns a process's cgroup v2 path (ReadCgroup).
	Cgroup func(pid int) (string, error)
	// SelfCPU returns the exporter's own CPU time so far.
	SelfCPU func() (time.Duration, error)
	// Env is the node's environment, as `run` records it.
	Env result.Environment
}

// group is one target group's running totals.
type group struct {
	w                   Workload
	stack               string
	cpu, seccomp, calls float64 // seconds, seconds, calls since start
	share, low, high    float64 // last window
	hasShare            bool
	filters             int
	hasFilters          bool
}

// Exporter holds the metrics of the windows seen so far. It is a
// prometheus.Collector; Update and Collect may run concurrently.
type Exporter struct {
	cfg Config

	mu sync.Mutex
	// groups are every group alive in the last window, by key; other is
	// the bucket, carrying what groups outside the top N added.
	groups  map[string]*group
	other   group
	windows float64
	method  document.TopMethod
	hasWin  bool
}

// New returns an exporter with no window yet.
func New(cfg Config) *Exporter {
	cfg.TopN = max(cfg.TopN, 1)
	return &Exporter{cfg: cfg, groups: map[string]*group{}, other: group{w: Workload{Cgroup: OtherCgroup}}}
}

// StackHash is the label naming a filter stack: the first 12 hex digits
// of SHA-256 over the filters' SHA-256 hashes, oldest first; "none" for
// no filter, "unknown" when the stack could not be dumped.
func StackHash(p document.TopProcess) string {
	if len(p.FilterHashes) == 0 {
		if p.Filters != nil && *p.Filters == 0 {
			return "none"
		}
		return "unknown"
	}
	h := sha256.New()
	for _, f := range p.FilterHashes {
		h.Write([]byte(f.SHA256))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// acc is one group's figures in one window.
type acc struct {
	w                    Workload
	stack                string
	cpu, seccomp, calls  float64
	low, high, wcpu      float64
	filters              int
	hasFilters, hasShare bool
}

// groupsOf sums window t's processes per (cgroup, stack hash).
func (e *Exporter) groupsOf(t *document.Top) map[string]*acc {
	now := map[string]*acc{}
	for _, p := range t.Processes {
		cg := "unknown"
		if e.cfg.Cgroup != nil {
			if c, err := e.cfg.Cgroup(p.Pid); err == nil {
				cg = c
			}
		}
		st := StackHash(p)
		k := cg + "\x00" + st
		a := now[k]
		if a == nil {
			a = &acc{w: ParseCgroup(cg), stack: st}
			now[k] = a
		}
		a.cpu += p.CPUNs / 1e9
		a.seccomp += p.SeccompNs / 1e9
		for _, s := range p.Syscalls {
			if s.Calls != nil {
				a.calls += *s.Calls
			}
		}
		if p.SeccompShareCILow != nil && p.SeccompShareCIHigh != nil {
			// The group's interval is the CPU-weighted mean of its
			// processes' bounds: each bound's weighted mean bounds the
			// weighted share when every process's interval holds.
			a.low += *p.SeccompShareCILow * p.CPUNs
			a.high += *p.SeccompShareCIHigh * p.CPUNs
			a.wcpu += p.CPUNs
			a.hasShare = true
		}
		if p.Filters != nil {
			a.filters = max(a.filters, *p.Filters)
			a.hasFilters = true
		}
	}
	return now
}

// Update adds window t. Groups are (cgroup, stack hash); a group that had
// no process in t is dropped with its series (the pod went away), so
// Prometheus marks them stale. The groups kept are the TopN by seccomp
// seconds so far; the others' window figures go to the "other" bucket
// and their own series are dropped.
func (e *Exporter) Update(t *document.Top) {
	now := e.groupsOf(t)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.windows++
	e.method, e.hasWin = t.Method, true
	next := map[string]*group{}
	for k, a := range now {
		g := e.groups[k]
		if g == nil {
			g = &group{w: a.w, stack: a.stack}
		}
		g.cpu += a.cpu
		g.seccomp += a.seccomp
		g.calls += a.calls
		g.filters, g.hasFilters = a.filters, a.hasFilters
		g.hasShare = a.cpu > 0 && a.hasShare
		if g.hasShare {
			g.share = a.seccomp / a.cpu
			g.low, g.high = a.low/a.wcpu, a.high/a.wcpu
		}
		next[k] = g
	}
	keys := make([]string, 0, len(next))
	for k := range next {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(next[b].seccomp, next[a].seccomp), strings.Compare(a, b))
	})
	for _, k := range keys[min(len(keys), e.cfg.TopN):] {
		a := now[k]
		e.other.cpu += a.cpu
		e.other.seccomp += a.seccomp
		e.other.calls += a.calls
		delete(next, k)
	}
	e.groups = next
}

// Handler serves the metrics of reg in the OpenMetrics text format when
// the scraper asks for it (Prometheus does), else the classic text
// format.
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: promhttp.ContinueOnError})
}

var (
	groupLabels = []string{"cgroup", "pod_uid", "container_id", "unit", "stack_hash"}

	descCPU = prometheus.NewDesc("seccompbench_workload_cpu_seconds_total",
		"CPU time of the group's sampled processes (utime+stime of /proc/PID/stat over each window), in seconds.", groupLabels, nil)
	descSeccomp = prometheus.NewDesc("seccompbench_workload_seccomp_seconds_total",
		"CPU time the group spent in seccomp (entry, action cache check, filters: the share of its samples times its CPU time), in seconds.", groupLabels, nil)
	descShare = prometheus.NewDesc("seccompbench_workload_seccomp_share_ratio",
		"Share of the group's CPU time in seccomp over the last window.", groupLabels, nil)
	descShareLow = prometheus.NewDesc("seccompbench_workload_seccomp_share_lower_ratio",
		"Lower bound of the share's batch-means confidence interval over the last window (CPU-weighted over the group's processes).", groupLabels, nil)
	descShareHigh = prometheus.NewDesc("seccompbench_workload_seccomp_share_upper_ratio",
		"Upper bound of the share's batch-means confidence interval over the last window (CPU-weighted over the group's processes).", groupLabels, nil)
	descCalls = prometheus.NewDesc("seccompbench_workload_syscalls_total",
		"Syscalls of the group's processes with seccomp samples, counted while the sys_exit counter was attached and scaled to each window.", groupLabels, nil)
	descFilters = prometheus.NewDesc("seccompbench_workload_filters",
		"Filters in the stack (Seccomp_filters of /proc/PID/status, the largest in the group).", groupLabels, nil)

	descNode = prometheus.NewDesc("seccompbench_node_info",
		"The node's kernel, CPU and the mitigation and BPF JIT facts `run` records; the value is 1.",
		[]string{"node", "kernel", "cpu_model", "bpf_jit_enable", "clocksource", "cmdline_mitigations", "spectre_v2"}, nil)

	descSelfCPU = prometheus.NewDesc("seccompbench_exporter_cpu_seconds_total",
		"CPU time the exporter process used since it started, in seconds.", nil, nil)
	descWindows = prometheus.NewDesc("seccompbench_exporter_windows_total",
		"Sampling windows measured.", nil, nil)
	descDuty = prometheus.NewDesc("seccompbench_exporter_call_count_duty_ratio",
		"Share of the last window the sys_exit syscall counter was attached.", nil, nil)
	descCounterShare = prometheus.NewDesc("seccompbench_exporter_call_count_share_ratio",
		"Share of the sampled processes' CPU time spent in the syscall counter while attached (its measured per-call cost), last window.", nil, nil)
	descCounterOverhead = prometheus.NewDesc("seccompbench_exporter_call_count_overhead_ratio",
		"The counter's cost over the last window: counter share times duty.", nil, nil)
	descCounterCost = prometheus.NewDesc("seccompbench_exporter_call_count_cost_seconds",
		"CPU time the syscall counter adds to each call it counts, in seconds, measured when the exporter started (top's counter_ns_per_call).", nil, nil)
	descFrequency = prometheus.NewDesc("seccompbench_exporter_sampling_hertz",
		"cpu-clock sampling rate per CPU, in Hz.", nil, nil)
)

// Describe sends every metric's description.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCPU, descSeccomp, descShare, descShareLow, descShareHigh, descCalls, descFilters,
		descNode, descSelfCPU, descWindows, descDuty, descCounterShare, descCounterOverhead, descCounterCost, descFrequency} {
		ch <- d
	}
}

// Collect sends the current values.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	env := e.cfg.Env
	ch <- prometheus.MustNewConstMetric(descNode, prometheus.GaugeValue, 1, cmp.Or(env.Node, env.Hostname), env.Kernel, env.CPUModel,
		env.BPFJitEnable, env.Clocksource, strings.Join(env.CmdlineMitigations, " "), env.Vulnerabilities["spectre_v2"])
	if e.cfg.SelfCPU != nil {
		if c, err := e.cfg.SelfCPU(); err == nil {
			ch <- prometheus.MustNewConstMetric(descSelfCPU, prometheus.CounterValue, c.Seconds())
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(descWindows, prometheus.CounterValue, e.windows)
	if e.hasWin {
		m := e.method
		ch <- prometheus.MustNewConstMetric(descDuty, prometheus.GaugeValue, m.CountDuty)
		ch <- prometheus.MustNewConstMetric(descFrequency, prometheus.GaugeValue, float64(m.SamplingHz))
		if m.CounterShare != nil && m.CounterOverhead != nil {
			ch <- prometheus.MustNewConstMetric(descCounterShare, prometheus.GaugeValue, *m.CounterShare)
			ch <- prometheus.MustNewConstMetric(descCounterOverhead, prometheus.GaugeValue, *m.CounterOverhead)
		}
		if m.CounterNsPerCall != nil {
			ch <- prometheus.MustNewConstMetric(descCounterCost, prometheus.GaugeValue, *m.CounterNsPerCall/1e9)
		}
	}
	emit := func(g *group) {
		lv := []string{g.w.Cgroup, g.w.PodUID, g.w.ContainerID, g.w.Unit, g.stack}
		ch <- prometheus.MustNewConstMetric(descCPU, prometheus.CounterValue, g.cpu, lv...)
		ch <- prometheus.MustNewConstMetric(descSeccomp, prometheus.CounterValue, g.seccomp, lv...)
		ch <- prometheus.MustNewConstMetric(descCalls, prometheus.CounterValue, g.calls, lv...)
		if g.hasShare {
			ch <- prometheus.MustNewConstMetric(descShare, prometheus.GaugeValue, g.share, lv...)
			ch <- prometheus.MustNewConstMetric(descShareLow, prometheus.GaugeValue, g.low, lv...)
			ch <- prometheus.MustNewConstMetric(descShareHigh, prometheus.GaugeValue, g.high, lv...)
		}
		if g.hasFilters {
			ch <- prometheus.MustNewConstMetric(descFilters, prometheus.GaugeValue, float64(g.filters), lv...)
		}
	}
	for _, g := range e.groups {
		emit(g)
	}
	if e.windows > 0 {
		emit(&e.other)
	}
}

// Serve measures windows of length d from w until ctx ends, adding each
// to e. It returns ctx's cause, or the first error of a window.
func Serve(ctx context.Context, w Windower, e *Exporter, d time.Duration) error {
	for {
		t, err := w.Window(ctx, d)
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		e.Update(t)
	}
}

// Listen serves e's metrics as OpenMetrics on http://addr/metrics and
// measures windows of length d from w into e (Serve) until ctx ends,
// announcing the address on errOut. A bad or busy addr is an error
// naming --serve.
func Listen(ctx context.Context, addr string, w Windower, e *Exporter, d time.Duration, errOut io.Writer) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(reg))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--serve: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Fprintf(errOut, "serving http://%s/metrics, a window every %v\n", ln.Addr(), d)
	return Serve(ctx, w, e, d)
}
