# scripts/lib/load.sh: what load a benchmark ran under, and a CPU burner to run it busy
# (issue 39). Sourced by every scripts/bench-*.sh; one copy of these rules.
#
#   load_report WHEN   prints the load average, the runnable threads and the free cores,
#                      measured over half a second from /proc/stat (idle share × cores)
#   busy_start [N]     starts N CPU-bound burners (default: cores − 1, at least 1), each a
#                      shell loop that also ends when the script does
#   busy_stop          stops them (by their process ids)
#   bench_begin        load_report before; with BUSY=1, busy_start first (scripts that
#                      support a busy run call this)
#   bench_end          load_report after, then busy_stop
#
# Linux only (/proc); elsewhere load_report says the load is unknown.

bench_cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
bench_burners=()

# bench_cpu_times prints "idle total" jiffies of all CPUs from /proc/stat.
bench_cpu_times() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t; exit }' /proc/stat
}

load_report() {
	local when=${1:-now}
	if [ ! -r /proc/loadavg ] || [ ! -r /proc/stat ]; then
		echo "load [$when]: unknown (no /proc)"
		return 0
	fi
	local a b
	a=$(bench_cpu_times)
	sleep 0.5
	b=$(bench_cpu_times)
	read -r l1 l5 l15 runq _ < /proc/loadavg
	awk -v a="$a" -v b="$b" -v c="$bench_cores" -v w="$when" -v l="$l1 $l5 $l15" -v r="${runq%/*}" -v n="${#bench_burners[@]}" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		dt = y[2] - x[2]; free = dt > 0 ? c * (y[1] - x[1]) / dt : 0
		printf "load [%s]: load average %s (1, 5, 15 min), %d runnable, free cores %.2f of %d (idle over 0.5 s), burners of ours %d\n", w, l, r - 1, free, c, n
	}'
}

busy_start() {
	local n=${1:-$((bench_cores - 1))}
	[ "$n" -ge 1 ] || n=1
	local parent=$$ i
	for ((i = 0; i < n; i++)); do
		# A shell loop: CPU-bound, and it ends by itself within a fraction
		# of a second if the script ends without busy_stop.
		bash -c 'while kill -0 '"$parent"' 2>/dev/null; do for ((j = 0; j < 200000; j++)); do :; done; done' &
		bench_burners+=($!)
	done
	echo "busy: started $n CPU burner(s) (pids ${bench_burners[*]})"
	sleep 1 # let the scheduler spread them
}

busy_stop() {
	[ "${#bench_burners[@]}" -gt 0 ] || return 0
	kill "${bench_burners[@]}" 2>/dev/null || true
	wait "${bench_burners[@]}" 2>/dev/null || true
	echo "busy: stopped ${#bench_burners[@]} CPU burner(s)"
	bench_burners=()
}

bench_begin() {
	if [ "${BUSY:-}" = 1 ]; then
		busy_start
	fi
	load_report before
}

bench_end() {
	load_report after
	busy_stop
}
