#!/usr/bin/env bash
# Benchmark of `osctl presync`, per runtime, on the sample devices (examples/presync/<rt>):
#
#   benches/presync.sh [OSCTL_BINARY]          (default: the static release build)
#   OSCTL_BENCH_RUNTIMES="codex hermes" benches/presync.sh   (a subset)
#
# For each runtime it reports the median wall time (hyperfine) of
#   - presync on a device already in sync: the boot path (ExecStartPre=); the device tree is
#     fingerprinted (paths, modes, sizes, mtimes) before and after the runs, and any write fails
#     the benchmark;
#   - a first full presync: a fresh copy of the sample device before every run;
#   - the runtime's own CLI doing one comparable config write on the same files, from the
#     oracle prefix (tests/oracles/install.sh), run offline as the oracle tests run it; picoclaw
#     has no installable CLI.
# With strace on PATH, one more first presync per runtime counts osctl's fsync-class calls (fsync,
# fdatasync, syncfs, sync_file_range) and the files it changed.
# Needs hyperfine (on PATH or in the oracle prefix) and python3. Measurements, not pass/fail
# tests: the README quotes them with the date and the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(readlink -f "${1:-target/x86_64-unknown-linux-gnu/release/osctl}")
[ -x "$bin" ] || { echo "no binary at $bin (build it with scripts/build-static)" >&2; exit 1; }
ORACLES=${OSCTL_ORACLES_DIR:-$HOME/.cache/osctl-oracles}
hf=$(command -v hyperfine || true)
[ -n "$hf" ] || hf=$ORACLES/bin/hyperfine
[ -x "$hf" ] || { echo "hyperfine not found (apt-get install hyperfine, or tests/oracles/install.sh)" >&2; exit 1; }
work=$(mktemp -d)

echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F)"
echo "binary:  $bin, $(stat -c %s "$bin") bytes ($(file -b "$bin" | grep -o "static-pie linked\|statically linked\|dynamically linked"))"
echo

median_ms() {
  python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$1"
}
cpu_ms() { # mean user + system time: what osctl itself costs, whatever the machine's load
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.1f" % ((r["user"]+r["system"])*1000))' "$1"
}
fingerprint() { # every path with mode, size and mtime: a write of the same bytes still shows
  (cd "$1" && find . -printf '%p %m %s %T@\n' | sort | sha256sum | cut -d' ' -f1)
}
# The offline environment of tests/oracles/lib.sh (_oracle_run), for a HOME.
peer_env() {
  printf '%s ' env -i "HOME=$1" "PATH=$ORACLES/node24/bin:$ORACLES/bin:/usr/bin:/bin" \
    "TMPDIR=$ORACLES/tmp" LANG=C.UTF-8 TERM=dumb NO_COLOR=1 DO_NOT_TRACK=1 OPENCLAW_NO_AUTO_UPDATE=1 CI=1 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
    DISABLE_ERROR_REPORTING=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 \
    OPENCODE_DISABLE_SHARE=1
}
peer_write() { # the runtime's own CLI, one config write
  case $1 in
    openclaw) echo "openclaw config set agents.defaults.thinkingDefault low" ;;
    hermes) echo "hermes config set model.default claude-opus-4-6" ;;
    codex) echo "codex mcp add bench -- /usr/bin/true" ;;
    claudecode) echo "claude mcp add -s user bench -- /usr/bin/true" ;;
    opencode) echo "opencode mcp add bench -- /usr/bin/true" ;;
    *) return 1 ;;
  esac
}

# tmpfs: the first full presync without the disk's fsync latency (osctl's own cost).
shm=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$work" "$shm"' EXIT
printf '| runtime | presync, in sync (boot path): median (CPU) | writes | first full presync, disk: median (CPU) | its fsync-class calls (files changed) | same on tmpfs | runtime CLI, one config write |\n'
printf '|---|---|---|---|---|---|---|\n'
for rt in ${OSCTL_BENCH_RUNTIMES:-openclaw hermes picoclaw codex claudecode opencode}; do
  src=examples/presync/$rt
  # First full presync: a fresh copy of the sample device before every run.
  "$hf" --style none --warmup 3 --runs 60 --export-json "$work/first.json" \
    --prepare "rm -rf '$work/first' && cp -a '$src' '$work/first'" \
    "'$bin' --root '$work/first' -q presync $rt" >/dev/null 2>&1
  "$hf" --style none --warmup 3 --runs 60 --export-json "$work/shm.json" \
    --prepare "rm -rf '$shm/first' && cp -a '$src' '$shm/first'" \
    "'$bin' --root '$shm/first' -q presync $rt" >/dev/null 2>&1
  syncs="-"
  if command -v strace >/dev/null; then
    rm -rf "$work/first" && cp -a "$src" "$work/first"
    changed=$("$bin" --root "$work/first" --json --dry-run presync "$rt" 2>/dev/null \
      | python3 -c 'import json,sys; s=json.load(sys.stdin)["plan"]["summary"]; print(s["files"] + s.get("folders", 0))')
    rm -rf "$work/first" && cp -a "$src" "$work/first"
    strace -f -c -e trace=fsync,fdatasync,syncfs,sync_file_range -o "$work/strace.txt" \
      "$bin" --root "$work/first" -q presync "$rt" >/dev/null 2>&1 \
      && syncs="$(awk '$NF == "total" { n = $(NF-1) } END { print n + 0 }' "$work/strace.txt") ($changed)"
  fi
  # In sync: heal once, then measure; the tree must not change.
  rm -rf "$work/sync" && cp -a "$src" "$work/sync"
  "$bin" --root "$work/sync" -q presync "$rt" 2>/dev/null
  "$bin" --root "$work/sync" -q presync "$rt" 2>/dev/null # the lock file exists from here on
  before=$(fingerprint "$work/sync")
  "$hf" --style none --shell=none --warmup 20 --runs 300 --export-json "$work/sync.json" \
    -- "$bin --root $work/sync -q presync $rt" >/dev/null 2>&1
  if [ "$(fingerprint "$work/sync")" = "$before" ]; then writes=0; else writes="CHANGED"; fi
  peer="n/a (no installable CLI)"
  if cmd=$(peer_write "$rt") && [ -x "$ORACLES/bin/${cmd%% *}" ]; then
    # The runtime's HOME: the healed device's /root, with /root/ paths pointed into it.
    rm -rf "${work:?}/home" && cp -a "$work/sync/root" "$work/home"
    grep -rlI '/root/' "$work/home" | xargs -r sed -i "s#/root/#$work/peer/#g"
    "$hf" --style none --warmup 1 --runs 5 --export-json "$work/peer.json" \
      --prepare "rm -rf '$work/peer' && cp -a '$work/home' '$work/peer'" \
      "cd '$work' && $(peer_env "$work/peer") timeout 120 $cmd </dev/null" >/dev/null 2>&1 \
      && peer="$(median_ms "$work/peer.json") ms (\`${cmd% -- *}\`)" \
      || peer="failed (\`$cmd\`)"
  fi
  printf '| %s | %s ms (%s ms) | %s | %s ms (%s ms) | %s | %s ms | %s |\n' \
    "$rt" "$(median_ms "$work/sync.json")" "$(cpu_ms "$work/sync.json")" "$writes" \
    "$(median_ms "$work/first.json")" "$(cpu_ms "$work/first.json")" "$syncs" "$(median_ms "$work/shm.json")" "$peer"
done
