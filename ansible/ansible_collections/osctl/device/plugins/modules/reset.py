#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: reset
short_description: Factory-reset the agent side of the device (osctl reset)
description:
  - Runs C(osctl reset --yes) — the active runtime's own state, the device's config, users and
    Wi-Fi, and every copy of the owner's persona in every runtime's tree.
  - Nothing runs unless O(confirm=true); a reset cannot be undone.
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  confirm:
    description: Must be true; the task fails otherwise, with nothing changed.
    type: bool
    required: true
  keep_runtime_state:
    description: Keep the active runtime's own state (sessions, credentials, config); only stop its unit.
    type: bool
    default: false
  reboot:
    description: Reboot once the reset is done.
    type: bool
    default: false
attributes:
  check_mode:
    support: full
    description: Runs the same osctl command with C(--dry-run); changed is what the real run would report.
  diff_mode:
    support: full
    description: Each file osctl writes (or would write) is shown as osctl's unified diff, secrets masked.
"""

EXAMPLES = r"""
- name: Factory-reset a returned lamp
  osctl.device.reset:
    confirm: true
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
        confirm=dict(type="bool", required=True),
        keep_runtime_state=dict(type="bool", default=False),
        reboot=dict(type="bool", default=False),
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    if not p["confirm"]:
        module.fail_json(msg="reset wipes the device's config and the owner's persona: set confirm: true to run it")
    args = ["--yes", "reset"]
    if p["keep_runtime_state"]:
        args.append("--keep-runtime-state")
    if p["reboot"]:
        args.append("--reboot")
    Osctl(module).run(args)


if __name__ == "__main__":
    main()
