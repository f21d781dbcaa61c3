#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: mcp_server
short_description: An MCP server in a runtime's own config (osctl mcp add, mcp remove)
description:
  - O(state=present) runs C(osctl mcp add) — a local server (O(command), O(args), O(env)) or a
    remote one (O(url), O(headers)), written in the runtime's own form; every other entry, key
    and comment of the file stays. The runtime's unit is restarted if it runs and the file changed.
  - O(state=absent) runs C(osctl mcp remove).
  - Header and env values reach osctl through a file only the module can read
    (C(--header-file), C(--env-file)), never on its command line, and osctl masks them in its output.
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  name:
    description: The server's name (letters, digits, C(_), C(-)); with O(user_tool), the tool's name.
    type: str
    required: true
  state:
    description: Whether the server is there.
    type: str
    choices: [present, absent]
    default: present
  runtime:
    description: The runtime whose config holds it (default, the active runtime).
    type: str
    choices: [openclaw, hermes, picoclaw, codex, claudecode, opencode]
  url:
    description: A remote server's URL. Mutually exclusive with O(command).
    type: str
  transport:
    description: A remote server's protocol.
    type: str
    choices: [http, sse]
    default: http
  headers:
    description: A remote server's headers (often a bearer token; never logged).
    type: dict
    default: {}
  command:
    description: A local server's command. Mutually exclusive with O(url).
    type: str
  args:
    description: A local server's arguments.
    type: list
    elements: str
    default: []
  env:
    description: A local server's environment (may hold API keys; never logged).
    type: dict
    default: {}
  user_tool:
    description: Also record it in config.json C(mcp_tools) as a user tool (remote servers only); the runtime's server is then C(tool_NAME).
    type: bool
    default: false
  replace:
    description:
      - Replace a server of that name whose entry differs (declarative, the default).
      - False refuses instead (the task fails, nothing written).
    type: bool
    default: true
    aliases: [force]
  allow_uninstalled:
    description:
      - Write the server to a runtime that is not installed on the device (its config waits for it).
      - By default such a task fails and writes nothing.
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
- name: A remote MCP server with a bearer token from the vault
  osctl.device.mcp_server:
    name: github
    url: https://api.githubcopilot.com/mcp/
    headers:
      Authorization: "Bearer {{ vault_github_token }}"

- name: A local server on openclaw
  osctl.device.mcp_server:
    name: fs
    runtime: openclaw
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/root/shared"]

- name: Gone
  osctl.device.mcp_server:
    name: github
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
        name=dict(type="str", required=True),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        runtime=dict(type="str", choices=["openclaw", "hermes", "picoclaw", "codex", "claudecode", "opencode"]),
        url=dict(type="str"),
        transport=dict(type="str", choices=["http", "sse"], default="http"),
        headers=dict(type="dict", default={}, no_log=True),
        command=dict(type="str"),
        args=dict(type="list", elements="str", default=[]),
        env=dict(type="dict", default={}, no_log=True),
        user_tool=dict(type="bool", default=False),
        replace=dict(type="bool", default=True, aliases=["force"]),
        allow_uninstalled=dict(type="bool", default=False),
    )
    module = AnsibleModule(
        argument_spec=spec,
        supports_check_mode=True,
        mutually_exclusive=[("url", "command")],
        required_if=[("state", "present", ("url", "command"), True)],
    )
    p = module.params
    osctl = Osctl(module)
    if p["state"] == "absent":
        args = ["mcp", "remove", p["name"]]
    else:
        args = ["mcp", "add", p["name"]]
    if p["runtime"]:
        args += ["--runtime", p["runtime"]]
    if p["user_tool"]:
        args.append("--user-tool")
    if p["state"] == "present":
        if p["replace"]:
            args.append("--replace")
        if p["allow_uninstalled"]:
            args.append("--allow-uninstalled")
        if p["url"]:
            args += ["--url", p["url"], "--transport", p["transport"]]
            if p["headers"]:
                lines = ["%s=%s" % (k, p["headers"][k]) for k in sorted(p["headers"])]
                args += ["--header-file", osctl.secret_file(lines)]
        else:
            if p["env"]:
                lines = ["%s=%s" % (k, p["env"][k]) for k in sorted(p["env"])]
                args += ["--env-file", osctl.secret_file(lines)]
            args += ["--", p["command"]] + p["args"]
    osctl.run(args)


if __name__ == "__main__":
    main()
