package exporter

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestRealPrometheus (SECCOMPBENCH_PROMETHEUS_TEST=1, root, Debian's
// prometheus, gcc; .ci/run sets it): `top --pid P --serve` watches the
// 16 × docker-default getppid loop of docs/bench (top-wrap.c, top-loop.c),
// a real Prometheus scrapes it, and its HTTP API must show the loop's
// group with 16 filters, a share inside its interval and above 0, and
// counters that only increase; `promtool check metrics` passes on the
// exposition. Correctness only: no figure here is a timing result.
func TestRealPrometheus(t *testing.T) {
	if os.Getenv("SECCOMPBENCH_PROMETHEUS_TEST") == "" || os.Geteuid() != 0 {
		t.Skip("set SECCOMPBENCH_PROMETHEUS_TEST=1 and run as root")
	}
	for _, b := range []string{"prometheus", "promtool", "gcc", "go"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed", b)
		}
	}
	dir := t.TempDir()
	sh := func(name string, args ...string) {
		t.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	root := "../../../.."
	sb := filepath.Join(dir, "seccompbench")
	sh("go", "build", "-o", sb, root+"/cmd/seccompbench")
	sh("gcc", "-O2", "-static", "-o", dir+"/top-loop", root+"/docs/bench/top-loop.c")
	sh("gcc", "-O2", "-static", "-o", dir+"/top-wrap", root+"/docs/bench/top-wrap.c")
	bpf, err := exec.Command(sb, "compile", "docker-default", "--format", "raw").Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/dd.bpf", bpf, 0o644)
	loop := exec.Command(dir+"/top-wrap", dir+"/dd.bpf", "16", "--", dir+"/top-loop", "4000000000")
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { loop.Process.Kill(); loop.Wait() }()
	port := freePort(t)
	top := exec.Command(sb, "top", "--pid", strconv.Itoa(loop.Process.Pid), "--serve", "127.0.0.1:"+port, "--refresh", "2s")
	top.Stderr = os.Stderr
	if err := top.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { top.Process.Kill(); top.Wait() }()
	pport := freePort(t)
	cfg := fmt.Sprintf("global:\n  scrape_interval: 2s\nscrape_configs:\n  - job_name: seccompbench\n    static_configs:\n      - targets: ['127.0.0.1:%s']\n", port)
	os.WriteFile(dir+"/prometheus.yml", []byte(cfg), 0o644)
	prom := exec.Command("prometheus", "--config.file="+dir+"/prometheus.yml", "--storage.tsdb.path="+dir+"/tsdb",
		"--web.listen-address=127.0.0.1:"+pport)
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { prom.Process.Kill(); prom.Wait() }()
	api := "http://127.0.0.1:" + pport
	sel := `{job="seccompbench"} and on(cgroup, stack_hash) seccompbench_workload_filters == 16`
	var first float64
	deadline := time.Now().Add(90 * time.Second)
	for ; ; time.Sleep(2 * time.Second) {
		if time.Now().After(deadline) {
			t.Fatal("no two scrapes with the loop's group within 90 s")
		}
		v, ok := query(api, "seccompbench_workload_cpu_seconds_total"+sel)
		if !ok || v <= 0 {
			continue
		}
		if first == 0 {
			first = v
			continue
		}
		if v < first {
			t.Fatalf("cpu seconds fell from %v to %v", first, v)
		}
		if v > first {
			break
		}
	}
	share, ok1 := query(api, "seccompbench_workload_seccomp_share_ratio"+sel)
	lo, ok2 := query(api, "seccompbench_workload_seccomp_share_lower_ratio"+sel)
	hi, ok3 := query(api, "seccompbench_workload_seccomp_share_upper_ratio"+sel)
	if !ok1 || !ok2 || !ok3 || !(share > 0 && lo <= share && share <= hi) {
		t.Errorf("share %v in [%v, %v] (found %v %v %v): want a positive share inside its interval", share, lo, hi, ok1, ok2, ok3)
	}
	if v, ok := query(api, `seccompbench_node_info{job="seccompbench"}`); !ok || v != 1 {
		t.Errorf("seccompbench_node_info: %v %v", v, ok)
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	check := exec.Command("promtool", "check", "metrics")
	check.Stdin = resp.Body
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// query returns the value of a one-series instant query q.
func query(api, q string) (float64, bool) {
	resp, err := http.Get(api + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || len(r.Data.Result) != 1 {
		return 0, false
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}
