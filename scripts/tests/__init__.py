# SPDX-License-Identifier: BSD-2-Clause
"""The scripts' tests (make test-scripts), run from the repository root:

    python3 -m unittest discover -s scripts/tests -t . -v
    python3 -m unittest scripts.tests.test_stats -v        (one file)

They import the scripts as the package they are (``from scripts import
stats``) and run a script as a module from the root (``module("figures.plot")``).
"""

import os
import sys

#: the repository root: the folder a script's module runs from
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def module(name, python=None):
    """The command line of scripts/NAME.py, [python, "-m", "scripts.NAME"]
    (python: default this interpreter); run it with cwd=ROOT."""
    return [python or sys.executable, "-m", "scripts." + name]
