#!/usr/bin/env bash
# bench-trace.sh: `ddmtui trace FILE --json` against AOSP dmtracedump (its
# default text profile) on the same generated method trace, in one run.
#
# The trace is trace.Synth{Seed: 1, Records: N}: version 3, dual clock,
# 4 threads, 300 methods, realistic nesting with recursion and unmatched
# exits -- the workload of BenchmarkParseProfile10M (trace/bench_test.go),
# written by trace/internal/tracegen. Each tool runs RUNS times (default 3)
# under /usr/bin/time -v; the best wall time and the highest peak RSS of
# each are compared.
#
# Usage: scripts/bench-trace.sh [RECORDS]     (default 10000000)
#        RUNS=5 DMTRACEDUMP=/path/to/dmtracedump scripts/bench-trace.sh
set -euo pipefail
cd "$(dirname "$0")/.."

records=${1:-10000000}
runs=${RUNS:-3}
dmtracedump=${DMTRACEDUMP:-$(command -v dmtracedump || true)}
timebin=/usr/bin/time
[ -n "$dmtracedump" ] || { echo "bench-trace: dmtracedump not found (Debian package dmtracedump)" >&2; exit 1; }
[ -x "$timebin" ] || { echo "bench-trace: $timebin not found (Debian package time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ddmtui" .
go run ./trace/internal/tracegen -records "$records" -seed 1 -o "$work/bench.trace"
size=$(stat -c %s "$work/bench.trace")

# measure NAME CMD...: prints "best_wall_seconds max_rss_kib" after RUNS runs.
measure() {
	local best="" rss=0 i w r
	for ((i = 0; i < runs; i++)); do
		"$timebin" -v "$@" >/dev/null 2>"$work/time.txt"
		w=$(awk -F': ' '/Elapsed \(wall clock\)/ {
			n = split($2, p, ":"); s = 0
			for (k = 1; k <= n; k++) s = s * 60 + p[k]
			print s }' "$work/time.txt")
		r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$w; fi
		if [ "$r" -gt "$rss" ]; then rss=$r; fi
	done
	echo "$best $rss"
}

read -r d_wall d_rss < <(measure "$dmtracedump" "$work/bench.trace")
read -r o_wall o_rss < <(measure "$work/ddmtui" trace "$work/bench.trace" --json)

echo "trace: $records records, $size bytes, $(nproc) cores, best of $runs runs"
printf '%-22s %10s %14s\n' tool "wall s" "max RSS KiB"
printf '%-22s %10s %14s\n' dmtracedump "$d_wall" "$d_rss"
printf '%-22s %10s %14s\n' "ddmtui trace --json" "$o_wall" "$o_rss"
awk -v dw="$d_wall" -v ow="$o_wall" -v dr="$d_rss" -v or="$o_rss" 'BEGIN {
	printf "wall-time ratio dmtracedump/ddmtui: %.2fx (ddmtui faster when > 1)\n", dw / ow
	printf "peak-memory ratio ddmtui/dmtracedump: %.3f (ddmtui smaller when < 1)\n", or / dr
}'
