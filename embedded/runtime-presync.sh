#!/bin/sh
# runtime-<rt>-presync: the presync hook of a runtime (/usr/local/bin/runtime-<rt>-presync).
# Upstream's switch-runtime runs it right before the runtime starts; osctl's switch and a systemd
# ExecStartPre= call `osctl presync <rt>` directly. The runtime is OSCTL_PRESYNC_RUNTIME, else
# taken from this file's own name. Materialized by osctl (embedded/runtime-presync.sh).
rt=${OSCTL_PRESYNC_RUNTIME:-}
if [ -z "$rt" ]; then
  rt=${0##*/}
  rt=${rt#runtime-}
  rt=${rt%-presync}
fi
exec "${OSCTL:-osctl}" presync "$rt"
