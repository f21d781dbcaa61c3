# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The options every osctl.device module shares (module_utils/osctl.py, common_argument_spec)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  osctl_path:
    description:
      - The osctl binary on the device.
    type: path
    default: /usr/local/bin/osctl
  root:
    description:
      - The device root osctl works on (osctl C(--root)); C(/) is the live device.
      - Any other folder is a device tree (a mounted SD-card image, a test fixture); service
        actions run only on C(/).
    type: path
    default: /
  lock_timeout:
    description:
      - Seconds to wait for the device lock held by another osctl run; then the task fails as
        busy, naming the holder.
    type: int
    default: 30
notes:
  - Check mode runs the same osctl command with C(--dry-run); C(changed) is what the real run
    would report. With C(--diff), each file osctl would write is shown as osctl's own unified
    diff, secrets masked by osctl.
  - A failed osctl run fails the task with osctl's message and hint; osctl's exit code is in
    C(rc) (1 refused, 4 rolled back, 5 partly applied, 6 busy).
"""
