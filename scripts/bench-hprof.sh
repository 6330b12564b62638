#!/usr/bin/env bash
# bench-hprof.sh: hprof.Convert against AOSP hprof-conv (Debian package
# hprof-conv) on the same generated Android HPROF file, in one run.
#
# The file is hprof.Synth{Seed: 1, Classes: 200, Instances: N} written by
# hprof/internal/hprofgen: ART's layout (HEAP DUMP SEGMENTs of at most 128
# objects or 4 KiB, HEAP DUMP INFO per segment, every root kind, class
# dumps, instances, object and primitive arrays); N = 2,100,000 gives about
# 100 MB. Convert runs through hprofgen -convert (the same function the
# ddmtui hprof command calls). Each tool runs RUNS times (default 7) under
# /usr/bin/time, with and without -z; the best wall time and the highest
# peak RSS of each are compared, and the outputs must be byte-identical.
#
# Usage: scripts/bench-hprof.sh [INSTANCES]     (default 2100000)
#        RUNS=9 HPROF_CONV=/path/to/hprof-conv scripts/bench-hprof.sh
set -euo pipefail
. "$(dirname "$0")/lib/load.sh"
cd "$(dirname "$0")/.."

instances=${1:-2100000}
runs=${RUNS:-7}
hprofconv=${HPROF_CONV:-$(command -v hprof-conv || echo /usr/lib/android-sdk/platform-tools/hprof-conv)}
timebin=/usr/bin/time
[ -x "$hprofconv" ] || { echo "bench-hprof: hprof-conv not found (Debian package hprof-conv)" >&2; exit 1; }
[ -x "$timebin" ] || { echo "bench-hprof: $timebin not found (Debian package time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/hprofgen" ./hprof/internal/hprofgen
"$work/hprofgen" -seed 1 -classes 200 -instances "$instances" -o "$work/in.hprof"
size=$(stat -c %s "$work/in.hprof")

# measure OUT CMD...: prints "best_wall_seconds max_rss_kib" after RUNS runs.
# Wall time is taken around /usr/bin/time with nanosecond clocks (its own
# figure has only 10 ms resolution); peak RSS comes from /usr/bin/time.
measure() {
	local best="" rss=0 i t0 t1 w r
	for ((i = 0; i < runs; i++)); do
		rm -f "$work/$1"
		t0=$(date +%s%N)
		"$timebin" -f %M -o "$work/rss.txt" "${@:2}" >/dev/null
		t1=$(date +%s%N)
		w=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}')
		r=$(tail -1 "$work/rss.txt")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$w; fi
		if [ "$r" -gt "$rss" ]; then rss=$r; fi
	done
	echo "$best $rss"
}

echo "hprof: $instances instances, $size bytes, $(nproc) cores, best of $runs runs"
printf '%-26s %10s %14s\n' tool "wall s" "max RSS KiB"
load_report before
for z in "" "-z"; do
	read -r c_wall c_rss < <(measure conv.hprof "$hprofconv" $z "$work/in.hprof" "$work/conv.hprof")
	read -r o_wall o_rss < <(measure ours.hprof "$work/hprofgen" -convert "$work/in.hprof" $z -o "$work/ours.hprof")
	cmp -s "$work/conv.hprof" "$work/ours.hprof" || { echo "bench-hprof: outputs differ ($z)" >&2; exit 1; }
	printf '%-26s %10s %14s\n' "hprof-conv $z" "$c_wall" "$c_rss" "hprof.Convert $z" "$o_wall" "$o_rss"
	awk -v cw="$c_wall" -v ow="$o_wall" -v cr="$c_rss" -v or="$o_rss" -v z="$z" -v out="$(stat -c %s "$work/ours.hprof")" 'BEGIN {
		printf "%s: outputs byte-identical (%d bytes); wall-time ratio hprof-conv/Convert: %.2fx (Convert faster when > 1); peak-memory ratio Convert/hprof-conv: %.2f\n", (z == "" ? "no -z" : z), out, cw / ow, or / cr
	}'
done
load_report after
