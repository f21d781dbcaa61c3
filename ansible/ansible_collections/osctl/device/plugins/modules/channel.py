#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: channel
short_description: A messaging channel of the device (osctl channel add, channel remove)
description:
  - O(state=present) runs C(osctl channel add) — the active runtime's capability check first (a
    channel it cannot run is refused and nothing is written), then the credentials go into
    config.json, then the runtime gets them.
  - O(state=absent) runs C(osctl channel remove).
  - Tokens and Slack's signing secret reach osctl through a file only the module can read
    (C(--token-file), C(--app-token-file), C(--signing-secret-file)), never on its command
    line.
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  name:
    description: The channel.
    type: str
    required: true
    choices: [telegram, slack, discord, whatsapp]
  state:
    description: Whether the channel is set up.
    type: str
    choices: [present, absent]
    default: present
  token:
    description: The bot token (telegram, slack, discord).
    type: str
  user_id:
    description: The user allowed to talk to the bot (telegram id, slack or discord user id, whatsapp E.164 number).
    type: str
  app_token:
    description: Slack's app-level token (socket mode).
    type: str
  signing_secret:
    description: Slack's signing secret (HTTP mode).
    type: str
  guild_id:
    description: The Discord server (guild) id.
    type: str
attributes:
  check_mode:
    support: full
    description: Runs the same osctl command with C(--dry-run); changed is what the real run would report.
  diff_mode:
    support: full
    description: Each file osctl writes (or would write) is shown as osctl's unified diff, secrets masked.
"""

EXAMPLES = r"""
- name: Telegram, with the bot token from the vault
  osctl.device.channel:
    name: telegram
    token: "{{ vault_telegram_token }}"
    user_id: "{{ owner_telegram_id }}"

- name: No more Discord
  osctl.device.channel:
    name: discord
    state: absent
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
        name=dict(type="str", required=True, choices=["telegram", "slack", "discord", "whatsapp"]),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        token=dict(type="str", no_log=True),
        user_id=dict(type="str"),
        app_token=dict(type="str", no_log=True),
        signing_secret=dict(type="str", no_log=True),
        guild_id=dict(type="str"),
    )
    module = AnsibleModule(
        argument_spec=spec,
        supports_check_mode=True,
        mutually_exclusive=[("app_token", "signing_secret")],
    )
    p = module.params
    osctl = Osctl(module)
    if p["state"] == "absent":
        osctl.run(["channel", "remove", p["name"]])
    args = ["channel", "add", p["name"]]
    if p["token"]:
        args += ["--token-file", osctl.secret_file([p["token"]])]
    if p["app_token"]:
        args += ["--app-token-file", osctl.secret_file([p["app_token"]])]
    if p["signing_secret"]:
        args += ["--signing-secret-file", osctl.secret_file([p["signing_secret"]])]
    if p["user_id"]:
        args += ["--user-id", p["user_id"]]
    if p["guild_id"]:
        args += ["--guild-id", p["guild_id"]]
    osctl.run(args)


if __name__ == "__main__":
    main()
