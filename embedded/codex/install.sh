#!/usr/bin/env bash
# osctl's embedded installer for codex (the OpenAI Codex CLI behind os-server's bridge).
#
# `osctl switch codex` writes this file to /usr/local/lib/os-runtimes/codex/install.sh and runs
# it only when codex is not installed (its verify hook fails). osctl captures the output into
# /root/.codex/install.log and kills the script after --install-timeout; each network step here
# is bounded on its own too.
#
# It installs and does not start anything: osctl owns codex.service (it writes the unit on every
# switch), runs presync, starts the unit, waits for it to stay up and only then stops the old
# runtime. The bridge itself (/usr/local/bin/os-server) is part of the OS image. jq is not
# installed: it served upstream's shell presync, which osctl replaces with native code.
#
# Data (environment variables, with defaults):
#   CODEX_VERSION       release tag of openai/codex (default rust-v0.142.5)
#   OSCTL_RUNTIME_HOME  CODEX_HOME (default /root/.codex)
set -euo pipefail

CODEX_VERSION=${CODEX_VERSION:-rust-v0.142.5}
CODEX_DIR=${OSCTL_RUNTIME_HOME:-/root/.codex}

log() { printf '== %s\n' "$*"; }

# Installs the missing Debian packages among "$@" (bounded).
apt_get() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -q
  DEBIAN_FRONTEND=noninteractive timeout 1200 apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# fetch URL DEST: https only, retried, with connect and total timeouts.
fetch() {
  log "download $1"
  curl --fail --silent --show-error --location --proto '=https' --retry 3 --retry-delay 2 \
    --connect-timeout 20 --max-time 600 -o "$2" "$1"
}

case $(uname -m) in
  aarch64 | arm64) arch=aarch64 ;;
  x86_64 | amd64) arch=x86_64 ;;
  *) echo "codex: no release for $(uname -m)" >&2; exit 1 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version=${CODEX_VERSION#rust-v}
if command -v codex >/dev/null 2>&1 && timeout 20 codex --version 2>/dev/null | grep -qF -- "$version"; then
  log "codex $version is already installed"
else
  apt_get curl ca-certificates
  asset=codex-$arch-unknown-linux-musl
  fetch "https://github.com/openai/codex/releases/download/$CODEX_VERSION/$asset.tar.gz" "$work/codex.tar.gz"
  mkdir "$work/x"
  tar -xzf "$work/codex.tar.gz" -C "$work/x"
  bin=$(find "$work/x" -type f -name 'codex*' -print -quit)
  [ -n "$bin" ] || { echo "codex: $asset.tar.gz holds no codex binary" >&2; exit 1; }
  install -m 0755 "$bin" /usr/local/bin/codex
fi
mkdir -p "$CODEX_DIR/workspace" "$CODEX_DIR/attachments"
log "codex $CODEX_VERSION installed"
