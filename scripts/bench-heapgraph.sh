#!/usr/bin/env bash
# Java heap graphs (perfetto/heapgraph): one plain decoding pass over a heap graph of about
# 1 M objects (heapgraphgen -read: packets joined, types and names resolved), and in the same
# run `ddmtui hprof analyze --json` on the same heap as HPROF (the file the heap graph was
# converted from) and on the trace itself (heapfile: the heap graph fed to heapdump.Builder):
# wall time, CPU time (user+sys) and peak RSS under /usr/bin/time -v, round after round
# interleaved, with the load average before each round (the machine may be shared).
# The heap is scene.Large's (go run ./perfetto/internal/heapgraphgen -objects N -hprof F).
#
# REF=/path/to/ddmtui adds, each round, that binary's `hprof analyze --json` on the HPROF form:
# the issue's "as HPROF is today" measured on this machine in this run (e.g. a build of the
# release the issue's figure came from), so the targets can be read as ratios.
#
# Usage: scripts/bench-heapgraph.sh [ROUNDS] [DIR]   (default 5 rounds, /tmp/ddmtui-bench-heapgraph)
#        REF=/tmp/ddmtui-old scripts/bench-heapgraph.sh 5
# Target (issue 35): `hprof analyze --json` on the heap graph ≤ 1.0 s wall, ≤ 100 MiB.
set -eu
. "$(dirname "$0")/lib/load.sh"
rounds=${1:-5}
dir=${2:-/tmp/ddmtui-bench-heapgraph}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
(cd "$root" && go build -o "$dir/ddmtui" . && go build -o "$dir/heapgraphgen" ./perfetto/internal/heapgraphgen)
n=1000000
[ -f "$dir/app-$n.pftrace" ] || "$dir/heapgraphgen" -objects "$n" -o "$dir/app-$n.pftrace" -hprof "$dir/app-$n.hprof"

# run CMD...: one /usr/bin/time -v run; prints "wall_s cpu_s maxrss_kib", or "-" when CMD fails
run() {
	if ! /usr/bin/time -v "$@" > /dev/null 2> "$dir/time.txt"; then echo "-"; return; fi
	awk -F': ' '/Elapsed/ {n=split($2,t,":"); w=(n==3? t[1]*3600+t[2]*60+t[3] : t[1]*60+t[2])}
		/User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2}
		END {printf "%.3f %.3f %d\n", w, u+s, m}' "$dir/time.txt"
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

t="$dir/app-$n.pftrace"; h="$dir/app-$n.hprof"
bench_begin
echo "== $(basename "$t"): $(du -m "$t" | cut -f1) MB ($(basename "$h"): $(du -m "$h" | cut -f1) MB), load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$dir/decode.txt"; : > "$dir/hprof.txt"; : > "$dir/graph.txt"; : > "$dir/ref.txt"
for r in $(seq "$rounds"); do
	d=$(run "$dir/heapgraphgen" -read "$t")
	a=$(run "$dir/ddmtui" hprof analyze --json "$h")
	g=$(run "$dir/ddmtui" hprof analyze --json "$t")
	echo "$d" >> "$dir/decode.txt"; echo "$a" >> "$dir/hprof.txt"
	[ "$g" = "-" ] || echo "$g" >> "$dir/graph.txt"
	ref=""
	if [ -n "${REF:-}" ]; then
		x=$(run "$REF" hprof analyze --json "$h")
		[ "$x" = "-" ] || echo "$x" >> "$dir/ref.txt"
		ref="  REF on HPROF [$x]"
	fi
	echo "  round $r (load $(cut -d' ' -f1 /proc/loadavg)): decode [$d]  analyze HPROF [$a]  analyze heap graph [$g]$ref   (wall s, cpu s, RSS KiB)"
done
kinds="decode hprof graph"
[ -n "${REF:-}" ] && kinds="$kinds ref"
for k in $kinds; do
	f="$dir/$k.txt"
	[ -s "$f" ] || { echo "  $k: every run failed"; continue; }
	echo "  median $k: wall $(cut -d' ' -f1 "$f" | median) s, cpu $(cut -d' ' -f2 "$f" | median) s, peak RSS $(cut -d' ' -f3 "$f" | median) KiB"
done
bench_end
