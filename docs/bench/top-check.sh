#!/bin/sh
# top-check: the acceptance checks of `seccompbench top` (docs/top.md,
# "Checking top against run"). Run as root, from the repository root, on a
# quiet machine:
#
#   sh docs/bench/top-check.sh [WORKDIR]
#
# 1. getppid: a static C loop of 30 M getppid runs under 16 × docker-default
#    (raw filter from `compile --format raw`, action cache defeated by
#    top-wrap's ld [instruction_pointer] prologue, as run --cache defeat
#    does), in $TOP_PROCS (5) processes, each under its own freshly loaded
#    stack. `top --pid P --duration 5s` gives seccomp ns per getppid of each,
#    averaged over the processes (a filter's cost moves with where its JIT
#    image lands, and run averages over placements too); `run
#    RAW --filters 0,16 --syscall getppid --cache defeat` gives the 16-filter
#    cell minus the 0-filter cell. Pass: within ±15 %.
# 2. no filters: the same loop without filters; pass: the seccomp share's
#    interval includes 0.
# 3. find: `find /usr/share -name x` in a loop under the same stack, in
#    $TOP_PROCS loops; `top --all` sums the seccomp time of the find
#    processes per run of find, averaged over the loops;
#    `run RAW --filters 0,16 --cache defeat --workload command -- find ...`
#    (interleaved A/B blocks) gives the stack's added running cost per run.
#    Pass: within ±20 %.
# 4. overhead: one loop's own ns per getppid (its chunk log) while top is
#    attached and while it is not, alternating within that one process;
#    pass when the mean slowdown is below 3 %.
#
# Every measured process is pinned to CPU $CPU (default 1, run's measuring
# CPU). Needs gcc with static glibc, jq, taskset and Go. Prints one
# PASS/FAIL line per check and exits 1 if any failed. For a quick functional run (figures not
# for docs) shrink it: CALLS=3000000 RUN_FLAGS="--trials 3" TOP_DURATION=2s
# FIND_DURATION=4s CYCLES=2 TOP_PROCS=2. TOP_FLAGS is added to every top
# command, to check other settings the same way.
set -eu
calls=${CALLS:-30000000}
# TOP_FLAGS are added to every top command (e.g. "--frequency 99").
top_flags=${TOP_FLAGS:-}
run_flags=${RUN_FLAGS:-}
dur=${TOP_DURATION:-5s}
find_dur=${FIND_DURATION:-10s}
cycles=${CYCLES:-20}
# The CPU every measured process is pinned to: run's measuring CPU (its
# --cpu default, 1). The vCPUs of this project's VM kind ran the same loop
# at speeds 20 % apart, and an unpinned loop moves between them when top
# starts and stops.
cpu=${CPU:-1}
procs=${TOP_PROCS:-5}

work=${1:-$(mktemp -d /tmp/top-check.XXXXXX)}
mkdir -p "$work"
repo=$(pwd)
sb=$work/seccompbench
echo "work directory: $work"

go build -o "$sb" ./cmd/seccompbench
gcc -O2 -static -o "$work/top-loop" docs/bench/top-loop.c
gcc -O2 -static -o "$work/top-wrap" docs/bench/top-wrap.c
"$sb" compile docker-default --format raw >"$work/docker-default.bpf"

fail=0
verdict() { # name ok(1/0) message
	if [ "$2" = 1 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fail=1; fi
}
within() { # a b tolerance -> 1 if |a/b - 1| <= tol (0 when b is not a positive number)
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (!(b + 0 > 0) || a == "null" || a == "") { print 0; exit }
		r = a / b - 1; if (r < 0) r = -r; print (r <= t) ? 1 : 0 }'
}

# mean_ci FILE: the mean of column 1 (lines "null" left out), its 95 % t
# interval and n, and the sum of column 2: "MEAN LO HI N SUM". With fewer
# than two values the bounds are "null".
mean_ci() {
	awk '$1 != "null" && $1 != "" { n++; x[n] = $1; m += $1; r += $2 } END {
		if (n == 0) { print "null null null 0 0"; exit }
		m /= n
		if (n < 2) { printf "%.2f null null 1 %d\n", m, r; exit }
		for (i = 1; i <= n; i++) q += (x[i] - m) ^ 2
		# t quantile 0.975 for n-1 degrees of freedom (up to 29; beyond, 2.04)
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045", t, " ")
		h = (n - 1 <= 29 ? t[n - 1] : 2.04) * sqrt(q / (n - 1) / n)
		printf "%.2f %.2f %.2f %d %d\n", m, m - h, m + h, n, r }' "$1"
}

# Every background loop is recorded here and killed, with its children, on
# any exit: a failed step (set -e), an interrupt or the end.
bg=""
cleanup() {
	for p in $bg; do
		kill -9 "$p" 2>/dev/null || true
		pkill -9 -P "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

watch_loop() { # OUT.json CMD...: start CMD, run top --pid on it, stop it; sets $loop
	out=$1
	shift
	taskset -c "$cpu" "$@" 2>"$out.log" &
	loop=$!
	bg="$bg $loop"
	sleep 1
	"$sb" top --pid "$loop" --duration "$dur" --format json $top_flags -o "$out"
	kill "$loop" 2>/dev/null || true
	wait "$loop" 2>/dev/null || true
}

# --- 1. getppid under 16 filters -----------------------------------------
# $procs loop processes, each under its own freshly loaded stack: a filter's
# cost moves with where its JIT image lands (docs/methodology-kernel.md §13), and
# run averages over placements, so top's figure is averaged over processes
# too (mean, t interval over processes).
: >"$work/top16-ns.txt"
for k in $(seq "$procs"); do
	watch_loop "$work/top16-$k.json" "$work/top-wrap" "$work/docker-default.bpf" 16 -- "$work/top-loop" "$calls"
	jq '[.processes[] | select(.pid == '"$loop"') | .syscalls[] | select(.name == "getppid") | .seccomp_ns_per_call][0]' "$work/top16-$k.json" >>"$work/top16-ns.txt"
done
# A process without a per-call figure (null: no calls counted) is left out.
set -- $(mean_ci "$work/top16-ns.txt")
top_ns=$1 top_lo=$2 top_hi=$3
each=$(tr '\n' ' ' <"$work/top16-ns.txt")

"$sb" run "$work/docker-default.bpf" --filters 0,16 --syscall getppid --cache defeat --format json -o "$work/run16.json" $run_flags
run_ns=$(jq '[.results[] | select(.variant == "defeat" and .filters == 16) | .overhead_ns][0]' "$work/run16.json")
run_lo=$(jq '[.results[] | select(.variant == "defeat" and .filters == 16) | .overhead_ci_low_ns][0]' "$work/run16.json")
run_hi=$(jq '[.results[] | select(.variant == "defeat" and .filters == 16) | .overhead_ci_high_ns][0]' "$work/run16.json")
verdict getppid "$(within "$top_ns" "$run_ns" 0.15)" \
	"top $top_ns ns/call [$top_lo, $top_hi] (mean of $procs processes: $each) vs run 16-0 $run_ns ns [$run_lo, $run_hi] (±15 %)"

# --- 2. the same loop without filters ------------------------------------
watch_loop "$work/top0.json" "$work/top-loop" "$calls"
lo0=$(jq '[.processes[] | select(.pid == '"$loop"') | .seccomp_share_ci_low][0]' "$work/top0.json")
hi0=$(jq '[.processes[] | select(.pid == '"$loop"') | .seccomp_share_ci_high][0]' "$work/top0.json")
c0=$(jq '[.processes[] | select(.pid == '"$loop"') | .seccomp_share][0]' "$work/top0.json")
verdict no-filters "$(awk -v l="$lo0" 'BEGIN { print (l == 0) ? 1 : 0 }')" "share $c0 [$lo0, $hi0] includes 0"

# --- 3. find in a loop under the stack ------------------------------------
# $procs shell loops of find, each under its own freshly loaded stack (as in
# check 1, placement is averaged). Per loop: top --all's seccomp time of
# the find processes in the window over the runs of find in the window,
# counted as the find processes top saw minus one (the two runs cut by the
# window's edges are each about half in it). top --all sees every find on
# the machine: run the check on a quiet one.
: >"$work/find-ns.txt"
for k in $(seq "$procs"); do
	taskset -c "$cpu" "$work/top-wrap" "$work/docker-default.bpf" 16 -- /bin/sh -c \
		'while :; do find /usr/share -name x >/dev/null 2>&1; done' &
	loop=$!
	bg="$bg $loop"
	sleep 2
	"$sb" top --all --duration "$find_dur" --format json $top_flags -o "$work/topfind-$k.json"
	kill "$loop" 2>/dev/null || true # the shell first, so that it forks no further find
	pkill -P "$loop" 2>/dev/null || true
	wait "$loop" 2>/dev/null || true
	jq -r '[.processes[] | select(.comm == "find")] | "\(map(.seccomp_ns) | add) \(length)"' "$work/topfind-$k.json" |
		awk '$2 > 1 { printf "%.0f %d\n", $1 / ($2 - 1), $2 - 1 }' >>"$work/find-ns.txt"
done
set -- $(mean_ci "$work/find-ns.txt")
per_run=$1 per_lo=$2 per_hi=$3 nruns=$5
each=$(awk '{ printf "%.1f ", $1 / 1e6 }' "$work/find-ns.txt")

"$sb" run "$work/docker-default.bpf" --filters 0,16 --cache defeat --format json -o "$work/runfind.json" $run_flags \
	--workload command -- find /usr/share -name x
ab=$(jq '[.command_workload.splits[] | select(.variant == "defeat" and .filters == 16) | .running_ns][0]' "$work/runfind.json")
ab_lo=$(jq '[.command_workload.splits[] | select(.variant == "defeat" and .filters == 16) | .running_ci_low_ns][0]' "$work/runfind.json")
ab_hi=$(jq '[.command_workload.splits[] | select(.variant == "defeat" and .filters == 16) | .running_ci_high_ns][0]' "$work/runfind.json")
ab_cpu=$(jq '[.command_workload.splits[] | select(.variant == "defeat" and .filters == 16) | .cpu_added_ns][0]' "$work/runfind.json")
verdict find "$(within "$per_run" "$ab" 0.20)" \
	"top $per_run ns of seccomp per run of find [$per_lo, $per_hi] (mean of $procs loops, ms: $each; $nruns runs in all) vs A/B added running cost $ab ns [$ab_lo, $ab_hi] (added CPU $ab_cpu ns) (±20 %)"

# --- 4. overhead on the known loop ----------------------------------------
# One getppid loop under 16 filters logs its ns per call every 100,000
# calls (top-loop's chunk log); top is attached for --duration 3s and
# detached for 2 s, $cycles times. Within each cycle, the chunks while top
# samples (from 1 s after it starts, its setup done, to 0.3 s before it
# exits) are compared with the chunks of the gap before it (from 0.3 s
# after the previous top exits): the same process and JIT placement, host
# drifts slower than a cycle cancel. The slowdown is the mean over cycles
# of on/off - 1, with a t interval over cycles.
chunks=$work/overhead-chunks.txt
tops=$work/overhead-tops.txt
: >"$tops"
taskset -c "$cpu" "$work/top-wrap" "$work/docker-default.bpf" 16 -- "$work/top-loop" 1000000000 0 "$chunks" 2>/dev/null &
loop=$!
bg="$bg $loop"
sleep 2
for i in $(seq "$cycles"); do
	t0=$(date +%s%N)
	"$sb" top --pid "$loop" --duration 3s --format json $top_flags >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	echo "$t0 $t1" >>"$tops"
	sleep 2
done
kill -9 "$loop" 2>/dev/null || true
wait "$loop" 2>/dev/null || true
# One line per cycle with both kinds of chunks: 100 × (on/off - 1).
awk '
	NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next }
	{
		end = $1; dur = $2 * 100000; start = end - dur
		for (k = 1; k <= n; k++) {
			if (start >= s[k] + 1e9 && end <= e[k] - 3e8) { on[k] += $2; non[k]++ }
			prev = (k == 1) ? 0 : e[k-1] + 3e8
			if (k == 1 && start < s[k] - 2e9) continue
			if (start >= prev && end <= s[k]) { off[k] += $2; noff[k]++ }
		}
	}
	END {
		for (k = 1; k <= n; k++)
			if (non[k] && noff[k])
				printf "%.6f\n", 100 * ((on[k] / non[k]) / (off[k] / noff[k]) - 1)
	}' "$tops" "$chunks" >"$work/overhead-cycles.txt"
set -- $(mean_ci "$work/overhead-cycles.txt")
verdict overhead "$(awk -v o="$1" -v n="$4" 'BEGIN { print (n >= 2 && o + 0 == o && o < 3) ? 1 : 0 }')" \
	"getppid loop under 16 filters: $1 % slower with top attached [$2, $3] (95 %, $4 on/off cycles within one process; $chunks, $tops)"

cd "$repo"
exit "$fail"
