#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: migrate
short_description: Carry the owner's persona and memory from one runtime to another (osctl migrate)
description:
  - Runs C(osctl migrate --from --to) — SOUL.md, identity, MEMORY.md with the daily notes,
    KNOWLEDGE.md and USER.md, backing up every file it replaces (C(NAME.bak-<time>); the
    returned C(files) list shows that time as C(*)).
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  from_runtime:
    description: The runtime whose persona is read.
    type: str
    required: true
    aliases: [from]
    choices: [openclaw, hermes, picoclaw, codex, claudecode, opencode]
  to_runtime:
    description: The runtime whose persona files are written.
    type: str
    required: true
    aliases: [to]
    choices: [openclaw, hermes, picoclaw, codex, claudecode, opencode]
  daily:
    description: Carry the daily memory files into the destination's MEMORY.md (false is C(--no-daily)).
    type: bool
    default: true
  overwrite:
    description: Back up and replace a destination SOUL.md that differs (false is C(--no-overwrite), reported as a conflict).
    type: bool
    default: true
attributes:
  check_mode:
    support: full
    description: Runs the same osctl command with C(--dry-run); changed is what the real run would report.
  diff_mode:
    support: full
    description: Each file osctl writes (or would write) is shown as osctl's unified diff, secrets masked.
"""

EXAMPLES = r"""
- name: Bring hermes's persona to openclaw
  osctl.device.migrate:
    from: hermes
    to: openclaw
"""

RETURN = r"""
  rc:
    description: osctl's exit code.
    returned: always
    type: int
    sample: 0
  mode:
    description: How osctl ran, C(apply) or C(dry-run) (check mode).
    returned: when osctl printed its document
    type: str
    sample: dry-run
  files:
    description: Each file osctl wrote (or in check mode would write), in plan order; a backup's time stamp in its name is shown as C(*).
    returned: when osctl printed its document
    type: list
    elements: dict
    sample: [{"path": "/root/.hermes/config.yaml", "change": "modify"}]
  osctl:
    description: osctl's JSON document, as printed (secrets masked by osctl).
    returned: when osctl printed its document
    type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.osctl.device.plugins.module_utils.osctl import Osctl, common_argument_spec


def main():
    spec = common_argument_spec()
    spec.update(
        from_runtime=dict(type="str", required=True, aliases=["from"], choices=["openclaw", "hermes", "picoclaw", "codex", "claudecode", "opencode"]),
        to_runtime=dict(type="str", required=True, aliases=["to"], choices=["openclaw", "hermes", "picoclaw", "codex", "claudecode", "opencode"]),
        daily=dict(type="bool", default=True),
        overwrite=dict(type="bool", default=True),
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    args = ["migrate", "--from", p["from_runtime"], "--to", p["to_runtime"]]
    if not p["daily"]:
        args.append("--no-daily")
    if not p["overwrite"]:
        args.append("--no-overwrite")
    Osctl(module).run(args)


if __name__ == "__main__":
    main()
