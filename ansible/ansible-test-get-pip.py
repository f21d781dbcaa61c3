"""Stands in for get-pip.py, the pip bootstrap script that `ansible-test sanity --requirements`
downloads from its own file server, which the project's machines cannot reach (only the package
registries). ansible-test runs it in each empty test virtualenv with pip's install arguments
(`pip==X ...`): pip comes from the interpreter's own ensurepip wheel, then those packages from PyPI.
setup-venv.sh installs this file where ansible-test looks for its cached copy."""

import ensurepip
import os
import subprocess
import sys

args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
# ensurepip turns pip's configuration off in os.environ (PIP_CONFIG_FILE=/dev/null); the
# install from PyPI needs the machine's (its CA bundle, for one).
env = dict(os.environ)
ensurepip.bootstrap()
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install"] + args, env=env))
