#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME each (default 5s) and
# prints each target's executions.
#
# Minimizing a new interesting input is bounded by $FUZZMINIMIZETIME (default
# 100x: at most 100 executions per input); Go's default of 60s per input made
# short runs spend their whole time minimizing and execute almost nothing. A
# target that executes fewer than $FUZZMINEXECS inputs (default 1000) fails
# the run: it did not really fuzz.
#
# Usage: FUZZTIME=30s scripts/fuzz.sh [package-dir ...]
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-5s}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-100x}
FUZZMINEXECS=${FUZZMINEXECS:-1000}
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  mapfile -t dirs < <(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail=0
count=0
summary=()
for d in "${dirs[@]}"; do
  for f in $(grep -h '^func Fuzz' "$d"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort -u); do
    count=$((count+1))
    echo "== $d $f ($FUZZTIME, minimize $FUZZMINIMIZETIME)"
    status=ok
    if ! go test -run='^$' -fuzz="^$f\$" -fuzztime="$FUZZTIME" -fuzzminimizetime="$FUZZMINIMIZETIME" "$d" >"$log" 2>&1; then
      cat "$log"; fail=1; status=FAIL
    fi
    # The last progress line holds the total: "fuzz: elapsed: 5s, execs: 138155 (36015/sec), ..."
    execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    execs=${execs:-0}
    if [ "$status" = ok ] && [ "$execs" -lt "$FUZZMINEXECS" ]; then
      status="TOO FEW (< $FUZZMINEXECS)"; fail=1
      tail -5 "$log"
    fi
    echo "   $f: $execs execs, $status"
    summary+=("$(printf '%-12s %-28s %12s  %s' "$d" "$f" "$execs" "$status")")
  done
done
echo
echo "fuzz targets run: $count (FUZZTIME=$FUZZTIME, FUZZMINIMIZETIME=$FUZZMINIMIZETIME)"
printf '%s\n' "${summary[@]}"
exit $fail
