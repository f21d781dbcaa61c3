#!/usr/bin/env bash
# tests/oracles/check-fixtures.sh - run every oracle validator on a fresh copy of
# fixtures/good (expect OK, servers fake+docs) and fixtures/bad (expect FAIL), then print
# each runtime's resolved view of the good fixture. Needs tests/oracles/install.sh first.
# Exit 0 when every outcome is as expected. ORACLE_TIMES=1 prints the wall time of each call.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$HERE/lib.sh"
oracles_available || exit 1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/osctl-oracle-fixtures.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
pass=0 fail=0
ms() { echo $(( $(date +%s%N) / 1000000 )); }
for kind in good bad; do
  for rt in $ORACLE_RUNTIMES; do
    h=$WORK/$kind-$rt; cp -a "$HERE/fixtures/$kind" "$h"
    t0=$(ms)
    if [ "$kind" = good ]; then line=$("${rt}_validate" "$h" fake docs); rc=$?; else line=$("${rt}_validate" "$h"); rc=$?; fi
    t=$(( $(ms) - t0 ))
    if { [ "$kind" = good ] && [ "$rc" = 0 ]; } || { [ "$kind" = bad ] && [ "$rc" != 0 ]; }; then
      pass=$((pass + 1)); verdict=ok
    else
      fail=$((fail + 1)); verdict=UNEXPECTED
    fi
    printf '%-4s %-10s %-8s %s%s\n' "$kind" "$rt" "$verdict" "$line" "$([ "${ORACLE_TIMES:-0}" = 1 ] && echo " [${t} ms]")"
  done
done
echo "--- resolved (good fixture)"
for rt in $ORACLE_RUNTIMES; do
  h=$WORK/resolved-$rt; cp -a "$HERE/fixtures/good" "$h"
  if out=$("${rt}_resolved" "$h") && [ -n "$out" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); out="UNEXPECTED: no output"; fi
  echo "$out"
done
echo "oracle fixtures: $pass passed, $fail failed"
[ "$fail" = 0 ]
