#!/usr/bin/env bash
# `ddmtui hprof analyze --json` on an Android-like heap dump of about 1 M objects (80 MB),
# against hprof-conv (Debian package hprof-conv) passing the same file in the same run:
# wall time, CPU time and peak RSS under /usr/bin/time -v, round after round interleaved,
# and the median ratio of the walls. With LINEAR=1 also a 10 M-object dump (linear growth).
# The dumps come from scene.Large (go run ./hprof/internal/hprofgen -android-objects N).
#
# Usage: scripts/bench-hprof-analyze.sh [ROUNDS] [DIR]   (default 5 rounds, /tmp/ddmtui-bench-hprof)
# Targets (issue 24): 1 M ≤ 1.0 s wall, ≤ 100 MiB; 10 M ≤ 12 s, ≤ 1 GiB.
# BUSY=1 runs it with a CPU burner on every core but one (scripts/lib/load.sh); the load is
# printed before and after either way.
set -eu
. "$(dirname "$0")/lib/load.sh"
rounds=${1:-5}
dir=${2:-/tmp/ddmtui-bench-hprof}
root=$(cd "$(dirname "$0")/.." && pwd)
conv=$(command -v hprof-conv || echo /usr/lib/android-sdk/platform-tools/hprof-conv)
[ -x "$conv" ] || { echo "hprof-conv is not installed (apt-get install hprof-conv)" >&2; exit 1; }
mkdir -p "$dir"
(cd "$root" && go build -o "$dir/ddmtui" . && go build -o "$dir/hprofgen" ./hprof/internal/hprofgen)
sizes="1000000"
[ "${LINEAR:-0}" = 1 ] && sizes="1000000 10000000"
for n in $sizes; do
	[ -f "$dir/app-$n.hprof" ] || "$dir/hprofgen" -android-objects "$n" -o "$dir/app-$n.hprof"
done

# run LABEL CMD...: one /usr/bin/time -v run; prints "wall_s cpu_s maxrss_kib"
run() {
	/usr/bin/time -v "$@" > /dev/null 2> "$dir/time.txt" || { cat "$dir/time.txt" >&2; exit 1; }
	awk -F': ' '/Elapsed/ {n=split($2,t,":"); w=(n==3? t[1]*3600+t[2]*60+t[3] : t[1]*60+t[2])}
		/User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2}
		END {printf "%.3f %.3f %d\n", w, u+s, m}' "$dir/time.txt"
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

bench_begin
for n in $sizes; do
	f="$dir/app-$n.hprof"
	echo "== $(basename "$f"): $(du -m "$f" | cut -f1) MB, load $(cut -d' ' -f1-3 /proc/loadavg)"
	: > "$dir/ours.txt"; : > "$dir/conv.txt"; : > "$dir/ratio.txt"
	for r in $(seq "$rounds"); do
		o=$(run "$dir/ddmtui" hprof analyze --json "$f")
		c=$(run "$conv" "$f" "$dir/conv-out.hprof")
		echo "$o" >> "$dir/ours.txt"; echo "$c" >> "$dir/conv.txt"
		echo "$o $c" | awk '{printf "%.2f\n", $1/$4}' >> "$dir/ratio.txt"
		echo "  round $r: analyze wall $(echo "$o" | cut -d' ' -f1) s cpu $(echo "$o" | cut -d' ' -f2) s rss $(echo "$o" | cut -d' ' -f3) KiB; hprof-conv wall $(echo "$c" | cut -d' ' -f1) s rss $(echo "$c" | cut -d' ' -f3) KiB"
	done
	rm -f "$dir/conv-out.hprof"
	echo "  median: analyze wall $(cut -d' ' -f1 "$dir/ours.txt" | median) s, cpu $(cut -d' ' -f2 "$dir/ours.txt" | median) s," \
		"peak RSS $(cut -d' ' -f3 "$dir/ours.txt" | median) KiB (max $(cut -d' ' -f3 "$dir/ours.txt" | sort -g | tail -1));" \
		"hprof-conv wall $(cut -d' ' -f1 "$dir/conv.txt" | median) s; ratio analyze/hprof-conv $(median < "$dir/ratio.txt")"
done
bench_end
