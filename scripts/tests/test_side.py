# SPDX-License-Identifier: BSD-2-Clause
"""side.py (make experiments' side benchmarks, issue 43): EXPERIMENTS selects
them as it selects sweeps (none where it names sweeps only, all without it),
each profile's size is what its estimate counts (quick: what the claims read,
smoke: none), the quick command lines carry their shrink options and, run
with fake measurements, write every row a claim on them reads; run goes on
after a failure and exits 1, bad options exit 2. No benchmark is run here:
the runs are faked (subprocess, or the benchmarks' own run functions)."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from scripts.common import expfile, looks
from scripts.runner import bench_fidelity, bench_peers, benchresult, side, sizing
from scripts.tests import ROOT, module

try:  # the analysis needs pandas (the runner does not): the claims' part skips without
    from scripts.analysis import claims_table
except ImportError:  # pragma: no cover - a Python without the analysis' packages
    claims_table = None


def side_cli(*args):
    return subprocess.run(module("runner.side") + list(args), capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


class Selection(unittest.TestCase):
    def test_experiments_select_side_benchmarks(self):
        self.assertEqual(side.selected("f2-node-cache"), ())
        self.assertEqual(side.selected("f2-node-cache,f4-backoff"), ())
        self.assertEqual(side.selected("bench-peers"), ("bench-peers",))
        self.assertEqual(side.selected(["bench-oversub", "f2-node-cache", "bench-peers"]),
                         ("bench-peers", "bench-oversub"))  # NAMES' order
        self.assertEqual(side.selected(" bench-fidelity , f3-gate"), ("bench-fidelity",))
        for none in (None, "", [], ","):
            with self.subTest(names=none):
                self.assertEqual(side.selected(none), side.NAMES)
        self.assertEqual(side.sweep_names("bench-peers,f2-node-cache"), ["f2-node-cache"])
        # no side benchmark is named like a sweep experiment
        self.assertFalse(set(side.NAMES) & set(expfile.experiment_names()))

    def test_estimates_follow_the_profile_and_the_selection(self):
        self.assertEqual(side.PROFILES, tuple(expfile.PROFILES))
        for prof in side.PROFILES:
            self.assertEqual(set(side.ESTIMATES[prof]), set(side.COMMANDS[prof]), prof)
        self.assertLess(side.seconds("quick"), side.seconds("full"))
        # the quick profile's budget on the 2-CPU development VM (issue 43)
        self.assertLess(side.seconds("quick"), 4 * 60)
        self.assertEqual(side.seconds("smoke"), 0)
        self.assertEqual(side.seconds("quick", "f2-node-cache"), 0)
        self.assertEqual(side.seconds("full", "bench-peers,f2-node-cache"),
                         side.seconds("full", ["bench-peers"]))
        self.assertAlmostEqual(sum(side.seconds("quick", n) for n in side.NAMES),
                               side.seconds("quick"))
        # sizing's names still answer (experiments.py imports them)
        self.assertEqual(sizing.side_seconds(), side.seconds(side.default_profile()))
        self.assertEqual(sizing.side_seconds("full", "bench-oversub"),
                         side.seconds("full", "bench-oversub"))
        self.assertEqual(sizing.SIDE_BENCHMARKS, side.table(side.default_profile()))
        for name, per_round, rounds in sizing.SIDE_BENCHMARKS:
            self.assertIn(name, side.NAMES)
            self.assertGreater(per_round * rounds, 0)

    def test_quick_commands_carry_the_shrink_options(self):
        quick = {n: side.command(n, "quick", "B", "BARE", "OVR", "RES") for n in side.NAMES}
        full = {n: side.command(n, "full", "B", "BARE", "OVR") for n in side.NAMES}

        def opt(cmd, name):
            return cmd[cmd.index(name) + 1]
        peers = quick["bench-peers"]
        self.assertEqual(peers[1:3], ["-m", "scripts.runner.bench_peers"])
        self.assertEqual(opt(peers, "--shapes"), "1x1")
        self.assertEqual(opt(peers, "--queues").split(","), list(bench_peers.TARGET_QUEUES))
        self.assertEqual(opt(peers, "--bare-queues").split(","), list(bench_peers.TARGET_BARE))
        self.assertEqual((opt(peers, "--bench"), opt(peers, "--bare"), opt(peers, "--results")),
                         ("B", "BARE", "RES"))
        fid = quick["bench-fidelity"]
        self.assertNotIn("--no-message", fid)  # the bare loop has messages: a claim reads them
        self.assertIn("--no-strip", fid)
        self.assertEqual(opt(fid, "--configs"), "1p1c,pairs")
        # a paired claim decides from 6 pairs on (looks.LOOKS[0])
        for cmd in (peers, fid):
            self.assertGreaterEqual(int(opt(cmd, "--reps")), looks.LOOKS[0])
        ovr = quick["bench-oversub"]
        self.assertEqual(ovr[3:5], ["oversub", "--quick"])
        self.assertEqual(opt(ovr, "--bin"), "OVR")
        # full keeps today's size: every queue and shape, message and stripped runs
        for shrink in ("--shapes", "--queues", "--bare-queues", "--no-message", "--no-strip"):
            self.assertFalse(any(shrink in c for c in full.values()), shrink)
        self.assertNotIn("--results", full["bench-peers"])
        self.assertTrue(all(side.command(n, "smoke") is None for n in side.NAMES))


class FakeResult:
    """benchresult.start's Result, keeping the rows instead of writing them."""
    def __init__(self):
        self.rows = None

    def save(self, rows, extra=None):
        self.rows = rows

    def report(self):
        print("fake: result kept")


def run_main(main, argv):
    """(stdout, the rows it saved) of a benchmark's main() in-process."""
    res = FakeResult()
    out = io.StringIO()
    with mock.patch.object(benchresult, "start", return_value=res), \
            mock.patch.object(sys, "argv", argv), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(io.StringIO()):
        main()
    return out.getvalue(), res.rows


RATE = {"numaring": 20e6, "flat": 18e6, "rte": 15e6, bench_peers.FLAT_CHECK: 17e6}


class QuickRuns(unittest.TestCase):
    """The quick commands' options through the benchmarks' own code, their runs
    faked: what they run, print and save, and that every claim on them is
    measured from it."""

    def quick_args(self, name):
        cmd = side.command(name, "quick", sys.executable, sys.executable)
        return [cmd[2]] + cmd[3:]

    def test_bench_peers_quick_runs_what_the_claims_read(self):
        calls, bare_calls = [], []

        def fake_run(bench, queue, shape, bursts, *rest, **kw):
            calls.append((queue, shape, bursts))
            return RATE.get(queue, 1e6) * (2 if bursts else 1), 0.01

        def fake_bare(bare, queue, bursts, burst, duration):
            bare_calls.append((queue, bursts))
            return RATE[queue] * (3 if bursts else 1.2)
        with mock.patch.object(bench_peers, "run", fake_run), \
                mock.patch.object(bench_peers, "run_bare", fake_bare):
            out, rows = run_main(bench_peers.main, self.quick_args("bench-peers"))
        rounds = looks.LOOKS[0]
        self.assertEqual(sorted(set(calls)), sorted((q, (1, 1), b)
                                                    for q in bench_peers.TARGET_QUEUES
                                                    for b in (0, 1)))
        self.assertEqual(len(calls), rounds * 2 * len(bench_peers.TARGET_QUEUES))
        self.assertEqual(sorted(set(bare_calls)), sorted((q, b) for q in bench_peers.TARGET_BARE
                                                         for b in (0, 1)))
        self.assertEqual(len(rows), len(calls) + len(bare_calls))
        self.assertIn("not run (--queues): ", out)
        self.assertRegex(out, r"1P1C numaring / rte, bursts of 32: [\d.]+x .*(met|MISSED)")
        self.assertRegex(out, r"bare 1P1C numaring / rte, bursts of 32: [\d.]+x")
        self.assertIn("bare 1P1C numaring / flat, single operations: not measured "
                      "(flat not in --bare-queues)", out)
        self.assertIn(f"not run in the bare loop (--bare-queues): flat, {bench_peers.FLAT_CHECK}",
                      out)
        self.assertNotIn("2P2C", out)
        self.check_claims("bench-peers", rows, ("ring.bench-bursts-rte",
                                                "ring.bench-bursts-rte-bare",
                                                "ring.bench-single-flat"))

    def test_bench_fidelity_quick_pairs_every_configuration_and_nothing_more(self):
        kinds = []

        # each run with its two line trips (ns), both near: no pair runs again
        def fake_harness(a, queue, burst, item, outdir, extra=(), config="1p1c"):
            kinds.append(("harness", config, item, tuple(extra)))
            return RATE[queue] * 0.9, (30.0, 31.0)

        def fake_bare(a, queue, burst, config="1p1c", item="inline"):
            kinds.append(("bare", config, item, ()))
            return RATE[queue], (29.0, 32.0)
        with mock.patch.object(bench_fidelity, "run_harness", fake_harness), \
                mock.patch.object(bench_fidelity, "run_bare", fake_bare):
            out, rows = run_main(bench_fidelity.main, self.quick_args("bench-fidelity"))
        # 1P1C with both items and pairs, each with its bare partner; no strip
        cases = {("1p1c", "inline"), ("1p1c", "message"), ("pairs", "inline")}
        self.assertEqual(set(kinds), {(w, c, i, ()) for c, i in cases for w in ("harness", "bare")})
        self.assertEqual(len(rows), looks.LOOKS[0] * len(bench_fidelity.QUEUES) * 2 * 2 * 3)
        self.assertNotIn("2p2c", out)
        self.assertNotIn("where the time goes", out)
        self.assertIn("placement: 0 re-runs", out)
        self.assertTrue(all(r["placement_reruns"] == 0 and r["c2c_one_way_after_ns"]
                            for r in rows))
        self.check_claims("bench-fidelity", rows, ("harness.fidelity", "harness.fidelity-message"))

    def check_claims(self, name, rows, ids):
        if claims_table is None:
            self.skipTest("the analysis' packages (pandas) are not installed")
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "bench"))
            with open(benchresult.csv_path(tmp, name), "w") as f:
                f.write(benchresult.csv_text(name, rows))
            ctx = type("Ctx", (), {"dir": tmp, "name": "h", "guest": None})()
            for cid in ids:
                with self.subTest(claim=cid):
                    m = claims_table.BY_ID[cid].measure(ctx)
                    self.assertIsNotNone(m, f"{cid}: not measured from quick's rows")
                    self.assertEqual(m.n, looks.LOOKS[0])
            if name == "bench-fidelity":
                for item, configs in (("inline", 2), ("message", 1)):
                    m = claims_table.m_bench_fidelity(item)(ctx)
                    self.assertEqual(len(m.parts), 2 * configs * len(bench_fidelity.QUEUES))
                    self.assertNotIn("left out", m.detail)


class FakePopen:
    """subprocess.Popen whose wait returns the next of CODES."""
    CODES = []
    started = []

    def __init__(self, cmd, cwd=None):
        self.cmd = cmd
        FakePopen.started.append(cmd)

    def wait(self, timeout=None):
        return FakePopen.CODES.pop(0)

    def poll(self):
        return 0


class Run(unittest.TestCase):
    def run_side(self, argv, codes=()):
        FakePopen.CODES, FakePopen.started = list(codes), []
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.object(side.subprocess, "Popen", FakePopen), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = side.main(argv)
            except SystemExit as e:
                rc = e.code
        return rc, out.getvalue(), err.getvalue(), FakePopen.started

    def test_sweeps_only_run_no_side_benchmark(self):
        rc, out, _, started = self.run_side(["run", "--experiments", "f2-node-cache",
                                             "--profile", "quick"])
        self.assertEqual((rc, started), (0, []))
        self.assertEqual(out.strip().splitlines(), [out.strip()])
        self.assertIn("no side benchmark asked", out)

    def test_named_one_runs_alone_in_its_profile(self):
        rc, out, _, started = self.run_side(["run", "--experiments", "f2-node-cache,bench-peers",
                                             "--profile", "full"], [0])
        self.assertEqual(rc, 0)
        self.assertEqual([c[2] for c in started], ["scripts.runner.bench_peers"])
        self.assertNotIn("--queues", started[0])
        self.assertRegex(out, r"(?m)^side: bench-peers: done in \d+:\d\d \(estimated \d+:\d\d\)$")

    def test_a_failure_leaves_the_others_running_and_exits_1(self):
        rc, out, _, started = self.run_side(["run", "--profile", "quick", "--results", "/tmp/r"],
                                            [1, 0, 0])
        self.assertEqual(rc, 1)
        self.assertEqual(len(started), 3)
        self.assertTrue(all(c[-2:] == ["--results", "/tmp/r"] for c in started))
        self.assertRegex(out, r"(?m)^side: bench-peers: FAILED \(exit 1\) in ")
        self.assertRegex(out, r"(?m)^side: bench-fidelity: done in ")
        self.assertRegex(out, r"(?m)^side: bench-oversub: done in ")

    def test_interrupted_stops(self):
        rc, _, err, started = self.run_side(["run", "--profile", "quick"], [130])
        self.assertEqual((rc, len(started)), (130, 1))
        self.assertIn("interrupted", err)

    def test_smoke_and_dry_run_run_nothing(self):
        rc, out, _, started = self.run_side(["run", "--profile", "smoke"])
        self.assertEqual((rc, started), (0, []))
        self.assertIn("profile smoke runs no side benchmark", out)
        rc, out, _, started = self.run_side(["run", "--profile", "quick", "--dry-run"])
        self.assertEqual((rc, started), (0, []))
        self.assertEqual(out.count("\n== "), 3)
        self.assertIn("--shapes 1x1", out)

    def test_bad_profile_is_one_message_and_exit_2(self):
        for args in (["run", "--profile", "fast"], ["list", "--profile", "fast"]):
            with self.subTest(args=args):
                r = side_cli(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertIn("--profile 'fast': expected quick, full or smoke", r.stderr)
                self.assertEqual(r.stdout, "")

    def test_list_prints_each_estimate(self):
        r = side_cli("list")
        self.assertEqual(r.returncode, 0, r.stderr)
        for prof in side.PROFILES:
            self.assertRegex(r.stdout, rf"(?m)^total +{prof} +"
                             + side.fmt_time(side.seconds(prof)) + "$")
        self.assertRegex(r.stdout, r"(?m)^bench-peers +quick +6 +\d+:\d\d  .*--shapes 1x1")
        self.assertIn("not run in profile smoke", r.stdout)


if __name__ == "__main__":
    unittest.main()
