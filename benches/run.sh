#!/usr/bin/env bash
# Benchmarks of osctl's own cost, on the sample device tree (examples/device).
#
#   benches/run.sh [OSCTL_BINARY]
#
# Reports, per command: median wall time over many runs (hyperfine) and peak RSS (GNU time),
# plus the binary's size, and the machine it ran on. Needs: hyperfine, time (Debian packages).
# These are measurements, not pass/fail tests; the README quotes them with the date and machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/x86_64-unknown-linux-gnu/release/osctl}
[ -x "$bin" ] || { echo "no binary at $bin (build it with scripts/build-static)" >&2; exit 1; }
for tool in hyperfine /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install hyperfine time)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -a examples/device "$work/device"
root=$work/device

echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
echo "binary:  $bin, $(stat -c %s "$bin") bytes ($(file -b "$bin" | grep -o "static-pie linked\|statically linked\|dynamically linked"))"
echo

median_ms() { # hyperfine JSON -> median in ms
  python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$1"
}
peak_rss_kb() { # max over 5 runs of GNU time's maximum resident set size
  local max=0 kb
  for _ in 1 2 3 4 5; do
    kb=$( /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n1 )
    [ "$kb" -gt "$max" ] && max=$kb
  done
  echo "$max"
}

printf '| command | median wall | peak RSS |\n|---|---|---|\n'
bench() {
  local label=$1; shift
  hyperfine --style none --shell=none --warmup 20 --runs 300 --export-json "$work/h.json" -- "$*" >/dev/null 2>&1
  # shellcheck disable=SC2016 # the backticks are Markdown
  printf '| `%s` | %s ms | %s KiB |\n' "$label" "$(median_ms "$work/h.json")" "$(peak_rss_kb "$@")"
}
bench "osctl --version" "$bin" --version
bench "osctl status" "$bin" --root "$root" status
bench "osctl status --json" "$bin" --root "$root" --json status
