#!/usr/bin/env bash
# osctl's embedded installer for testclaw (a runtime defined only for tests): a stub binary.
set -euo pipefail
TESTCLAW_DIR=${OSCTL_RUNTIME_HOME:-/root/.testclaw}
printf '#!/bin/sh\nexec sleep infinity\n' > /usr/local/bin/testclaw
chmod 0755 /usr/local/bin/testclaw
mkdir -p "$TESTCLAW_DIR"
echo "== testclaw installed"
