# SPDX-License-Identifier: BSD-2-Clause
"""The scripts' tests (make test-scripts), run from the repository root:

    python3 -m unittest discover -s scripts/tests -t . -v
    python3 -m unittest scripts.tests.test_stats -v        (one file)

They import the scripts as the package they are (``from scripts import
stats``) and run a script as a module from the root (``module("figures.plot")``).

Two sets (docs/testing.md): a test marked ``@slow`` (a method or a whole
TestCase class: an end-to-end sweep, the slowest integration tests) is
skipped with the reason "slow: make test-slow" unless NUMARING_SLOW_TESTS
says otherwise; the environment variable chooses what discovery of this
folder runs:

    unset or 0   the fast set: what make test runs (make test-scripts)
    only         the slow set alone: what make test-slow runs
    1            both

test_slow_split.py checks that the two sets split the suite, every test in
exactly one, and that docs/testing.md names the slow set.
"""

import os
import sys
import unittest

#: the repository root: the folder a script's module runs from
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def module(name, python=None):
    """The command line of scripts/NAME.py, [python, "-m", "scripts.NAME"]
    (python: default this interpreter); run it with cwd=ROOT."""
    return [python or sys.executable, "-m", "scripts." + name]


#: the environment variable that says which set runs (see above)
SLOW_ENV = "NUMARING_SLOW_TESTS"
#: the reason a slow test is skipped in the fast set
SLOW_REASON = "slow: make test-slow"
#: the attribute @slow sets on a test method or a TestCase class
SLOW_ATTR = "numaring_slow"


def slow_mode(environ=None):
    """"fast", "slow" or "all": the set NUMARING_SLOW_TESTS selects; a value
    this does not know is an error (a typo must not run the wrong set)."""
    v = (os.environ if environ is None else environ).get(SLOW_ENV, "").strip()
    modes = {"": "fast", "0": "fast", "only": "slow", "1": "all"}
    if v not in modes:
        raise ValueError("%s=%r: expected 0, 1 or only" % (SLOW_ENV, v))
    return modes[v]


def slow(test):
    """Mark a test method or a TestCase class slow: it runs in make test-slow
    (NUMARING_SLOW_TESTS=only, or 1), and make test skips it saying so. A
    skipped class runs no setUpClass."""
    setattr(test, SLOW_ATTR, True)
    return unittest.skipIf(slow_mode() == "fast", SLOW_REASON)(test)


def is_slow(test):
    """Whether a loaded test (a TestCase instance) is marked slow, on its
    method or on its class (or a base class)."""
    method = getattr(test, getattr(test, "_testMethodName", ""), None)
    return bool(getattr(method, SLOW_ATTR, False) or getattr(type(test), SLOW_ATTR, False))


def flatten(suite):
    """The TestCase instances of a suite, in order."""
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def select(suite, mode):
    """The tests of ``suite`` in set ``mode`` ("fast", "slow", "all"), in order.
    A module that failed to import (unittest's _FailedTest) is in both sets:
    its error shows whichever set runs."""
    out = unittest.TestSuite()
    for t in flatten(suite):
        failed = type(t).__name__ == "_FailedTest"
        if mode == "all" or failed or is_slow(t) == (mode == "slow"):
            out.addTest(t)
    return out


def load_tests(loader, standard_tests, pattern):
    """unittest discovery of this folder (-s scripts/tests): every test module,
    then the set NUMARING_SLOW_TESTS selects. In the fast set a slow test is
    left in, to be skipped with its reason ("slow: make test-slow") where the
    run lists it; in the slow set the fast ones are left out."""
    here = os.path.dirname(os.path.abspath(__file__))
    standard_tests.addTests(loader.discover(start_dir=here, pattern=pattern or "test*.py"))
    mode = slow_mode()
    return select(standard_tests, "all" if mode == "fast" else mode)
