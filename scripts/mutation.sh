#!/usr/bin/env bash
# Mutation testing of the packages that decode and analyse (make mutation).
# Each package's own tests run against every covered mutant gremlins makes of
# it (one changed operator, boundary or condition at a time); a mutant the
# tests still pass with has "lived". Prints the kill rate per package:
# killed / (killed + lived), with timed-out mutants counted as killed (the
# change made the tests hang, which a test run notices).
#
#   scripts/mutation.sh [PKG...]      default: the list below
#   MIN=90 scripts/mutation.sh        exit 1 when a package is below MIN percent
#   GREMLINS_FLAGS='--workers 2'      extra flags for gremlins unleash
#   TIMEOUT_COEFFICIENT=10            gremlins' per-mutant time limit, as a multiple of the
#                                     tests' own time (default 10: under load the tool's default
#                                     lets slow runs time out and count as killed)
set -euo pipefail
cd "$(dirname "$0")/.."
# gremlins is pinned here and installed into .bin/ (git-ignored); run through
# `go run` its mutants all time out, so it runs as an installed binary.
if [ -z "${GREMLINS:-}" ]; then
  GOBIN="$PWD/.bin" go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
  GREMLINS="$PWD/.bin/gremlins"
fi
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./jdwp ./ddm ./adb ./scan ./heap ./trace ./threaddump ./hprof ./allocs ./proxy ./internal/wire
  ./viewtree ./logcat ./android/meminfo ./android/procfs ./jdwpspy ./chrometrace ./heapdump ./record ./heappng ./config)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
printf '%-22s %7s %6s %9s %8s %7s\n' package killed lived timedout uncovered rate
for p in "${pkgs[@]}"; do
  log="$out/$(echo "$p" | tr '/.' '__').log"
  # shellcheck disable=SC2086
  $GREMLINS unleash --timeout-coefficient "${TIMEOUT_COEFFICIENT:-10}" ${GREMLINS_FLAGS:-} "$p" >"$log" 2>&1 || true
  read -r killed lived uncovered < <(sed -n 's/^Killed: \([0-9]*\), Lived: \([0-9]*\), Not covered: \([0-9]*\).*/\1 \2 \3/p' "$log" | tail -1)
  timedout=$(sed -n 's/^Timed out: \([0-9]*\),.*/\1/p' "$log" | tail -1)
  if [ -z "${killed:-}" ]; then
    echo "$p: gremlins did not finish; its output:"; tail -20 "$log"; status=1; continue
  fi
  total=$((killed + lived + timedout))
  rate=$(awk -v k="$((killed + timedout))" -v t="$total" 'BEGIN { if (t == 0) print "n/a"; else printf "%.1f", 100*k/t }')
  printf '%-22s %7d %6d %9d %8d %6s%%\n' "$p" "$killed" "$lived" "$timedout" "$uncovered" "$rate"
  if [ -n "${VERBOSE:-}" ]; then grep 'LIVED' "$log" | sed 's/^/    /'; fi
  if [ -n "${MIN:-}" ] && [ "$rate" != "n/a" ] && awk -v r="$rate" -v m="$MIN" 'BEGIN { exit !(r < m) }'; then status=1; fi
done
exit $status
