#!/usr/bin/env bash
# Benchmark of osctl's own overhead for a runtime switch, inside a real systemd (the lab
# container of tests/lab/osctl-systemd-lab.sh).
#
#   benches/switch.sh [OSCTL_BINARY] [ROUNDS]     # as root; default: the static release binary, 30 rounds
#
# Two runtimes whose units start at once (`sleep infinity`) are switched back and forth:
#   - osctl:    `osctl -q switch <rt> --settle 0` (no settle window: that is a wait the operator
#               configures, 5 s by default, not work osctl does);
#   - baseline: the bare unit transitions a switch makes, `systemctl enable --now NEW` then
#               `systemctl disable --now OLD`: the time the units take to start and stop.
# osctl's overhead = median(osctl) - median(baseline): everything else a switch does (reading the
# device, writing and checking its files, the journal and the switch record, the verify hook,
# reading unit states, settling, config.json, the reconcilers). Both loops run inside the
# container, timed with `date +%s%N`, so nsenter's round trip is not counted. This is a
# measurement, not a pass/fail test; the README quotes it with the date and the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/x86_64-unknown-linux-gnu/release/osctl}
rounds=${2:-30}
[ -x "$bin" ] || { echo "no binary at $bin (build it with scripts/build-static)" >&2; exit 1; }
lab=tests/lab/osctl-systemd-lab.sh
name=bench-switch-$$
bash "$lab" check >/dev/null || { bash "$lab" check; exit 1; }
trap 'bash "$lab" down "$name" >/dev/null 2>&1 || true' EXIT
bash "$lab" up "$name" >/dev/null
root=/proc/$(bash "$lab" leader "$name")/root

install -D -m 0755 "$bin" "$root/usr/local/bin/osctl"
mkdir -p "$root/root/config" "$root/opt/bench"
printf '{\n  "agent_runtime": "openclaw"\n}\n' >"$root/root/config/config.json"
printf '#!/bin/sh\nexec sleep infinity\n' >"$root/usr/local/bin/hermes"
chmod 0755 "$root/usr/local/bin/hermes"
unit='[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n'
# shellcheck disable=SC2059 # the unit text is the format
printf "$unit" >"$root/etc/systemd/system/openclaw.service"
# shellcheck disable=SC2059
printf "$unit" >"$root/etc/systemd/system/hermes-gateway.service"

cat >"$root/opt/bench/run.sh" <<'INNER'
#!/bin/bash
# Runs inside the container: prints "osctl NS" and "baseline NS" lines, one per switch.
set -euo pipefail
rounds=$1
systemctl daemon-reload
systemctl enable --now openclaw.service 2>/dev/null
# Warm-up (first switch writes osctl's hermes files; the page cache warms up).
osctl -q switch hermes --settle 0 && osctl -q switch openclaw --settle 0
for _ in $(seq "$rounds"); do
  for rt in hermes openclaw; do
    t0=$(date +%s%N); osctl -q switch "$rt" --settle 0; t1=$(date +%s%N)
    echo "osctl $((t1 - t0))"
  done
done
for _ in $(seq "$rounds"); do
  for pair in "hermes-gateway openclaw" "openclaw hermes-gateway"; do
    set -- $pair
    t0=$(date +%s%N)
    systemctl enable --now "$1.service" 2>/dev/null
    systemctl disable --now "$2.service" 2>/dev/null
    t1=$(date +%s%N)
    echo "baseline $((t1 - t0))"
  done
done
INNER
chmod 0755 "$root/opt/bench/run.sh"
bash "$lab" exec "$name" /opt/bench/run.sh "$rounds" >"/tmp/$name.txt"

median_ms() { # KIND: median of that kind's samples, in ms
  awk -v k="$1" '$1 == k { print $2 }' "/tmp/$name.txt" | sort -n |
    awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.1f", m / 1e6 }'
}
osctl_ms=$(median_ms osctl)
base_ms=$(median_ms baseline)
n=$(grep -c '^osctl ' "/tmp/$name.txt")
rm -f "/tmp/$name.txt"
echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F)"
echo "binary:  $bin ($(stat -c %s "$bin") bytes); $n switches each way, in a systemd $(bash "$lab" exec "$name" systemctl --version | head -1 | cut -d' ' -f2) container"
echo
printf '| median per switch | ms |\n|---|---|\n'
# shellcheck disable=SC2016 # backquotes are Markdown here
printf '| `osctl switch --settle 0` | %s |\n' "$osctl_ms"
# shellcheck disable=SC2016
printf '| `systemctl enable --now NEW; systemctl disable --now OLD` | %s |\n' "$base_ms"
printf '| osctl overhead (difference) | %s |\n' "$(awk -v a="$osctl_ms" -v b="$base_ms" 'BEGIN { printf "%.1f", a - b }')"
