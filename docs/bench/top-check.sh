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
#    does). `top --pid P --duration 5s` gives seccomp ns per getppid; `run
#    RAW --filters 0,16 --syscall getppid --cache defeat` gives the 16-filter
#    cell minus the 0-filter cell. Pass: within ±15 %.
# 2. no filters: the same loop without filters; pass: the seccomp share's
#    interval includes 0.
# 3. find: `find /usr/share -name x` in a loop under the same stack; `top
#    --all` sums the seccomp time of the find processes per run of find;
#    `run RAW --filters 0,16 --cache defeat --workload command -- find ...`
#    (interleaved A/B blocks) gives the stack's added running cost per run.
#    Pass: within ±20 %.
# 4. overhead: the loop's own ns per getppid (it prints it) with and without
#    top attached, alternating; reported, pass when below 3 %.
#
# Needs gcc with static glibc, jq, and Go. Prints one PASS/FAIL line per
# check and exits 1 if any failed. For a quick functional run (figures not
# for docs) shrink it: CALLS=3000000 RUN_FLAGS="--trials 3" TOP_DURATION=2s
# FIND_DURATION=4s PAIRS=1.
set -eu
calls=${CALLS:-30000000}
run_flags=${RUN_FLAGS:-}
dur=${TOP_DURATION:-5s}
find_dur=${FIND_DURATION:-10s}
pairs=${PAIRS:-5}

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
within() { # a b tolerance -> 1 if |a/b - 1| <= tol
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { r = a / b - 1; if (r < 0) r = -r; print (b > 0 && r <= t) ? 1 : 0 }'
}

watch_loop() { # OUT.json CMD...: start CMD, run top --pid on it, stop it; sets $loop
	out=$1
	shift
	"$@" 2>"$out.log" &
	loop=$!
	sleep 1
	"$sb" top --pid "$loop" --duration "$dur" --format json -o "$out"
	kill "$loop" 2>/dev/null || true
	wait "$loop" 2>/dev/null || true
}

# --- 1. getppid under 16 filters -----------------------------------------
watch_loop "$work/top16.json" "$work/top-wrap" "$work/docker-default.bpf" 16 -- "$work/top-loop" "$calls"
top_ns=$(jq '[.processes[] | select(.pid == '"$loop"') | .syscalls[] | select(.name == "getppid") | .seccomp_ns_per_call][0]' "$work/top16.json")
# The share interval scaled to ns per call.
top_lo=$(jq '[.processes[] | select(.pid == '"$loop"') | . as $p | .syscalls[] | select(.name == "getppid") | .seccomp_ns_per_call * $p.seccomp_share_ci_low / $p.seccomp_share][0]' "$work/top16.json")
top_hi=$(jq '[.processes[] | select(.pid == '"$loop"') | . as $p | .syscalls[] | select(.name == "getppid") | .seccomp_ns_per_call * $p.seccomp_share_ci_high / $p.seccomp_share][0]' "$work/top16.json")

"$sb" run "$work/docker-default.bpf" --filters 0,16 --syscall getppid --cache defeat --format json -o "$work/run16.json" $run_flags
run_ns=$(jq '[.results[] | select(.variant == "defeat" and .filters == 16) | .overhead_ns][0]' "$work/run16.json")
run_lo=$(jq '[.results[] | select(.variant == "defeat" and .filters == 16) | .overhead_ci_low_ns][0]' "$work/run16.json")
run_hi=$(jq '[.results[] | select(.variant == "defeat" and .filters == 16) | .overhead_ci_high_ns][0]' "$work/run16.json")
verdict getppid "$(within "$top_ns" "$run_ns" 0.15)" \
	"top $top_ns ns/call [$top_lo, $top_hi] vs run 16-0 $run_ns ns [$run_lo, $run_hi] (±15 %)"

# --- 2. the same loop without filters ------------------------------------
watch_loop "$work/top0.json" "$work/top-loop" "$calls"
lo0=$(jq '[.processes[] | select(.pid == '"$loop"') | .seccomp_share_ci_low][0]' "$work/top0.json")
hi0=$(jq '[.processes[] | select(.pid == '"$loop"') | .seccomp_share_ci_high][0]' "$work/top0.json")
c0=$(jq '[.processes[] | select(.pid == '"$loop"') | .seccomp_share][0]' "$work/top0.json")
verdict no-filters "$(awk -v l="$lo0" 'BEGIN { print (l == 0) ? 1 : 0 }')" "share $c0 [$lo0, $hi0] includes 0"

# --- 3. find in a loop under the stack ------------------------------------
runs=$work/find-runs
: >"$runs"
"$work/top-wrap" "$work/docker-default.bpf" 16 -- /bin/sh -c \
	'while :; do find /usr/share -name x >/dev/null 2>&1; echo >>"$0"; done' "$runs" &
loop=$!
sleep 2
n0=$(wc -l <"$runs")
"$sb" top --all --duration "$find_dur" --format json -o "$work/topfind.json"
n1=$(wc -l <"$runs")
kill "$loop" 2>/dev/null || true
wait "$loop" 2>/dev/null || true
pkill -P "$loop" 2>/dev/null || true
nruns=$((n1 - n0))
find_sec=$(jq '[.processes[] | select(.comm == "find") | .seccomp_ns] | add' "$work/topfind.json")
find_lo=$(jq '[.processes[] | select(.comm == "find") | (.seccomp_share_ci_low // 0) * .cpu_ns] | add' "$work/topfind.json")
find_hi=$(jq '[.processes[] | select(.comm == "find") | (.seccomp_share_ci_high // 1) * .cpu_ns] | add' "$work/topfind.json")
per_run=$(awk -v s="$find_sec" -v n="$nruns" 'BEGIN { printf "%.0f", s / n }')

"$sb" run "$work/docker-default.bpf" --filters 0,16 --cache defeat --format json -o "$work/runfind.json" $run_flags \
	--workload command -- find /usr/share -name x
ab=$(jq '[.command_workload.splits[] | select(.variant == "defeat" and .filters == 16) | .running_ns][0]' "$work/runfind.json")
ab_lo=$(jq '[.command_workload.splits[] | select(.variant == "defeat" and .filters == 16) | .running_ci_low_ns][0]' "$work/runfind.json")
ab_hi=$(jq '[.command_workload.splits[] | select(.variant == "defeat" and .filters == 16) | .running_ci_high_ns][0]' "$work/runfind.json")
ab_cpu=$(jq '[.command_workload.splits[] | select(.variant == "defeat" and .filters == 16) | .cpu_added_ns][0]' "$work/runfind.json")
verdict find "$(within "$per_run" "$ab" 0.20)" \
	"top $per_run ns of seccomp per run of find ($nruns runs in the window; the window's seccomp $find_sec ns [$find_lo, $find_hi] summed over processes) vs A/B added running cost $ab ns [$ab_lo, $ab_hi] (added CPU $ab_cpu ns) (±20 %)"

# --- 4. overhead on the known loop ----------------------------------------
# ns per getppid of a 3 M-call loop under 16 filters, alternating without
# and with top attached (5 pairs); the loop prints its own figure.
: >"$work/overhead.txt"
for i in $(seq "$pairs"); do
	"$work/top-wrap" "$work/docker-default.bpf" 16 -- "$work/top-loop" 3000000 1000 2>&1 |
		awk '{ print "off", $(NF-2) }' >>"$work/overhead.txt"
	# The loop waits 1 s before its timed part, so top is attached by then.
	"$work/top-wrap" "$work/docker-default.bpf" 16 -- "$work/top-loop" 3000000 1000 2>"$work/on.log" &
	loop=$!
	"$sb" top --pid "$loop" --duration 60s --format json >/dev/null 2>&1 &
	topp=$!
	wait "$loop" || true
	kill -INT "$topp" 2>/dev/null || true
	wait "$topp" 2>/dev/null || true
	awk '{ print "on", $(NF-2) }' "$work/on.log" >>"$work/overhead.txt"
done
ovh=$(awk '$1 == "off" { off += $2; n++ } $1 == "on" { on += $2 } END { printf "%.2f", (on / off - 1) * 100 }' "$work/overhead.txt")
verdict overhead "$(awk -v o="$ovh" 'BEGIN { print (o < 3) ? 1 : 0 }')" \
	"getppid loop under 16 filters: $ovh % slower with top attached ($pairs alternating pairs; $work/overhead.txt)"

cd "$repo"
exit "$fail"
