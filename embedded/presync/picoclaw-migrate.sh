#!/bin/sh
# picoclaw's one-time migrate from openclaw, run by `osctl presync picoclaw` (a command of the
# plan, run on the live device only). Data comes in through the environment: PICO_BIN, OC_WS (the
# openclaw workspace), WS (picoclaw's workspace), MARKER. osctl stops openclaw's unit
# through its services door just before this runs. The marker is written only when the
# migrate succeeded, so a failed one is retried by the next presync. osctl runs the command lines
# below joined with "; " (one command per line, comments dropped), so keep each line whole.
set -u
HOME=/root "$PICO_BIN" migrate --workspace-only --force || exit 1
for f in HEARTBEAT.md KNOWLEDGE.md IDENTITY.md; do if [ -f "$OC_WS/$f" ]; then cp -f "$OC_WS/$f" "$WS/$f" || exit 1; fi; done
rm -f "$WS/AGENT.md" && : >"$MARKER"
