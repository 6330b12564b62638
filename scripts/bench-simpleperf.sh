#!/usr/bin/env bash
# bench-simpleperf.sh: loading `simpleperf report-sample --protobuf` recordings (issue 36).
# Two recordings from simpleperf.Gen, four busy threads at 1 kHz with 32 frames a sample:
# 2 minutes (480k samples, 176 MB; target <= 0.4 s and <= 160 MiB) and 10 minutes (2.4 M
# samples, 879 MB; target <= 1.5 s and <= 200 MiB), and the 2 minutes again with each sample's
# leaf at another address of its method (2MinLeaf: GenOptions.MovingLeaf, as real samples are). Each is read three ways by the package's benchmark, each in
# a process of its own under /usr/bin/time so its peak RSS is its own: a plain decoding pass
# (every record decoded, nothing kept: the floor), a load into every tree (each thread's
# top-down tree, the merged top-down and bottom-up views), and the load with the call index
# the viewer adds (call charts, time ranges); wall time per load (the benchmark's), CPU time per
# load (the process's user+sys over its loads: Load runs on two goroutines) and their ratios
# against the decoding pass. It prints the load average and the free cores before and after,
# since the machine is shared. Delete the files after changing simpleperf.Gen.
#
# Usage: scripts/bench-simpleperf.sh [DIR]   (default /tmp/ddmtui-bench; the files are kept)
set -euo pipefail
. "$(dirname "$0")/lib/load.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/ddmtui-bench}
[ -x /usr/bin/time ] || { echo "bench-simpleperf: /usr/bin/time not found (Debian package time)" >&2; exit 1; }
mkdir -p "$dir"
(cd "$root" && go test -c -o "$dir/simpleperf.test" ./simpleperf)
export DDMTUI_BENCH_DIR=$dir


# Generate the files first (a decoding pass does), outside the measured runs.
for rec in 2Min 2MinLeaf 10Min; do
	"$dir/simpleperf.test" -test.run '^$' -test.bench "^BenchmarkRecording$rec\$/^decode\$" -test.benchtime 1x > /dev/null
done

bench_begin
declare -A wall cpu
for rec in 2Min 2MinLeaf 10Min; do
	for mode in decode load load+index; do
		out=$( { /usr/bin/time -f "TIME %e %M %U %S" "$dir/simpleperf.test" -test.run '^$' \
			-test.bench "^BenchmarkRecording$rec\$/^${mode/+/\\+}\$" -test.benchtime 3x; } 2>&1)
		ns=$(echo "$out" | awk '/^BenchmarkRecording/ {print $3}')
		mbs=$(echo "$out" | awk '/^BenchmarkRecording/ {print $5}')
		read -r _ pwall rss user sys < <(echo "$out" | grep '^TIME')
		# -benchtime 3x runs the load 4 times (once with b.N = 1 first): the
		# process's CPU over 4 is the CPU of a load, start-up included.
		w=$(echo "$ns" | awk '{printf "%.3f", $1/1e9}')
		c=$(echo "$user $sys" | awk '{printf "%.3f", ($1+$2)/4}')
		wall[$rec$mode]=$w cpu[$rec$mode]=$c
		printf '%-6s %-11s %7s s/load wall  %7s s/load CPU  %7s MB/s  peak RSS %6.1f MiB  (process: %s s wall, user %s sys %s)\n' \
			"$rec" "$mode" "$w" "$c" "$mbs" "$(echo "$rss" | awk '{print $1/1024}')" "$pwall" "$user" "$sys"
	done
	printf '%-6s load / decode: %.2f wall, %.2f CPU\n' "$rec" \
		"$(echo "${wall[${rec}load]} ${wall[${rec}decode]}" | awk '{print $1/$2}')" \
		"$(echo "${cpu[${rec}load]} ${cpu[${rec}decode]}" | awk '{print $1/$2}')"
done
bench_end
ls -l "$dir"/ddmtui-simpleperf-*.trace | awk '{printf "%s: %.0f MB\n", $NF, $5/1e6}'
