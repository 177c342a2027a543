#!/bin/sh
# top-serve-soak: `seccompbench top --serve` watching a Python HTTP server
# under a client loop and getppid loops under a known stack for
# $SOAK_S seconds (default 300), scraped by Debian's prometheus on
# loopback; then the PromQL of docs/fleet.md, the exporter's own cost, the
# series count, and the known stack's seccomp ns per call in Prometheus
# against `run`'s 16 − 0 filter cell (docs/fleet.md, "Checking the
# exporter"). Root, from the repository root, on a quiet machine, with
# cgroup v2 mounted (at /sys/fs/cgroup or /sys/fs/cgroup/unified):
#
#   sh docs/bench/top-serve-soak.sh WORKDIR
#
# The getppid loops ($LOOPS, default 1, each under its own freshly loaded
# 16 × docker-default, cache defeated) run on CPU 1 and go in one cgroup;
# the web server (16 × docker-default as installed) and its client run on
# CPU 0, the server in another cgroup, so each is one group in the
# exposition. More than one loop on CPU 1 time-shares it, and the filters
# then run colder than in run's cell (3 loops gave 2.8× run's figure).
set -eu
work=${1:?usage: top-serve-soak.sh WORKDIR}
SOAK_S=${SOAK_S:-300}
LOOPS=${LOOPS:-1}
mkdir -p "$work/www" "$work/prom"
repo=$(pwd)
sb=$work/seccompbench
go build -o "$sb" ./cmd/seccompbench
gcc -O2 -static -o "$work/top-wrap" docs/bench/top-wrap.c
gcc -O2 -static -o "$work/top-loop" docs/bench/top-loop.c
"$sb" compile docker-default --format raw >"$work/dd.bpf"
head -c 20000 /dev/urandom >"$work/www/f.bin"
cg=/sys/fs/cgroup
[ -f $cg/cgroup.procs ] && [ ! -d $cg/unified ] || cg=/sys/fs/cgroup/unified
mkdir -p "$cg/sb-soak-loops" "$cg/sb-soak-web"
pids=""
cleanup() {
	kill $pids 2>/dev/null || true
	wait 2>/dev/null || true
	for d in sb-soak-loops sb-soak-web; do
		for p in $(cat "$cg/$d/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	done
	sleep 1
	rmdir "$cg/sb-soak-loops" "$cg/sb-soak-web" 2>/dev/null || true
}
trap cleanup EXIT
i=0
while [ $i -lt "$LOOPS" ]; do
	sh -c "echo \$\$ > $cg/sb-soak-loops/cgroup.procs; exec taskset -c 1 $work/top-wrap $work/dd.bpf 16 -- $work/top-loop 4000000000" 2>/dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
sh -c "echo \$\$ > $cg/sb-soak-web/cgroup.procs; exec taskset -c 0 $work/top-wrap $work/dd.bpf 16 --cache on -- python3 -m http.server 8820 --bind 127.0.0.1 --directory $work/www" >/dev/null 2>&1 &
pids="$pids $!"
sleep 2
taskset -c 0 python3 "$repo/docs/bench/top-client.py" 8820 $((SOAK_S + 40)) >/dev/null &
pids="$pids $!"
"$sb" -q top --all --serve 127.0.0.1:9464 &
exporter=$!
pids="$pids $exporter"
cat >"$work/prom/prometheus.yml" <<CONF
global: { scrape_interval: 10s, evaluation_interval: 10s }
scrape_configs:
  - job_name: seccompbench
    static_configs: [ { targets: ["127.0.0.1:9464"] } ]
CONF
prometheus --config.file="$work/prom/prometheus.yml" --storage.tsdb.path="$work/prom/data" \
	--web.listen-address=127.0.0.1:9091 >"$work/prom/log" 2>&1 &
pids="$pids $!"
t0=$(date +%s)
sleep "$SOAK_S"
q() { curl -s --get --data-urlencode "query=$1" http://127.0.0.1:9091/api/v1/query; }
{
	echo "exporter CPU, share of one CPU over the soak:"
	q "rate(seccompbench_exporter_cpu_seconds_total[$((SOAK_S - 30))s])"
	echo; echo "counter: duty, overhead (mean and worst window over the soak), cost per call (s):"
	q 'seccompbench_exporter_call_count_duty_ratio'; echo
	q "avg_over_time(seccompbench_exporter_call_count_overhead_ratio[$((SOAK_S - 30))s])"; echo
	q "max_over_time(seccompbench_exporter_call_count_overhead_ratio[$((SOAK_S - 30))s])"; echo
	q 'seccompbench_exporter_call_count_cost_seconds'; echo
	echo "top 10 workloads by seccomp seconds:"
	q 'topk(10, rate(seccompbench_workload_seccomp_seconds_total[2m]))'; echo
	echo "seccomp share by node kernel:"
	q 'sum by (kernel) (rate(seccompbench_workload_seccomp_seconds_total[2m]) * on(instance) group_left(kernel) seccompbench_node_info) / sum by (kernel) (rate(seccompbench_workload_cpu_seconds_total[2m]) * on(instance) group_left(kernel) seccompbench_node_info)'; echo
	echo "seccomp ns per call per workload:"
	q '1e9 * rate(seccompbench_workload_seccomp_seconds_total[2m]) / rate(seccompbench_workload_syscalls_total[2m])'; echo
	echo "series:"
	q 'count({__name__=~"seccompbench_.*"})'; echo
} >"$work/promql.txt"
kill $pids 2>/dev/null || true
wait 2>/dev/null || true
echo "soak $(($(date +%s) - t0)) s; PromQL answers in $work/promql.txt"
"$sb" -q run "$work/dd.bpf" --filters 0,16 --syscall getppid --cache defeat --format json -o "$work/run.json"
python3 - "$work/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = {r["filters"]: r for r in d["results"] if r["variant"] == "defeat"}
r = cells[16]
print("run: 16 - 0 filters, getppid, defeated: %+.1f ns [%+.1f, %+.1f]" % (r["overhead_ns"], r["overhead_ci_low_ns"], r["overhead_ci_high_ns"]))
PY
