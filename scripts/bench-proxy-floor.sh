#!/usr/bin/env bash
# bench-proxy-floor.sh: the debugger proxy's round trip (VirtualMachine.Version, back to
# back, from a client in a process of its own) against the floors of any user-space relay
# on this machine. Each configuration is one run of BenchmarkRealJVMsVersion, which measures
# direct, relayed and proxied legs interleaved in the same run, so each ratio is against
# direct in that run:
#
#   proxy        ddmtui's proxy as shipped (busy polling on) | relay: the Go two-goroutine relay
#   proxy-nospin the proxy with busy polling off (PROXY_BENCH_SPIN=-1ns)
#   c-blocking   relay leg: scripts/relayfloor/relay.c, a thread per direction, blocking reads
#   c-spinning   relay leg: relay.c -spin, one thread polling both sockets without sleeping
#                (it burns a core the whole run, which slows the other legs too: read it with care)
#
# First it measures the bare loopback round trip between two C processes (pingpong.c), with
# the echo sleeping and busy-polling: what a hop costs here, and how much of it is the wake-up.
#
# Usage: scripts/bench-proxy-floor.sh [COUNT]   (default 3 runs of each configuration)
# Needs java, javac and a C compiler (cc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread -o "$tmp/relay" "$root/scripts/relayfloor/relay.c"
cc -O2 -o "$tmp/pingpong" "$root/scripts/relayfloor/pingpong.c"
"$tmp/pingpong" 20000
"$tmp/pingpong" -spin 20000
(cd "$root" && go test -c -o "$tmp/proxy.test" ./proxy)
cd "$root/proxy"
run() { # name, env...
	local name=$1
	shift
	for i in $(seq "$count"); do
		env "$@" "$tmp/proxy.test" -test.run '^$' -test.bench 'RealJVMsVersion$' -test.benchtime 2000x |
			awk -v name="$name" '/^BenchmarkRealJVMsVersion/ {
				for (i = 1; i < NF; i++) m[$(i + 1)] = $i
				printf "%-12s direct %6.1f µs  relay %6.1f µs (%.3fx)  proxy %6.1f µs (%.3fx)  proxy CPU %5.1f µs/round trip\n",
					name, m["direct-µs"], m["relay-µs"], m["relay-ratio"], m["proxy-µs"], m["ratio"], m["proxy-cpu-µs"] }'
	done
}
run proxy
run proxy-nospin PROXY_BENCH_SPIN=-1ns
run c-blocking PROXY_BENCH_RELAY="$tmp/relay"
run c-spinning PROXY_BENCH_RELAY="$tmp/relay -spin"
