#!/bin/sh
# top-loopcheck: `seccompbench top` on a loop of one syscall that the
# filter denies (clone3 under docker-default, cache on: ERRNO is not
# cached, so every filter runs), against the loop's own bare-vs-stacked
# delta and its own count of calls (docs/top.md, "Checking top on
# services"). Root, from the repository root, on a quiet machine:
#
#   sh docs/bench/top-loopcheck.sh WORKDIR [NR [CACHE]]
#
# NR is the syscall (default 435, clone3), CACHE on or defeat (default on).
# 1. delta: docs/bench/top-cold.c warm (no eviction), bare and under 16 ×
#    docker-default, $REPS times alternating; the stack's added ns per call
#    is the mean of the differences of trimmed means.
# 2. top: one stacked loop logging its calls and CPU time
#    (TOP_COLD_LOG); `top --pid` for $TOP_S seconds. The calls really made
#    in the window are the window's CPU time × the loop's calls per CPU ns
#    over the log lines inside the window.
# Prints top's seccomp ns per call against the delta, and top's calls
# with their interval against the real calls.
set -eu
work=${1:?usage: top-loopcheck.sh WORKDIR [NR [CACHE]]}
nr=${2:-435}
cache=${3:-on}
REPS=${REPS:-3}
TOP_S=${TOP_S:-20}
mkdir -p "$work"
sb=$work/seccompbench
go build -o "$sb" ./cmd/seccompbench
gcc -O2 -static -o "$work/top-wrap" docs/bench/top-wrap.c
gcc -O2 -static -o "$work/top-cold" docs/bench/top-cold.c
"$sb" compile docker-default --format raw >"$work/dd.bpf"
wrap="$work/top-wrap $work/dd.bpf 16 --cache $cache --"
: >"$work/deltas"
: >"$work/bares"
i=0
while [ $i -lt "$REPS" ]; do
	b=$(taskset -c 1 "$work/top-cold" "$nr" 2000000 0 | awk '/^syscall/ { print $3 }')
	s=$(taskset -c 1 $wrap "$work/top-cold" "$nr" 2000000 0 | awk '/^syscall/ { print $3 }')
	echo "$s - $b" | bc -l >>"$work/deltas"
	echo "$b" >>"$work/bares"
	i=$((i + 1))
done
delta=$(awk '{ m += $1; n++ } END { printf "%.1f", m / n }' "$work/deltas")
# The watched loop runs about TOP_S + 8 seconds and prints its own per-call
# time: a filter's cost moves with where its JIT images land, so the
# watched process's own stacked time (less the bare loops' mean) is the
# like-for-like reference; the other processes' delta is printed too.
bare=$(awk '{ m += $1; n++ } END { printf "%.1f", m / n }' "$work/bares")
iters=$(awk -v s="$s" -v t="$TOP_S" 'BEGIN { printf "%d", (t + 8) * 1e9 / (s + 60) }')
TOP_COLD_LOG="$work/calls.log" taskset -c 1 $wrap "$work/top-cold" "$nr" "$iters" 0 >"$work/watched.out" &
loop=$!
sleep 2
"$sb" -q top --pid "$loop" --duration "${TOP_S}s" --format json -o "$work/top-loop.json"
wait "$loop"
own=$(awk -v b="$bare" '/^syscall/ { printf "%.1f", $3 - b }' "$work/watched.out")
python3 - "$work/top-loop.json" "$work/calls.log" "$delta" "$nr" "$own" <<'PY'
import datetime, json, sys
doc = json.load(open(sys.argv[1]))
p = doc["processes"][0]
start = datetime.datetime.fromisoformat(doc["start"].replace("Z", "+00:00")).timestamp() * 1e9
end = start + doc["window_ns"]
log = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
inside = [r for r in log if start + 1e9 <= r[0] <= end - 1e9]
rate = (inside[-1][2] - inside[0][2]) / (inside[-1][1] - inside[0][1])
real = rate * p["cpu_ns"]
row = next(s for s in p["syscalls"] if s["nr"] == int(sys.argv[4]))
delta = float(sys.argv[3])
own = float(sys.argv[5])
print("watched loop's own delta %.1f ns/call; top/own %.3f" % (own, (row["seccomp_ns_per_call"] or float("nan")) / own))
print("loop delta %.1f ns/call; top %.1f ns/call [%.1f, %.1f] (%s): ratio %.3f" % (delta, row["seccomp_ns_per_call"] or float("nan"),
      row["seccomp_ns_per_call_ci_low"] or float("nan"), row["seccomp_ns_per_call_ci_high"] or float("nan"), row.get("unresolved") or "resolved", (row["seccomp_ns_per_call"] or float("nan")) / delta))
lo, hi = row["calls_ci_low"], row["calls_ci_high"]
print("calls: top %.0f [%.0f, %.0f], real %.0f: ratio %.3f, %s" % (row["calls"], lo, hi, real, row["calls"] / real, "inside" if lo <= real <= hi else "OUTSIDE"))
print("share %.4f [%.4f, %.4f]; counter share %s" % (p["seccomp_share"], p["seccomp_share_ci_low"], p["seccomp_share_ci_high"], doc["method"]["counter_share"]))
PY
