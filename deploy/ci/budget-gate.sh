#!/bin/sh
# budget-gate.sh: fail a CI job when a seccomp profile makes a program
# slower than a budget allows (docs/ci-gate.md).
#
#   budget-gate.sh POLICY BUDGET -- COMMAND [ARG...]
#
# BUDGET is per run of COMMAND: a time (5ms) or a share of its unfiltered
# run time (2%). The verdict decides the exit status: 0 within, 3 over,
# 4 undecided (MAX_TIME ran out first), anything else a failure. The result
# is written to $OUT.json (machine-readable, the "budget" object) and
# $OUT.md (a Markdown report whose first line is the verdict, ready to
# paste into a pull-request comment).
#
# Environment: SECCOMPBENCH (the binary, default seccompbench), OUT
# (default budget), FILTERS (stack depth, default 1), CACHE (on or defeat,
# default defeat), MAX_TIME (default 60s), CONFIDENCE (default 0.95).
set -u
if [ $# -lt 4 ] || [ "$3" != "--" ]; then
	echo "usage: budget-gate.sh POLICY BUDGET -- COMMAND [ARG...]" >&2
	exit 2
fi
policy=$1
budget=$2
shift 3
out=${OUT:-budget}
"${SECCOMPBENCH:-seccompbench}" run "$policy" --workload command \
	--filters "${FILTERS:-1}" --cache "${CACHE:-defeat}" \
	--budget "$budget" --max-time "${MAX_TIME:-60s}" --confidence "${CONFIDENCE:-0.95}" \
	-o "$out.json" -o "$out.md" -- "$@"
rc=$?
case $rc in
0) echo "budget gate: within $budget" ;;
3) echo "budget gate: OVER $budget" ;;
4) echo "budget gate: undecided at $budget; raise MAX_TIME or use a quieter runner" ;;
*) echo "budget gate: seccompbench failed (exit $rc)" ;;
esac
[ -f "$out.md" ] && head -n 3 "$out.md"
exit $rc
