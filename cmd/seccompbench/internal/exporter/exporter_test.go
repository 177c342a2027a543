package exporter

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/top"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
)

const cid = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParseCgroup(t *testing.T) {
	for _, c := range []struct{ in, pod, cid, unit string }{
		{"/kubepods/burstable/pod3f1c2a9e-8b7d-4c6e-9f00-112233445566/" + cid, "3f1c2a9e-8b7d-4c6e-9f00-112233445566", cid, ""},
		{"/kubepods/pod3f1c2a9e-8b7d-4c6e-9f00-112233445566/" + cid, "3f1c2a9e-8b7d-4c6e-9f00-112233445566", cid, ""},
		{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f1c2a9e_8b7d_4c6e_9f00_112233445566.slice/cri-containerd-" + cid + ".scope",
			"3f1c2a9e-8b7d-4c6e-9f00-112233445566", cid, ""},
		{"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod3f1c2a9e_8b7d_4c6e_9f00_112233445566.slice/crio-" + cid + ".scope",
			"3f1c2a9e-8b7d-4c6e-9f00-112233445566", cid, ""},
		{"/kubepods.slice/kubepods-pod3f1c2a9e_8b7d_4c6e_9f00_112233445566.slice/docker-" + cid + ".scope",
			"3f1c2a9e-8b7d-4c6e-9f00-112233445566", cid, ""},
		// The pod's own cgroup (the pause container's parent): no container.
		{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f1c2a9e_8b7d_4c6e_9f00_112233445566.slice", "3f1c2a9e-8b7d-4c6e-9f00-112233445566", "", ""},
		{"/system.slice/nginx.service", "", "", "nginx.service"},
		{"/user.slice/user-1000.slice/session-2.scope", "", "", ""},
		{"/", "", "", ""},
	} {
		w := ParseCgroup(c.in)
		if w.Cgroup != c.in || w.PodUID != c.pod || w.ContainerID != c.cid || w.Unit != c.unit {
			t.Errorf("ParseCgroup(%q) = %+v, want pod %q container %q unit %q", c.in, w, c.pod, c.cid, c.unit)
		}
	}
}

func TestParseProcCgroup(t *testing.T) {
	p, err := parseProcCgroup("/proc/1/cgroup", []byte("0::/system.slice/a.service\n"))
	if err != nil || p != "/system.slice/a.service" {
		t.Errorf("got %q, %v", p, err)
	}
	_, err = parseProcCgroup("/proc/1/cgroup", []byte("12:cpu:/x\n"))
	if err == nil || !strings.Contains(err.Error(), "/proc/1/cgroup") {
		t.Errorf("a v1-only file: err %v, want one naming the file", err)
	}
}

func f(v float64) *float64 { return &v }
func i(v int) *int         { return &v }

// proc is a process with cpu s of CPU time, share sh (interval ±0.01),
// calls counted and n filters hashed "h".
func proc(pid int, cpu, sh, calls float64, n int) document.TopProcess {
	p := document.TopProcess{Pid: pid, CPUNs: cpu * 1e9, SeccompNs: sh * cpu * 1e9,
		SeccompShare: f(sh), SeccompShareCILow: f(sh - 0.01), SeccompShareCIHigh: f(sh + 0.01), Filters: i(n),
		Syscalls: []document.TopSyscall{{Name: "getppid", Calls: f(calls)}}}
	for k := range n {
		p.FilterHashes = append(p.FilterHashes, document.TopFilter{Index: k, SHA256: "h"})
	}
	return p
}

func window(ps ...document.TopProcess) *document.Top {
	return &document.Top{Method: document.TopMethod{SamplingHz: 99, CountDuty: 0.02, CounterShare: f(0.5), CounterOverhead: f(0.01), CounterNsPerCall: f(230)}, Processes: ps}
}

var cgroups = map[int]string{
	1: "/kubepods/burstable/pod3f1c2a9e-8b7d-4c6e-9f00-112233445566/" + cid,
	2: "/kubepods/burstable/pod3f1c2a9e-8b7d-4c6e-9f00-112233445566/" + cid,
	3: "/system.slice/nginx.service",
	4: "/system.slice/sshd.service",
}

func newTest(n int) (*Exporter, *prometheus.Registry) {
	e := New(Config{TopN: n, Env: result.Environment{Node: "n1", Kernel: "6.1.0", CPUModel: "cpu", Vulnerabilities: map[string]string{}},
		Cgroup: func(pid int) (string, error) {
			if c, ok := cgroups[pid]; ok {
				return c, nil
			}
			return "", errors.New("gone")
		},
		SelfCPU: func() (time.Duration, error) { return 1500 * time.Millisecond, nil }})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	return e, reg
}

// TestGroupsAndCounters: two processes of one container add up to one
// group, counters accumulate over windows, the share is the window's.
func TestGroupsAndCounters(t *testing.T) {
	e, reg := newTest(10)
	e.Update(window(proc(1, 1, 0.2, 100, 16), proc(2, 1, 0.4, 50, 16), proc(3, 2, 0.1, 10, 1)))
	e.Update(window(proc(1, 1, 0.2, 100, 16), proc(2, 1, 0.4, 50, 16), proc(3, 2, 0.1, 10, 1)))
	lv := []string{cgroups[1], "3f1c2a9e-8b7d-4c6e-9f00-112233445566", cid, "", StackHash(proc(1, 0, 0, 0, 16))}
	get := func(name string, lv ...string) float64 {
		t.Helper()
		mf, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mf {
			if m.GetName() != name {
				continue
			}
		next:
			for _, s := range m.Metric {
				for _, l := range s.Label {
					if k := slices.Index(groupLabels, l.GetName()); k < 0 || l.GetValue() != lv[k] {
						continue next
					}
				}
				if s.Counter != nil {
					return s.Counter.GetValue()
				}
				return s.Gauge.GetValue()
			}
		}
		t.Fatalf("%s%q: no series", name, lv)
		return 0
	}
	if v := get("seccompbench_workload_cpu_seconds_total", lv...); v != 4 {
		t.Errorf("cpu seconds %v, want 4 (2 processes × 1 s × 2 windows)", v)
	}
	if v := get("seccompbench_workload_seccomp_seconds_total", lv...); !near(v, 1.2) {
		t.Errorf("seccomp seconds %v, want 1.2", v)
	}
	if v := get("seccompbench_workload_syscalls_total", lv...); v != 300 {
		t.Errorf("syscalls %v, want 300", v)
	}
	if v := get("seccompbench_workload_seccomp_share_ratio", lv...); !near(v, 0.3) {
		t.Errorf("share %v, want 0.3", v)
	}
	if lo, hi := get("seccompbench_workload_seccomp_share_lower_ratio", lv...), get("seccompbench_workload_seccomp_share_upper_ratio", lv...); !near(lo, 0.29) || !near(hi, 0.31) {
		t.Errorf("interval [%v, %v], want [0.29, 0.31]", lo, hi)
	}
	if v := get("seccompbench_workload_filters", lv...); v != 16 {
		t.Errorf("filters %v", v)
	}
	if v := get("seccompbench_exporter_cpu_seconds_total"); v != 1.5 {
		t.Errorf("exporter cpu %v", v)
	}
	if v := get("seccompbench_exporter_call_count_overhead_ratio"); v != 0.01 {
		t.Errorf("counter overhead %v", v)
	}
	if v := get("seccompbench_exporter_call_count_cost_seconds"); v != 230e-9 {
		t.Errorf("counter cost per call %v s, want 230 ns", v)
	}
	unit := []string{"/system.slice/nginx.service", "", "", "nginx.service", StackHash(proc(3, 0, 0, 0, 1))}
	if v := get("seccompbench_workload_cpu_seconds_total", unit...); v != 4 {
		t.Errorf("nginx cpu %v", v)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestTopNAndStale: beyond N the groups go to "other"; a group absent
// from a window loses its series.
func TestTopNAndStale(t *testing.T) {
	e, reg := newTest(1)
	e.Update(window(proc(1, 1, 0.5, 1, 1), proc(3, 1, 0.1, 1, 1), proc(4, 1, 0.2, 1, 1)))
	if n := strings.Count(expo(t, reg), "seccompbench_workload_cpu_seconds_total{"); n != 2 {
		t.Errorf("%d cpu series, want 2 (top 1 and other)", n)
	}
	exp := expo(t, reg)
	if !strings.Contains(exp, `cgroup="other"`) || strings.Contains(exp, "nginx") || !strings.Contains(exp, "pod_uid=\"3f1c2a9e") {
		t.Errorf("want the pod and other, not nginx:\n%s", exp)
	}
	if !strings.Contains(exp, `seccompbench_workload_cpu_seconds_total{cgroup="other",container_id="",pod_uid="",stack_hash="",unit=""} 2`) {
		t.Errorf("other should hold the 2 s of the two small groups:\n%s", exp)
	}
	e.Update(window(proc(3, 1, 0.1, 1, 1)))
	exp = expo(t, reg)
	if strings.Contains(exp, "pod_uid=\"3f1c2a9e") {
		t.Errorf("the pod is gone, its series should be too:\n%s", exp)
	}
}

// expo scrapes reg through Handler as Prometheus does (OpenMetrics).
func expo(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	srv := httptest.NewServer(Handler(reg))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/openmetrics-text") || !strings.HasSuffix(b.String(), "# EOF\n") {
		t.Fatalf("not OpenMetrics: %s\n%s", resp.Header.Get("Content-Type"), b.String())
	}
	return b.String()
}

// TestPromtoolCheck runs `promtool check metrics` (Debian's prometheus
// package) on the classic text exposition: names, units and HELP.
func TestPromtoolCheck(t *testing.T) {
	pt, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (apt-get install prometheus)")
	}
	e, reg := newTest(5)
	e.Update(window(proc(1, 1, 0.5, 1, 1), proc(3, 1, 0.1, 1, 1)))
	rec := httptest.NewRecorder()
	Handler(reg).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	cmd := exec.Command(pt, "check", "metrics")
	cmd.Stdin = rec.Body
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

type fakeWindows struct{ n int }

func (f *fakeWindows) Window(ctx context.Context, d time.Duration) (*document.Top, error) {
	f.n++
	if f.n == 3 {
		return nil, errors.New("boom")
	}
	return window(proc(1, 1, 0.5, 1, 1)), nil
}

func TestServeStopsOnError(t *testing.T) {
	e, _ := newTest(5)
	err := Serve(context.Background(), &fakeWindows{}, e, time.Second)
	if err == nil || err.Error() != "boom" || e.windows != 2 {
		t.Errorf("err %v after %v windows, want boom after 2", err, e.windows)
	}
}

// top.Watcher is the Windower `top --serve` uses.
var _ Windower = (*top.Watcher)(nil)
