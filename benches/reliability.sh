#!/usr/bin/env bash
# Runs the reliability suites and prints the figures line each one measures (the README's
# "Reliability" table is copied from this output, never typed).
#
#   benches/reliability.sh                       the CI budgets
#   OSCTL_CRASH_KILLS=2000 OSCTL_CONCURRENCY_ROUNDS=50 OSCTL_FUZZ_CASES=20000 benches/reliability.sh
#
# Extra arguments go to `cargo test` (e.g. --release).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores ($(uname -m)), $(date -u +%Y-%m-%dT%H:%MZ)"
for suite in reliability_crash reliability_concurrency reliability_bad_input reliability_secrets \
  reliability_containment reliability_engine fuzz_parsers fuzz_persona reliability_regressions; do
  # Each suite is a module of the integration-test binary (tests/it/): the filter runs it alone.
  out=$(cargo test "$@" --test it -- "$suite::" --nocapture --test-threads 2 2>&1) || {
    printf '%s\n' "$out" | tail -40
    echo "FAILED: $suite" >&2
    exit 1
  }
  printf '%s\n' "$out" | grep -E '^RELIABILITY|^test result' | sed "s/^test result/$suite: test result/"
done
