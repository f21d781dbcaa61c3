#!/usr/bin/env python3
"""Regenerates the input trees of the presync golden cases (tests/cli/presync/<rt>-<mode>/in).

    tests/cli/presync/make-trees.py [OSCTL_BINARY]     (default: target/x86_64-unknown-linux-gnu/debug/osctl)

For each runtime, examples/presync/<rt>/ is the sample device (native files with the owner's
comments and keys osctl does not own). Each <rt>-<mode> case starts from it with
`llm_config_mode` set to the mode, and with its prompt files (SOUL.md, AGENTS.md, ...) already
carrying the current OS blocks, so the case's diff shows what presync does to the *native* files
in that mode; the <rt>-first-boot cases show the blocks going in. The generator runs osctl once
to heal a copy, then puts the native files back as they were.

After running it, re-bless (OSCTL_BLESS=1 cargo test --test golden) and read every diff.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
import runtimes  # noqa: E402  (tests/runtimes.py: the registry, asked of osctl)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
HERE = os.path.join(REPO, "tests/cli/presync")
OSCTL = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, "target/x86_64-unknown-linux-gnu/debug/osctl")
MODES = {"legacy": "", "os": "os", "runtime": "runtime"}
# The files whose presync result depends on llm_config_mode: they stay as the owner left them.
NATIVE = {
    "openclaw": ["root/.openclaw/openclaw.json"],
    "hermes": ["root/.hermes/config.yaml", "root/.hermes/.env"],
    "picoclaw": ["root/.picoclaw/config.json", "root/.picoclaw/.security.yml"],
    "codex": ["root/.codex/config.toml", "root/.codex/.env"],
    "claudecode": [
        "root/.claudecode/.env",
        "root/.claude.json",
        "root/.claude/settings.json",
        "root/.claudecode/workspace/.claude/settings.json",
        "root/.claude/channels",
    ],
    "opencode": ["root/.config/opencode/opencode.json", "root/.opencode/.env"],
}


def keep_empty_dirs(root):
    for dirpath, dirnames, filenames in os.walk(root):
        if not dirnames and not filenames:
            open(os.path.join(dirpath, ".keep"), "w").close()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_case(rt, mode):
    case = os.path.join(HERE, f"{rt}-{mode}")
    src = os.path.join(REPO, "examples/presync", rt)
    with tempfile.TemporaryDirectory() as tmp:
        healed = os.path.join(tmp, "device")
        shutil.copytree(src, healed, symlinks=True)
        cfg = os.path.join(healed, "root/config/config.json")
        text = open(cfg).read().replace('"llm_config_mode": ""', f'"llm_config_mode": "{MODES[mode]}"')
        write(cfg, text)
        env = dict(os.environ, OSCTL_TEST_NOW="1764460800")
        subprocess.run([OSCTL, "--root", healed, "-q", "presync", rt], check=True, env=env)
        for rel in NATIVE[rt]:
            dst = os.path.join(healed, rel)
            if os.path.isdir(dst):
                shutil.rmtree(dst)
            elif os.path.exists(dst):
                os.remove(dst)
            orig = os.path.join(src, rel)
            if os.path.isdir(orig):
                shutil.copytree(orig, dst)
            elif os.path.exists(orig):
                shutil.copy2(orig, dst)
        shutil.rmtree(os.path.join(healed, "var"), ignore_errors=True)
        # config.json as the owner left it, with only the mode changed
        write(cfg, text)
        shutil.rmtree(case, ignore_errors=True)
        os.makedirs(case)
        shutil.copytree(healed, os.path.join(case, "in"), symlinks=True)
    keep_empty_dirs(os.path.join(case, "in"))
    write(os.path.join(case, "cmd.toml"),
          f'args = ["--root", ".", "presync", "{rt}"]\nenv = {{ OSCTL_TEST_NOW = "1764460800" }}\n')
    dry = os.path.join(HERE, f"{rt}-{mode}-dry-run")
    shutil.rmtree(dry, ignore_errors=True)
    write(os.path.join(dry, "cmd.toml"),
          f'args = ["--root", ".", "--dry-run", "presync", "{rt}"]\n'
          f'in = "tests/cli/presync/{rt}-{mode}/in"\nenv = {{ OSCTL_TEST_NOW = "1764460800" }}\n')


def main():
    runtimes.check_covers(NATIVE, "NATIVE", runtimes.names(OSCTL))
    for rt in NATIVE:
        for mode in MODES:
            make_case(rt, mode)
        first = os.path.join(HERE, f"{rt}-first-boot")
        os.makedirs(first, exist_ok=True)
        write(os.path.join(first, "cmd.toml"),
              f'args = ["--root", ".", "presync"]\nin = "examples/presync/{rt}"\n'
              f'env = {{ OSCTL_TEST_NOW = "1764460800" }}\n')


if __name__ == "__main__":
    main()
