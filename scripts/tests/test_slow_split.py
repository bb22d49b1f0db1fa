# SPDX-License-Identifier: BSD-2-Clause
"""make test and make test-slow split the scripts' tests (scripts/tests/__init__.py):
every test is in exactly one of the two sets, the slow set is what
docs/testing.md lists, and CI runs both."""

import os
import re
import subprocess
import tempfile
import unittest

from scripts import tests
from scripts.tests import parallel
from scripts.tests import ROOT

HERE = os.path.dirname(os.path.abspath(__file__))


def everything():
    """Every test of the folder, whichever set NUMARING_SLOW_TESTS selects now."""
    return list(tests.flatten(unittest.TestLoader().discover(HERE, top_level_dir=ROOT)))


def marked(test):
    """What @slow marks for a slow test: its class ("module.Class") or its
    method ("module.Class.method")."""
    cls = type(test)
    where = "%s.%s" % (cls.__module__, cls.__qualname__)
    return where if getattr(cls, tests.SLOW_ATTR, False) else test.id()


class SplitTest(unittest.TestCase):
    def setUp(self):
        self.all = everything()
        self.ids = [t.id() for t in self.all]
        if tests.slow_mode() == "slow":
            self.skipTest("NUMARING_SLOW_TESTS=only discovers the slow set alone")

    def test_every_test_in_exactly_one_set(self):
        suite = unittest.TestSuite(self.all)
        fast = [t.id() for t in tests.select(suite, "fast")]
        slow = [t.id() for t in tests.select(suite, "slow")]
        self.assertFalse(set(fast) & set(slow))
        self.assertEqual(sorted(fast + slow), sorted(self.ids))
        self.assertEqual(len(set(self.ids)), len(self.ids))
        self.assertTrue(fast)
        self.assertTrue(slow)
        self.assertIn(self.id(), fast)

    def test_modes(self):
        for value, mode in (("", "fast"), ("0", "fast"), ("only", "slow"), ("1", "all")):
            self.assertEqual(tests.slow_mode({tests.SLOW_ENV: value}), mode)
        self.assertEqual(tests.slow_mode({}), "fast")
        with self.assertRaises(ValueError):
            tests.slow_mode({tests.SLOW_ENV: "yes"})

    def test_a_slow_test_is_skipped_saying_where_it_runs(self):
        if tests.slow_mode() != "fast":
            self.skipTest("the slow tests run in this set")
        for t in self.all:
            if tests.is_slow(t):
                with self.subTest(test=t.id()):
                    method = getattr(t, t._testMethodName)
                    why = (getattr(type(t), "__unittest_skip_why__", None)
                           if getattr(type(t), tests.SLOW_ATTR, False)
                           else getattr(method, "__unittest_skip_why__", None))
                    self.assertEqual(why, tests.SLOW_REASON)

    def test_docs_list_the_slow_set(self):
        with open(os.path.join(ROOT, "docs", "testing.md"), encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"<!-- slow-tests -->\n(.*?)<!-- /slow-tests -->", text, re.S)
        self.assertIsNotNone(m, "docs/testing.md: no <!-- slow-tests --> block")
        listed = re.findall(r"`(scripts\.tests\.[\w.]+)`", m.group(1))
        self.assertEqual(len(listed), len(set(listed)), "listed twice")
        want = {marked(t) for t in self.all if tests.is_slow(t)}
        self.assertEqual(sorted(listed), sorted(want),
                         "docs/testing.md's slow-tests block names what @slow marks")

    def test_ci_runs_both_sets(self):
        with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
            lines = [x.strip() for x in f]
        self.assertIn("make test", lines)
        self.assertEqual(lines[lines.index("make test") + 1], "make test-slow")
        with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
            mk = f.read()
        self.assertRegex(mk, r"(?m)^test-slow:.*\n(\t.*\n)*\t.*test-scripts-slow$")
        # the harness's long runs (test_bench --slow) are in the slow set only
        self.assertRegex(mk, r"(?m)^test-slow:.*\n(\t.*\n)*\t.*test-harness-slow$")
        self.assertNotRegex(mk, r"(?m)^test:.*\n(\t.*\n)*\t.*test-harness-slow$")
        with open(os.path.join(ROOT, "harness", "harness.mk"), encoding="utf-8") as f:
            m = re.search(r"(?m)^test-harness-slow:.*\n((?:\t.*\n)+)", f.read())
        self.assertIsNotNone(m, "harness/harness.mk: no test-harness-slow target")
        self.assertIn("tests/test_bench --slow", m.group(1))
        with open(os.path.join(ROOT, "scripts", "experiments.mk"), encoding="utf-8") as f:
            mk = f.read()
        for target, env in (("test-scripts", None), ("test-scripts-slow", "only")):
            with self.subTest(target=target):
                m = re.search(r"(?m)^%s:.*\n((?:\t.*\n)+)" % re.escape(target), mk)
                self.assertIsNotNone(m, "scripts/experiments.mk: no %s target" % target)
                # the fast set a module at a time on every CPU (parallel.py
                # discovers as unittest does); the slow set in one process
                self.assertIn("-m scripts.tests.parallel" if env is None
                              else "unittest discover -s scripts/tests -t .", m.group(1))
                if env:
                    self.assertIn("%s=%s" % (tests.SLOW_ENV, env), m.group(1))
                else:
                    self.assertNotIn(tests.SLOW_ENV, m.group(1))

class ParallelTest(unittest.TestCase):
    """make test-scripts' runner (parallel.py): the modules discovery finds,
    unittest's summary, exit 1 on a failure or a module that will not import."""

    def test_every_test_module_is_run(self):
        found = {t.__module__ for t in map(type, everything())
                 if t.__module__.startswith("scripts.tests.test")}
        self.assertLessEqual(found, set(parallel.modules()))
        self.assertEqual(len(parallel.modules()), len(set(parallel.modules())))

    def test_summary_and_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "nr_demo_ok.py"), "w") as f:
                f.write("import unittest\nclass T(unittest.TestCase):\n"
                        "    def test_a(self): pass\n"
                        "    @unittest.skip('no')\n    def test_b(self): pass\n")
            with open(os.path.join(d, "nr_demo_bad.py"), "w") as f:
                f.write("import unittest\nclass T(unittest.TestCase):\n"
                        "    def test_a(self): self.assertEqual(1, 2)\n")
            env = dict(os.environ, PYTHONPATH=d)
            env.pop(tests.SLOW_ENV, None)

            def run(*names):
                return subprocess.run(tests.module("tests.parallel") + ["--jobs", "2", *names],
                                      cwd=ROOT, env=env, capture_output=True, text=True,
                                      timeout=120)
            r = run("nr_demo_ok")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertRegex(r.stdout, r"(?m)^Ran 2 tests in [0-9.]+s")
            self.assertRegex(r.stdout, r"(?m)^OK \(skipped=1\)$")
            r = run("nr_demo_ok", "nr_demo_bad", "nr_demo_missing")
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("AssertionError: 1 != 2", r.stdout)
            self.assertRegex(r.stdout, r"(?m)^Ran 4 tests in")
            self.assertRegex(r.stdout, r"(?m)^FAILED \(failures=1, errors=1, skipped=1\)$")
            r = run("--jobs", "0")
            self.assertEqual(r.returncode, 2)
            self.assertIn("--jobs 0: expected 1 or more", r.stderr)


if __name__ == "__main__":
    unittest.main()
