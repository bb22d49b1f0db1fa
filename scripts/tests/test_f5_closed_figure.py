# SPDX-License-Identifier: BSD-2-Clause
"""F5 with both loops (f5-ceiling.exp: load = closed, 0.5).

    /usr/bin/python3 -m unittest scripts.tests.test_f5_closed_figure -v

Synthetic hosts (tests/fakeresults.py, f5_closed=): 'both' (open loop at half
the capacity and closed loop), 'open' (an older shape: open loop only),
'old' (closed loop only, an older table). Checks that the main figure
(f5-ceiling) draws the closed loop's capacity per batch against its ceiling
(scripts/analysis/ceiling.py's ceiling_ops_per_s) with the binding term
(ceiling.binding) named and the crossing term (ceiling.terms: the
interconnect, the study's) beside it, that its share of the ceiling is the
closed loop's, that the open loop keeps its realized-batch panel in the
supplement (f5-ceiling-open-loop), that the two loops are never pooled, and
that the data files and gnuplot carry the same.
"""

import importlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

from scripts.tests import fakeresults
from scripts.analysis import nrdata
from scripts.figures import plot
from scripts.tests import ROOT, module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)


GNUPLOT = shutil.which("gnuplot")
BATCHES = [1, 4, 16, 64, 256]


def have_matplotlib():
    try:
        importlib.import_module("matplotlib")
        return True
    except ImportError:
        return False


def ceiling_module():
    return importlib.import_module("scripts.analysis.ceiling")


class F5Closed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-f5closed-")
        cls.results = os.path.join(cls.tmp, "results")
        mk = fakeresults.make_synthetic
        # both loops at every thread count and batch, at f5-ceiling.exp's split
        # placement (where the model has a crossing term: the study's)
        mk(cls.results, "both", "emulated", (2, 4), reps=3, seed=51,
           experiments=["f5-ceiling"], f5_realized=0.9, f5_closed=True, f5_pin="split")
        mk(cls.results, "open", "emulated", (2,), reps=3, seed=52,
           experiments=["f5-ceiling"], f5_realized=0.9)
        mk(cls.results, "old", "real", (2, 4), reps=2, seed=53, experiments=["f5-ceiling"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def host(self, name):
        h = plot.Host(self.results, name)
        h.load()
        return h

    def rows(self, name):
        return nrdata.load_tidy(os.path.join(self.results, name, "f5-ceiling.csv"))

    def drawn(self, name, prep=plot.prep_f5, n=2):
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        plot.init_matplotlib()
        p = prep(self.host(name))
        fig, axes = plot.plt.subplots(1, n, squeeze=False, figsize=plot.figure_size(n))
        plot.DRAW[p["kind"]](list(axes.flat), p)
        fig.canvas.draw()
        self.addCleanup(plot.plt.close, fig)
        return p, list(axes.flat)

    def test_the_loops_are_apart(self):
        p = plot.prep_f5(self.host("both"))
        o = plot.prep_f5_open(self.host("both"))
        rows = self.rows("both")
        closed = [r for r in rows if not r["load"]]
        opened = [r for r in rows if r["load"]]
        self.assertTrue(closed and opened)
        # the main figure: one queue's capacity panel and the share of the ceiling
        self.assertEqual(p["grid"], (1, 2))
        self.assertEqual([q for q, _cl in p["queues"]], ["numaring"])
        cl = p["queues"][0][1]
        self.assertEqual(cl["threads"], [2, 4])
        self.assertEqual(p["rows"], closed)
        for t, pts in cl["lines"].items():
            self.assertEqual([q[0] for q in pts], BATCHES)
            for q in pts:
                vals = [float(r["throughput_ops_per_s"]) for r in closed
                        if nrdata.threads(r) == t and int(r["batch"]) == q[0]]
                self.assertAlmostEqual(q[1], statistics.median(vals))
        # the supplement: the open loop alone
        self.assertEqual(o["rows"], opened)
        for t, pts in o["lines"].items():
            for q in pts:
                vals = [float(r["throughput_ops_per_s"]) for r in opened
                        if nrdata.threads(r) == t and int(r["batch"]) == q[8]]
                self.assertAlmostEqual(q[1], statistics.median(vals))
        self.assertTrue(o["realized"])

    def test_the_closed_loop_against_its_ceiling_and_binding_term(self):
        ceiling = ceiling_module()
        h = self.host("both")
        probe = ceiling.load_probe(h.info["probe"])
        p = plot.prep_f5(h)
        rows = [r for r in self.rows("both") if not r["load"]]
        cl = p["queues"][0][1]
        for t, pts in cl["lines"].items():
            cross = dict(cl["crossing"].get(t, []))
            for q in pts:
                at = [r for r in rows if nrdata.threads(r) == t and int(r["batch"]) == q[0]]
                r = min(at, key=lambda r: int(r["rep"]))
                with self.subTest(threads=t, batch=q[0]):
                    # split: each run's realized batch sets its own ceiling; the
                    # drawn one is a median of the runs' (Ceiling.drawn)
                    cs = [ceiling.ceiling_ops_per_s(probe, x) for x in at]
                    self.assertTrue(min(cs) * (1 - 1e-9) <= q[5] <= max(cs) * (1 + 1e-9))
                    self.assertEqual(q[6], ceiling.binding(probe, r))
                    # the study's term: the crossing term, the median of the runs'
                    want = [ceiling.terms(probe, x).get("crossing") for x in at]
                    if all(want):
                        self.assertAlmostEqual(cross[q[0]], statistics.median(want))
                    else:
                        self.assertNotIn(q[0], cross)
        self.assertTrue(cl["terms"])
        self.assertIn("measured / ceiling", p["annotation"])
        self.assertIn("study: the interconnect set the ceiling", p["annotation"])

    def test_drawn(self):
        p, axes = self.drawn("both")
        cl = p["queues"][0][1]
        # the closed loop: its capacity per configured batch, its ceiling, the term named
        self.assertIn("capacity", axes[0].get_title())
        self.assertIn("configured", axes[0].get_xlabel())
        dots = [ln for ln in axes[0].lines if ln.get_gid() == "f5-closed"
                and ln.get_marker() not in ("_", "|")]
        self.assertEqual(len(dots), 2)
        for ln in dots:
            self.assertEqual(list(ln.get_xdata()), BATCHES)
        ceil = [ln for ln in axes[0].lines if ln.get_gid() == "f5-closed-ceiling"]
        self.assertEqual(len(ceil), 2)
        cross = [ln for ln in axes[0].lines if ln.get_gid() == "f5-crossing"]
        self.assertEqual(len(cross), 2)       # split: a crossing term per thread count
        self.assertEqual(len(cross), len(cl["crossing"]))
        for ln in cross:
            self.assertEqual(ln.get_linestyle(), ":")
        named = [t.get_text() for t in axes[0].texts if t.get_gid() == "f5-binding"]
        self.assertTrue(named)
        self.assertTrue(set(named) <= {"ops", "bandwidth", "latency", "contention", "crossing"})
        # its share of the ceiling
        self.assertIn("share of the ceiling", axes[1].get_title())
        want = sorted(round(100 * q[1] / q[5], 6) for pts in cl["lines"].values()
                      for q in pts if q[5])
        got = sorted(round(y, 6) for ln in axes[1].lines
                     if ln.get_marker() not in ("None", "", "_") for y in ln.get_ydata())
        self.assertEqual(got, want)
        legend = [t.get_text() for t in axes[1].get_legend().get_texts()]
        self.assertTrue(any(t.startswith("binding ") for t in legend), legend)
        self.assertEqual(any("crossing term" in t for t in legend), bool(cl["crossing"]))
        # the open loop: its realized-batch panel, in the supplement
        o, axes = self.drawn("both", plot.prep_f5_open)
        self.assertIn("realized", axes[0].get_xlabel())
        self.assertTrue([t for t in axes[0].texts if t.get_text().startswith("b=")])
        self.assertIn("f5-ceiling", " ".join(o["notes"]))

    def test_without_a_closed_loop(self):
        p, axes = self.drawn("open")
        self.assertEqual(p["queues"], [])
        self.assertIn("not in these results", " ".join(t.get_text() for t in axes[0].texts))
        self.assertIn("no closed-loop runs", p["caption"][-1][0])
        # the supplement draws what ran
        o = plot.prep_f5_open(self.host("open"))
        self.assertTrue(o["lines"])
        # an older table of closed-loop runs only: the main figure's capacity, and the
        # supplement draws them too
        p = plot.prep_f5(self.host("old"))
        self.assertEqual(p["queues"][0][1]["threads"], [2, 4])
        o = plot.prep_f5_open(self.host("old"))
        self.assertFalse(o["realized"])
        self.assertEqual(sorted(o["lines"]), [2, 4])

    def test_the_data_file(self):
        for name, has in (("both", "1"), ("open", "0")):
            dat = plot.dat_text("f5-ceiling", plot.prep_f5(self.host(name)))
            body = "\n".join(dat).split('\n"closed loop"\n')[1]
            cols = [x for x in body.splitlines() if x.startswith("# columns:")][0]
            cols = cols.split(":", 1)[1].split()
            self.assertEqual(cols, plot.fig_f5.CLOSED_COLUMNS)
            rows = [dict(zip(cols, x.split())) for x in body.splitlines()
                    if x.strip() and not x.startswith("#")]
            with self.subTest(host=name):
                self.assertEqual({r["has_closed"] for r in rows}, {has})
                if has == "1":
                    self.assertEqual(len(rows), 10)
                    self.assertTrue(all(r["binding"] != "none" for r in rows))
                    self.assertEqual({r["queue"] for r in rows}, {"numaring"})
                    named = [r for r in rows if r["binding_label"] != "-"]
                    self.assertGreaterEqual(len(named), 2)   # a line each, at least
        # the supplement's: the open loop, no closed-loop block
        dat = plot.dat_text("f5-ceiling-open-loop", plot.prep_f5_open(self.host("both")))
        self.assertNotIn('"closed loop"', dat)

    @slow
    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot(self):
        plots = os.path.join(self.tmp, "plots")
        py = sys.executable if have_matplotlib() else "/usr/bin/python3"
        r = subprocess.run(module("figures.plot", py) + ["--results", self.results,
                                                 "--plots", plots, "--gnuplot"],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for host in ("both", "open", "old"):
            for png in (os.path.join(plots, host, "gnuplot", "f5-ceiling.png"),
                        os.path.join(plots, host, "supplement", "gnuplot",
                                     "f5-ceiling-open-loop.png")):
                self.assertGreater(os.path.getsize(png), 20000)


if __name__ == "__main__":
    unittest.main()
