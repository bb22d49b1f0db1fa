# SPDX-License-Identifier: BSD-2-Clause
"""The sweep as a plan that serves questions (issue 43): every block of an
experiment file names the claims and figures that read it, every claim finds
its points in the blocks that name it (removing such a block fails), the
stopping rule adds rounds to an undecided claim's points and nothing else, the
claims' points run first, a paced point gives every queue the same work per
item, and a time budget drops points in the stated priority."""

import csv
import fnmatch
import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from unittest import mock

from scripts.analysis import claims_table
from scripts.common import expfile, figlist, looks, manifest
from scripts.runner import experiments, runorder, side, sizing
from scripts.tests import module, slow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXP_DIR = os.path.join(ROOT, "experiments")
RUNNER = module("runner.experiments")
BENCH = os.path.abspath(os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build",
                                                                      "numaring-bench")))

#: the hosts a claim must find its points on: this 2-CPU machine's quick
#: profile (one node: the cross-node experiments on two emulated nodes) and a
#: 2 x 16-core two-socket host's full profile
HOSTS = (("quick", 2, 1, 2), ("full", 32, 2, 32))


def sweep_claims():
    """{claim id: experiment} of the claims that read one experiment's points
    (claims_table's reads: "<experiment>.csv: ..."); the bounds over every run
    (F5.model-bounds, ring.order-kept) and the side benchmarks' are not a
    block's to name."""
    names = set(expfile.experiment_names())
    out = {}
    for c in claims_table.CLAIMS:
        src = c.reads.split(":")[0].strip()
        if src.endswith(".csv") and src[:-4] in names:
            out[c.id] = src[:-4]
    return out


def named(exp, claim):
    """The blocks of exp that name claim (its id or a pattern)."""
    return [b for b in exp.blocks if any(fnmatch.fnmatchcase(claim, c) for c in b.claims)]


def claim_points(exp, claim, profile, ncpus, nodes, cores):
    nodes = nodes if nodes >= 2 or not sizing.needs_two_nodes(exp, profile) else 2
    pts, _ = expfile.points(exp, profile, ncpus, nodes, cores)
    return [p for p in pts if any(fnmatch.fnmatchcase(claim, c) for c in p.claims)]


def unread(exps):
    """[(claim, why)] of the sweep claims that find no pair of points."""
    by_name = {e.name: e for e in exps}
    out = []
    for claim, exp in sorted(sweep_claims().items()):
        e = by_name.get(exp)
        if e is None or not named(e, claim):
            out.append((claim, f"no block of {exp}.exp names it"))
            continue
        for prof, ncpus, nodes, cores in HOSTS:
            if nodes < 2 and claims_table.BY_ID[claim].testable in (
                    claims_table.needs_real_nodes, claims_table.needs_study_scale):
                continue   # not testable on one node: its points are the two-socket host's
            if len(claim_points(e, claim, prof, ncpus, nodes, cores)) < 2:
                out.append((claim, f"fewer than 2 points in profile {prof} on {ncpus} CPUs"))
    return out


#: the configurations a claim pairs, as point options each side must match
#: (on this host's quick profile, or the two-socket host's full one)
PAIRS = {
    "ring.peers-bursts-rte": ("quick", dict(workload="prodcons", pace="free", work="0",
                                            item="inline", pin="compact", bursts="1"),
                              ("numaring", "rte")),
    "ring.peers-single-flat": ("quick", dict(workload="prodcons", pace="free", work="0",
                                             item="inline", pin="compact", bursts="0"),
                               ("numaring", "flat")),
    "ring.cross-rte": ("full", dict(workload="prodcons", pin="split", bursts="1",
                                    item="inline"), ("numaring", "rte")),
    "ring.cross-scq": ("full", dict(workload="prodcons", pin="split", bursts="0",
                                    item="inline"), ("numaring", "scq")),
    "ring.cross-p99": ("full", dict(workload="prodcons", pace="producer", bursts="0",
                                    queue="numaring", producers="1"), None),
    "F2.cache-faster": ("quick", dict(queue="numaring"), None),
}


class ClaimsFindTheirPoints(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.exps = expfile.experiments()

    def test_every_sweep_claim_finds_its_points(self):
        self.assertGreater(len(sweep_claims()), 20)
        self.assertEqual(unread(self.exps), [])

    def test_removing_a_block_a_claim_reads_fails_it(self):
        for name, block in (("peers", "headline"), ("peers", "bursts-rte"),
                            ("peers", "single-flat"), ("f3-gate", "claims"),
                            ("f4-backoff", "pairs-w300"), ("f4-backoff", "prodcons"),
                            ("peers", "cross-p99")):
            with self.subTest(experiment=name, block=block):
                path = os.path.join(EXP_DIR, name + ".exp")
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                i = text.index(f"[block {block}]")
                j = text.find("\n[", i + 1)
                cut = expfile.parse(path, text[:i] + text[j + 1:])
                exps = [cut if e.name == name else e for e in self.exps]
                lost = unread(exps)
                self.assertTrue(lost, block)
                self.assertTrue(all(sweep_claims()[c] == name for c, _ in lost))

    def test_a_claim_pairs_the_configurations_it_compares(self):
        by_name = {e.name: e for e in self.exps}
        for claim, (prof, match, queues) in PAIRS.items():
            with self.subTest(claim=claim):
                e = by_name[sweep_claims()[claim]]
                host = next(h for h in HOSTS if h[0] == prof)
                pts = [p for p in claim_points(e, claim, *host)
                       if all(p.opts.get(k) == v for k, v in match.items())]
                self.assertTrue(pts)
                if queues:
                    self.assertLessEqual(set(queues), {p.opts["queue"] for p in pts})

    def test_every_named_claim_and_figure_exists_and_every_figure_is_named(self):
        ids = [c.id for c in claims_table.CLAIMS]
        figures = {n: exp for n, exp in figlist.every_figure()}
        seen = set()
        for e in self.exps:
            for b in e.blocks:
                self.assertTrue(b.declared, f"{e.name}: [block {b.name}] says what reads it")
                for c in b.claims:
                    self.assertTrue(fnmatch.filter(ids, c), f"{e.name} [{b.name}]: claim {c}")
                for f in b.figures:
                    self.assertEqual(figures.get(f), e.name, f"{e.name} [{b.name}]: figure {f}")
                    seen.add(f)
        self.assertEqual(seen, set(figures))

    def test_exploratory_blocks_run_in_the_full_profile_only_and_last(self):
        e = next(x for x in self.exps if x.name == "f4-backoff")
        explo = [b for b in e.blocks if b.tier == "exploratory"]
        self.assertTrue(explo)
        for prof in ("quick", "smoke"):
            pts, _ = expfile.points(e, prof, 32, 2, 32)
            self.assertFalse([p for p in pts if p.tier == "exploratory"], prof)
        pts, reps = expfile.points(e, "full", 32, 2, 32)
        tiers = [p.tier for p, _k, rid in runorder.schedule(pts, reps, 3)
                 if rid not in runorder.REFERENCE_POINTS]
        self.assertIn("exploratory", tiers)
        first = tiers.index("exploratory")
        self.assertNotIn("claim", tiers[first:])

    def test_a_file_whose_quick_profile_runs_no_block_is_refused(self):
        # the fuzzer's finding (experiments/fuzz-regressions/only-exploratory-
        # blocks.reject.in): every block exploratory, so quick and smoke ran nothing
        text = ("[experiment]\nname = x\ntitle = x\nfinding = F1\n[sweep]\nqueue = flat\n"
                "threads = 2\n[block a]\nwork = 0\n[quick]\nreps = 2\n[full]\nreps = 2\n"
                "[smoke]\nreps = 2\n")
        with self.assertRaisesRegex(expfile.ExpError, r"the quick profile runs none of its"):
            expfile.parse("x.exp", text)
        with self.assertRaisesRegex(expfile.ExpError, r"the smoke profile runs none"):
            expfile.parse("x.exp", text.replace("[block a]\n", "[block a]\nfigures = f1\n"
                                                "profiles = quick, full\n"))

    def test_list_why_names_each_blocks_readers(self):
        r = subprocess.run(RUNNER + ["list", "--why", "--profile", "full", "--cores", "32",
                                     "--nodes", "2"], capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        for e in self.exps:
            for b in e.blocks:
                self.assertRegex(r.stdout, r"\[block %s\] (claim|figure|exploratory):"
                                 % re.escape(b.name))
        self.assertIn("read by claims ring.peers-bursts-rte", r.stdout)
        self.assertIn("nothing: exploratory (full profile only, runs last)", r.stdout)


class Budgets(unittest.TestCase):
    """Issue 43's budgets, from the committed files and the estimate."""

    def total(self, *args):
        r = subprocess.run(RUNNER + ["list", *args], capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"(?m)^total +\w+ +\d+ +([0-9:]+) +([0-9:]+)$", r.stdout)
        return [sum(int(v) * 60 ** i for i, v in enumerate(reversed(x.split(":"))))
                for x in m.groups()], r.stdout

    def test_the_profiles_fit_their_budgets(self):
        (est, most), _ = self.total("--cores", "32", "--nodes", "2", "--profile", "full")
        self.assertLessEqual(est, 4 * 3600)
        self.assertLessEqual(most, 6 * 3600)
        (est, _), _ = self.total("--cores", "32", "--nodes", "2", "--profile", "quick")
        self.assertLessEqual(est, 3600)
        (est, _), _ = self.total("--cores", "128", "--nodes", "2", "--profile", "full")
        self.assertLessEqual(est, 6 * 3600)
        (est, most), _ = self.total("--cpus", "2", "--profile", "quick")
        self.assertLessEqual(est, 20 * 60)
        self.assertLessEqual(most, 30 * 60)

    def test_the_time_grows_with_log2_of_the_cores(self):
        (a, _), _ = self.total("--cores", "32", "--nodes", "2", "--profile", "full")
        (b, _), _ = self.total("--cores", "128", "--nodes", "2", "--profile", "full")
        self.assertLess(b / a, 1.6)   # 4x the cores, 7 thread counts against 5

    def test_a_time_budget_fits_and_says_what_it_left_out(self):
        (est, most), out = self.total("--cores", "32", "--nodes", "2", "--profile", "quick",
                                      "--time-budget", "1h")
        self.assertLessEqual(est, 3600)
        self.assertLessEqual(most, 3600)
        # the full profile's claims alone take longer than an hour: said, not run
        r = subprocess.run(RUNNER + ["list", "--cores", "32", "--nodes", "2", "--time-budget",
                                     "1h"], capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("profile full: --time-budget: a time budget of 1:00:00 is below", r.stdout)
        (est, most), out = self.total("--cores", "32", "--nodes", "2", "--profile", "quick",
                                      "--time-budget", "40m")
        self.assertLessEqual(est, 40 * 60)
        self.assertLessEqual(most, 40 * 60)
        self.assertIn("--time-budget 40:00 leaves out", out)
        # never a claim's points: every claim still finds them
        exps = expfile.experiments()
        drop, dropped, _ = sizing.fit_budget(exps, "full", 32, 32, 2, 3 * 3600,
                                             side.seconds("full"), sizing.fixed_seconds(1))
        self.assertTrue(dropped)
        for e in exps:
            pts, _ = expfile.points(e, "full", 32, 2, 32)
            for p in pts:
                if p.tier == "claim":
                    self.assertNotIn(p.id, drop.get(e.name, ()))
        # in the stated order: exploratory before figure-only
        tiers = [t for _n, _b, t, _r, _s in dropped]
        self.assertEqual(tiers, sorted(tiers, key=lambda t: -expfile.TIERS.index(t)))
        self.assertEqual(tiers[0], "exploratory")

    def test_a_budget_below_the_claims_points_is_refused_in_one_line(self):
        r = subprocess.run(RUNNER + ["list", "--cores", "32", "--nodes", "2", "--time-budget",
                                     "1m"], capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no profile fits it", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)
        for bad in ("soon", "0", "-5m", "1:75"):
            r = subprocess.run(RUNNER + ["list", "--time-budget", bad], capture_output=True,
                               text=True, cwd=ROOT)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--time-budget", r.stderr)
            self.assertNotIn("Traceback", r.stderr)

    def test_the_two_socket_table_is_generated_and_fresh(self):
        r = subprocess.run(RUNNER + ["readme", "docs/two-socket.md", "--check"],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(ROOT, "docs", "two-socket.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("| peers | headline | claim |", text)
        self.assertIn("TIME_BUDGET=1h", text)

    def test_the_last_sweeps_time_is_generated_and_fresh(self):
        """docs/testing.md's line on the newest recorded make experiments
        (issue 47 item 6): generated from its make-experiments.txt, current."""
        r = subprocess.run(RUNNER + ["readme", "docs/testing.md", "--check"],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        from scripts.runner import sizing
        with tempfile.TemporaryDirectory() as d:
            self.assertIn("No complete record", " ".join(sizing.timing_block(results=d)))
            os.makedirs(os.path.join(d, "h"))
            with open(os.path.join(d, "h", "make-experiments.txt"), "w") as f:
                f.write("profile quick\nestimate_s 1000\nat_most_s 1100\n"
                        "started 2026-01-01T00:00:00Z\nended 2026-01-01T00:20:00Z\n"
                        "wall_s 1200\n")
            text = " ".join(sizing.timing_block(results=d))
            self.assertIn("20:00 of wall time", text)
            self.assertIn("against the 16:40 it printed before it started (at most 18:20)", text)

    def test_durations(self):
        for text, want in (("90m", 5400), ("1h", 3600), ("1h30m", 5400), ("20:00", 1200),
                           ("4:00:00", 14400), ("5400", 5400), ("45s", 45)):
            self.assertEqual(sizing.parse_duration(text), want, text)


class PacedBursts(unittest.TestCase):
    def test_every_queue_gets_the_same_work_per_item(self):
        """A paced bursts point: a queue that takes bursts works pace-work x the
        batch after each burst; one without them moves an item an operation and
        works pace-work after each (issue 43 item 4)."""
        per_op = {}
        for q in ("rte", "ck"):
            opts = {"queue": q, "workload": "prodcons", "pace": "producer", "bursts": "1",
                    "batch": "32", "pace-work": "200", "work": "0"}
            args = expfile.pace_args(opts)
            per_op[q] = int(args[args.index("--producer-work") + 1])
        self.assertTrue(manifest.queue("rte")["bursts"])
        self.assertFalse(manifest.queue("ck")["bursts"])
        self.assertEqual(per_op["rte"] / 32, per_op["ck"] / 1)

    def test_a_bursts_cell_of_a_queue_without_bursts_is_left_out(self):
        text = ("[experiment]\nname = t\ntitle = t\nfinding = peers\n[sweep]\n"
                "queue = rte, ck, faa\nbursts = 0, 1\nitem = inline, message\nthreads = 2\n"
                "figures = peers-regimes\n")
        e = expfile.parse("t.exp", text)
        pts, _ = expfile.points(e, "quick", 2, 1)
        cells = {(p.opts["queue"], p.opts["bursts"], p.opts["item"]) for p in pts}
        self.assertIn(("rte", "1", "message"), cells)
        self.assertNotIn(("ck", "1", "inline"), cells)
        self.assertNotIn(("faa", "0", "message"), cells)
        left = expfile.left_out(e, "quick", 2, 1)
        self.assertIn(("ck", "bursts = 1"), left)
        self.assertIn(("faa", "item = message"), left)


class StoppingRule(unittest.TestCase):
    def test_rounds_go_to_the_undecided_claims_points_only(self):
        e = expfile.parse(os.path.join(EXP_DIR, "peers.exp"))
        pts, reps = expfile.points(e, "quick", 2, 1)
        ref = expfile.reference_point(e, pts, 2, 1)
        folder = "/tmp/nr-fake-host"
        answers = [(True, f"peers\t{folder}\tring.peers-bursts-rte\t5\n", ""), (True, "", "")]
        calls = []

        def fake_run_pass(a, bench, topo, exps, profile, ident, hostdir, fp, rounds=None):
            calls.append(rounds)
            return []
        a = mock.Mock(reps=None, budget=4, drop={}, allowance=None, started=time.monotonic(),
                      bench=BENCH)
        with mock.patch.object(experiments, "analysis", side_effect=answers), \
                mock.patch.object(experiments, "run_pass", side_effect=fake_run_pass), \
                mock.patch.object(experiments, "planned_points", return_value=(pts, reps, ref)):
            experiments.add_rounds(a, BENCH, [(None, [e], folder)], "quick", None, None, folder)
        self.assertEqual(len(calls), 1)
        grown = {pid for pid, n in calls[0]["peers"].items() if n > reps}
        pts_by = {p.id: p for p in pts}
        want = {p.id for p in pts if "ring.peers-bursts-rte" in p.claims} | {ref.id}
        self.assertEqual(grown, want)
        # its block's pair (numaring and rte, bursts, on one node) and the
        # drift reference: 3 of the 65 points, not the headline's 23
        self.assertEqual(len(grown), 3)
        self.assertEqual({pts_by[pid].opts["queue"] for pid in grown - {ref.id}},
                         {"numaring", "rte"})
        self.assertEqual({calls[0]["peers"][pid] for pid in grown}, {6})

    def test_the_time_allowed_stops_the_stopping_rule(self):
        e = expfile.parse(os.path.join(EXP_DIR, "peers.exp"))
        pts, reps = expfile.points(e, "quick", 2, 1)
        folder = "/tmp/nr-fake-host"
        a = mock.Mock(reps=None, budget=4, drop={}, allowance=1.0,
                      started=time.monotonic() - 5, bench=BENCH)
        with mock.patch.object(experiments, "analysis", return_value=(
                True, f"peers\t{folder}\tring.peers-bursts-rte\t5\n", "")), \
                mock.patch.object(experiments, "run_pass") as rp, \
                mock.patch.object(experiments, "planned_points", return_value=(pts, reps, None)):
            experiments.add_rounds(a, BENCH, [(None, [e], folder)], "quick", None, None, folder)
        rp.assert_not_called()

    def test_the_schedule_adds_rounds_to_some_points_only(self):
        e = expfile.parse(os.path.join(EXP_DIR, "peers.exp"))
        pts, reps = expfile.points(e, "quick", 2, 1)
        more = {p.id: (6 if i < 3 else reps) for i, p in enumerate(pts)}
        runs = runorder.schedule(pts, more, 11, None, reps)
        added = [(p.id, k) for p, k, _r in runs if k > reps]
        self.assertEqual(sorted(added), sorted((p.id, 6) for p in pts[:3]))
        self.assertEqual(runs[-len(added):], [r for r in runs if r[1] > reps])


class ClaimsFirst(unittest.TestCase):
    def test_the_claims_points_run_before_the_others(self):
        e = expfile.parse(os.path.join(EXP_DIR, "peers.exp"))
        pts, reps = expfile.points(e, "quick", 2, 1)
        ref = expfile.reference_point(e, pts, 2, 1)
        runs = runorder.schedule(pts, reps, 5, ref)
        cut = runorder.claims_cut(runs)
        head = [p for p, _k, rid in runs[:cut] if rid not in runorder.REFERENCE_POINTS]
        tail = [p for p, _k, rid in runs[cut:] if rid not in runorder.REFERENCE_POINTS]
        self.assertEqual({p.tier for p in head}, {"claim"})
        self.assertNotIn("claim", {p.tier for p in tail})
        self.assertEqual(len(head), reps * sum(1 for p in pts if p.tier == "claim"))
        # still randomized within a round: two seeds, two orders
        other = runorder.schedule(pts, reps, 6, ref)
        self.assertNotEqual([r[2] for r in runs], [r[2] for r in other])


F2_SPLIT = """[experiment]
name = f2-node-cache
title = F2 (the claims first)
finding = F2
reference = none

[sweep]
queue = numaring
threads = 2
gate = perworker
backoff = none
batch = 8
capacity = 64
pin = compact
pace = producer
pace-work = 300

[block claims]
claims = F2.*
lookup = libnuma, cached

[block figure]
figures = f2-node-cache
lookup = table, syscall, none, rseq

[quick]
duration = 0.1
warmup = 0
calibrate = 0.02
reps = 8
"""


class InterruptedSweep(unittest.TestCase):
    @slow
    def test_a_sweep_stopped_after_its_claims_points_decides_them(self):
        tmp = tempfile.mkdtemp(prefix="nr-claims-first-")
        try:
            expdir = os.path.join(tmp, "exp")
            os.makedirs(expdir)
            with open(os.path.join(expdir, "f2-node-cache.exp"), "w") as f:
                f.write(F2_SPLIT)
            results = os.path.join(tmp, "results")
            proc = subprocess.Popen(
                RUNNER + ["run", "--loose", "--results", results, "--bench", BENCH, "--exp-dir", expdir,
                          "--placement-reruns", "0", "--profile", "quick", "--budget", "1"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                start_new_session=True)
            seen = []
            for line in proc.stdout:
                seen.append(line)
                # the first run of a figure-only point: the claims' rounds are done
                if re.search(r"lookup=(table|syscall|none|rseq) rep 1/8", line):
                    os.killpg(proc.pid, signal.SIGINT)
                    break
            proc.communicate(timeout=60)
            self.assertTrue(any("lookup=table" in x or "lookup=syscall" in x or
                                "lookup=none" in x or "lookup=rseq" in x for x in seen),
                            "".join(seen[-5:]))
            host = next(d for d in os.listdir(results) if "-emulated-" not in d)
            hostdir = os.path.join(results, host)
            # collect what ran, then the report of the interrupted sweep
            pts, _ = expfile.points(expfile.parse(os.path.join(expdir, "f2-node-cache.exp")),
                                    "quick", 2, 1)
            experiments.collect(hostdir, expfile.parse(os.path.join(expdir,
                                                                    "f2-node-cache.exp")),
                                "quick", pts, 6, None)
            p = subprocess.run(module("analysis.jobs") + ["write", hostdir],
                               capture_output=True, text=True, cwd=ROOT)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(hostdir, "claims.csv"), encoding="utf-8") as f:
                row = next(r for r in csv.DictReader(f) if r["claim"] == "F2.cache-faster")
            # what the test is about: the claims' points ran their first look of
            # rounds whole before the figure's began, so every pair is there for
            # the claim. Whether those pairs decide it is the machine's: on a VM a
            # run may land in the other regime (its pair left out) or its CPUs
            # move apart (the test asks for no re-runs), and the claim then says
            # so, inconclusive with its reason
            with open(os.path.join(hostdir, "f2-node-cache.csv"), encoding="utf-8") as f:
                ran = [r for r in csv.DictReader(f) if r.get("lookup") in ("libnuma", "cached")]
            for lookup in ("libnuma", "cached"):
                self.assertGreaterEqual(len({r["rep"] for r in ran if r["lookup"] == lookup}),
                                        looks.LOOKS[0], lookup)
            self.assertTrue(row["value"], row)
            self.assertIn(row["status"], ("holds", "does not hold", "inconclusive"), row)
            if row["status"] == "inconclusive":
                self.assertTrue(row["why"], row)
            # and nothing of the figure's points beyond the one whose line
            # stopped it and the one running when the SIGINT came (the bench
            # ends a run it is in cleanly, with its summary)
            self.assertLessEqual(len(glob.glob(os.path.join(
                hostdir, "f2-node-cache", "quick", "lookup=[tsnr]*", "rep-*", "summary.csv"))), 2)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
