# SPDX-License-Identifier: BSD-2-Clause
"""F5 with both loops (f5-ceiling.exp: load = closed, 0.5).

    /usr/bin/python3 -m unittest scripts.tests.test_f5_closed_figure -v

Synthetic hosts (tests/fakeresults.py, f5_closed=): 'both' (open loop at half
the capacity and closed loop), 'open' (the committed shape: open loop only),
'old' (closed loop only, an older table). Checks that the open loop keeps its
realized-batch panel, that the closed loop's capacity per batch is drawn
against its ceiling (scripts/analysis/ceiling.py's ceiling_ops_per_s) with the binding
term (ceiling.binding) named, that its share of the ceiling is the closed
loop's, that the two loops are never pooled, and that the data file and
gnuplot carry the same.
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
        # both loops at every thread count and batch
        mk(cls.results, "both", "emulated", (2, 4), reps=3, seed=51,
           experiments=["f5-ceiling"], f5_realized=0.9, f5_closed=True)
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

    def drawn(self, name):
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        plot.init_matplotlib()
        p = plot.prep_f5(self.host(name))
        fig, axes = plot.plt.subplots(1, 3, squeeze=False, figsize=plot.figure_size(3))
        plot.DRAW[p["kind"]](list(axes.flat), p)
        fig.canvas.draw()
        self.addCleanup(plot.plt.close, fig)
        return p, list(axes.flat)

    def test_the_loops_are_apart(self):
        p = plot.prep_f5(self.host("both"))
        rows = self.rows("both")
        closed = [r for r in rows if not r["load"]]
        opened = [r for r in rows if r["load"]]
        self.assertTrue(closed and opened)
        self.assertEqual(p["grid"], (1, 3))
        self.assertEqual(p["closed"]["threads"], [2, 4])
        for t, pts in p["closed"]["lines"].items():
            self.assertEqual([q[0] for q in pts], BATCHES)
            for q in pts:
                vals = [float(r["throughput_ops_per_s"]) for r in closed
                        if nrdata.threads(r) == t and int(r["batch"]) == q[0]]
                self.assertAlmostEqual(q[1], statistics.median(vals))
        for t, pts in p["lines"].items():
            for q in pts:
                vals = [float(r["throughput_ops_per_s"]) for r in opened
                        if nrdata.threads(r) == t and int(r["batch"]) == q[8]]
                self.assertAlmostEqual(q[1], statistics.median(vals))
        self.assertTrue(p["realized"])

    def test_the_closed_loop_against_its_ceiling_and_binding_term(self):
        ceiling = ceiling_module()
        h = self.host("both")
        probe = ceiling.load_probe(h.info["probe"])
        p = plot.prep_f5(h)
        rows = [r for r in self.rows("both") if not r["load"]]
        for t, pts in p["closed"]["lines"].items():
            for q in pts:
                r = min((r for r in rows if nrdata.threads(r) == t and int(r["batch"]) == q[0]),
                        key=lambda r: int(r["rep"]))
                with self.subTest(threads=t, batch=q[0]):
                    self.assertAlmostEqual(q[5], ceiling.ceiling_ops_per_s(probe, r))
                    self.assertEqual(q[6], ceiling.binding(probe, r))
        self.assertTrue(p["closed"]["terms"])
        self.assertIn("closed loop, measured / ceiling", p["annotation"])

    def test_drawn(self):
        p, axes = self.drawn("both")
        # the open loop: its realized-batch panel
        self.assertIn("realized", axes[0].get_xlabel())
        self.assertTrue([t for t in axes[0].texts if t.get_text().startswith("b=")])
        # the closed loop: its capacity per configured batch, its ceiling, the term named
        self.assertIn("closed loop", axes[1].get_title())
        dots = [ln for ln in axes[1].lines if ln.get_gid() == "f5-closed"
                and ln.get_marker() not in ("_", "|")]
        self.assertEqual(len(dots), 2)
        for ln in dots:
            self.assertEqual(list(ln.get_xdata()), BATCHES)
        ceil = [ln for ln in axes[1].lines if ln.get_gid() == "f5-closed-ceiling"]
        self.assertEqual(len(ceil), 2)
        named = [t.get_text() for t in axes[1].texts if t.get_gid() == "f5-binding"]
        self.assertTrue(named)
        self.assertTrue(set(named) <= {"ops", "bandwidth", "latency", "contention", "crossing"})
        # its share of the ceiling
        self.assertIn("closed loop: share of the ceiling", axes[2].get_title())
        want = sorted(round(100 * q[1] / q[5], 6) for pts in p["closed"]["lines"].values()
                      for q in pts if q[5])
        got = sorted(round(y, 6) for ln in axes[2].lines
                     if ln.get_marker() not in ("None", "", "_") for y in ln.get_ydata())
        self.assertEqual(got, want)
        legend = [t.get_text() for t in axes[2].get_legend().get_texts()]
        self.assertTrue(any(t.startswith("binding ") for t in legend), legend)

    def test_without_a_closed_loop(self):
        for name in ("open", "old"):
            p, axes = self.drawn(name)
            with self.subTest(host=name):
                self.assertEqual(p["closed"]["lines"], {})
                self.assertIn("not in these results",
                              " ".join(t.get_text() for t in axes[1].texts))
                # the share: the first panel's runs, as before
                self.assertIn("share of the ceiling", axes[2].get_title())
                self.assertIn("no closed-loop runs", p["caption"][-1][0])
        p = plot.prep_f5(self.host("old"))
        self.assertFalse(p["realized"])
        self.assertEqual(sorted(p["lines"]), [2, 4])

    def test_the_data_file(self):
        for name, has in (("both", "1"), ("open", "0")):
            dat = plot.dat_text("f5-ceiling", plot.prep_f5(self.host(name)))
            body = "\n".join(dat).split('\n"closed loop"\n')[1]
            cols = [x for x in body.splitlines() if x.startswith("# columns:")][0]
            cols = cols.split(":", 1)[1].split()
            rows = [dict(zip(cols, x.split())) for x in body.splitlines()
                    if x.strip() and not x.startswith("#")]
            with self.subTest(host=name):
                self.assertEqual({r["has_closed"] for r in rows}, {has})
                if has == "1":
                    self.assertEqual(len(rows), 10)
                    self.assertTrue(all(r["binding"] != "none" for r in rows))
                    named = [r for r in rows if r["binding_label"] != "-"]
                    self.assertGreaterEqual(len(named), 2)   # a line each, at least

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
            png = os.path.join(plots, host, "gnuplot", "f5-ceiling.png")
            self.assertGreater(os.path.getsize(png), 20000)


if __name__ == "__main__":
    unittest.main()
