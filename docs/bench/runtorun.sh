#!/bin/sh
# runtorun.sh: how well does one run's interval describe the next run?
#
# Runs the 8-run table of issue 23 on a quiet machine and prints, per
# table, each run's per-filter estimate with its stated 95 % interval, the
# SD of the estimates, the mean stated SE (half-width / 1.96) and their
# ratio (a calibrated interval gives SD <= 1.4 x mean SE in about 95 % of
# 8-run tables), and the same for the relative figure (x bare op) when
# the runs are paired.
#
#   docs/bench/runtorun.sh [BINARY] [EXTRA RUN FLAGS...]
#
# BINARY defaults to ./seccompbench. For the "before" figures, build the
# binary from the commit before paired children, or pass --paired=false.
# Needs jq. Results are kept in $OUT (default: a new temporary directory).
set -eu
bin=${1:-./seccompbench}
[ $# -gt 0 ] && shift
out=${OUT:-$(mktemp -d /tmp/runtorun.XXXXXX)}
command -v jq >/dev/null || { echo "runtorun.sh: needs jq" >&2; exit 2; }

# The uncacheable 2-instruction filter: ld [args0]; ret allow, as raw
# struct sock_filter (code u16, jt u8, jf u8, k u32, little endian).
printf '\040\000\000\000\020\000\000\000\006\000\000\000\000\000\377\177' >"$out/full.bpf"

summary() { # summary TITLE FILES...: the table of one experiment
	title=$1
	shift
	echo "== $title"
	for f in "$@"; do
		jq -r --arg f "$(basename "$f")" '.fits[] | select(.variant == "defeat" or (.variant == "on")) |
			"\($f)\t\(.variant)\t\(.per_filter_ns)\t[\(.per_filter_ci_low_ns), \(.per_filter_ci_high_ns)]\trel \(.per_filter_rel) [\(.per_filter_rel_ci_low), \(.per_filter_rel_ci_high)]\tbare \(.bare_ns)\tbaseline \(.baseline_ns)"' "$f"
	done
	jq -s -r '
		def sd: (add / length) as $m | (map((. - $m) * (. - $m)) | add / (length - 1)) | sqrt;
		def stat(v; lo; hi): (map(v) | sd) as $s | (map((hi - lo) / 2 / 1.96) | add / length) as $se |
			"SD \($s)  mean stated SE \($se)  ratio \($s / $se)";
		map(.fits[0]) |
		"per-filter ns:  " + stat(.per_filter_ns; .per_filter_ci_low_ns; .per_filter_ci_high_ns),
		(if all(.paired == true) then "x bare op:      " + stat(.per_filter_rel; .per_filter_rel_ci_low; .per_filter_rel_ci_high) else "x bare op:      (unpaired runs)" end),
		"mean half-width / value: \(map((.per_filter_ci_high_ns - .per_filter_ci_low_ns) / 2 / .per_filter_ns) | add / length * 100) %"
	' "$@"
	echo
}

set --  "$@"
defeat=""
for s in 1 2 3 4 5 6 7 8; do
	f="$out/defeat-$s.json"
	"$bin" run --cache defeat --seed "$s" --format json -q "$@" >"$f"
	defeat="$defeat $f"
done
getpid=""
for s in 1 2 3 4 5 6 7 8; do
	f="$out/getpid-$s.json"
	"$bin" run "$out/full.bpf" --workload getpid --cache on --filters 0,1,2,4,8,16,32 --seed "$s" --format json -q "$@" >"$f"
	getpid="$getpid $f"
done
# shellcheck disable=SC2086 # the lists are space-separated file names
summary "seccompbench run --cache defeat --seed S (S = 1..8)" $defeat
# shellcheck disable=SC2086
summary "full.bpf (ld [args0]; ret allow) --workload getpid --cache on --filters 0,1,2,4,8,16,32 --seed S" $getpid
echo "results in $out"
