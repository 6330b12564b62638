#!/usr/bin/env bash
# Mapping files (issue 34): index a generated 100 MB R8 mapping (mapgen -index, the mapping
# package's Open) against a plain read of the same file into memory (mapgen -read), round after
# round interleaved, under /usr/bin/time -v: wall, CPU and peak RSS, and the ratios. Then
# `ddmtui retrace` of a 10,000-frame trace against the same mapping, less the same command on no input
# (load and index alone). BenchmarkRetraceText10k in mapping/ measures the retrace alone, warm.
# Prints the load average and free cores before and after: on a busy machine read the CPU times.
#
# Usage: scripts/bench-mapping.sh [ROUNDS] [DIR]   (default 3 rounds, /tmp/ddmtui-bench-mapping)
# Targets: index ≤ 1.0 s and peak RSS ≤ 1.5 × the file; 10,000 frames retraced in < 50 ms.
set -eu
. "$(dirname "$0")/lib/load.sh"
rounds=${1:-3}
dir=${2:-/tmp/ddmtui-bench-mapping}
size=${MAPPING_SIZE:-100000000}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
(cd "$root" && go build -o "$dir/ddmtui" . && go build -o "$dir/mapgen" ./mapping/internal/mapgen/cmd/mapgen)
f="$dir/mapping-$size.txt"
[ -f "$f" ] && [ -f "$dir/frames.txt" ] || "$dir/mapgen" -size "$size" -o "$f" -frames "$dir/frames.txt"

# run CMD...: one /usr/bin/time -v run; prints "wall_s cpu_s maxrss_kib"
run() {
	/usr/bin/time -v "$@" > /dev/null 2> "$dir/time.txt" || { cat "$dir/time.txt" >&2; exit 1; }
	awk -F': ' '/Elapsed/ {n=split($2,t,":"); w=(n==3? t[1]*3600+t[2]*60+t[3] : t[1]*60+t[2])}
		/User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2}
		END {printf "%.3f %.3f %d\n", w, u+s, m}' "$dir/time.txt"
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

bench_begin
kib=$(( $(stat -c %s "$f") / 1024 ))
echo "== $(basename "$f"): $kib KiB"
: > "$dir/index.txt"; : > "$dir/read.txt"; : > "$dir/retrace.txt"; : > "$dir/empty.txt"
for r in $(seq "$rounds"); do
	i=$(run "$dir/mapgen" -index "$f")
	p=$(run "$dir/mapgen" -read "$f")
	t=$(run "$dir/ddmtui" retrace --mapping "$f" "$dir/frames.txt")
	e=$(run "$dir/ddmtui" retrace --mapping "$f" /dev/null)
	echo "$i" >> "$dir/index.txt"; echo "$p" >> "$dir/read.txt"; echo "$t" >> "$dir/retrace.txt"; echo "$e" >> "$dir/empty.txt"
	echo "  round $r: index wall $(echo "$i" | cut -d' ' -f1) s cpu $(echo "$i" | cut -d' ' -f2) s rss $(echo "$i" | cut -d' ' -f3) KiB;" \
		"plain read wall $(echo "$p" | cut -d' ' -f1) s rss $(echo "$p" | cut -d' ' -f3) KiB;" \
		"retrace 10k wall $(echo "$t" | cut -d' ' -f1) s cpu $(echo "$t" | cut -d' ' -f2) s"
done
iw=$(cut -d' ' -f1 "$dir/index.txt" | median); ic=$(cut -d' ' -f2 "$dir/index.txt" | median)
ir=$(cut -d' ' -f3 "$dir/index.txt" | median); pr=$(cut -d' ' -f3 "$dir/read.txt" | median)
pw=$(cut -d' ' -f1 "$dir/read.txt" | median); pc=$(cut -d' ' -f2 "$dir/read.txt" | median)
tw=$(cut -d' ' -f1 "$dir/retrace.txt" | median); tc=$(cut -d' ' -f2 "$dir/retrace.txt" | median)
ec=$(cut -d' ' -f2 "$dir/empty.txt" | median)
echo "  median: index wall $iw s cpu $ic s, peak RSS $ir KiB = $(echo "$ir $kib" | awk '{printf "%.2f", $1/$2}') × the file," \
	"$(echo "$ir $pr" | awk '{printf "%.2f", $1/$2}') × the plain read ($pr KiB, wall $pw s cpu $pc s)"
echo "  retrace of 10,000 frames: wall $tw s cpu $tc s in all; the same on no input cpu $ec s; the frames' share: cpu $(echo "$tc $ec" | awk '{printf "%.3f", $1-$2}') s"
bench_end
