#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME each (default 5s).
# Usage: FUZZTIME=30s scripts/fuzz.sh [package-dir ...]
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-5s}
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  mapfile -t dirs < <(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)
fi
fail=0
count=0
for d in "${dirs[@]}"; do
  for f in $(grep -h '^func Fuzz' "$d"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort -u); do
    count=$((count+1))
    echo "== $d $f ($FUZZTIME)"
    if ! go test -run='^$' -fuzz="^$f\$" -fuzztime="$FUZZTIME" "$d" >/tmp/fuzz.$$.log 2>&1; then
      cat /tmp/fuzz.$$.log; fail=1
    else
      tail -1 /tmp/fuzz.$$.log
    fi
  done
done
rm -f /tmp/fuzz.$$.log
echo "fuzz targets run: $count"
exit $fail
