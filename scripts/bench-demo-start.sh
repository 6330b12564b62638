#!/usr/bin/env bash
# Demo start-up (issue 15 item 6): from exec of a built `ddmtui demo` to its
# first full frame (the VM list with VMs and the selected VM's thread table
# with rows), read the way a person sees it: through tmux (capture-pane
# polled every few ms). The baseline, in the same tmux server and the same
# run, is the time tmux takes to show the output of a trivial command
# (printf of a frame-sized text), so the excess is what ddmtui itself costs.
# Runs are interleaved (baseline, demo, baseline, demo, ...); the medians are
# reported.
#
# Usage: scripts/bench-demo-start.sh [RUNS=7] [SIZE=120x40]
#   BIN=path/to/ddmtui measures that binary instead of building this tree.
set -euo pipefail
. "$(dirname "$0")/lib/load.sh"
cd "$(dirname "$0")/.."
RUNS=${1:-7}
SIZE=${2:-120x40}
PORT=${PORT:-24100}
command -v tmux >/dev/null || { echo "tmux is not installed" >&2; exit 1; }
dir=$(mktemp -d)
bin=$dir/ddmtui
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  CGO_ENABLED=0 go build -trimpath -o "$bin" .
fi
sock=ddmtui-bench-$$
tm() { tmux -L "$sock" "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
tm new-session -d -s b -x "${SIZE%x*}" -y "${SIZE#*x}" "sleep 3600"
sleep 0.3

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

# wait_for START PATTERN...: polls the pane until every pattern matches;
# prints the ms since START (µs), or "timeout".
wait_for() {
  local start=$1; shift
  local deadline=$((start + 10000000)) scr p ok
  while :; do
    scr=$(tm capture-pane -p -t b)
    ok=1
    for p in "$@"; do
      grep -Eq -- "$p" <<<"$scr" || { ok=0; break; }
    done
    if [ $ok = 1 ]; then
      echo $((($(now_us) - start) / 1000))
      return
    fi
    if [ "$(now_us)" -gt $deadline ]; then
      echo timeout
      printf '%s\n' "$scr" >"$dir/last-screen"
      return
    fi
    sleep 0.002
  done
}

# A frame-sized text the trivial command prints: two markers like the
# demo's (the patterns below match it too).
printf 'VMs (1)\n%s\nThreads · x\n│  1 main  running\n' "$(head -c 3000 /dev/zero | tr '\0' '=')" >"$dir/frame"

full=('VMs \([1-9][0-9]*\)' 'Threads · [^ ]' '│ *[0-9]+ .* (running|wait|sleeping|monitor|native|timed|vmwait|starting|init)( |$)')
base=() demo=()
load_report before
for i in $(seq 1 "$RUNS"); do
  t0=$(now_us)
  tm respawn-pane -k -t b "cat $dir/frame; sleep 3600"
  base+=("$(wait_for "$t0" "${full[@]}")")
  t0=$(now_us)
  tm respawn-pane -k -t b "$bin demo --log - --port $PORT"
  demo+=("$(wait_for "$t0" "${full[@]}")")
  tm respawn-pane -k -t b "sleep 3600"
  sleep 0.3 # the demo's ports are released
done

median() { printf '%s\n' "$@" | { grep -v timeout || true; } | sort -n | awk '{a[NR]=$1} END{if(NR==0){print "timeout"; exit} print a[int((NR+1)/2)]}'; }
load_report after
mb=$(median "${base[@]}")
md=$(median "${demo[@]}")
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); tmux $SIZE; $RUNS runs each, interleaved"
echo "baseline (tmux shows a trivial command's output), ms: ${base[*]}"
echo "ddmtui demo to first full frame, ms:                  ${demo[*]}"
if [ "$mb" = timeout ] || [ "$md" = timeout ]; then
  echo "a run timed out; last screen:"; cat "$dir/last-screen" 2>/dev/null || true
  exit 1
fi
echo "median: demo ${md} ms, baseline ${mb} ms, excess $((md - mb)) ms (target: first full frame within 150 ms)"
