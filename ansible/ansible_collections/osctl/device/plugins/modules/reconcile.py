#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: reconcile
short_description: Carry persona, LLM config, channels and MCP servers over to the active runtime (osctl reconcile)
description:
  - Runs C(osctl reconcile); each step is its own transaction guarded by its marker, so a step
    already done for the active runtime changes nothing.
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  only:
    description: Run only this step.
    type: str
    choices: [seed, persona, llm, channels, mcp, mcp-tools]
attributes:
  check_mode:
    support: full
    description: Runs the same osctl command with C(--dry-run); changed is what the real run would report.
  diff_mode:
    support: full
    description: Each file osctl writes (or would write) is shown as osctl's unified diff, secrets masked.
"""

EXAMPLES = r"""
- name: Reconcile after a switch made with reconcile=false
  osctl.device.reconcile:

- name: Only the MCP servers
  osctl.device.reconcile:
    only: mcp
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
    spec.update(only=dict(type="str", choices=["seed", "persona", "llm", "channels", "mcp", "mcp-tools"]))
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    args = ["reconcile"]
    if module.params["only"]:
        args += ["--only", module.params["only"]]
    Osctl(module).run(args)


if __name__ == "__main__":
    main()
