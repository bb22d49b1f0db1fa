# SPDX-License-Identifier: BSD-2-Clause
"""parallel.py - the scripts' tests on every CPU (make test-scripts).

    python3 -m scripts.tests.parallel [--jobs N] [-q] [MODULE ...]

Runs the set NUMARING_SLOW_TESTS selects (scripts/tests/__init__.py: the
fast set unset, the slow set with ``only``), as

    python3 -m unittest discover -s scripts/tests -t . -v

does (or the MODULEs named, e.g. scripts.tests.test_stats), one test module
at a time in each of N worker processes (default: the
CPUs this process may use). A worker takes the next module when it finishes
one, the biggest files first, so that no worker is left with a long module
at the end; the modules' own fixtures (setUpModule, setUpClass) run in the
worker as in one process. Each module's lines are printed as it finishes,
its failures and errors in full, then unittest's summary: the tests run,
and OK or FAILED with the counts. Exit status 0 when every test passed, 1
otherwise (a module that cannot be imported is an error, as unittest's; a
worker that dies fails the modules it had not finished).

Why not one process: most of the suite's time is each test's own Python
(scripts run as modules, each importing pandas), one CPU's worth at a time.
The modules' tests share no state but the committed files they read.
"""

import argparse
import glob
import io
import multiprocessing
import os
import queue
import sys
import time
import unittest

from scripts import tests
from scripts.tests import ROOT

HERE = os.path.dirname(os.path.abspath(__file__))


def modules():
    """The test modules, the biggest files first (a rough guess at the
    longest: they are started first)."""
    files = glob.glob(os.path.join(HERE, "test*.py"))
    files.sort(key=lambda f: (-os.path.getsize(f), f))
    return ["scripts.tests." + os.path.basename(f)[:-3] for f in files]


def run_module(name, verbosity):
    """(name, output text, tests run, failures, errors, skipped, seconds) of
    one module's tests of the selected set."""
    mode = tests.slow_mode()
    out = io.StringIO()
    t0 = time.monotonic()
    suite = unittest.defaultTestLoader.loadTestsFromName(name)
    # discovery's load_tests (scripts/tests/__init__.py): the fast set keeps
    # the slow tests, to be skipped with their reason
    suite = tests.select(suite, "all" if mode == "fast" else mode)
    runner = unittest.TextTestRunner(stream=out, verbosity=verbosity)
    # the worker's output is the module's: a test printing to stdout or
    # stderr lands in its module's block
    old = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    try:
        result = runner.run(suite)
    finally:
        sys.stdout, sys.stderr = old
    return (name, out.getvalue(), result.testsRun, len(result.failures),
            len(result.errors) + len(result.unexpectedSuccesses), len(result.skipped),
            time.monotonic() - t0)


def worker(todo, done, verbosity):
    while True:
        name = todo.get()
        if name is None:
            return
        try:
            done.put(run_module(name, verbosity))
        except BaseException as e:  # noqa: BLE001 - reported as the module's error
            done.put((name, f"{name}: the worker failed: {e!r}\n", 0, 0, 1, 0, 0.0))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m scripts.tests.parallel",
                                 description="The scripts' tests, a module at a time on each "
                                 "of several worker processes.")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                    help="worker processes (default: the CPUs this process may use)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="one character per test, not one line")
    ap.add_argument("names", nargs="*", metavar="MODULE",
                    help="test modules to run (default: every scripts/tests/test*.py)")
    a = ap.parse_args(argv)
    if a.jobs < 1:
        ap.error(f"--jobs {a.jobs}: expected 1 or more")
    try:
        tests.slow_mode()
    except ValueError as e:
        ap.error(str(e))
    os.chdir(ROOT)
    names = a.names or modules()
    # fork: the workers start with this light process (no test imported yet)
    ctx = multiprocessing.get_context("fork")
    todo, done = ctx.Queue(), ctx.Queue()
    for n in names:
        todo.put(n)
    jobs = min(a.jobs, len(names))
    for _ in range(jobs):
        todo.put(None)
    procs = [ctx.Process(target=worker, args=(todo, done, 1 if a.quiet else 2))
             for _ in range(jobs)]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    ran = failures = errors = skipped = 0
    left = set(names)
    while left:
        try:
            name, text, n, f, e, s, secs = done.get(timeout=5)
        except queue.Empty:
            if any(p.is_alive() for p in procs):
                continue
            # every worker is gone and some modules never reported
            for name in sorted(left):
                print(f"== {name}: not finished (its worker exited)")
            errors += len(left)
            break
        left.discard(name)
        ran, failures, errors, skipped = ran + n, failures + f, errors + e, skipped + s
        # the module's lines, its summary left out (the whole run's follows)
        body = text.split("\n" + "-" * 70 + "\nRan ", 1)[0].rstrip("\n")
        print(f"== {name} ({n} tests, {secs:.1f} s)")
        if body:
            print(body)
        sys.stdout.flush()
    for p in procs:
        p.join()
    print("-" * 70)
    print(f"Ran {ran} tests in {time.monotonic() - t0:.3f}s ({jobs} worker processes)")
    print()
    counts = [f"{k}={v}" for k, v in (("failures", failures), ("errors", errors),
                                      ("skipped", skipped)) if v]
    word = "FAILED" if failures or errors else "OK"
    print(word + (f" ({', '.join(counts)})" if counts else ""))
    return 1 if failures or errors else 0


if __name__ == "__main__":
    sys.exit(main())
