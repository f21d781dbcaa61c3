"""The runtimes of osctl's registry, asked of the osctl binary, for the Python generators of
test inputs: their runtime list comes from `src/runtime/` (the one registry) rather than being
typed out again, and a generator whose per-runtime tables miss a registered runtime stops and
names it (a seventh runtime needs its rows there too).

    import runtimes                     # with tests/ on sys.path
    names = runtimes.names()            # ["openclaw", "hermes", ...], registry order
    runtimes.check_covers(TABLE, "NATIVE")

The binary is `$OSCTL`, else the debug build (`cargo build`). `osctl status --json` on the sample
device lists every runtime the build registers.
"""

import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def names(osctl=None):
    """The registered runtimes, in registry order."""
    osctl = osctl or os.environ.get("OSCTL") or os.path.join(
        REPO, "target/x86_64-unknown-linux-gnu/debug/osctl"
    )
    if not os.access(osctl, os.X_OK):
        sys.exit(f"no osctl binary at {osctl}: run `cargo build` first (or set OSCTL)")
    out = subprocess.run(
        [osctl, "--root", os.path.join(REPO, "examples/device"), "--json", "status"],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        doc = json.loads(out.stdout)
        return [r["name"] for r in doc["runtimes"]]
    except (ValueError, KeyError, TypeError) as e:
        sys.exit(f"{osctl} --json status did not list the runtimes ({e}): {out.stderr.strip()}")


def check_covers(table, what, registered=None):
    """Stops the generator unless `table` has a row for every registered runtime."""
    registered = registered if registered is not None else names()
    missing = [rt for rt in registered if rt not in table]
    if missing:
        sys.exit(f"{what} has no row for {', '.join(missing)} (registered in src/runtime/): add one")
