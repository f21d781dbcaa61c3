#!/usr/bin/env python3
"""Finds the golden cases' input trees that are the same in two cases or more and stores each
once, as tests/trees/<name>/ (then `OSCTL_REBASE=1 cargo test --test golden` points every case
at its nearest shared tree, with `in =` or as a delta with `base =`; see docs/notes/fixtures.md).

    tests/support/share-trees.py

A tree is compared by its paths, bytes, links and executable bits (what Git keeps). Cases read
whole by other suites (reset/active-*, the presync trees, migrate/openclaw-to-codex) are left out.
Re-running it after new cases came in is safe: a tree already under tests/trees/ is not copied twice.
"""
import hashlib
import os
import shutil

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
CLI = os.path.join(REPO, "tests/cli")
TREES = os.path.join(REPO, "tests/trees")
# Names saying what the device is, by the first case (in path order) of the group sharing it.
NAMES = {
    "doctor/leftover-journal": "hermes-interrupted-journal",
    "migrate/dry-run": "openclaw-migration-source",
    "errors/apply-failed-rolled-back": "openclaw-after-switch",
    "errors/internal-panic": "bare-config",
    "doctor/broken-config": "broken-config",
    "migrate/alias-names": "openclaw-to-codex-source",
    "doctor/wrong-type-config": "wrong-type-agent-runtime",
    "presync/wrong-type-agent-runtime": "wrong-type-unseeded",
    "migrate/hermes-to-openclaw": "hermes-migration-source",
    "migrate/codex-to-hermes": "codex-migration-source",
    "migrate/check": "hermes-to-picoclaw-source",
    "migrate/no-overwrite-hermes": "opencode-migration-source",
    "presync/hermes-skills-restore": "hermes-skills-to-restore",
    "switch/check": "openclaw-with-hermes-installed",
}


def whole(case):
    # Mirrors whole_input() in tests/it/support/golden_tree.rs.
    if case.startswith("reset/active-") or case == "migrate/openclaw-to-codex":
        return True
    if case.startswith("presync/") and "reconcile" not in case and "wrong-type" not in case:
        return any(case.endswith(m) for m in ("-legacy", "-os", "-runtime"))
    return False


def fingerprint(root):
    h = hashlib.sha256()
    for dp, dn, fn in os.walk(root):
        dn.sort()
        for name in sorted(dn + fn):
            p = os.path.join(dp, name)
            rel = os.path.relpath(p, root)
            if name == ".keep":
                continue
            if os.path.islink(p):
                h.update(f"L {rel} {os.readlink(p)}\n".encode())
            elif os.path.isfile(p):
                x = os.stat(p).st_mode & 0o111 != 0
                h.update(f"F {rel} {x}\n".encode() + open(p, "rb").read() + b"\n")
            elif not [e for e in os.listdir(p) if e != ".keep"]:
                h.update(f"E {rel}\n".encode())
    return h.hexdigest()


def main():
    groups = {}
    for dp, dn, fn in sorted(os.walk(CLI)):
        dn.sort()
        case = os.path.relpath(dp, CLI)
        if "cmd.toml" in fn and os.path.isdir(os.path.join(dp, "in")) and not whole(case):
            groups.setdefault(fingerprint(os.path.join(dp, "in")), []).append(case)
    have = {}
    if os.path.isdir(TREES):
        for t in os.listdir(TREES):
            have[fingerprint(os.path.join(TREES, t))] = t
    for key, cases in sorted(groups.items(), key=lambda kv: kv[1][0]):
        if len(cases) < 2 or key in have:
            continue
        name = NAMES.get(cases[0], cases[0].replace("/", "-"))
        shutil.copytree(os.path.join(CLI, cases[0], "in"), os.path.join(TREES, name), symlinks=True)
        print(f"tests/trees/{name}: {len(cases)} cases ({', '.join(cases)})")


if __name__ == "__main__":
    main()
