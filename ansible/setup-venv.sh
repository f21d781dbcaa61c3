#!/usr/bin/env bash
# Installs ansible-core from PyPI into a virtualenv for the fleet tests (tests/fleet_*.rs) and
# the collection's build and sanity checks. The venv lives outside the repository so a clean
# clone stays clean: ${OSCTL_ANSIBLE_VENV:-~/.cache/osctl-ansible-venv}. A second run with the
# same pinned version does nothing.
set -euo pipefail
venv=${OSCTL_ANSIBLE_VENV:-$HOME/.cache/osctl-ansible-venv}
# ansible-core 2.19 is the newest line whose controller runs on Python 3.11 (Debian 12's is
# 3.11); pinned so every machine runs the same ansible.
want=${OSCTL_ANSIBLE_CORE:-2.19.4}
if [ -x "$venv/bin/ansible-playbook" ] &&
  [ "$("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)' 2>/dev/null)" = "$want" ]; then
  echo "ansible-core $want already in $venv"
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "ansible-core==$want"
echo "ansible-core $("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)') in $venv"
