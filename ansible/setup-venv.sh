#!/usr/bin/env bash
# Installs ansible-core from PyPI into a virtualenv for the fleet tests (tests/it/fleet_*.rs) and
# the collection's build and sanity checks. The venv lives outside the repository so a clean
# clone stays clean: ${OSCTL_ANSIBLE_VENV:-~/.cache/osctl-ansible-venv}. A second run with the
# same pinned version does nothing.
set -euo pipefail
venv=${OSCTL_ANSIBLE_VENV:-$HOME/.cache/osctl-ansible-venv}
# ansible-core 2.19 is the newest line whose controller runs on Python 3.11 (Debian 12's is
# 3.11); pinned so every machine runs the same ansible.
want=${OSCTL_ANSIBLE_CORE:-2.19.4}
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$venv/bin/ansible-playbook" ] &&
  [ "$("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)' 2>/dev/null)" = "$want" ]; then
  echo "ansible-core $want already in $venv"
else
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "ansible-core==$want"
  echo "ansible-core $("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)') in $venv"
fi
# ansible-test's pip bootstrap (see ansible-test-get-pip.py), under the name of the pip version
# this ansible-test asks for.
pip_version=$(sed -n "s/^ *pip='\([0-9.]*\)',\$/\1/p" \
  "$venv"/lib/python3*/site-packages/ansible_test/_internal/python_requirements.py | head -1)
[ -n "$pip_version" ] || { echo "cannot tell which pip ansible-test bootstraps" >&2; exit 1; }
mkdir -p "$HOME/.ansible/test/cache"
cp "$here/ansible-test-get-pip.py" "$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
