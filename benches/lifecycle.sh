#!/usr/bin/env bash
# Runs the lifecycle suite (tests/it/lifecycle.rs) and prints its figures line, with the machine
# and its load before and after (the README's Reliability figures are copied from this output).
#
#   benches/lifecycle.sh                                   the CI budget: 200 lives
#   OSCTL_LIFECYCLE_CASES=2000 benches/lifecycle.sh        a longer walk
#   OSCTL_LIFECYCLE_SEED=123 benches/lifecycle.sh          a replay
#   OSCTL_LIFECYCLE_SURVEY=1 OSCTL_LIFECYCLE_STRICT=1 benches/lifecycle.sh
#                                                          every distinct violation, known or not
#
# Extra arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores ($(uname -m)), $(date -u +%Y-%m-%dT%H:%MZ), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
status=0
out=$(cargo test "$@" --test it -- lifecycle:: --nocapture 2>&1) || status=$?
printf '%s\n' "$out" | grep -E '^RELIABILITY|^=== |^test result' || true
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg), $(($(date +%s) - start)) s in all"
if [ "$status" != 0 ]; then
  printf '%s\n' "$out" | tail -80
  echo "FAILED: lifecycle" >&2
  exit 1
fi
