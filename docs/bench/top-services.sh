#!/bin/sh
# top-services: hold `seccompbench top` to independent figures on real
# services (docs/top.md, "Checking top on services"). Root, from the
# repository root, on a quiet machine:
#
#   sh docs/bench/top-services.sh WORKDIR [SERVICE...]
#
# SERVICE is threaded (python3 -m http.server: a thread per request),
# eventloop (nginx, one process, epoll) or forking (Python's
# ForkingMixIn HTTP server: a process per request, watched with
# --children); default all three. For each service and each of
# CACHE=defeat and on (as top-wrap installs it: 16 × docker-default,
# unprivileged loader):
#
# 1. A/B: the same service bare (port 8810) and under the stack (8811),
#    both pinned to CPU 1, the client (docs/bench/top-client.py) on CPU 0;
#    $BLOCKS pairs of $BLOCK_S-second blocks in random order within each
#    pair; per block the server's CPU time (utime+stime+cutime+cstime of
#    /proc/PID/stat) per request. The stack's added CPU per request is the
#    mean of the pairs' differences with a 95 % t interval.
# 2. top: `top --pid` (with --children for forking) on the stacked server
#    for $TOP_S seconds at $FREQ Hz under the same load; its seccomp time
#    per request and each resolved syscall's seccomp ns per call.
# 3. references per resolved syscall: docs/bench/top-cold.c bare and
#    under the stack, warm (no eviction) and cold (64 MiB written and 512
#    indirect calls between calls): the syscall's warm and cold added cost
#    per call. Syscalls that exit, fork, exec or signal are left out.
#
# Prints one line per row and writes WORKDIR/services.tsv.
set -eu
work=${1:?usage: top-services.sh WORKDIR [SERVICE...]}
shift
services=${*:-threaded eventloop forking}
BLOCKS=${BLOCKS:-6}
BLOCK_S=${BLOCK_S:-5}
TOP_S=${TOP_S:-30}
FREQ=${FREQ:-999}
mkdir -p "$work/www"
repo=$(pwd)
sb=$work/seccompbench
go build -o "$sb" ./cmd/seccompbench
gcc -O2 -static -o "$work/top-wrap" docs/bench/top-wrap.c
gcc -O2 -static -o "$work/top-cold" docs/bench/top-cold.c
"$sb" compile docker-default --format raw >"$work/dd.bpf"
head -c 20000 /dev/urandom >"$work/www/f.bin"
client="python3 $repo/docs/bench/top-client.py"

start_service() { # SERVICE PORT WRAP... -> pid on stdout
	svc=$1 port=$2
	shift 2
	case $svc in
	threaded)
		taskset -c 1 "$@" python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/www" >/dev/null 2>&1 &
		;;
	forking)
		taskset -c 1 "$@" python3 -c '
import functools, http.server, socketserver, sys
class S(socketserver.ForkingMixIn, http.server.HTTPServer): pass
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[2])
h.log_message = lambda *a: None
S(("127.0.0.1", int(sys.argv[1])), h).serve_forever()' "$port" "$work/www" >/dev/null 2>&1 &
		;;
	eventloop)
		mkdir -p "$work/nginx$port"
		cat >"$work/nginx$port/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1; pid $work/nginx$port/pid;
error_log stderr crit;
events { worker_connections 256; }
http { access_log off; server { listen 127.0.0.1:$port; root $work/www; } }
CONF
		taskset -c 1 "$@" nginx -p "$work/nginx$port" -c "$work/nginx$port/nginx.conf" >/dev/null 2>&1 &
		;;
	esac
	sleep 2
	# the service's process: the newest with the port in its command line, or nginx's
	case $svc in
	eventloop) cat "$work/nginx$port/pid" ;;
	*) pgrep -n -f "$port" ;;
	esac
}

cpu_ticks() { # PID -> utime+stime+cutime+cstime in clock ticks
	awk '{ sub(/.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$1/stat"
}

block() { # PID PORT -> "requests ns_per_request"
	c0=$(cpu_ticks "$1")
	out=$(taskset -c 0 $client "$2" "$BLOCK_S")
	c1=$(cpu_ticks "$1")
	echo "$out" | awk -v c0="$c0" -v c1="$c1" -v hz="$(getconf CLK_TCK)" '{ printf "%d %.1f\n", $1, (c1 - c0) * 1e9 / hz / $1 }'
}

meanci() { # stdin: one value per line -> "mean lo hi n"
	awk '{ n++; x[n] = $1; m += $1 } END { m /= n; for (i = 1; i <= n; i++) q += (x[i] - m) ^ 2
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093", t, " ")
		h = (n > 1) ? t[n - 1] * sqrt(q / (n - 1) / n) : 0; printf "%.1f %.1f %.1f %d\n", m, m - h, m + h, n }'
}

printf 'service\tcache\tab_added_ns_per_req\tab_lo\tab_hi\tab_share\ttop_seccomp_ns_per_req\ttop_lo\ttop_hi\tsyscall\tcalls\tsamples\ttop_ns_per_call\ttop_lo\ttop_hi\twarm_ns\tcold_ns\n' >"$work/services.tsv"
for svc in $services; do
	for cache in defeat on; do
		echo "== $svc, cache $cache ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
		bare=$(start_service "$svc" 8810)
		stacked=$(start_service "$svc" 8811 "$work/top-wrap" "$work/dd.bpf" 16 --cache "$cache" --)
		grep -q "Seccomp_filters:	16" "/proc/$stacked/status" || { echo "stacked $svc has no 16 filters"; exit 1; }
		taskset -c 0 $client 8810 2 >/dev/null
		taskset -c 0 $client 8811 2 >/dev/null
		: >"$work/ab"
		i=0
		while [ $i -lt "$BLOCKS" ]; do
			if [ $((($(od -An -N1 -tu1 /dev/urandom) + 0) % 2)) = 0 ]; then
				a=$(block "$bare" 8810); b=$(block "$stacked" 8811)
			else
				b=$(block "$stacked" 8811); a=$(block "$bare" 8810)
			fi
			echo "$a $b" >>"$work/ab"
			i=$((i + 1))
		done
		ab=$(awk '{ print $4 - $2 }' "$work/ab" | meanci)
		base=$(awk '{ print $2 }' "$work/ab" | meanci | cut -d' ' -f1)
		children=""
		[ "$svc" = forking ] && children=--children
		taskset -c 0 $client 8811 $((TOP_S + 4)) >"$work/toploadout" &
		loadpid=$!
		sleep 2
		"$sb" -q top --pid "$stacked" $children --duration "${TOP_S}s" --frequency "$FREQ" --format json -o "$work/top-$svc-$cache.json"
		wait $loadpid
		rate=$(awk '{ print $1 / $2 }' "$work/toploadout")
		kill "$bare" "$stacked" 2>/dev/null || true
		wait 2>/dev/null || true
		sleep 1
		python3 - "$work/top-$svc-$cache.json" "$rate" "$svc" "$cache" "$ab" "$base" "$work" >>"$work/services.tsv" <<'PY'
import json, subprocess, sys
doc = json.load(open(sys.argv[1]))
rate, svc, cache = float(sys.argv[2]), sys.argv[3], sys.argv[4]
ab = [float(x) for x in sys.argv[5].split()[:3]]
base, work = float(sys.argv[6]), sys.argv[7]
reqs = rate * doc["window_ns"] / 1e9
ns = sum(p["seccomp_ns"] for p in doc["processes"])
def share_ns(key):
    return sum((p[key] or 0) * p["cpu_ns"] for p in doc["processes"])
lo, hi = share_ns("seccomp_share_ci_low"), share_ns("seccomp_share_ci_high")
head = [svc, cache, "%.0f" % ab[0], "%.0f" % ab[1], "%.0f" % ab[2], "%.4f" % (ab[0] / base), "%.0f" % (ns / reqs), "%.0f" % (lo / reqs), "%.0f" % (hi / reqs)]
skip = {"exit", "exit_group", "rt_sigreturn", "clone", "fork", "vfork", "execve", "execveat", "kill", "tkill", "tgkill", "pause", "wait4", "waitid"}
rows = {}
for p in doc["processes"]:
    for s in p["syscalls"]:
        if s["resolved"] and s["name"] not in skip:
            rows.setdefault(s["name"], s)
def added(nr, evict, n):
    def once(wrap):
        out = subprocess.run(["taskset", "-c", "1"] + wrap + [work + "/top-cold", str(nr), str(n), str(evict), "-1"], capture_output=True, text=True).stdout
        return float(out.split()[2])
    return once([work + "/top-wrap", work + "/dd.bpf", "16", "--cache", cache, "--"]) - once([])
printed = False
for name, s in sorted(rows.items(), key=lambda kv: -kv[1]["samples"])[:8]:
    warm, cold = added(s["nr"], 0, 200000), added(s["nr"], 65536, 1500)
    print("\t".join(head + [name, "%.0f" % s["calls"], str(s["samples"]), "%.0f" % s["seccomp_ns_per_call"], "%.0f" % s["seccomp_ns_per_call_ci_low"], "%.0f" % s["seccomp_ns_per_call_ci_high"], "%.0f" % warm, "%.0f" % cold]))
    printed = True
if not printed:
    print("\t".join(head + ["-"] * 8))
PY
		tail -n +2 "$work/services.tsv" | grep "^$svc	$cache" | column -t -s '	'
	done
done
