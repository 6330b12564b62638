#!/usr/bin/env bash
# Scale benchmark of the headless monitor (issue 3): N simulated VMs on
# loopback, THST polled at 2 Hz each, for DURATION seconds. Reports the
# monitor's CPU seconds and peak RSS, against a baseline run with one VM in
# the same session, so the figures are ratios that carry over machines.
#
# Usage: scripts/bench-monitor.sh [VMS=200] [DURATION=30]
set -euo pipefail
. "$(dirname "$0")/lib/load.sh"
cd "$(dirname "$0")/.."
VMS=${1:-200}
DUR=${2:-30}
BASE=${BASE:-31000}
bin=$(mktemp -d)/ddmtui
CGO_ENABLED=0 go build -o "$bin" .

run() { # run N: prints "cpu_seconds max_rss_kib vms_listed"
  local n=$1
  "$bin" sim --local "$BASE" --vms "$n" --interval 500ms >/dev/null 2>&1 &
  local sim=$!
  sleep 2
  local out=$(mktemp)
  /usr/bin/time -f '%U %S %M' -o "$out.time" \
    "$bin" list --json --adb off --scan "$BASE-$((BASE + n - 1))" --thread-interval 500ms --wait "${DUR}s" >"$out"
  kill "$sim"; wait "$sim" 2>/dev/null || true
  read -r u s m <"$out.time"
  local listed
  listed=$(grep -c '"source"' "$out" || true)
  echo "$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') $m $listed"
  rm -f "$out" "$out.time"
}

echo "machine: $(nproc) cores; $VMS VMs, THST every 500 ms, ${DUR}s"
load_report before
read -r base_cpu base_rss base_n < <(run 1)
read -r cpu rss n < <(run "$VMS")
load_report after
echo "baseline (1 VM):  cpu ${base_cpu}s  peak RSS ${base_rss} KiB  listed $base_n"
echo "$VMS VMs:          cpu ${cpu}s  peak RSS ${rss} KiB  listed $n"
echo "THST replies decoded: about $((VMS * DUR * 2))"
awk -v c="$cpu" -v bc="$base_cpu" -v n="$VMS" -v d="$DUR" -v r="$rss" -v br="$base_rss" 'BEGIN{
  printf "cpu ratio %.1fx for %dx the VMs; cpu per VM-second %.3f ms; RSS ratio %.2fx (%.0f KiB per extra VM)\n",
    c/(bc>0?bc:0.01), n, c*1000/(n*d), r/br, (r-br)/(n-1)}'
