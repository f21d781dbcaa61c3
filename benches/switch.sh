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
# Each osctl switch is paired with a baseline in the same direction run right after it, and
# osctl's overhead is the median of the paired differences: everything else a switch does
# (reading the device, writing and checking its files, the journal and the switch record, the
# verify hook, reading unit states, config.json, the reconcilers). Pairing keeps a change in the
# machine's load from landing on one side only. Both run inside the container (bash `time`), so
# nsenter's round trip is not counted. osctl's CPU time is reported too. This is a measurement,
# not a pass/fail test; the README quotes it with the date, the machine and its load.
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
# Runs inside the container. Each round switches openclaw -> hermes -> openclaw with osctl, and
# times the bare unit transitions in the same directions right after each osctl switch (two
# transitions, to come back to where osctl left the units), so a change in the machine's load
# hits both sides of a pair alike. Prints "osctl REAL USER SYS" and "baseline REAL USER SYS"
# lines (seconds, from bash's `time`).
set -euo pipefail
rounds=$1
TIMEFORMAT='%R %U %S'
systemctl daemon-reload
systemctl enable --now openclaw.service 2>/dev/null
pair() { systemctl enable --now "$1.service" 2>/dev/null; systemctl disable --now "$2.service" 2>/dev/null; }
# Warm-up: the first switch writes osctl's hermes files; the page cache warms up.
osctl -q switch hermes --settle 0 2>/dev/null && osctl -q switch openclaw --settle 0 2>/dev/null
for _ in $(seq "$rounds"); do
  for step in "hermes hermes-gateway openclaw" "openclaw openclaw hermes-gateway"; do
    read -r rt new old <<<"$step"
    # (stderr: this build's "presync is not available" warning on every switch)
    echo "osctl $({ time osctl -q switch "$rt" --settle 0 2>/dev/null; } 2>&1)"
    pair "$old" "$new"
    echo "baseline $({ time pair "$new" "$old"; } 2>&1)"
  done
done
INNER
chmod 0755 "$root/opt/bench/run.sh"
out=$(mktemp)
bash "$lab" exec "$name" /opt/bench/run.sh "$rounds" >"$out"

# median COLUMN KIND: the median of a column (2 = real, 3 + 4 = CPU) in ms
median() {
  awk -v k="$2" -v c="$1" '$1 == k { v = (c == "cpu") ? $3 + $4 : $2; print v * 1000 }' "$out" | sort -n |
    awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# The median of the paired differences osctl - baseline (the Nth osctl line with the Nth baseline).
paired() {
  paste <(awk '$1 == "osctl" { print $2 }' "$out") <(awk '$1 == "baseline" { print $2 }' "$out") |
    awk '{ print ($1 - $2) * 1000 }' | sort -n |
    awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
n=$(grep -c '^osctl ' "$out")
osctl_ms=$(median real osctl)
base_ms=$(median real baseline)
diff_ms=$(paired)
cpu_ms=$(median cpu osctl)
base_cpu_ms=$(median cpu baseline)
rm -f "$out"
echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F)"
echo "binary:  $bin ($(stat -c %s "$bin") bytes); $n switches (half each way) and as many baselines, in a systemd $(bash "$lab" exec "$name" systemctl --version | head -1 | cut -d' ' -f2) container"
echo
printf '| median per switch | ms |\n|---|---|\n'
# shellcheck disable=SC2016 # backquotes are Markdown here
printf '| `osctl switch --settle 0`, wall | %s |\n' "$osctl_ms"
# shellcheck disable=SC2016
printf '| `systemctl enable --now NEW; systemctl disable --now OLD`, wall | %s |\n' "$base_ms"
printf '| **osctl overhead**: paired difference osctl - baseline | %s |\n' "$diff_ms"
printf '| CPU time (user + sys, systemctl clients included): osctl / baseline | %s / %s |\n' "$cpu_ms" "$base_cpu_ms"
