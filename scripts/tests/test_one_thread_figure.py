# SPDX-License-Identifier: BSD-2-Clause
"""F2 on a host that gives one thread count (2 CPUs): the look-up modes on x.

    /usr/bin/python3 -m unittest scripts.tests.test_one_thread_figure -v

With one thread count a "vs threads" axis has one x value: the modes scattered
around it, each ceiling a segment in its own colour. Checks that F2 then puts
the modes on x as categories (a dot per mode with its median's interval; the
ceiling, the same for every mode, one black line across the panel, the
harness alone one grey line; the supplement f2-node-cache-regimes: each
mode's ceiling a short black bar over its slot, the harness a short grey
bar), that a host sweeping threads keeps the threads axis, that the data file
carries both shapes, and that gnuplot's F2 (and its supplement's) draws every
ceiling its legend names.
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
from scripts.tests import ROOT, module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
GP = os.path.join(SCRIPTS, "gnuplot", "f2-node-cache.gp")
GP_REGIMES = os.path.join(SCRIPTS, "gnuplot", "f2-node-cache-regimes.gp")


GNUPLOT = shutil.which("gnuplot")
MODES = ["libnuma", "syscall", "table", "cached", "rseq", "rdpid", "none"]


def have_matplotlib():
    try:
        importlib.import_module("matplotlib")
        return True
    except ImportError:
        return False


class OneThread(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-onethread-")
        cls.results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(cls.results, "one", "real", (2,), reps=5, seed=31,
                                   experiments=["f2-node-cache"])
        fakeresults.make_synthetic(cls.results, "many", "real", (2, 4, 8), reps=3, seed=32,
                                   experiments=["f2-node-cache"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def prep(self, name, figure="f2-node-cache"):
        h = plot.Host(self.results, name)
        h.load()
        return plot.PREPARE[figure](h)

    def drawn(self, name, figure="f2-node-cache"):
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        plot.init_matplotlib()
        p = self.prep(name, figure)
        fig, axes = plot.plt.subplots(1, 1, squeeze=False, figsize=plot.figure_size(1))
        plot.DRAW[p["kind"]](list(axes.flat), p)
        fig.canvas.draw()
        self.addCleanup(plot.plt.close, fig)
        return p, axes[0][0]

    def test_one_thread_count_is_categorical(self):
        p = self.prep("one")
        self.assertTrue(p["categorical"])
        self.assertEqual([s["variant"] for s in p["slots"]], MODES)
        self.assertFalse(self.prep("many")["categorical"])
        self.assertIn("at 2 threads", p["title"])
        self.assertIn("a dot per look-up mode", p["caption"][-1][0])

    def test_the_modes_on_x_the_ceiling_and_harness_once(self):
        p, ax = self.drawn("one")
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], MODES)
        self.assertEqual(ax.get_xlabel(), "node look-up mode (2 threads)")
        rows = nrdata.load_tidy(os.path.join(self.results, "one", "f2-node-cache.csv"))
        # the ceiling, the same for every mode, and the harness: one line each across
        ceilings = [ln for ln in ax.lines if ln.get_gid() == "f2-ceiling"]
        harness = [ln for ln in ax.lines if ln.get_gid() == "f2-harness"]
        self.assertEqual(len(ceilings), 1)
        self.assertEqual(len(harness), 1)
        self.assertFalse([ln for ln in ax.lines if ln.get_gid() in (
            "slot-ceiling", "slot-harness", "f2-ceiling-own")])
        self.assertEqual(list(ceilings[0].get_xdata()), [0, 1])   # axes coordinates
        self.assertEqual(ceilings[0].get_color(), "black")
        self.assertEqual({s["point"][5] for s in p["slots"]}, {p["ceiling_once"]})
        self.assertAlmostEqual(ceilings[0].get_ydata()[0] * 1e6, p["ceiling_once"])
        self.assertAlmostEqual(harness[0].get_ydata()[0] * 1e6, statistics.median(
            float(r["harness_ops_per_s"]) for r in rows))
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        self.assertEqual(labels.count("physical ceiling (model)"), 1)
        self.assertEqual(labels.count(plot.HARNESS_LABEL), 1)
        for i, m in enumerate(MODES):
            with self.subTest(mode=m):
                vals = [float(r["throughput_ops_per_s"]) for r in rows if r["lookup"] == m]
                dot = [ln for ln in ax.lines if ln.get_gid() == "slot-" + m][0]
                self.assertEqual(list(dot.get_xdata()), [i])
                self.assertAlmostEqual(dot.get_ydata()[0] * 1e6, statistics.median(vals))
        # no threads axis, and nothing scattered around one x value
        self.assertNotIn("threads", ax.get_xlabel().replace("(2 threads)", ""))

    def test_the_supplement_keeps_each_modes_ceiling_and_harness(self):
        p, ax = self.drawn("one", "f2-node-cache-regimes")
        self.assertEqual(ax.get_xlabel(), "node look-up mode")
        rows = nrdata.load_tidy(os.path.join(self.results, "one", "f2-node-cache.csv"))
        ceilings = [ln for ln in ax.lines if ln.get_gid() == "slot-ceiling"]
        harness = [ln for ln in ax.lines if ln.get_gid() == "slot-harness"]
        self.assertEqual(len(ceilings), len(MODES))
        self.assertEqual(len(harness), len(MODES))
        for i, m in enumerate(MODES):
            with self.subTest(mode=m):
                c = [ln for ln in ceilings if abs(sum(ln.get_xdata()) / 2 - i) < 1e-9][0]
                self.assertLess(c.get_xdata()[1] - c.get_xdata()[0], 1.0)
                self.assertEqual(c.get_color(), "black")
                self.assertAlmostEqual(c.get_ydata()[0] * 1e6, p["slots"][i]["point"][5])
                hm = [ln for ln in harness if abs(sum(ln.get_xdata()) / 2 - i) < 1e-9][0]
                self.assertAlmostEqual(hm.get_ydata()[0] * 1e6, statistics.median(
                    float(r["harness_ops_per_s"]) for r in rows if r["lookup"] == m))

    def test_several_thread_counts_keep_the_threads_axis(self):
        p, ax = self.drawn("many")
        self.assertIn("threads", ax.get_xlabel())
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], ["2", "4", "8"])

    def test_the_data_file_carries_both_shapes(self):
        for name, cat in (("one", "1"), ("many", "0")):
            dat = plot.dat_text("f2-node-cache", self.prep(name))
            body = "\n".join(dat).split('\n"points"\n')[1].split("\n\n\n")[0]
            cols = [x for x in body.splitlines() if x.startswith("# columns:")][0]
            cols = cols.split(":", 1)[1].split()
            rows = [dict(zip(cols, x.split())) for x in body.splitlines()
                    if x.strip() and not x.startswith("#")]
            with self.subTest(host=name):
                self.assertEqual({r["categorical"] for r in rows}, {cat})
                if cat == "1":
                    self.assertEqual([r["x"] for r in rows], [str(i) for i in range(7)])
                self.assertTrue(all(r["ceiling_ops_per_s"] != "NaN" for r in rows))

    def test_gnuplot_names_only_the_ceilings_it_draws(self):
        with open(GP, encoding="utf-8") as f:
            gp = f.read()
        cat, lines = gp.split("if (cat) {", 1)[1].split("} else {", 1)
        # one thread count: the ceiling drawn once across (the levels block), named once
        self.assertNotIn("pt_ceiling_ops_per_s", gp)
        self.assertEqual(len(re.findall(r"ceiling / 1e6 with lines", cat)), 1)
        self.assertIn("stats datafile index (cat ? 3 : 1) using (cat ? "
                      "column(lv_ceiling_ops_per_s)", gp)
        self.assertIn("title ctitle", cat)
        # several: the ceiling lines of block 1 drawn, and named once
        self.assertRegex(lines, r"datafile index 1 using \(column\(ce_threads\)\)")
        self.assertIn("title ctitle", lines)
        self.assertIn("ctitle = has_ceiling ?", gp)
        # the supplement: the ceiling per mode (vectors), and named once
        with open(GP_REGIMES, encoding="utf-8") as f:
            gp = f.read()
        cat = gp.split("if (cat) {", 1)[1].split("} else {", 1)[0]
        self.assertRegex(cat, r"pt_ceiling_ops_per_s\)\):\(0\.72\):\(0\)\s*\\\s*\n\s*with vectors")
        self.assertIn("title ctitle", cat)

    @slow
    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_draws_both(self):
        plots = os.path.join(self.tmp, "plots")
        py = sys.executable if have_matplotlib() else "/usr/bin/python3"
        r = subprocess.run(module("figures.plot", py) + ["--results", self.results,
                                                 "--plots", plots, "--gnuplot"],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for host in ("one", "many"):
            png = os.path.join(plots, host, "gnuplot", "f2-node-cache.png")
            self.assertGreater(os.path.getsize(png), 20000)
            png = os.path.join(plots, host, "supplement", "gnuplot", "f2-node-cache-regimes.png")
            self.assertGreater(os.path.getsize(png), 20000)
        self.assertFalse(re.search(r"f2-node-cache(-regimes)?\.gp.*(error|expecting|failed)",
                                   r.stdout))


if __name__ == "__main__":
    unittest.main()
