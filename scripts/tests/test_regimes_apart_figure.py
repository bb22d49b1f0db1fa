# SPDX-License-Identifier: BSD-2-Clause
"""F1, F2 and F4 (prodcons) by regime (scripts/common/regime.py), as the peers figure.

    /usr/bin/python3 -m unittest scripts.tests.test_regimes_apart_figure -v

A closed-loop run lands near empty (the consumer waits) or full (the producer
waits), several-fold apart; a median over both measures the mix. Synthetic
hosts (tests/fakeresults.py, closed_regimes=: the runner's regime columns in
the tidy CSVs): 'one' (2 CPUs: one thread count; libnuma and syscall runs
split near-empty / full by rep, every other look-up mode and none full, as
on the committed 2-CPU host; F4's prodcons runs split by rep, none's all
full), 'many' (three
thread counts, every mode split) and 'old' (no regime recorded). Checks that
no median drawn pools two groups, that each group is drawn apart in the
supplement figures f1-lookup-cost-regimes and f2-node-cache-regimes (marker
shape per regime, n beside a dot where a variant's runs split, side by side
in its slot), that F1 stacks a bar on none's data movement of the same regime
only, that the main F1 and F2 draw one mark per mode from the one group the
design fixes (summarize's) with the study's value beside this host's, that
the ratio in F1's and F2's titles is summarize's and names its regime,
that F4 keeps one change against none per amount of work, that an older table is drawn as before, that every figure still says whether a point
was oversubscribed, and that gnuplot draws them from the same data files.
"""

import importlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

from scripts.tests import fakeresults
from scripts.analysis import nrdata
from scripts.figures import plot
from scripts.common import regime
from scripts.analysis import summarize
from scripts.tests import ROOT, module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)


GNUPLOT = shutil.which("gnuplot")
MODES = ["libnuma", "syscall", "table", "cached", "rseq", "rdpid", "none"]
SPLIT = ("libnuma", "syscall")
NE, FULL = ("free", "near-empty"), ("free", "full")


def have_matplotlib():
    try:
        importlib.import_module("matplotlib")
        return True
    except ImportError:
        return False


def committed_like(rep, cfg):
    """libnuma and syscall: every third rep near empty; the rest full (at
    PEERS_FULL_SPEED), as on the committed 2-CPU host."""
    if cfg.get("lookup") in SPLIT and rep % 3 == 0:
        return (0.03, 1.0)
    return (0.9, fakeresults.PEERS_FULL_SPEED)


def f4_committed_like(rep, cfg):
    """F4's prodcons runs near empty or full by rep, none's always full (as on
    the committed 2-CPU host without local work)."""
    if cfg.get("backoff") == "none":
        return (0.9, fakeresults.PEERS_FULL_SPEED)
    return fakeresults.CLOSED_REGIME(rep, cfg)


def prep_f1_regimes(host):
    return plot.PREPARE["f1-lookup-cost-regimes"](host)


def prep_f2_regimes(host):
    return plot.PREPARE["f2-node-cache-regimes"](host)


def points_block(dat, name="points"):
    """[row as {column: field}] of a .dat's block ``name``."""
    body = "\n".join(dat).split('\n"%s"\n' % name)[1].split("\n\n\n")[0]
    cols = [x for x in body.splitlines() if x.startswith("# columns:")][0]
    cols = cols.split(":", 1)[1].split()
    return [dict(zip(cols, x.split())) for x in body.splitlines()
            if x.strip() and not x.startswith("#")]


class RegimesApart(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-regimesapart-")
        cls.results = os.path.join(cls.tmp, "results")
        mk = fakeresults.make_synthetic
        exps = ["f1-lookup-cost", "f2-node-cache", "f4-backoff"]
        mk(cls.results, "one", "real", (2,), reps=6, seed=61, oversub_above=2, experiments=exps,
           workloads=("prodcons", "pairs"),
           closed_regimes={"f1-lookup-cost": committed_like, "f2-node-cache": committed_like,
                           "f4-backoff": f4_committed_like})
        mk(cls.results, "many", "real", (2, 4, 8), reps=4, seed=62, oversub_above=4,
           experiments=exps, workloads=("prodcons",), closed_regimes=exps)
        mk(cls.results, "old", "real", (2,), reps=3, seed=63, experiments=exps,
           workloads=("prodcons",))
        cls.hosts = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def host(self, name):
        if name not in self.hosts:
            h = plot.Host(self.results, name)
            h.load()
            self.hosts[name] = h
        return self.hosts[name]

    def rows(self, name, exp):
        return nrdata.load_tidy(os.path.join(self.results, name, exp + ".csv"))

    def drawn(self, name, prep, n=1):
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        plot.init_matplotlib()
        p = prep(self.host(name))
        fig, axes = plot.plt.subplots(*((len(plot.F4_ROWS), n) if p["kind"] == "f4"
                                        else (1, 1)), squeeze=False,
                                      figsize=plot.figure_size(n))
        plot.DRAW[p["kind"]](list(axes.flat), p)
        fig.canvas.draw()
        self.addCleanup(plot.plt.close, fig)
        return p, axes

    # ---- the fixture is what the tests need ---------------------------------------

    def test_the_hosts_hold_the_regimes(self):
        rows = self.rows("one", "f2-node-cache")
        self.assertIn("regime", rows.header)
        by = {m: {regime.group_of(r) for r in rows if r["lookup"] == m} for m in MODES}
        for m in MODES:
            self.assertEqual(by[m], {NE, FULL} if m in SPLIT else {FULL}, m)
        f4 = self.rows("one", "f4-backoff")
        self.assertEqual({regime.group_of(r) for r in f4 if r["workload"] == "prodcons"},
                         {NE, FULL})
        self.assertEqual({regime.of(r) for r in f4 if r["workload"] == "pairs"}, {""})
        self.assertNotIn("regime", self.rows("old", "f2-node-cache").header)

    # ---- F2 -------------------------------------------------------------------------

    def test_f2_no_median_pools_two_regimes(self):
        rows = self.rows("one", "f2-node-cache")
        p = prep_f2_regimes(self.host("one"))
        self.assertTrue(p["known"])
        self.assertEqual({v for v, _g in p["series"]}, set(MODES))
        for (v, g), pts in p["series"].items():
            with self.subTest(mode=v, group=g):
                vals = [float(r["throughput_ops_per_s"]) for r in rows
                        if r["lookup"] == v and regime.group_of(r) == g]
                self.assertEqual(pts[0][4], len(vals))
                self.assertAlmostEqual(pts[0][1], statistics.median(vals))
        self.assertEqual(sorted(g for v, g in p["series"] if v == "libnuma"),
                         sorted([NE, FULL]))
        self.assertTrue(p["split"])

    def test_f2_one_thread_count_draws_each_group_in_its_slot(self):
        p, axes = self.drawn("one", prep_f2_regimes)
        ax = axes[0][0]
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], MODES)
        for i, m in enumerate(MODES):
            with self.subTest(mode=m):
                dots = [ln for ln in ax.lines if ln.get_gid() == "slot-" + m
                        and ln.get_marker() != "_"]   # (not the whiskers' caps)
                want = 2 if m in SPLIT else 1
                self.assertEqual(len(dots), want)
                xs = [ln.get_xdata()[0] for ln in dots]
                self.assertTrue(all(abs(x - i) < 0.5 for x in xs))
                self.assertEqual(len(set(xs)), want)
                # shape per regime: near-empty a circle, full a square
                got = {ln.get_marker() for ln in dots}
                self.assertEqual(got, {"o", "s"} if m in SPLIT else {"s"})
        ceilings = [ln for ln in ax.lines if ln.get_gid() == "slot-ceiling"]
        self.assertEqual(len(ceilings), len(MODES))   # one per mode, not per regime
        ns = sorted(int(t.get_text()) for t in ax.texts if t.get_gid() == "slot-n")
        self.assertEqual(sorted(q[4] for pts in p["series"].values() for q in pts), ns)
        labels = ax.get_legend().get_texts()
        self.assertIn("n beside a dot: its runs", [t.get_text() for t in labels])
        self.assertTrue(any("near-empty" in t.get_text() for t in labels))
        self.assertIn("a dot per look-up mode and regime", p["caption"][-1][0])

    def test_f2_several_thread_counts_draw_a_line_per_mode_and_group(self):
        p, axes = self.drawn("many", prep_f2_regimes)
        ax = axes[0][0]
        self.assertIn("threads", ax.get_xlabel())
        lines = [ln for ln in ax.lines if ln.get_linestyle() == "-" and len(ln.get_xdata()) == 3
                 and ln.get_marker() in ("o", "s")]
        self.assertEqual(len(lines), len(p["series"]))
        self.assertEqual(len(p["series"]), 2 * len(MODES))
        self.assertEqual({ln.get_marker() for ln in lines}, {"o", "s"})
        names = [t.get_text() for t in ax.get_legend().get_texts()]
        self.assertTrue(set(MODES) <= set(names))
        self.assertIn("full (the producer waits)", names)

    def test_f2_title_quotes_summarize_and_names_its_regime(self):
        s = summarize.f2(os.path.join(self.results, "one"))
        self.assertEqual(s["regime"], "full")
        p = plot.prep_f2(self.host("one"))
        self.assertEqual(p["ratios"]["f2.cached_over_libnuma"], s["cached_over_libnuma"])
        self.assertIn("(full regime; study", p["annotation"])
        self.assertIn(plot.fmt_claim("f2.cached_over_libnuma", s["cached_over_libnuma"]),
                      p["annotation"])

    def test_f2_data_file_carries_the_groups(self):
        p = prep_f2_regimes(self.host("one"))
        rows = points_block(plot.dat_text("f2-node-cache-regimes", p))
        lib = [r for r in rows if r["variant"] == "libnuma"]
        self.assertEqual({(r["group"], r["pt"]) for r in lib},
                         {("free/near-empty", "7"), ("free/full", "5")})
        self.assertEqual({r["regime_known"] for r in rows}, {"1"})
        self.assertEqual({r["shown_n"] for r in rows}, {"1"})
        # the slot's harness bar: the same value on every row of the slot
        self.assertEqual(len({r["slot_harness_ops_per_s"] for r in lib}), 1)
        self.assertEqual(sum(r["first_in_slot"] == "1" for r in rows), len(MODES))

    # ---- F1 -------------------------------------------------------------------------

    def test_f1_a_bar_per_mode_and_regime_on_the_same_regimes_data_movement(self):
        rows = self.rows("one", "f1-lookup-cost")
        p = prep_f1_regimes(self.host("one"))
        self.assertEqual([(b["mode"], b["group"]) for b in p["bars"]],
                         [(m, g) for m in MODES for g in ((NE, FULL) if m in SPLIT else (FULL,))])
        none_full = statistics.median(1e9 / float(r["throughput_ops_per_s"]) for r in rows
                                      if r["lookup"] == "none")
        for b in p["bars"]:
            with self.subTest(mode=b["mode"], group=b["group"]):
                vals = [1e9 / float(r["throughput_ops_per_s"]) for r in rows
                        if r["lookup"] == b["mode"] and regime.group_of(r) == b["group"]]
                self.assertAlmostEqual(b["total"], statistics.median(vals))
                self.assertEqual(b["n"], len(vals))
                if b["group"] == FULL:
                    self.assertAlmostEqual(b["data"], none_full)
                else:   # none never ran near empty: not split
                    self.assertIsNone(b["data"])
                    self.assertIsNone(b["lookup"])
                self.assertLess(abs(b["x"] - MODES.index(b["mode"])), 0.31)
        self.assertIn("hatched: no none run in that regime", p["caption"][-1][0])

    def test_f1_drawn_apart(self):
        p, axes = self.drawn("one", prep_f1_regimes)
        ax = axes[0][0]
        marks = [ln for ln in ax.lines if ln.get_gid() == "f1-regime"]
        self.assertEqual(len(marks), len(p["bars"]))
        self.assertEqual({ln.get_marker() for ln in marks}, {"o", "s"})
        hatched = [b for b in ax.patches if b.get_gid() == "f1-total" and b.get_hatch()]
        self.assertEqual(len(hatched), len(SPLIT))
        values = [t.get_text() for t in ax.texts if t.get_gid() == "f1-value"]
        self.assertEqual(sum("\nn = " in v for v in values), 2 * len(SPLIT))
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], MODES)

    def test_f1_title_quotes_summarize_and_names_its_regime(self):
        s = summarize.f1(os.path.join(self.results, "one"))
        p = plot.prep_f1(self.host("one"))
        self.assertEqual(p["ratios"]["f1.lookup_over_move"], s["ratio"])
        self.assertIn("full regime", p["annotation"])
        self.assertIn(plot.fmt_claim("f1.lookup_over_move", s["ratio"]), p["annotation"])

    def test_f1_data_file(self):
        p = prep_f1_regimes(self.host("one"))
        dat = plot.dat_text("f1-lookup-cost-regimes", p)
        cols = [x for x in dat if x.startswith("# columns:")][0].split(":", 1)[1].split()
        rows = [dict(zip(cols, x.split())) for x in dat if x.strip() and not x.startswith("#")]
        self.assertEqual(len(rows), len(p["bars"]))
        self.assertTrue(all(len(r) == len(cols) for r in rows))
        self.assertEqual({(r["mode"], r["split_data"]) for r in rows if r["group"] ==
                          "near-empty"}, {(m, "0") for m in SPLIT})

    # ---- F1 and F2's main figures: one group, the study beside --------------------

    def test_f1_main_one_bar_per_mode_in_the_design_group(self):
        rows = self.rows("one", "f1-lookup-cost")
        s = summarize.f1(os.path.join(self.results, "one"))
        p = plot.prep_f1(self.host("one"))
        self.assertEqual(regime.group_label(p["group"]), s["regime"])
        self.assertEqual([b["mode"] for b in p["bars"]], MODES)
        self.assertEqual(p["missing"], [])
        none = statistics.median(1e9 / float(r["throughput_ops_per_s"]) for r in rows
                                 if r["lookup"] == "none" and regime.group_of(r) == FULL)
        for b in p["bars"]:
            with self.subTest(mode=b["mode"]):
                vals = [1e9 / float(r["throughput_ops_per_s"]) for r in rows
                        if r["lookup"] == b["mode"] and regime.group_of(r) == FULL]
                self.assertAlmostEqual(b["total"], statistics.median(vals))
                self.assertEqual(b["n"], len(vals))
                self.assertAlmostEqual(b["data"], none)
        # the study's value over libnuma: > 11x this host's data movement
        self.assertEqual(p["study"]["slot"], 0)
        self.assertAlmostEqual(p["study"]["ns"], none * (1 + 11))
        self.assertIn("full runs", " ".join(p["notes"]))
        self.assertIn("f1-lookup-cost-regimes", " ".join(p["notes"]))

    def test_f1_main_drawn(self):
        p, axes = self.drawn("one", plot.prep_f1)
        ax = axes[0][0]
        self.assertEqual(len([b for b in ax.patches if b.get_gid() == "f1-lookup"]), len(MODES))
        self.assertFalse([b for b in ax.patches if b.get_hatch()])
        self.assertFalse([ln for ln in ax.lines if ln.get_gid() == "f1-regime"])
        study = [ln for ln in ax.lines if ln.get_gid() == "f1-study"]
        self.assertEqual(len(study), 1)
        self.assertAlmostEqual(study[0].get_ydata()[0], p["study"]["ns"])
        self.assertIn("study: > 11\u00d7", [t.get_text() for t in ax.texts])
        self.assertEqual(ax.get_xlabel(), "node look-up mode (full runs)")
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        self.assertFalse([x for x in labels if "near-empty" in x or "not split" in x])
        self.assertTrue([x for x in labels if x.startswith("study:")])

    def test_f1_main_every_mode_keeps_its_slot(self):
        p = plot.prep_f1(self.host("many"))
        got = sorted([(b["slot"], b["mode"]) for b in p["bars"]] +
                     [(m["slot"], m["mode"]) for m in p["missing"]])
        self.assertEqual(got, list(enumerate(MODES)))
        self.assertEqual({b["group"] for b in p["bars"]}, {p["group"]})

    def test_f2_main_one_dot_per_mode_in_the_design_group(self):
        rows = self.rows("one", "f2-node-cache")
        s = summarize.f2(os.path.join(self.results, "one"))
        p = plot.prep_f2(self.host("one"))
        self.assertEqual(regime.group_label(p["group"]), s["regime"])
        self.assertEqual(sorted(p["series"]), sorted((m, FULL) for m in MODES))
        self.assertFalse(p["split"])
        for (v, g), pts in p["series"].items():
            vals = [float(r["throughput_ops_per_s"]) for r in rows
                    if r["lookup"] == v and regime.group_of(r) == g]
            self.assertAlmostEqual(pts[0][1], statistics.median(vals))
        lib = statistics.median(float(r["throughput_ops_per_s"]) for r in rows
                                if r["lookup"] == "libnuma" and regime.group_of(r) == FULL)
        self.assertEqual(p["study"]["x"], MODES.index("cached"))
        self.assertAlmostEqual(p["study"]["lo"], 6 * lib)
        self.assertAlmostEqual(p["study"]["hi"], 7 * lib)

    def test_f2_main_drawn(self):
        p, axes = self.drawn("one", plot.prep_f2)
        ax = axes[0][0]
        for i, m in enumerate(MODES):
            dots = [ln for ln in ax.lines if ln.get_gid() == "slot-" + m
                    and ln.get_marker() != "_"]
            self.assertEqual(len(dots), 1, m)
            self.assertEqual(list(dots[0].get_xdata()), [i])
        self.assertEqual(len([ln for ln in ax.lines if ln.get_gid() == "f2-ceiling"]), 1)
        self.assertEqual(len([ln for ln in ax.lines if ln.get_gid() == "f2-harness"]), 1)
        study = [ln for ln in ax.lines if ln.get_gid() == "f2-study"]
        self.assertEqual(len(study), 1)
        self.assertEqual(list(study[0].get_xdata()), [MODES.index("cached")] * 2)
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        self.assertIn("study: cached 6\u20137\u00d7 libnuma", labels)
        self.assertFalse([x for x in labels if "near-empty" in x or "n beside" in x])
        self.assertNotIn("slot-n", [t.get_gid() for t in ax.texts])

    def test_f2_main_several_thread_counts(self):
        p, axes = self.drawn("many", plot.prep_f2)
        ax = axes[0][0]
        self.assertIn("threads", ax.get_xlabel())
        self.assertEqual(len(p["series"]), len(MODES))
        self.assertEqual(len({g for _v, g in p["series"]}), 1)
        self.assertTrue([ln for ln in ax.lines if ln.get_gid() == "f2-study"])

    def test_the_studys_values_are_the_claims(self):
        from scripts.analysis import claims_table
        from scripts.figures import fig_f1, fig_f2
        self.assertEqual(fig_f1.STUDY_OVER, claims_table.BY_ID["F1.study-11x"].threshold)
        self.assertEqual(fig_f2.STUDY_RANGE,
                         tuple(claims_table.BY_ID["F2.study-6x"].threshold))

    def test_the_main_data_files(self):
        f1 = plot.prep_f1(self.host("one"))
        dat = plot.dat_text("f1-lookup-cost", f1)
        bars = points_block(dat, "bars")
        self.assertEqual([r["mode"] for r in bars], MODES)
        self.assertEqual({r["split_data"] for r in bars}, {"1"})
        levels = points_block(dat, "levels")
        self.assertEqual(levels[0]["regime"], "full")
        self.assertAlmostEqual(float(levels[0]["study_ns"]), f1["study"]["ns"],
                               delta=f1["study"]["ns"] * 1e-5)
        f2 = plot.prep_f2(self.host("one"))
        dat = plot.dat_text("f2-node-cache", f2)
        self.assertEqual(len(points_block(dat)), len(MODES))
        study = points_block(dat, "study")
        self.assertEqual(study[0]["x"], str(MODES.index("cached")))
        levels = points_block(dat, "levels (one thread count: drawn once across)")
        self.assertAlmostEqual(float(levels[0]["ceiling_ops_per_s"]), f2["ceiling_once"],
                               delta=f2["ceiling_once"] * 1e-5)

    # ---- F4 -------------------------------------------------------------------------

    def test_f4_prodcons_regimes_apart_pairs_as_before(self):
        p = plot.prep_f4(self.host("one"))
        rows = [r for r in self.rows("one", "f4-backoff") if r["workload"] == "prodcons"]
        pc = [pn for pn in p["columns"] if pn["workload"] == "prodcons"][0]
        pairs = [pn for pn in p["columns"] if pn["workload"] == "pairs"][0]
        self.assertEqual(sorted((g["work"], g["regime"]) for g in pc["groups"]),
                         sorted((w, g) for w in (0.0, 300.0) for g in (NE, FULL)))
        self.assertFalse([g for g in pc["groups"] if g["regime"] == NE and "none" in g["tput"]])
        self.assertFalse(any(g.get("regime") for g in pairs["groups"]))
        for g in pc["groups"]:
            for b, pts in g["tput"].items():
                vals = [float(r["throughput_ops_per_s"]) for r in rows
                        if r["backoff"] == b and float(r["work_ns"]) == g["work"]
                        and regime.group_of(r) == g["regime"]]
                self.assertEqual(pts[0][4], len(vals))
                self.assertAlmostEqual(pts[0][1], statistics.median(vals))
        # one change against none per amount of work, on the first group
        per_work = {}
        for g in pc["groups"]:
            per_work.setdefault(g["work"], []).append(len(g["change"]))
        for w, ns in per_work.items():
            self.assertEqual(sum(1 for n in ns if n), 1, w)
        self.assertIn("regimes pooled", p["caption"][-1][0])

    def test_f4_drawn_apart(self):
        p, axes = self.drawn("one", plot.prep_f4, 2)
        tput = axes[0][0]
        shapes = {ln.get_marker() for ln in tput.lines if ln.get_linestyle() == "None"
                  and ln.get_marker() in ("o", "s")}
        self.assertEqual(shapes, {"o", "s"})
        self.assertTrue([t for t in tput.texts if t.get_gid() == "f4-n"])
        # the harness alone: one mark per backoff and amount of work, not per regime
        # (none ran full only: its slot has a mark all the same)
        harness = [ln for ln in tput.lines if ln.get_label() == plot.HARNESS_LABEL]
        self.assertEqual(len(harness), len(p["backoffs"]) * len(p["works"]))
        self.assertFalse([t for t in axes[0][1].texts if t.get_gid() == "f4-n"])
        # "not exercised" once per amount of work, not per regime
        change = axes[1][0]
        idle = [t for t in change.texts if t.get_gid() == "f4-not-exercised"]
        self.assertEqual(len(idle), len({g["work"] for pn in p["columns"][:1]
                                         for g in pn["groups"] if g["exercised"] is False}))
        names = [t.get_text() for t in axes[0][1].get_legend().get_texts()]
        self.assertIn("near-empty (the consumer waits)", names)

    def test_f4_data_file(self):
        p = plot.prep_f4(self.host("one"))
        rows = points_block(plot.dat_text("f4-backoff", p))
        self.assertEqual({r["regime"] for r in rows if r["workload"] == "prodcons"},
                         {"near-empty", "full"})
        self.assertEqual({r["regime"] for r in rows if r["workload"] == "pairs"}, {"pooled"})
        pc = [r for r in rows if r["workload"] == "prodcons"]
        self.assertEqual({(r["regime"], r["hollow"], r["pt"]) for r in pc},
                         {("near-empty", "0", "7"), ("near-empty", "1", "6"),
                          ("full", "0", "5"), ("full", "1", "4")})
        self.assertTrue(all(r["x"] != r["slot_x"] for r in pc))
        # one row per slot and thread count carries the harness mark
        self.assertEqual(sum(r["harness_row"] == "1" for r in pc),
                         len(p["backoffs"]) * len(p["works"]))

    # ---- older tables, every figure -----------------------------------------------

    def test_an_older_table_is_drawn_as_before(self):
        h = self.host("old")
        f2 = plot.prep_f2(h)
        self.assertFalse(f2["known"])
        self.assertEqual(len(f2["series"]), len(MODES))
        self.assertNotIn("regime", f2["annotation"])
        self.assertNotIn("regime", f2["caption"][-1][0])
        f1 = plot.prep_f1(h)
        self.assertEqual([b["mode"] for b in f1["bars"]], MODES)
        self.assertNotIn("regime", f1["annotation"])
        f4 = plot.prep_f4(h)
        self.assertFalse(any(g.get("regime") for pn in f4["columns"] for g in pn["groups"]))
        self.assertNotIn("regime", f4["caption"][-1][0])

    def test_every_figure_still_says_whether_oversubscribed(self):
        for host in ("one", "many", "old"):
            for prep in (plot.prep_f1, plot.prep_f2, plot.prep_f4):
                with self.subTest(host=host, figure=prep.__name__):
                    text = prep(self.host(host))["caption"][-1][0]
                    self.assertRegex(text, r"no point oversubscribed|\d+ oversubscribed "
                                     r"points? \(the run's threads|oversubscription not "
                                     r"recorded")
        self.assertRegex(plot.prep_f2(self.host("many"))["caption"][-1][0],
                         r"black x: \d+ oversubscribed points")

    @slow
    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_draws_them(self):
        plots = os.path.join(self.tmp, "plots")
        py = sys.executable if have_matplotlib() else "/usr/bin/python3"
        r = subprocess.run(module("figures.plot", py) + ["--results", self.results,
                                                 "--plots", plots, "--gnuplot"],
                           capture_output=True, text=True, timeout=600, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertFalse(re.search(r"gnuplot .* failed", r.stdout + r.stderr),
                         r.stdout + r.stderr)
        for host in ("one", "many", "old"):
            for fig in ("f1-lookup-cost", "f2-node-cache", "f4-backoff",
                        "f1-lookup-cost-regimes", "f2-node-cache-regimes"):
                with self.subTest(host=host, figure=fig):
                    root = os.path.join(plots, host, "supplement" if fig.endswith("-regimes")
                                        else "")
                    png = os.path.join(root, "gnuplot", fig + ".png")
                    self.assertGreater(os.path.getsize(png), 20000)
                    out = os.path.join(self.tmp, "%s-%s.png" % (host, fig))
                    g = subprocess.run([GNUPLOT, "-e", "datafile='%s'; outfile='%s'" % (
                        os.path.join(root, "data", fig + ".dat"), out),
                        os.path.join(SCRIPTS, "gnuplot", fig + ".gp")],
                        capture_output=True, text=True, timeout=120)
                    self.assertEqual(g.returncode, 0, g.stderr)
                    said = [x for x in g.stderr.splitlines() if x.strip()
                            and "No valid data points" not in x]
                    self.assertEqual(said, [], g.stderr)


if __name__ == "__main__":
    unittest.main()
