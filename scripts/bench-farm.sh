#!/usr/bin/env bash
# How far one `ddmtui serve --metrics` goes (docs/FARM.md): N simulated VMs
# on loopback, THST polled at 1 Hz each, /metrics scraped every SCRAPE
# seconds for DURATION seconds. Reports the exporter's CPU and peak RSS, the
# scrape time and size, against a baseline of the same run with one VM.
#
# Usage: scripts/bench-farm.sh [VMS=200] [DURATION=30] [SCRAPE=1]
set -euo pipefail
. "$(dirname "$0")/lib/load.sh"
cd "$(dirname "$0")/.."
VMS=${1:-200}
DUR=${2:-30}
SCRAPE=${3:-1}
BASE=${BASE:-33000}
MPORT=${MPORT:-39464}
bin=$(mktemp -d)/ddmtui
CGO_ENABLED=0 go build -o "$bin" .

run() { # run N: prints "cpu_seconds max_rss_kib vms_exported scrape_ms scrape_bytes"
  local n=$1
  "$bin" sim --local "$BASE" --vms "$n" --interval 1s >/dev/null 2>&1 &
  local sim=$!
  sleep 2
  local t; t=$(mktemp)
  /usr/bin/time -f '%U %S %M' -o "$t.time" \
    "$bin" serve --adb off --scan "$BASE-$((BASE + n - 1))" --thread-interval 1s --selected-port 0 \
      --debug-base 45000 --metrics "127.0.0.1:$MPORT" --duration "${DUR}s" >/dev/null 2>&1 &
  local srv=$!
  sleep 3
  local end=$((SECONDS + DUR - 5)) total=0 count=0 bytes=0 vms=0
  while [ $SECONDS -lt $end ]; do
    local line
    line=$(curl -s -o "$t.body" -w '%{time_total} %{size_download}' "http://127.0.0.1:$MPORT/metrics" || echo "0 0")
    read -r secs size <<<"$line"
    total=$(awk -v a="$total" -v b="$secs" 'BEGIN{print a+b}'); count=$((count + 1)); bytes=$size
    vms=$(awk '/^ddmtui_vms\{/ {print $2}' "$t.body" 2>/dev/null || echo 0)
    sleep "$SCRAPE"
  done
  wait "$srv" || true
  kill "$sim"; wait "$sim" 2>/dev/null || true
  read -r u s m <"$t.time"
  echo "$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') $m ${vms:-0} $(awk -v t="$total" -v c="$count" 'BEGIN{printf "%.1f", c ? 1000*t/c : 0}') $bytes"
  rm -f "$t" "$t.time" "$t.body"
}

echo "machine: $(nproc) cores; $VMS VMs, THST every 1 s, scrape every ${SCRAPE}s, ${DUR}s"
load_report before
read -r bc br bn bms bb < <(run 1)
read -r c r n ms b < <(run "$VMS")
load_report after
echo "baseline (1 VM):  cpu ${bc}s  peak RSS ${br} KiB  exported $bn VMs  scrape ${bms} ms, ${bb} bytes"
echo "$VMS VMs:          cpu ${c}s  peak RSS ${r} KiB  exported $n VMs  scrape ${ms} ms, ${b} bytes"
awk -v c="$c" -v bc="$bc" -v n="$VMS" -v d="$DUR" -v r="$r" -v br="$br" 'BEGIN{
  printf "cpu ratio %.1fx for %dx the VMs: %.1f%% of one core; RSS ratio %.2fx (%.0f KiB per extra VM)\n",
    c/(bc>0?bc:0.01), n, 100*c/d, r/br, (r-br)/(n-1)}'
