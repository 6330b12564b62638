#!/usr/bin/env bash
# Recording overhead (issue 14): N simulated VMs on loopback, THST polled
# at 1 Hz each, for DURATION seconds, monitored headless twice in the same
# session: `ddmtui list --wait` (no recording) and `ddmtui record`. Reports
# CPU and peak RSS of both, and the recording's bytes per VM-hour.
#
# Usage: scripts/bench-record.sh [VMS=200] [DURATION=30]
set -euo pipefail
. "$(dirname "$0")/lib/load.sh"
cd "$(dirname "$0")/.."
VMS=${1:-200}
DUR=${2:-30}
BASE=${BASE:-32000}
dir=$(mktemp -d)
bin=$dir/ddmtui
CGO_ENABLED=0 go build -o "$bin" .

run() { # run record|list: prints "cpu_seconds max_rss_kib"
  "$bin" sim --local "$BASE" --vms "$VMS" --interval 500ms >/dev/null 2>&1 &
  local sim=$!
  sleep 5
  local flags=(--adb off --scan "$BASE-$((BASE + VMS - 1))" --thread-interval 1s)
  if [ "$1" = record ]; then
    /usr/bin/time -f '%U %S %M' -o "$dir/time" "$bin" record -o "$dir/rec" "${flags[@]}" --duration "${DUR}s" >/dev/null 2>&1
  else
    /usr/bin/time -f '%U %S %M' -o "$dir/time" "$bin" list --json "${flags[@]}" --wait "${DUR}s" >"$dir/list"
  fi
  kill "$sim"; wait "$sim" 2>/dev/null || true
  read -r u s m <"$dir/time"
  echo "$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') $m"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg); $VMS VMs, THST every 1 s, ${DUR}s"
load_report before
read -r cpu0 rss0 < <(run list)
read -r cpu1 rss1 < <(run record)
load_report after
size=$(stat -c %s "$dir/rec")
echo "without recording: cpu ${cpu0}s  peak RSS ${rss0} KiB  VMs listed $(grep -c '"debug_port"' "$dir/list" || true)"
echo "recording:         cpu ${cpu1}s  peak RSS ${rss1} KiB  file ${size} bytes"
awk -v c0="$cpu0" -v c1="$cpu1" -v n="$VMS" -v d="$DUR" -v b="$size" 'BEGIN{
  printf "recording costs %.2fx the CPU (%+.3f ms per VM-second); %.0f KiB per VM-hour\n",
    c1/(c0>0?c0:0.01), (c1-c0)*1000/(n*d), b/1024/(n*d/3600)}'
echo "VMs in the replay at its end: $("$bin" replay "$dir/rec" --at "${DUR}s" | grep -c '"debug_port"' || true)"
rm -rf "$dir"
