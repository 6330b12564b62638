#!/usr/bin/env bash
# Checks `make dist` (run by .ci/run after make test; it cross-compiles four
# binaries, too slow for make test): four static binaries of the right
# format, SHA256SUMS that verify, and the host binary printing the version
# and commit it was built from.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
make -s dist DIST="$out" VERSION=v0.0.0-check COMMIT=0123456789abcdef >/dev/null
fail=0
for want in "linux-amd64:ELF 64-bit.*x86-64.*statically linked" "linux-arm64:ELF 64-bit.*aarch64.*statically linked" \
            "darwin-amd64:Mach-O 64-bit x86_64" "darwin-arm64:Mach-O 64-bit arm64"; do
  plat=${want%%:*} pattern=${want#*:}
  f="$out/ddmtui-v0.0.0-check-$plat"
  if [ ! -x "$f" ]; then echo "check-dist: $plat: no binary"; fail=1; continue; fi
  if ! file "$f" | grep -Eq "$pattern"; then echo "check-dist: $plat: $(file -b "$f")"; fail=1; fi
done
(cd "$out" && sha256sum --quiet -c SHA256SUMS) || { echo "check-dist: SHA256SUMS do not verify"; fail=1; }
[ "$(wc -l <"$out/SHA256SUMS")" -eq 4 ] || { echo "check-dist: SHA256SUMS has $(wc -l <"$out/SHA256SUMS") lines"; fail=1; }
if [ "$(go env GOOS)/$(go env GOARCH)" = linux/amd64 ]; then
  v=$("$out/ddmtui-v0.0.0-check-linux-amd64" version)
  [ "$v" = "ddmtui v0.0.0-check (commit 0123456789abcdef)" ] || { echo "check-dist: version printed: $v"; fail=1; }
fi
[ $fail -eq 0 ] && echo "check-dist: 4 binaries, SHA256SUMS verified, version and commit embedded"
exit $fail
