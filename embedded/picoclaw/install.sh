#!/usr/bin/env bash
# osctl's embedded installer for picoclaw (the autonomous-ai fork of PicoClaw).
#
# `osctl switch picoclaw` writes this file to /usr/local/lib/os-runtimes/picoclaw/install.sh and
# runs it only when picoclaw is not installed (its verify hook fails). osctl captures the output
# into /root/.picoclaw/install.log and kills the script after --install-timeout; each network
# step here is bounded on its own too.
#
# It installs and does not start anything: osctl owns picoclaw.service (it writes the unit on
# every switch), runs presync, starts the unit, waits for it to stay up and only then stops the
# old runtime. jq and yq are not installed: they served upstream's shell presync, which osctl
# replaces with native code.
#
# Data (environment variables, with defaults):
#   PICO_REPO           GitHub repository of the release (default autonomous-ai/picoclaw)
#   PICO_VERSION        release tag (default v0.3.1-fixvision)
#   OSCTL_RUNTIME_HOME  picoclaw's data folder (default /root/.picoclaw)
set -euo pipefail

PICO_REPO=${PICO_REPO:-autonomous-ai/picoclaw}
PICO_VERSION=${PICO_VERSION:-v0.3.1-fixvision}
PICO_DIR=${OSCTL_RUNTIME_HOME:-/root/.picoclaw}

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
  aarch64 | arm64) arch=arm64 ;;
  x86_64 | amd64) arch=amd64 ;;
  *) echo "picoclaw: no release for $(uname -m)" >&2; exit 1 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

apt_get curl ca-certificates
fetch "https://github.com/$PICO_REPO/releases/download/$PICO_VERSION/picoclaw-linux-$arch" "$work/picoclaw"
install -m 0755 "$work/picoclaw" /usr/local/bin/picoclaw

mkdir -p "$PICO_DIR"
if [ ! -f "$PICO_DIR/config.json" ]; then
  log "picoclaw onboard"
  HOME=/root timeout 120 /usr/local/bin/picoclaw onboard </dev/null
fi
log "picoclaw $PICO_VERSION installed"
