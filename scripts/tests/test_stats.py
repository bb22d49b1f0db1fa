# SPDX-License-Identifier: BSD-2-Clause
"""Tests of the study's statistics (make test-scripts): paired ratios and their
order-statistic intervals with their exact coverage, the drift reference and its check, the
oversubscribed flag, F4's "backoff not exercised" rule, and how the figures
show them (one x value drawn as points, titles that say what varies).

    /usr/bin/python3 -m unittest discover -s scripts/tests -t . -v

Synthetic results trees from tests/fakeresults.py; nothing is run.
"""

import csv
import importlib
import math
import os
import random
import shutil
import statistics
import tempfile
import unittest

from scripts.tests import fakeresults
from scripts.analysis import nrdata
from scripts.analysis import stats
from scripts.tests import ROOT, module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)


def _summarize():
    return importlib.import_module("scripts.analysis.summarize")


class IntervalTest(unittest.TestCase):
    """stats.interval: the order-statistic interval of a median, its coverage
    exact at the n used, and the word 95% only where it is true."""

    def test_exact_coverage_by_formula(self):
        # n = 5: min..max covers 1 - 2/32; n = 6: 1 - 2/64; n = 9: j = 2 covers
        # 1 - 2 (1 + 9)/512 = 0.9609
        self.assertAlmostEqual(stats.coverage(5, 1), 0.9375)
        self.assertAlmostEqual(stats.coverage(6, 1), 1 - 2 / 64)
        self.assertEqual(stats.order_rank(5), (1, 0.9375))
        self.assertEqual(stats.order_rank(9)[0], 2)
        self.assertAlmostEqual(stats.order_rank(9)[1], 1 - 2 * 10 / 512)
        self.assertEqual(stats.order_rank(2), (1, 0.5))
        self.assertIsNone(stats.order_rank(1))
        with self.assertRaises(ValueError):
            stats.coverage(5, 3)

    def test_coverage_holds_on_synthetic_samples(self):
        """Drawn from skewed distributions with a known median, the interval
        covers it as often as its stated coverage says (within 4 sigma)."""
        rnd = random.Random(20261201)
        trials = 2500
        dists = {"lognormal": (lambda: rnd.lognormvariate(0.0, 0.6), 1.0),
                 "exponential": (lambda: rnd.expovariate(1.0), math.log(2)),
                 "bimodal": (lambda: rnd.choice((rnd.gauss(1, 0.1), rnd.gauss(3, 0.1),
                                                 rnd.gauss(3, 0.1))), None)}
        for name, (draw, med) in dists.items():
            if med is None:   # the bimodal mix's median, from a big sample
                med = statistics.median(draw() for _ in range(50001))
            for n in (3, 5, 6, 9, 12):
                hit, cov = 0, None
                for _ in range(trials):
                    iv = stats.interval([draw() for _ in range(n)])
                    cov = iv.coverage
                    hit += iv.lo <= med <= iv.hi
                sigma = math.sqrt(cov * (1 - cov) / trials)
                with self.subTest(dist=name, n=n):
                    self.assertLess(abs(hit / trials - cov), 4 * sigma + 0.005)

    def test_95_only_where_true(self):
        for n in range(2, 40):
            iv = stats.interval(list(range(n)))
            text = stats.label(iv.coverage) + " " + stats.fmt(iv)
            with self.subTest(n=n):
                if iv.coverage < 0.95:
                    self.assertNotIn("95", text)
                else:
                    self.assertIn("95%", text)
        self.assertEqual(stats.fmt(stats.interval([1, 2, 3, 4, 5])), "3.00 [1.00..5.00, 93.75%]")
        self.assertEqual(stats.fmt(stats.interval([2.0])), "2.00 (n = 1)")
        self.assertIsNone(stats.interval([]))
        self.assertIn("93.75%", stats.method_sentence(5))

    def test_estimate_is_the_median_inside_its_interval(self):
        rnd = random.Random(5)
        for n in (2, 3, 4, 5, 7, 10, 25):
            vals = [rnd.uniform(0.5, 2.0) for _ in range(n)]
            iv = stats.interval(vals)
            with self.subTest(n=n):
                self.assertEqual(iv.est, statistics.median(vals))
                self.assertLessEqual(iv.lo, iv.est)
                self.assertLessEqual(iv.est, iv.hi)
                self.assertEqual(iv.n, n)

    def test_paired_by_rep(self):
        a = [{"rep": str(k), "v": str(v)} for k, v in ((1, 10), (2, 20), (3, 30), (4, 7))]
        b = [{"rep": str(k), "v": str(v)} for k, v in ((1, 5), (2, 5), (3, 10))]
        self.assertEqual(nrdata.paired_ratios(a, b, "v"), [2.0, 4.0, 3.0])   # rep 4 unpaired
        self.assertEqual(nrdata.paired_ratios(a, b, "v", fn=lambda x, y: x - y), [5, 15, 20])

    def test_paired_ratios_are_by_reps_medians(self):
        """paired_ratios' per-repetition medians (without frames) are
        by_rep's (pandas' groupby median) bit for bit: several runs per rep,
        even counts, reps out of order, empty and NaN values, a rep whose
        values are all NaN, a zero denominator left out."""
        rnd = random.Random(7)
        for trial in range(50):
            rows = {}
            for side in ("a", "b"):
                rows[side] = []
                for _ in range(rnd.randint(0, 12)):
                    v = rnd.choice([rnd.uniform(1e3, 1e9), rnd.lognormvariate(0, 4), 0.0,
                                    "", "nan", rnd.uniform(0.1, 0.3)])
                    rows[side].append({"rep": str(float(rnd.randint(0, 5))), "v": str(v)})
            with self.subTest(trial=trial):
                want_a, want_b = nrdata.by_rep(rows["a"], "v"), nrdata.by_rep(rows["b"], "v")
                want = [want_a[k] / want_b[k] for k in want_a.index
                        if k in want_b.index and want_b[k] != 0]
                got = nrdata.paired_ratios(rows["a"], rows["b"], "v")
                self.assertEqual(len(got), len(want))
                for g, w in zip(got, want):
                    self.assertTrue(g == w or (math.isnan(g) and math.isnan(w)), (g, w))


class StoppingRuleTest(unittest.TestCase):
    """The stopping rule (scripts/common/looks.py, stats.sequential_verdict):
    looks at fixed pair counts with the 5% error split across them, so that
    adding rounds until a claim decides keeps false decisions within 5%."""

    def decide(self, t):
        def d(lo, hi):
            return "holds" if lo > t else "does not hold" if hi < t else "inconclusive"
        return d

    def test_the_looks_spend_at_most_five_percent_each_at_95(self):
        from fractions import Fraction
        from scripts.common import looks
        spent = sum(looks.look_alpha(k) for k in looks.LOOKS)
        self.assertLessEqual(spent, Fraction(1, 20))
        for k in looks.LOOKS:
            j, cov = stats.decision_rank(k)
            self.assertGreaterEqual(cov, stats.MIN_DECISIVE, k)
            self.assertLessEqual(1 - cov, float(looks.look_alpha(k)) + 1e-12, k)
        self.assertEqual(stats.MIN_DECISIVE, 0.95)
        self.assertIsNone(stats.decision_rank(5))
        self.assertEqual(looks.budget_rounds(5), 20)   # the quick profile: 4 x 5
        self.assertEqual(looks.budget_rounds(10), 40)
        self.assertEqual(looks.next_look(5, 20), 6)
        self.assertIsNone(looks.next_look(20, 20))

    def test_false_decisions_within_the_level_by_simulation(self):
        # 10,000 sequences whose true median is the threshold: every decision
        # is false; their rate must stay within 5% plus three Monte Carlo
        # standard errors, over three shapes of noise
        rnd = random.Random(20261202)
        t, runs, budget = 1.0, 10000, 20
        shapes = (lambda: math.exp(rnd.gauss(0, 0.3)),
                  lambda: 1.0 + rnd.uniform(-0.5, 0.5),
                  lambda: 1.0 + (rnd.expovariate(1.0) - math.log(2)))
        false = 0
        for i in range(runs):
            draw = shapes[i % len(shapes)]
            vals = [draw() for _ in range(budget)]
            st, _used = stats.sequential_verdict(vals, self.decide(t), budget)
            false += st != "inconclusive"
        rate = false / runs
        self.assertLessEqual(rate, 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs), rate)
        # and it does decide sometimes: the rule is not vacuous
        self.assertGreater(rate, 0.0)

    def test_a_decisive_sequence_stops_early_an_undecided_one_runs_to_the_budget(self):
        rnd = random.Random(7)
        far = [2.0 + rnd.random() for _ in range(20)]
        self.assertEqual(stats.sequential_verdict(far, self.decide(1.0), 20), ("holds", 6))
        near = [1.0 + (0.01 if i % 2 else -0.01) * (1 + i / 100) for i in range(20)]
        self.assertEqual(stats.sequential_verdict(near, self.decide(1.0), 20),
                         ("inconclusive", 20))
        # a sequence shorter than a look stops at the last look it reached
        self.assertEqual(stats.sequential_verdict(near[:12], self.decide(1.0), 20),
                         ("inconclusive", 10))


class TidyFrameTest(unittest.TestCase):
    """nrdata.load_tidy's typed DataFrame holds the numbers the rows' strings
    say (nrdata.num: float() of the text), on every committed table."""

    def test_frame_equals_the_strings(self):
        import glob
        paths = [p for p in glob.glob(os.path.join(ROOT, "results", "*", "*.csv"))
                 if os.path.basename(p) not in ("claims.csv", "bench-ring.csv")]
        self.assertTrue(paths)
        for path in paths:
            rows = nrdata.load_tidy(path, role=None)
            self.assertEqual(list(rows.frame.index), sorted(rows.frame.index))
            for c in rows.header:
                if c in nrdata.NUMERIC_COLUMNS:
                    got = [None if v is None or v != v else v
                           for v in rows.frame[c].astype(object).where(
                               rows.frame[c].notna(), None).tolist()]
                    with self.subTest(path=path, column=c):
                        self.assertEqual(got, [nrdata.num(r, c) for r in rows])


class Trees(unittest.TestCase):
    """Synthetic hosts: 'drifty' (references that move 30% in F4 and 40% in peers),
    'steady' (references within 2%), 'idle' (F4's backoff never runs: 0.2 failed
    attempts per 1,000 operations), 'old' (no role or oversubscribed column), and
    'one' (a single thread count)."""

    @classmethod
    def setUpClass(cls):
        # built once for the four classes below (each took as long to build
        # as its tests to run); removed by tearDownModule
        if Trees.__dict__.get("_built"):
            cls.tmp, cls.results = Trees._built
            cls.summarize, cls.plot = _summarize(), importlib.import_module("scripts.figures.plot")
            return
        cls.tmp = tempfile.mkdtemp(prefix="nr-stats-")
        cls.results = os.path.join(cls.tmp, "results")
        Trees._built = (cls.tmp, cls.results)
        mk = fakeresults.make_synthetic
        every = ["f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff", "f5-ceiling",
                 "peers", "placement"]
        mk(cls.results, "drifty", "real", (2, 4, 8), reps=5, seed=21, profile="quick",
           experiments=every,
           oversub_above=4, references={"f4-backoff": (1.0, 1.3, 1.05),
                                        "f2-node-cache": (1.0, 0.99, 1.01),
                                        "peers": (1.0, 0.6, 1.0)})
        mk(cls.results, "steady", "real", (2, 4, 8), reps=5, seed=22, profile="quick",
           oversub_above=4, references={"f4-backoff": (1.0, 1.01, 0.99)})
        mk(cls.results, "idle", "real", (2, 4), reps=4, seed=23, f4_failed=0.0002,
           oversub_above=2, experiments=["f4-backoff"])
        mk(cls.results, "old", "real", (2, 4), reps=3, seed=24, experiments=every)
        mk(cls.results, "one", "real", (2,), reps=3, seed=25, oversub_above=2,
           experiments=["f2-node-cache", "f4-backoff", "peers"])
        cls.summarize = _summarize()
        cls.plot = importlib.import_module("scripts.figures.plot")

    def hostdir(self, h):
        return os.path.join(self.results, h)

    def host(self, name):
        h = self.plot.Host(self.results, name)
        h.load()
        return h


def tearDownModule():
    if Trees.__dict__.get("_built"):
        shutil.rmtree(Trees._built[0], ignore_errors=True)


class DriftTest(Trees):
    def test_reference_rows_are_kept_out_of_the_points(self):
        path = os.path.join(self.hostdir("drifty"), "f4-backoff.csv")
        pts = nrdata.load_tidy(path)
        refs = nrdata.load_tidy(path, role="reference")
        self.assertEqual(sorted(r["point"] for r in refs), sorted(nrdata.REFERENCE_POINTS))
        self.assertFalse(any(nrdata.is_reference(r) for r in pts))
        self.assertEqual(len(pts), 3 * 4 * 5)
        self.assertEqual(len(self.summarize.load(path)), len(pts))
        self.assertEqual(len(self.summarize.load_refs(path)), 3)
        # the figures never see them
        self.assertEqual(len(self.host("drifty").data["f4-backoff"]), len(pts))

    def test_drift_above_the_smallest_effect_is_flagged(self):
        d = self.summarize.drift(self.hostdir("drifty"), "f4-backoff")
        self.assertEqual(d["point"], "t2-none")            # the first point
        self.assertEqual(d["metric"], "throughput_ops_per_s")
        vals = d["values"]
        self.assertEqual(d["n"], 3)
        self.assertAlmostEqual(d["drift"], (max(vals) - min(vals)) / statistics.median(vals))
        self.assertGreater(d["drift"], 0.2)
        effects = self.summarize.stated_effects(self.hostdir("drifty"), "f4-backoff")
        self.assertEqual(d["smallest"], min(effects, key=lambda e: e[1]))
        self.assertLess(d["smallest"][1], d["drift"])
        self.assertTrue(d["flagged"])
        readme = self.summarize.host_readme(self.hostdir("drifty"))
        section = readme.split("## Drift")[1].split("\n## ")[0]
        row = [line for line in section.splitlines() if line.startswith("| f4-backoff |")][0]
        self.assertIn("FLAGGED", row)
        self.assertIn("%.1f%%" % (d["drift"] * 100), row)
        # peers: the reference fell to 60% in the middle, more than any ratio stated
        self.assertTrue(self.summarize.drift(self.hostdir("drifty"), "peers")["flagged"])
        # f2: 2% of drift against a several-fold effect
        f2 = self.summarize.drift(self.hostdir("drifty"), "f2-node-cache")
        self.assertFalse(f2["flagged"])
        self.assertIn("| f2-node-cache | t2-libnuma |", section)
        self.assertIn("not measured (no reference runs", section)   # f1: none there

    def test_small_drift_is_not_flagged(self):
        d = self.summarize.drift(self.hostdir("steady"), "f4-backoff")
        self.assertLess(d["drift"], 0.05)
        self.assertFalse(d["flagged"])
        readme = self.summarize.host_readme(self.hostdir("steady"))
        row = [line for line in readme.splitlines() if line.startswith("| f4-backoff | t2")][0]
        self.assertTrue(row.endswith("| ok |"), row)

    def test_no_reference_runs(self):
        self.assertIsNone(self.summarize.drift(self.hostdir("old"), "f4-backoff"))

    def test_readme_prints_paired_ratios_with_intervals(self):
        readme = self.summarize.host_readme(self.hostdir("drifty"))
        r = self.summarize.f2(self.hostdir("drifty"))
        self.assertIn("%.2f [%.2f..%.2f, %s]x" % (r["cached_over_libnuma"],
                                                  r["cached_over_libnuma_lo"],
                                                  r["cached_over_libnuma_hi"],
                                                  stats.cov_text(r["cached_over_libnuma_cov"])),
                      readme)
        self.assertRegex(readme, r"pause [+-]\d+\.\d \[[+-]\d+\.\d\.\.[+-]\d+\.\d, 93.75%\]%")
        self.assertNotRegex(readme, r"95% (confidence|CI|interval)")


class F4ExercisedTest(Trees):
    def test_the_rule(self):
        self.assertTrue(nrdata.backoff_exercised(nrdata.BACKOFF_EXERCISED))
        self.assertFalse(nrdata.backoff_exercised(0.000999))
        self.assertIsNone(nrdata.backoff_exercised(None))
        self.assertAlmostEqual(nrdata.failed_per_item({"failed_attempts": "3", "ops": "1000"}),
                               0.003)
        self.assertIsNone(nrdata.failed_per_item({"failed_attempts": "", "ops": "1000"}))
        self.assertIsNone(nrdata.failed_per_item({"failed_attempts": "3", "ops": "0"}))
        # whole-run races over whole-run operations, not over the window's ops
        self.assertAlmostEqual(nrdata.failed_per_item(
            {"failed_attempts": "30", "ops": "100", "enqueued": "600", "dequeued": "400"}), 0.03)

    def test_not_exercised_says_so_instead_of_a_percentage(self):
        r = self.summarize.f4(self.hostdir("idle"))
        for b in ("pause", "exp", "yield"):
            self.assertFalse(r[f"{b}_exercised"])
            # at 2 threads: 4 are oversubscribed here, and F4 quotes no such point
            self.assertEqual(r["threads"], 2)
            self.assertAlmostEqual(r[f"{b}_failed_per_item"], 0.0001)
        readme = self.summarize.host_readme(self.hostdir("idle"))
        row = [line for line in readme.splitlines() if line.startswith("| F4 |")][0]
        self.assertEqual(row.count("backoff not exercised on this host"), 3)
        self.assertNotIn("%", row.split("|")[2].replace("% of throughput", ""))
        self.assertIn("0.1 failed attempts per 1,000 operations", row)
        self.assertEqual(self.summarize.stated_effects(self.hostdir("idle"), "f4-backoff"), [])
        p = self.plot.prep_f4(self.host("idle"))
        self.assertTrue(all(x["exercised"] is False for x in p["relative"]))
        self.assertIn("pause/exp/yield: backoff not exercised on this host", p["annotation"])
        self.assertNotIn("%", p["annotation"].split("(study")[0])
        dat = "\n".join(self.plot.dat_text("f4-backoff", p))
        self.assertIn("# pause: backoff not exercised on this host", dat)
        block = dat.split('"change vs none"')[1].split("\n\n\n")[0]
        rows = [x.split() for x in block.splitlines() if x and not x.startswith("#")]
        self.assertEqual({x[7] for x in rows}, {"0"})                  # exercised: 0
        self.assertTrue(all(abs(float(x[6]) - 0.1) < 1e-6 for x in rows))  # per 1,000

    def test_exercised_shows_the_change_and_the_rate(self):
        r = self.summarize.f4(self.hostdir("drifty"))
        self.assertTrue(r["yield_exercised"])
        # quoted at 4 threads, the largest not oversubscribed (f4_failed is 8's)
        self.assertEqual(r["threads"], 4)
        self.assertAlmostEqual(r["yield_failed_per_item"], 0.005)
        p = self.plot.prep_f4(self.host("drifty"))
        failed = {b: pts for b, pts in p["failed"].items()}
        self.assertEqual([q[0] for q in failed["none"]], [2, 4, 8])
        self.assertAlmostEqual(failed["none"][-1][1], 10.0)             # per 1,000 operations
        rel = {x["backoff"]: x for x in p["relative"]}
        self.assertTrue(rel["exp"]["exercised"])
        self.assertIn("exp \u2212", p["annotation"])

    def test_paper_macros(self):
        """paper_numbers: FFour<b>Says is the text, not a percentage, where idle."""
        import subprocess
        out = os.path.join(self.tmp, "numbers.tex")
        r = subprocess.run(module("paper.paper_numbers") + ["--results", self.results,
                                                      "--real", "idle", "--out", out],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            text = f.read()
        self.assertIn("\\newcommand{\\FFourPauseSays}{backoff not exercised on this host}", text)
        self.assertIn("\\newcommand{\\FFourExercised}{0}", text)
        self.assertIn("\\newcommand{\\FFourPauseFailed}{0.1}", text)
        # and the drift macros of a host with references
        r = subprocess.run(module("paper.paper_numbers") + ["--results", self.results,
                                                      "--real", "drifty", "--out", out],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            text = f.read()
        d = self.summarize.drift(self.hostdir("drifty"), "f4-backoff")
        self.assertIn("\\newcommand{\\DriftFFour}{%.1f\\%%}" % (d["drift"] * 100), text)
        self.assertIn("\\newcommand{\\DriftFOne}{n/a}", text)
        self.assertIn("\\newcommand{\\DriftFlagged}{\\texttt{f4-backoff}, \\texttt{peers}}",
                      text)
        self.assertIn("\\newcommand{\\FFourPauseSays}{$", text)   # exercised: a percentage


class OversubscribedTest(Trees):
    def test_nrdata_reads_the_column_and_tolerates_its_absence(self):
        rows = nrdata.load_tidy(os.path.join(self.hostdir("drifty"), "f2-node-cache.csv"))
        flags = {(nrdata.threads(r), nrdata.oversubscribed(r)) for r in rows}
        self.assertEqual(flags, {(2, False), (4, False), (8, True)})
        old = nrdata.load_tidy(os.path.join(self.hostdir("old"), "f2-node-cache.csv"))
        self.assertNotIn("oversubscribed", old.header)
        self.assertTrue(all(nrdata.oversubscribed(r) is None for r in old))

    def test_a_bad_value_is_refused(self):
        src = os.path.join(self.hostdir("drifty"), "f2-node-cache.csv")
        bad = os.path.join(self.tmp, "bad.csv")
        with open(src, newline="") as f:
            rows = list(csv.reader(f))
        rows[2][rows[0].index("oversubscribed")] = "2"
        with open(bad, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
        with self.assertRaises(nrdata.DataError) as cm:
            nrdata.load_tidy(bad)
        self.assertIn("line 3, column oversubscribed", str(cm.exception))

    def test_every_figure_marks_or_says(self):
        h = self.host("drifty")
        for name, exp, prep, _n in self.plot.FIGURES:
            if exp not in h.data:
                continue  # no such sweep on this host (f4-spin): plot.prepare draws none
            with self.subTest(figure=name):
                text = " ".join(t for t, _e in prep(h)["caption"])
                if name == "f4-backoff":
                    # the main figure draws each workload at its quoted thread count,
                    # the largest where every thread has a CPU
                    self.assertIn("no point oversubscribed", text)
                elif name in ("f3-gate-percentiles", "f3-gate-load-diagnostics"):
                    # drawn at 4 threads, the largest where every thread has a CPU
                    self.assertIn("no point oversubscribed", text)
                elif name == "peers-throughput":
                    # drawn at 4 threads, the largest where every thread has a CPU
                    self.assertIn("no point oversubscribed", text)
                elif name in ("f1-lookup-cost", "f1-lookup-cost-regimes"):
                    self.assertIn("no point oversubscribed", text)   # one thread count, 2
                else:
                    self.assertRegex(text, r"\d+ oversubscribed points? \(the run's threads")
        old = self.host("old")
        for name, exp, prep, _n in self.plot.FIGURES:
            if exp not in old.data:
                continue
            with self.subTest(figure=name, host="old"):
                self.assertIn("oversubscription not recorded",
                              " ".join(t for t, _e in prep(old)["caption"]))

    def test_series_and_data_files_carry_the_flag(self):
        h = self.host("drifty")
        p = self.plot.prep_f2(h)
        for pts in p["series"].values():
            self.assertEqual([(q[0], q[7]) for q in pts], [(2, 0), (4, 0), (8, 1)])
        dat = self.plot.dat_text("f2-node-cache", p)
        cols, rows = self.points_block(dat)
        self.assertIn("oversubscribed", cols)
        self.assertEqual({(r["threads"], r["oversubscribed"]) for r in rows
                          if r["variant"] == "cached"}, {("2", "0"), ("4", "0"), ("8", "1")})
        f5 = self.plot.prep_f5(h)
        self.assertEqual({q[7] for q in f5["queues"][0][1]["lines"][8]}, {1})
        f5 = self.plot.prep_f5_open(h)
        self.assertEqual({q[7] for q in f5["lines"][8]}, {1})
        old = self.plot.prep_f2(self.host("old"))
        _cols, rows = self.points_block(self.plot.dat_text("f2-node-cache", old))
        self.assertEqual({r["oversubscribed"] for r in rows if r["variant"] == "cached"},
                         {"NaN"})

    @staticmethod
    def points_block(dat):
        """(columns, [row as {column: field}]) of a .dat's "points" block."""
        body = "\n".join(dat).split('\n"points"\n')[1].split("\n\n\n")[0]
        cols = [x for x in body.splitlines() if x.startswith("# columns:")][0]
        cols = cols.split(":", 1)[1].split()
        return cols, [dict(zip(cols, x.split())) for x in body.splitlines()
                      if x.strip() and not x.startswith("#")]

    def test_f3_percentiles_at_the_largest_clean_thread_count(self):
        p = self.plot.prep_f3a(self.host("drifty"))
        self.assertEqual(p["threads"], 4)
        r = self.summarize.f3(self.hostdir("drifty"))
        self.assertEqual(r["threads"], 4)
        self.assertFalse(r["oversubscribed"])
        self.assertEqual(self.plot.prep_f3a(self.host("old"))["threads"], 4)   # unknown: largest

    def test_drawn_as_a_black_x(self):
        self.plot.init_matplotlib()
        plt = self.plot.plt
        p = self.plot.prep_f2(self.host("drifty"))
        fig, axes = plt.subplots(1, 1, squeeze=False)
        self.plot.draw_lines(list(axes.flat), p)
        ax = axes[0][0]
        xs = [ln for ln in ax.lines if ln.get_marker() == "x"]
        self.assertTrue(xs)
        self.assertEqual(sum(len(ln.get_xdata()) for ln in xs), len(p["series"]))  # 8 threads
        self.assertIn(self.plot.OVERSUB_LABEL, ax.get_legend_handles_labels()[1])
        plt.close(fig)


class FigureTest(Trees):
    def test_one_x_value_is_drawn_as_points(self):
        """One thread count: the variants (look-up modes, backoffs, queues) are
        categories on x and nothing joins data across it. Every data series
        (the variants' dots, their caps, the black x) is marks only; the only
        lines are levels: a category's ceiling and harness as a short bar within
        its own slot, or one harness level across a panel (axhline: one value,
        no data joined)."""
        self.plot.init_matplotlib()
        plt = self.plot.plt
        h = self.host("one")
        for prep, draw, n in ((self.plot.prep_f2, self.plot.draw_lines, 1),
                              (self.plot.prep_f4, self.plot.draw_f4, 3),
                              (self.plot.prep_peers_regimes, self.plot.draw_peers, 4)):
            with self.subTest(figure=prep.__name__):
                p = prep(h)
                self.assertTrue(p["categorical"])
                fig, axes = plt.subplots(1, n, squeeze=False)
                draw(list(axes.flat), p)
                for ax in list(axes.flat)[:1 if n == 3 else n]:
                    marks = [ln for ln in ax.lines if ln.get_marker() not in ("None", "", None)]
                    levels = [ln for ln in ax.lines if ln not in marks]
                    self.assertGreater(len(marks), 3)
                    self.assertEqual({ln.get_linestyle() for ln in marks}, {"None"})
                    ncat = len(ax.get_xticks())
                    for ln in levels:
                        xs, ys = list(ln.get_xdata()), list(ln.get_ydata())
                        self.assertEqual(len(xs), 2)
                        self.assertEqual(ys[0], ys[1])   # a level, not a slope
                        if ln.get_transform() == ax.get_yaxis_transform():
                            self.assertEqual(xs, [0, 1])   # across the panel: one value
                            continue
                        # a bar: shorter than a slot, centred on its category
                        self.assertLess(abs(xs[1] - xs[0]), 1.0)
                        mid = (xs[0] + xs[1]) / 2
                        self.assertAlmostEqual(mid, round(mid))
                        self.assertLess(round(mid), ncat)
                plt.close(fig)
        p = self.plot.prep_f2(self.host("drifty"))   # three thread counts: lines
        fig, axes = plt.subplots(1, 1, squeeze=False)
        self.plot.draw_lines(list(axes.flat), p)
        self.assertIn("-", {ln.get_linestyle() for ln in axes[0][0].lines})
        plt.close(fig)

    def test_titles_say_what_varies(self):
        one, many = self.host("one"), self.host("drifty")
        self.assertIn("throughput by node look-up mode at 2 threads",
                      self.plot.prep_f2(one)["title"])
        self.assertIn("throughput vs threads by node look-up mode",
                      self.plot.prep_f2(many)["title"])
        self.assertIn("throughput by queue at 2 threads",
                      self.plot.prep_peers_regimes(one)["title"])
        self.assertIn("throughput vs threads by queue",
                      self.plot.prep_peers_regimes(many)["title"])
        # the main peers figure: one thread count a panel, the largest with a CPU
        # each, in its panel's title
        self.assertEqual({pn["threads"] for pn in self.plot.prep_peers(one)["panels"]}, {2})
        self.assertEqual({pn["threads"] for pn in self.plot.prep_peers(many)["panels"]}, {4})
        self.assertIn("throughput by backoff at 2 threads", self.plot.prep_f4(one)["title"])
        self.assertIn("latency vs threads by gate", self.plot.prep_f3b(many)["title"])
        self.assertIn("by batch size", self.plot.prep_f5(many)["title"])
        self.assertIn("vs batch size", self.plot.prep_f5_open(many)["title"])


class PaceTest(unittest.TestCase):
    """Which side set the pace of peers' 1P1C burst runs (summarize.pace): runs
    above FULL_RETRIES_PACE retries per burst counted as full, their medians apart."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-pace-")
        self.summarize = _summarize()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, rows):
        cols = ["experiment", "point", "rep", "role", "queue", "item", "bursts", "batch",
                "producers", "consumers", "enqueued", "full_retries", "throughput_ops_per_s"]
        with open(os.path.join(self.tmp, "peers.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            for r in rows:
                w.writerow({**{"experiment": "peers", "role": "point", "item": "inline",
                               "batch": "32", "producers": "1", "consumers": "1"}, **r})

    def test_full_runs_are_told_apart(self):
        rows = []
        # numaring: 3 runs kept up (0.01 retries per burst), 2 ran full (0.3)
        for k, (retries, mops) in enumerate([(0.01, 250), (0.3, 180), (0.01, 240),
                                             (0.3, 170), (0.01, 260)]):
            rows.append({"point": "n", "rep": str(k + 1), "queue": "numaring", "bursts": "1",
                         "enqueued": "3200000", "full_retries": str(int(retries * 100000)),
                         "throughput_ops_per_s": str(mops * 1e6)})
        # rte: never full; single operations and 2P2C runs are not counted
        for k in range(3):
            rows.append({"point": "r", "rep": str(k + 1), "queue": "rte", "bursts": "1",
                         "enqueued": "3200000", "full_retries": "0",
                         "throughput_ops_per_s": "190e6"})
        rows.append({"point": "s", "rep": "1", "queue": "numaring", "bursts": "0",
                     "enqueued": "3200000", "full_retries": "9999999",
                     "throughput_ops_per_s": "1e6"})
        rows.append({"point": "w", "rep": "1", "queue": "numaring", "bursts": "1",
                     "producers": "2", "consumers": "2", "enqueued": "3200000",
                     "full_retries": "9999999", "throughput_ops_per_s": "1e6"})
        self.write(rows)
        got = {r["queue"]: r for r in self.summarize.pace(self.tmp)}
        self.assertEqual(set(got), {"numaring", "rte"})
        n = got["numaring"]
        self.assertEqual((n["runs"], n["full_runs"]), (5, 2))
        self.assertAlmostEqual(n["full_mops"], 175.0)
        self.assertAlmostEqual(n["kept_mops"], 250.0)
        self.assertAlmostEqual(n["retries"], 0.01)
        self.assertEqual((got["rte"]["full_runs"], got["rte"]["full_mops"]), (0, None))
        text = "\n".join(self.summarize.pace_section(self.tmp))
        self.assertIn("| inline | numaring | 5 | 0.010 | 2 | 175.0 | 250.0 |", text)
        self.assertIn("| inline | rte | 3 | 0.000 | 0 | — | 190.0 |", text)

    def test_no_burst_runs_no_section(self):
        self.write([{"point": "s", "rep": "1", "queue": "numaring", "bursts": "0",
                     "enqueued": "100", "full_retries": "0", "throughput_ops_per_s": "1e6"}])
        self.assertEqual(self.summarize.pace(self.tmp), [])
        self.assertEqual(self.summarize.pace_section(self.tmp), [])


class SummarizeCliTest(unittest.TestCase):
    """python3 -m scripts.analysis.summarize: --help prints the usage; bad input is one
    message (argparse's) and exit 2, and --readme writes nothing for a missing host."""

    def cli(self, *args):
        import subprocess
        return subprocess.run(module("analysis.summarize") + list(args),
                              capture_output=True, text=True, timeout=60, cwd=ROOT)

    @slow
    def test_help_and_bad_input(self):
        r = self.cli("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--readme HOST", r.stdout)
        tmp = tempfile.mkdtemp(prefix="nr-sumcli-")
        try:
            for args, what in ((("--bogus",), "unrecognized arguments: --bogus"),
                               (("--results",), "argument --results: expected one argument"),
                               (("--results", tmp, "--readme"), "--readme needs a HOST"),
                               (("--results", tmp, "--readme", "nohost"),
                                "no results for host 'nohost'"),
                               (("--results", os.path.join(tmp, "absent")),
                                "is not a folder of results")):
                with self.subTest(args=args):
                    r = self.cli(*args)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertIn(what, r.stderr)
                    self.assertEqual(r.stdout, "")
            self.assertEqual(os.listdir(tmp), [])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()


class UndeterminedTest(unittest.TestCase):
    """A ratio with runs in separate modes, or an interval over 100x wide, has no
    value (issue 47): F3's 3893x was the mean of two runs from different modes."""

    def test_modes_and_span(self):
        from scripts.analysis import stats
        f3 = [7.96e-05, 1.21, 7785, 8753]
        self.assertEqual([k for _m, k in stats.modes(f3)], [1, 1, 2])
        self.assertRegex(stats.undetermined(f3), r"^undetermined: the pairs fall into 3 modes")
        self.assertIsNone(stats.undetermined([0.9, 1.0, 1.1, 1.3, 2.0, 5.0]))
        self.assertRegex(stats.undetermined([1.0, 2.0], 0.01, 2.0), r"spans 200x")
        self.assertIsNone(stats.undetermined([1.0, 2.0], 0.5, 2.0))
        # changes (may be negative) are not ratios: one group
        self.assertEqual(len(stats.modes([-50.0, 3.0, 400.0])), 1)

    def test_a_claim_prints_no_value(self):
        from scripts.analysis import claims, claims_table
        c = claims_table.Claim(id="x.modes", finding="x", sentence="s", reads="r",
                               estimator="paired median ratio", op=">", threshold=1.0, unit="x",
                               study="", when=claims.ANY,
                               measure=lambda ctx: claims_table.Measured(
                                   1.0, 0.001, 9000.0, 6, values=(0.001, 0.002, 0.9, 1.1,
                                                                  8000.0, 9000.0)))
        ctx = type("Ctx", (), {"name": "h", "guest": None})()
        row = claims.evaluate(c, ctx)
        self.assertEqual(row["value"], "")
        self.assertEqual(row["status"], "inconclusive")
        self.assertEqual(claims.fmt_value(row), "undetermined")
        self.assertIn("3 modes", row["why"])

    def test_every_place_says_undetermined(self):
        """One bimodal case (F3's four pairs) through each place that prints a
        ratio: the claims.csv row, the results README's report and the README's
        side-by-side table, the paper's macro and a figure's label. None of them
        prints the median (3893x) or its interval."""
        from scripts.analysis import claims, claims_table, stats
        from scripts.figures import fig_host
        from scripts.paper import paper_numbers
        f3 = (7.96e-05, 1.21, 7785.0, 8753.0)
        median, lo, hi = 3893.1, 7.96e-05, 8753.0
        c = claims_table.Claim(id="x.modes", finding="x", sentence="s", reads="r",
                               estimator="paired median ratio", op=">", threshold=1.0, unit="x",
                               study="", when=claims.ANY,
                               measure=lambda ctx: claims_table.Measured(median, lo, hi, 4,
                                                                         values=f3))
        ctx = type("Ctx", (), {"name": "h", "guest": None})()
        row = claims.evaluate(c, ctx)
        self.assertEqual((row["value"], row["lo"], row["hi"]), ("", "", ""))
        text = claims.csv_text([row])
        self.assertNotIn("3893", text)
        self.assertIn("undetermined: the pairs fall into 3 modes", text)
        for place, lines in (("results README", claims.md_section([row])),
                             ("make experiments' report", claims.host_lines([row]))):
            with self.subTest(place=place):
                said = "\n".join(lines)
                self.assertIn("undetermined", said)
                self.assertNotIn("3893", said)
        d = {"r": median, "r_lo": lo, "r_hi": hi, "r_n": 4, "r_cov": 0.875, "r_vals": list(f3)}
        said = fig_host.Said()
        self.assertEqual(said.text("f3.p50_shared_over_perworker", d, "r"), "undetermined")
        self.assertEqual(said.values, {})
        n = paper_numbers.Numbers()
        n.put_ci("FThreeP", d, "r")
        macros = dict(n.macros)
        self.assertRegex(macros["FThreePUndetermined"], r"^undetermined: the pairs fall into 3 modes")
