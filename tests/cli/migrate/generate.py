#!/usr/bin/env python3
"""Writes the input trees (`in/`) and `cmd.toml` of the persona golden cases.

    python3 tests/cli/migrate/generate.py      # then: OSCTL_BLESS=1 cargo test --test golden

One case per ordered pair of runtimes (30), each migrating a filled-in source persona into a
freshly set-up destination, plus cases for the flags, the errors and the special inputs. The
expected output (`out/`, `stdout`, `stderr`) is blessed from a real run and read before it is
committed; this script only writes inputs. Cases it does not name are left alone.

The source persona carries the inputs the rules must handle: a Unicode owner name and agent name,
placeholder slots, headings, code fences, tables and comments, hermes `§` memory with a multi-line
entry, a brand name to rewrite, the OS-managed block, hermes' legacy skill block, runtime-only
files (which must stay where they are), and daily memory that overflows the 2200 code-point
limit. Every destination's USER.md holds two different `**Name:**` bullets.
"""

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import runtimes  # noqa: E402  (tests/runtimes.py: the registry, asked of osctl)

HERE = Path(__file__).resolve().parent
RECONCILE = HERE.parent / "reconcile-persona"
NOW = "1767225600"  # 2026-01-01T00:00:00Z: OSCTL_TEST_NOW fixes backup names and history times

BRAND = {
    "openclaw": "OpenClaw",
    "hermes": "Hermes",
    "picoclaw": "PicoClaw",
    "codex": "Codex",
    "claudecode": "Claude Code",
    "opencode": "OpenCode",
}
WORKSPACE = {
    # hermes keeps SOUL.md at the top of its home and MEMORY/USER under memories/: its trees
    # are written by hand below.
    "hermes": "root/.hermes",
    "openclaw": "root/.openclaw/workspace",
    "picoclaw": "root/.picoclaw/workspace",
    "codex": "root/.codex/workspace",
    "claudecode": "root/.claudecode/workspace",
    "opencode": "root/.opencode/workspace",
}

OS_BLOCK = (
    "<!-- OS DO NOT REMOVE -->\n"
    "You are **Lamp**, a living being on the desk. You run on OpenClaw hardware.\n"
    "Skills live in skills/.\n"
    "---\n\n"
)

PERSONAL = (
    "## Personal\n\n"
    "I run on {brand}, and I hum when my owner walks in.\n"
    "Never call yourself an assistant.\n"
)

IDENTITY_FILLED = (
    "# IDENTITY.md - Who Am I?\n\n"
    "_Fill this in during your first conversation._\n\n"
    "- **Name:** Đèn Nhỏ\n"
    "- **Creature:** a desk lamp that learned to talk\n"
    "- **Vibe:**\n"
    "  _(warm? sharp? calm?)_\n"
    "- **Emoji:** 💡\n"
)

IDENTITY_TEMPLATE = (
    "# IDENTITY.md - Who Am I?\n\n"
    "- **Name:**\n"
    "  _(pick something you like)_\n"
    "- **Creature:**\n"
    "  _(AI? robot? familiar?)_\n"
    "- **Vibe:**\n"
    "  _(warm? sharp? calm?)_\n"
    "- **Emoji:**\n"
)

MEMORY = (
    "# MEMORY.md - Long-term memory\n\n"
    "## Owner\n\n"
    "- Ngân wakes up at 6:30 and wants warm light first.\n"
    "- Ngân's cat is called Mochi; {brand} learned that in June.\n\n"
    "## Setup\n\n"
    "The lamp sits on the left of the monitor.\n"
    "It was moved there in March.\n\n"
    "```sh\n"
    "brightness --set 40   # not a memory\n"
    "```\n\n"
    "| day | light |\n"
    "|-----|-------|\n"
    "| Mon | warm  |\n\n"
    "<!-- TODO: remember more -->\n"
)

KNOWLEDGE = (
    "# KNOWLEDGE.md — Accumulated Learnings\n\n"
    "## Hardware\n\n"
    "<!-- Lessons about the body, quirks, limits. -->\n\n"
    "- Servo elbow jitters above 60 degrees.\n\n"
    "## Mistakes Made\n\n"
    "- Said NO_REPLY to a direct question once.\n"
)

USER_FILLED = (
    "# USER.md - About Your Human\n\n"
    "- **Name:** Nguyễn Thị Ngân\n"
    "- **What to call them:** Ngân\n"
    "- **Pronouns:** _(optional)_\n"
    "- **Timezone:** Asia/Ho_Chi_Minh\n\n"
    "## Context\n\n"
    "Ngân is learning the guitar and likes lo-fi music.\n"
)

# A destination's USER.md as devices hold it after earlier migrations flattened the template:
# blank slots, the template's prompts, and an older owner's name appended below them (two
# different **Name:** bullets).
USER_TEMPLATE = (
    "- _Learn about the person you're helping. Update this as you go._\n"
    "- **Name:**\n"
    "- **What to call them:**\n"
    "- **Pronouns:** _(optional)_\n"
    "- **Timezone:**\n"
    "- **Notes:**\n"
    "- Context: _(What do they care about? What projects are they working on?)_\n"
    "- Context: The more you know, the better you can help. But remember — you're learning about "
    "a person, not building a dossier.\n"
    "- Related: [Agent workspace](/concepts/agent-workspace)\n"
    "- **Name:** Leo\n"
    "- Context: Leo speaks Vietnamese primarily (vi).\n"
)

# openclaw's own USER.md template as a fresh workspace holds it (openclaw 2026.2.9 to 2026.4.15),
# with a `## Related` section of links: migration fills its slots and adds entries, and every
# other line stays (the template survives verbatim).
USER_TEMPLATE_REAL = (
    "# USER.md - About Your Human\n\n"
    "_Learn about the person you're helping. Update this as you go._\n\n"
    "- **Name:**\n"
    "- **What to call them:**\n"
    "- **Pronouns:** _(optional)_\n"
    "- **Timezone:**\n"
    "- **Notes:**\n\n"
    "## Context\n\n"
    "_(What do they care about? What projects are they working on? What annoys them? What makes "
    "them laugh? Build this over time.)_\n\n"
    "---\n\n"
    "The more you know, the better you can help. But remember — you're learning about a person, "
    "not building a dossier. Respect the difference.\n\n"
    "## Related\n\n"
    "- [[IDENTITY]]\n"
    "- [Agent workspace](/concepts/agent-workspace)\n"
)


def daily_files():
    """Three daily notes whose entries, with the rest of memory, overflow 2200 code points."""
    topics = [
        "asked for a reading light at {h}:00 and said the warm preset felt right",
        "practised the guitar for forty minutes; the lamp dimmed to 30% at {h}:15",
        "mentioned a deadline on Friday and asked to be reminded at {h}:45",
        "watered the basil on the window sill and asked about sunlight at {h}:20",
    ]
    files = {}
    for day in range(1, 4):
        lines = [f"# 2026-07-0{day}", ""]
        for h in range(8, 12):
            for t in topics:
                lines.append("- " + t.format(h=h + day))
        if day == 2:
            lines += ["", "```", "- a fenced line, not a memory", "```"]
        files[f"memory/2026-07-0{day}.md"] = "\n".join(lines) + "\n"
    return files


def source_tree(rt):
    brand = BRAND[rt]
    if rt == "hermes":
        return {
            "root/.hermes/SOUL.md": OS_BLOCK
            + PERSONAL.format(brand=brand)
            + "\n<!-- OS HERMES SKILL PRIORITY -->\n"
            "**Skill priority (MANDATORY):** device skills beat bundled ones.\n"
            "---\n\n"
            "## Your identity card\n\n"
            "Your owner set this — it overrides any default name or vibe above.\n\n"
            "- **Name:** Đèn Nhỏ\n"
            "- **Creature:** a desk lamp that learned to talk\n"
            "- **Emoji:** 💡\n",
            "root/.hermes/memories/MEMORY.md": "Ngân wakes up at 6:30 and wants warm light first.\n"
            "§\n"
            "Ngân's cat is called Mochi; Hermes learned that in June.\n"
            "§\n"
            "## Setup notes\n"
            "- The lamp sits left of the monitor.\n"
            "- It was moved there in March.\n"
            "§\n"
            "Hardware: Servo elbow jitters above 60 degrees.\n",
            "root/.hermes/memories/USER.md": "**Name:** Nguyễn Thị Ngân\n"
            "§\n"
            "**What to call them:** Ngân\n"
            "§\n"
            "**Timezone:** Asia/Ho_Chi_Minh\n"
            "§\n"
            "Context: Ngân is learning the guitar and likes lo-fi music.\n",
            "root/.hermes/AGENTS.md": "# Hermes rules\n\nRuntime-only: never migrated.\n",
            "root/.hermes/config.yaml": "terminal:\n  cwd: /root/.hermes\n",
        }
    ws = WORKSPACE[rt]
    memory = "memory/MEMORY.md" if rt == "picoclaw" else "MEMORY.md"
    tree = {
        f"{ws}/SOUL.md": OS_BLOCK + PERSONAL.format(brand=brand),
        f"{ws}/IDENTITY.md": IDENTITY_FILLED,
        f"{ws}/{memory}": MEMORY.format(brand=brand),
        f"{ws}/KNOWLEDGE.md": KNOWLEDGE,
        f"{ws}/USER.md": USER_FILLED,
        f"{ws}/AGENTS.md": f"# Agents\n\nRuntime rules for {brand}; never migrated.\n",
        f"{ws}/TOOLS.md": "# Tools\n\nRuntime-only.\n",
        f"{ws}/HEARTBEAT.md": "# Heartbeat\n\nRuntime-only.\n",
        f"{ws}/hooks/emotion-acknowledge/HOOK.md": "# Hook\n\nRuntime-only.\n",
    }
    if rt == "claudecode":
        tree[f"{ws}/CLAUDE.md"] = "# Claude Code loader\n\nRuntime-only.\n"
    for name, text in daily_files().items():
        tree[f"{ws}/{name}"] = text
    return tree


def destination_tree(rt):
    brand = BRAND[rt]
    if rt == "hermes":
        return {
            "root/.hermes/SOUL.md": OS_BLOCK
            + "# Hermes Agent Persona\n\nYou are Hermes Agent, built by Nous Research.\n",
            "root/.hermes/memories/MEMORY.md": "The desk faces the window.\n",
            "root/.hermes/memories/USER.md": "**Name:**\n§\n**Name:** Leo\n§\nLeo speaks Vietnamese primarily.\n",
            "root/.hermes/AGENTS.md": "# Hermes rules (destination)\n",
        }
    ws = WORKSPACE[rt]
    memory = "memory/MEMORY.md" if rt == "picoclaw" else "MEMORY.md"
    return {
        f"{ws}/SOUL.md": OS_BLOCK + f"# SOUL.md - Who You Are\n\n_You're {brand}'s default persona._\n",
        f"{ws}/IDENTITY.md": IDENTITY_TEMPLATE,
        f"{ws}/USER.md": USER_TEMPLATE,
        f"{ws}/{memory}": "- The desk faces the window.\n",
        f"{ws}/AGENTS.md": f"# Agents ({brand}, destination)\n",
    }


def config(active):
    return json.dumps({"agent_runtime": active, "device_type": "lamp"}, indent=2) + "\n"


def write_case(folder, args, tree, env=None):
    """(Re)writes one case's cmd.toml and in/; leaves blessed output alone."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(folder / "in", ignore_errors=True)
    for rel, text in tree.items():
        p = folder / "in" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text, encoding="utf-8")
    env = {"OSCTL_TEST_NOW": NOW, **(env or {})}
    lines = ["args = [" + ", ".join(json.dumps(a) for a in args) + "]"]
    cmd = folder / "cmd.toml"
    status = None
    if cmd.exists():  # keep a blessed status
        for line in cmd.read_text().splitlines():
            if line.startswith("status"):
                status = line
    if status:
        lines.append(status)
    lines.append("env = { " + ", ".join(f'{k} = "{v}"' for k, v in env.items()) + " }")
    cmd.write_text("\n".join(lines) + "\n")


def migrate(frm, to, *flags):
    return ["--root", ".", *flags, "migrate", "--from", frm, "--to", to]


def pair_tree(frm, to):
    tree = {"root/config/config.json": config(to)}
    tree.update(destination_tree(to))
    tree.update(source_tree(frm))
    return tree


def main():
    registered = runtimes.names()
    for table, what in [(BRAND, "BRAND"), (WORKSPACE, "WORKSPACE")]:
        runtimes.check_covers(table, what, registered)
    for frm in registered:
        for to in registered:
            if frm != to:
                write_case(HERE / f"{frm}-to-{to}", migrate(frm, to), pair_tree(frm, to))

    write_case(HERE / "dry-run", migrate("openclaw", "hermes", "--dry-run"), pair_tree("openclaw", "hermes"))
    write_case(HERE / "check", migrate("hermes", "picoclaw", "--check"), pair_tree("hermes", "picoclaw"))
    write_case(HERE / "json", migrate("hermes", "openclaw", "--json"), pair_tree("hermes", "openclaw"))
    write_case(HERE / "json-dry-run", migrate("codex", "hermes", "--json", "--dry-run"), pair_tree("codex", "hermes"))
    write_case(
        HERE / "no-overwrite",
        migrate("openclaw", "codex") + ["--no-overwrite"],
        pair_tree("openclaw", "codex"),
    )
    write_case(
        HERE / "no-overwrite-hermes",
        migrate("opencode", "hermes") + ["--no-overwrite"],
        pair_tree("opencode", "hermes"),
    )
    write_case(HERE / "no-daily", migrate("openclaw", "hermes") + ["--no-daily"], pair_tree("openclaw", "hermes"))

    # An empty source: a runtime set up but never used. Nothing to carry, nothing written.
    empty = {"root/config/config.json": config("openclaw"), "root/.opencode/workspace/.keep": ""}
    empty.update(destination_tree("openclaw"))
    write_case(HERE / "empty-source", migrate("opencode", "openclaw"), empty)

    # Into a runtime that was never set up: every file is created, none backed up.
    fresh = {"root/config/config.json": config("picoclaw")}
    fresh.update(source_tree("hermes"))
    write_case(HERE / "into-empty-destination", migrate("hermes", "picoclaw"), fresh)

    # A destination whose SOUL.md has no OS block: the source's block is carried, unrebranded.
    noblock = pair_tree("picoclaw", "claudecode")
    noblock["root/.claudecode/workspace/SOUL.md"] = "# SOUL.md\n\nA default soul without a block.\n"
    write_case(HERE / "destination-without-os-block", migrate("picoclaw", "claudecode"), noblock)

    # A destination USER.md that is still openclaw's template: only its slots and the added
    # entries change; headings, rules and links stay line for line.
    for frm, to in [("openclaw", "codex"), ("hermes", "opencode")]:
        t = pair_tree(frm, to)
        t[f"{WORKSPACE[to]}/USER.md"] = USER_TEMPLATE_REAL
        write_case(HERE / f"user-template-{frm}-to-{to}", migrate(frm, to), t)

    # Aliases and case are accepted as everywhere else.
    write_case(HERE / "alias-names", migrate(" PI", "Codex-App-Server"), pair_tree("openclaw", "codex"))

    bad = pair_tree("openclaw", "hermes")
    bad["root/.openclaw/workspace/memory/2026-07-02.md"] = b"- fine\n- broken \xff byte\n"
    write_case(HERE / "invalid-utf8-source", migrate("openclaw", "hermes"), bad)
    write_case(HERE / "same-runtime", migrate("hermes", "hermes"), pair_tree("openclaw", "hermes"))
    write_case(HERE / "unknown-runtime", migrate("openclaw", "nanoclaw"), pair_tree("openclaw", "hermes"))
    write_case(HERE / "remote-runtime", migrate("remote", "hermes"), pair_tree("openclaw", "hermes"))

    reconcile_cases()

    # A second identical run writes nothing: its input is a blessed first run's output (run this
    # script again after blessing the pairs, then bless once more).
    for frm, to in [("openclaw", "hermes"), ("hermes", "openclaw"), ("picoclaw", "codex")]:
        second_run(HERE / f"second-run-{frm}-to-{to}", HERE / f"{frm}-to-{to}", migrate(frm, to))
    second_run(
        RECONCILE / "second-run-after-switch",
        RECONCILE / "after-switch",
        ["--root", ".", "reconcile", "--only", "persona"],
    )


def second_run(folder, first, args):
    if not (first / "out").is_dir() and not (first / "deleted").is_file():
        print(f"skipped {folder.name}: bless {first.name} first")
        return
    write_case(folder, args, expected_files(first))


# osctl's state folders, not shown empty (BOOKKEEPING_DIRS in tests/it/support/golden_tree.rs).
BOOKKEEPING_DIRS = {"", "var", "var/lib", "var/lib/osctl", "var/lib/osctl/journal"}


def files(root):
    """The files under `root` (`.keep` markers included), by path relative to it."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def expected_files(case):
    """The files of the tree a case expects (tests/it/support/golden_tree.rs): its in/ less the paths
    `deleted` lists (a folder listed goes with all it holds; one emptied stays, with a `.keep`),
    with out/ copied over it."""
    tree = files(case / "in")
    listed = case / "deleted"
    for gone in listed.read_text().splitlines() if listed.is_file() else []:
        for rel in [r for r in tree if r == gone or r.startswith(gone + "/")]:
            del tree[rel]
        parent = gone.rpartition("/")[0]
        if parent not in BOOKKEEPING_DIRS and not any(r.startswith(parent + "/") for r in tree):
            tree[parent + "/.keep"] = b""
    tree.update(files(case / "out") if (case / "out").is_dir() else {})
    # A `.keep` only marks a folder that holds nothing else.
    for keep in [r for r in tree if r.endswith("/.keep")]:
        folder = keep[: -len(".keep")]
        if any(r.startswith(folder) and r != keep for r in tree):
            del tree[keep]
    return tree


def state(*entries):
    return json.dumps({"history": [{"runtime": r, "at": at} for r, at in entries]}, indent=2) + "\n"


def reconcile_cases():
    args = ["--root", ".", "reconcile", "--only", "persona"]
    tree = pair_tree("openclaw", "hermes")
    write_case(RECONCILE / "first-boot", args, tree)

    t = dict(tree, **{"root/config/agent_state.json": state(("hermes", 1751846400))})
    write_case(RECONCILE / "up-to-date", args, t)

    t = dict(tree, **{"root/config/agent_state.json": state(("openclaw", 1751846400))})
    write_case(RECONCILE / "after-switch", args, t)

    t = dict(tree, **{"root/config/agent_state.json": state(("openclaw", 1751846400))})
    write_case(RECONCILE / "after-switch-dry-run", args[:2] + ["--dry-run"] + args[2:], t)

    t = dict(tree, **{"root/config/agent_state.json": state(("remote", 1751846400))})
    write_case(RECONCILE / "prev-without-adapter", args, t)

    t = dict(tree, **{"root/config/agent_state.json": '{"history": [\n  {"runtime": "openclaw",}\n]}\n'})
    write_case(RECONCILE / "malformed-state", args, t)

    bad = dict(tree, **{"root/config/agent_state.json": state(("openclaw", 1751846400))})
    bad["root/.openclaw/workspace/USER.md"] = b"- **Name:** Ng\xe2n\n"
    write_case(RECONCILE / "migration-error-keeps-state", args, bad)

    history = [("openclaw" if i % 2 else "codex", 1751846400 + i) for i in range(50)]
    t = pair_tree("openclaw", "hermes")
    t["root/config/agent_state.json"] = state(*history)
    write_case(RECONCILE / "history-capped-at-50", args, t)


if __name__ == "__main__":
    main()
