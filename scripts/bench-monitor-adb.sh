#!/usr/bin/env bash
# Monitor at scale through the real adb server (issue 15 item 7), against ddmlib.
#
# A simulated device (`ddmtui sim --vms N --adbd PORT --local 0`) is connected to a private adb
# server (`ANDROID_ADB_SERVER_PORT=P adb connect 127.0.0.1:PORT`). On that same device, one
# after the other, run under /usr/bin/time for DURATION seconds:
#   - ddmtui's headless monitor: `ddmtui list --adb 127.0.0.1:P --scan off --thread-interval
#     INTERVAL --meminfo-interval 0 --wait DURATIONs` (THST of every VM at 1/INTERVAL, heap info
#     at every GC; dumpsys meminfo off, which ddmlib does not read);
#   - scripts/ddmlib/DdmlibMonitor.java: ddmlib 25.2.2 through its public API, thread and heap
#     updates on for every Client, requestThreadUpdate on each at the same interval.
#   - scripts/pollfloor -events: the floor under both, one thread doing the same job on every VM's
#     stream (THST polls at the same interval, thread notifications and heap info at every GC
#     asked for and read) with plain system calls and epoll (no goroutines, no netpoller, no
#     decoding): what the kernel charges for the packets alone. Without -events (polls only) it
#     is reported too.
# Both at N VMs and at 1 VM (the baseline, same run), so that the per-VM cost is the marginal
# one: (cost at N - cost at 1) / (N - 1). Prints CPU (user+sys) and peak RSS of each run,
# ddmtui's share of one core and RSS at N against the targets (3%, 48 MiB at 200 VMs, 2 Hz),
# and ddmlib/ddmtui per-VM ratios (target: at least 5x). The adb server's and the simulator's
# own costs are not counted for either.
#
# Usage: scripts/bench-monitor-adb.sh [VMS=200] [DURATION=60] [INTERVAL=500ms]
# Env:   ADBD_PORT (default 27183), ADB_PORT (private adb server, default 27037),
#        DDMTUI_CMD (default "list"; "snapshot --segments" also asks for heap segments at every
#        GC, as ddmlib's heap updates do), KEEP=1 keeps the outputs in the work directory.
# Needs: go, adb, java 17 + javac, libandroid-ddms-java (and its common/guava jars).
set -euo pipefail
. "$(dirname "$0")/lib/load.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
VMS=${1:-200}
DUR=${2:-60}
INTERVAL=${3:-500ms}
ADBD_PORT=${ADBD_PORT:-27183}
ADB_PORT=${ADB_PORT:-27037}
DDMTUI_CMD=${DDMTUI_CMD:-list}
work=$(mktemp -d)
[ "${KEEP:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
ms=${INTERVAL%ms}
case "$INTERVAL" in *ms) ;; *s) ms=$(( ${INTERVAL%s} * 1000 )) ;; esac

jar() { dpkg -L "$1" | grep -E "/$2\$" | head -1; }
JARS=$(jar libandroid-ddms-java com.android.tools.ddms.ddmlib-25.2.2.jar):$(jar libandroid-tools-common-java com.android.tools.common.jar):$(jar libguava-java guava.jar)
(cd "$root" && CGO_ENABLED=0 go build -o "$work/ddmtui" . && CGO_ENABLED=0 go build -o "$work/pollfloor" ./scripts/pollfloor)
javac -cp "$JARS" -d "$work" "$root/scripts/ddmlib/DdmlibMonitor.java"

export ANDROID_ADB_SERVER_PORT=$ADB_PORT
sim=
cleanup_device() {
	adb kill-server >/dev/null 2>&1 || true
	if [ -n "$sim" ]; then kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; sim=; fi
}
trap 'cleanup_device; [ "${KEEP:-}" = 1 ] || rm -rf "$work"' EXIT

device() { # device N: a simulated device with N VMs behind the private adb server
	"$work/ddmtui" sim --vms "$1" --adbd "$ADBD_PORT" --local 0 >"$work/sim.log" 2>&1 &
	sim=$!
	local i
	for i in $(seq 100); do # until the simulator listens (slow under load)
		grep -q 'simulated adb device' "$work/sim.log" && break
		sleep 0.2
	done
	adb start-server >/dev/null 2>&1
	for i in $(seq 30); do # adb connect says "failed" with status 0
		adb connect "127.0.0.1:$ADBD_PORT" >/dev/null 2>&1 || true
		adb devices | grep -q "^127.0.0.1:$ADBD_PORT[[:space:]]*device" && break
		sleep 1
	done
	adb devices | grep -q "^127.0.0.1:$ADBD_PORT[[:space:]]*device" || { echo "the simulated device did not connect" >&2; exit 1; }
	sleep 2 # the VMs' jdwp tracking settles
}

run_ddmtui() { # prints "cpu_s rss_kib vms"
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S %M' -o "$work/t" "$work/ddmtui" $DDMTUI_CMD --json --adb "127.0.0.1:$ADB_PORT" --scan off \
		--thread-interval "$INTERVAL" --meminfo-interval 0 --wait "${DUR}s" >"$work/out.json" 2>"$work/ddmtui.err"
	read -r u s m <"$work/t"
	echo "$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') $m $(grep -o '"pid"' "$work/out.json" | wc -l)"
}

run_floor() { # [-events]; prints "cpu_s replies vms events"
	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 "$work/pollfloor" -adb "127.0.0.1:$ADB_PORT" -serial "127.0.0.1:$ADBD_PORT" \
		-for "${DUR}s" -every "$INTERVAL" "$@" 2>"$work/floor.err"
}

run_ddmlib() { # prints "cpu_s rss_kib clients"
	/usr/bin/time -f '%U %S %M' -o "$work/t" java -cp "$JARS:$work" DdmlibMonitor "$(command -v adb)" "$DUR" "$ms" \
		>"$work/ddmlib.out" 2>"$work/ddmlib.err"
	read -r u s m <"$work/t"
	echo "$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') $m $(sed -n 's/.*clients=\([0-9]*\).*/\1/p' "$work/ddmlib.out")"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $VMS VMs, THST every $INTERVAL, ${DUR}s per run"
declare -A cpu rss seen rep ev
load_report before
for n in 1 "$VMS"; do
	device "$n"
	read -r cpu[t$n] rss[t$n] seen[t$n] < <(run_ddmtui)
	read -r cpu[j$n] rss[j$n] seen[j$n] < <(run_ddmlib)
	read -r cpu[f$n] rep[f$n] seen[f$n] ev[f$n] < <(run_floor -events)
	read -r cpu[p$n] rep[p$n] seen[p$n] ev[p$n] < <(run_floor)
	echo "$n VM(s): ddmtui cpu ${cpu[t$n]}s rss ${rss[t$n]} KiB (saw ${seen[t$n]}); ddmlib cpu ${cpu[j$n]}s rss ${rss[j$n]} KiB (saw ${seen[j$n]}); ddmlib: $(cat "$work/ddmlib.out"); floor cpu ${cpu[f$n]}s (${rep[f$n]} replies and ${ev[f$n]} VM packets from ${seen[f$n]} VMs); polls-only floor cpu ${cpu[p$n]}s (${rep[p$n]} replies)"
	cleanup_device
done
load_report after
# A real adbd lists at most 1020 bytes of pids in track-jdwp (the simulator too): about 180 VMs of
# 200 are visible through adb. Per-VM figures use the VMs each tool saw.
awk -v n="$VMS" -v tn="${seen[t$VMS]}" -v jn="${seen[j$VMS]}" -v d="$DUR" -v tc1="${cpu[t1]}" -v tcn="${cpu[t$VMS]}" -v tr1="${rss[t1]}" -v trn="${rss[t$VMS]}" \
	-v jc1="${cpu[j1]}" -v jcn="${cpu[j$VMS]}" -v jr1="${rss[j1]}" -v jrn="${rss[j$VMS]}" \
	-v fn="${seen[f$VMS]}" -v fc1="${cpu[f1]}" -v fcn="${cpu[f$VMS]}" \
	-v pn="${seen[p$VMS]}" -v pc1="${cpu[p1]}" -v pcn="${cpu[p$VMS]}" 'BEGIN {
	printf "ddmtui with %d VMs (%d seen): %.2f%% of one core, %.1f MiB peak RSS (targets at 200 VMs, 2 Hz: <= 3%%, <= 48 MiB)\n", n, tn, tcn * 100 / d, trn / 1024
	printf "ddmlib with %d VMs (%d seen): %.2f%% of one core, %.1f MiB peak RSS\n", n, jn, jcn * 100 / d, jrn / 1024
	if (tn > 1 && jn > 1) {
		tcv = (tcn - tc1) / (tn - 1); jcv = (jcn - jc1) / (jn - 1)
		trv = (trn - tr1) / (tn - 1); jrv = (jrn - jr1) / (jn - 1)
		printf "per VM (marginal, (N - 1 VM) / (N - 1), N seen): ddmtui %.3f ms CPU/s and %.0f KiB; ddmlib %.3f ms CPU/s and %.0f KiB\n", tcv * 1000 / d, trv, jcv * 1000 / d, jrv
		printf "ddmlib/ddmtui per VM: CPU %.1fx, RSS %.1fx (target >= 5x)\n", (tcv > 0 ? jcv / tcv : 0), (trv > 0 ? jrv / trv : 0)
		printf "ddmlib/ddmtui whole process at %d VMs: CPU %.1fx, RSS %.1fx\n", n, (tcn > 0 ? jcn / tcn : 0), (trn > 0 ? jrn / trn : 0)
		if (fn > 1) {
			fcv = (fcn - fc1) / (fn - 1)
			printf "floor (the same packets: one thread, epoll, plain system calls) per VM: %.3f ms CPU/s; ddmlib/floor %.1fx, ddmtui/floor %.1fx\n", fcv * 1000 / d, (fcv > 0 ? jcv / fcv : 0), (fcv > 0 ? tcv / fcv : 0)
			if (fcv > 0)
				printf "  5x less CPU than ddmlib per VM is %.3f ms CPU/s, %.2fx the floor%s\n", jcv / 5 * 1000 / d, jcv / (5 * fcv), (jcv / (5 * fcv) < 1 ? ": less than the kernel charges for the packets" : "")
		}
		if (pn > 1) {
			pcv = (pcn - pc1) / (pn - 1)
			printf "polls-only floor (THST alone, no events) per VM: %.3f ms CPU/s; ddmlib/it %.1fx, ddmtui/it %.1fx\n", pcv * 1000 / d, (pcv > 0 ? jcv / pcv : 0), (pcv > 0 ? tcv / pcv : 0)
		}
	}
}'
