# SPDX-License-Identifier: BSD-2-Clause
"""Tests of scripts/figures/plot.py, scripts/analysis/nrdata.py and scripts/gnuplot/*.gp.

    /usr/bin/python3 -m unittest discover -s scripts/tests -t . -v

Builds fake results trees in a temporary folder (tests/fakeresults.py: a
synthetic one shaped like the study, laid out both as scripts/runner/experiments.py
writes it and as the plain <experiment>/<point>/rep-<k> layout; and one from a
handful of tiny real runs of build/numaring-bench where it is built), draws
them, and checks every figure, the compare and gnuplot modes, the ceiling
being optional, and that bad input stops with one message and no output.
"""

import csv
import glob
import importlib
import importlib.util
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
from scripts.common import regime
from scripts.tests import module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
REPO = os.path.dirname(SCRIPTS)
BENCH = os.path.join(REPO, "build", "numaring-bench")


def dat_block(path, name):
    """(columns, rows) of the block called ``name`` of a .dat file (its '# columns:'
    line names them; rows split on blanks)."""
    with open(path, encoding="utf-8") as f:
        chunk = f.read().split('\n"%s"\n' % name)[1].split("\n\n\n")[0]
    lines = [x for x in chunk.splitlines() if x.strip()]
    cols = [x for x in lines if x.startswith("# columns:")][0].split(":", 1)[1].split()
    return cols, [x.split() for x in lines if not x.startswith("#")]


def said(p):
    """Everything a figure's preparation says: its caption (the host, its
    warnings, one line of what is drawn) and its notes (the .dat header)."""
    return [t for t, _e in p["caption"]] + list(p.get("notes") or [])


def _python():
    """A Python with matplotlib: this one, else Debian's /usr/bin/python3."""
    try:
        importlib.import_module("matplotlib")
        return sys.executable
    except ImportError:
        return "/usr/bin/python3"


PY = _python()
GNUPLOT = shutil.which("gnuplot")

FIGURES = ["f1-lookup-cost", "f2-node-cache", "f3-gate-percentiles", "f3-gate-vs-threads",
           "f4-backoff", "f5-ceiling", "peers-throughput", "peers-latency", "peers-regimes"]


def where(hostdir, fig):
    """The folder figure ``fig`` of a host's plots (hostdir) goes to: hostdir, or
    its supplement/ for the supplement's figures (scripts/common/figlist.py)."""
    from scripts.common import figlist
    return os.path.join(hostdir, figlist.SUPPLEMENT_DIR) if figlist.in_supplement(fig) \
        else hostdir


def run_plot(*args, root=REPO, timeout=120):
    """python3 -m scripts.figures.plot ARGS, run from root (the scripts package's parent)."""
    return subprocess.run(module("figures.plot", PY) + list(args), capture_output=True, text=True,
                          timeout=timeout, cwd=root)


def all_files(d):
    out = []
    for root, _dirs, files in os.walk(d):
        out += [os.path.join(root, f) for f in files]
    return out


def check_png(test, path):
    test.assertTrue(os.path.isfile(path), "missing " + path)
    with open(path, "rb") as f:
        head = f.read(8)
    test.assertEqual(head, b"\x89PNG\r\n\x1a\n", path)
    test.assertGreater(os.path.getsize(path), 5000, "suspiciously small " + path)


def check_pdf(test, path):
    test.assertTrue(os.path.isfile(path), "missing " + path)
    with open(path, "rb") as f:
        test.assertEqual(f.read(5), b"%PDF-", path)


@slow
class Drawn(unittest.TestCase):
    """One results tree with two hosts, drawn once (with gnuplot) for several tests."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-plots-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.plots = os.path.join(cls.tmp, "plots")
        # alpha: laid out as experiments.py does (profile column and folder), emulated,
        # the newer shape: oversubscribed column, F3 open loop, F5's realized batch
        fakeresults.make_synthetic(cls.results, "alpha", "emulated", (2, 4), reps=2,
                                   profile="quick", seed=3, oversub_above=2,
                                   f3_loads=(0.25, 0.5, 0.75), f5_realized=0.9)
        # beta: the plain layout, real nodes, three thread counts and reps
        fakeresults.make_synthetic(cls.results, "beta", "real", (2, 4, 8), reps=3, seed=4)
        args = ["--results", cls.results, "--plots", cls.plots]
        if GNUPLOT:
            args.append("--gnuplot")
        cls.result = run_plot(*args)
        cls.cmp = run_plot("--results", cls.results, "--plots", cls.plots,
                           "--compare", "alpha", "beta")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_exit_status(self):
        self.assertEqual(self.result.returncode, 0, self.result.stdout + self.result.stderr)
        self.assertEqual(self.result.stderr, "")

    def test_every_figure_png_and_pdf(self):
        for host in ("alpha", "beta"):
            for fig in FIGURES:
                with self.subTest(host=host, figure=fig):
                    check_png(self, os.path.join(where(os.path.join(self.plots, host), fig),
                                                 fig + ".png"))
                    check_pdf(self, os.path.join(where(os.path.join(self.plots, host), fig),
                                                 fig + ".pdf"))

    def test_nothing_else_written(self):
        names = {os.path.relpath(p, self.plots) for p in all_files(self.plots)}
        stray = [n for n in names if os.path.basename(n).startswith(".") or "tmp" in n]
        self.assertEqual(stray, [], "temporary files left behind")
        for n in names:
            self.assertRegex(n, r"^(alpha|beta|compare-alpha-vs-beta)/(supplement/)?"
                             r"((data/[\w-]+\.dat)|(gnuplot/[\w-]+\.png)|([\w-]+\.(png|pdf)))$")

    def test_compare_mode(self):
        self.assertEqual(self.cmp.returncode, 0, self.cmp.stdout + self.cmp.stderr)
        d = os.path.join(self.plots, "compare-alpha-vs-beta")
        for fig in [f for f in FIGURES if where("", f) == ""]:   # (the main figures)
            with self.subTest(figure=fig):
                check_png(self, os.path.join(d, fig + ".png"))
                check_pdf(self, os.path.join(d, fig + ".pdf"))
        # side by side: twice as wide as one host's figure of the same panels
        from struct import unpack
        with open(os.path.join(d, "f2-node-cache.png"), "rb") as f:
            w2 = unpack(">I", f.read(24)[16:20])[0]
        with open(os.path.join(self.plots, "beta", "f2-node-cache.png"), "rb") as f:
            w1 = unpack(">I", f.read(24)[16:20])[0]
        self.assertGreater(w2, 1.5 * w1)

    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_mode(self):
        for host in ("alpha", "beta"):
            for fig in FIGURES:
                with self.subTest(host=host, figure=fig):
                    dat = os.path.join(where(os.path.join(self.plots, host), fig), "data",
                                       fig + ".dat")
                    self.assertTrue(os.path.isfile(dat), dat)
                    with open(dat, encoding="utf-8") as f:
                        text = f.read()
                    self.assertTrue(text.startswith("# " + fig + ":"), dat)
                    self.assertIn("# columns:", text)
                    check_png(self, os.path.join(where(os.path.join(self.plots, host), fig),
                                                 "gnuplot", fig + ".png"))
        # gnuplot draws every figure matplotlib drew, the supplement's too (each has a .gp)
        for host in ("alpha", "beta"):
            m = re.search(r"%s: wrote (\d+) figures .* and (\d+) to its supplement/" % host,
                          self.result.stdout)
            self.assertIsNotNone(m, self.result.stdout)
            self.assertIn("%s: gnuplot drew %d figures" % (host, int(m.group(1)) + int(m.group(2))),
                          self.result.stdout)
        for fig in FIGURES:
            self.assertIn(fig, " ".join(os.listdir(os.path.join(self.plots, "alpha", "gnuplot")))
                          + " ".join(os.listdir(os.path.join(self.plots, "alpha", "supplement",
                                                             "gnuplot"))))

    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gp_scripts_standalone(self):
        """Each .gp draws from its data file given only datafile, outfile, caption."""
        out = os.path.join(self.tmp, "standalone")
        os.makedirs(out, exist_ok=True)
        for host, fig in [(h, f) for h in ("alpha", "beta") for f in FIGURES]:
            with self.subTest(host=host, figure=fig):
                dat = os.path.join(where(os.path.join(self.plots, host), fig), "data",
                                   fig + ".dat")
                png = os.path.join(out, "%s-%s.png" % (host, fig))
                r = subprocess.run(
                    [GNUPLOT, "-e", "datafile='%s'; outfile='%s'; caption='host beta'"
                     % (dat, png), os.path.join(SCRIPTS, "gnuplot", fig + ".gp")],
                    capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, 0, r.stderr)
                check_png(self, png)

    def test_data_files_hold_the_harness(self):
        """The last block of a throughput .dat is the harness alone: its medians per x."""
        if not GNUPLOT:
            self.skipTest("gnuplot is not installed")
        rows = nrdata.load_tidy(os.path.join(self.results, "beta", "f2-node-cache.csv"))
        cols, block = dat_block(os.path.join(self.plots, "beta", "data", "f2-node-cache.dat"),
                                "harness alone (null queue)")
        got = {int(x[cols.index("threads")]): float(x[cols.index("median_ops_per_s")])
               for x in block}
        for t in (2, 4, 8):
            want = statistics.median(float(r["harness_ops_per_s"]) for r in rows
                                     if nrdata.threads(r) == t)
            self.assertAlmostEqual(got[t] / want, 1.0, places=4)
        cols, pc = dat_block(os.path.join(self.plots, "beta", "supplement", "data",
                                          "peers-regimes.dat"), "prodcons")
        numaring = [r for r in pc if r[cols.index("queue")] == "numaring"]
        self.assertEqual({r[cols.index("message")] for r in numaring}, {"0", "1"})
        # the per-regime F1 (the supplement's) keeps the old one-block layout
        with open(os.path.join(self.plots, "beta", "supplement", "data",
                               "f1-lookup-cost-regimes.dat")) as f:
            f1 = [x.split() for x in f if x.strip() and not x.startswith("#")]
        f1rows = nrdata.load_tidy(os.path.join(self.results, "beta", "f1-lookup-cost.csv"))
        floor = 1e9 / statistics.median(float(r["harness_ops_per_s"]) for r in f1rows)
        self.assertAlmostEqual(float(f1[0][8]) / floor, 1.0, places=4)

    def test_data_files_hold_the_aggregates(self):
        if not GNUPLOT:
            self.skipTest("gnuplot is not installed")
        rows = nrdata.load_tidy(os.path.join(self.results, "beta", "f2-node-cache.csv"))
        agg = nrdata.aggregate(rows, ("lookup", "threads"), "throughput_ops_per_s")
        med = agg[("cached", 8)][0]
        cols, pts = dat_block(os.path.join(self.plots, "beta", "data", "f2-node-cache.dat"),
                              "points")
        line = [x for x in pts if x[0] == "cached" and x[cols.index("threads")] == "8"][0]
        self.assertAlmostEqual(float(line[cols.index("median_ops_per_s")]) / med, 1.0, places=4)
        self.assertEqual(int(line[cols.index("n")]), 3)


class Numbers(unittest.TestCase):
    """The aggregation and the figures' numbers, in process (no drawing)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-numbers-")
        cls.results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(cls.results, "real1", "real", (2, 4, 8), reps=3, seed=5)
        fakeresults.make_synthetic(cls.results, "emu1", "emulated", (2, 4), reps=2, seed=6,
                                   profile="quick")
        cls.plot = importlib.import_module("scripts.figures.plot")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def host(self, name):
        h = self.plot.Host(self.results, name)
        h.load()
        return h

    def test_aggregate(self):
        rows = [{"a": "x", "producers": "1", "consumers": "1", "v": v}
                for v in ("3", "1", "2", "10")] + [{"a": "y", "producers": "2",
                                                    "consumers": "2", "v": ""}]
        agg = nrdata.aggregate(rows, ("a", "threads"), "v")
        self.assertEqual(agg, {("x", 2): (2.5, 1.0, 10.0, 4)})

    def test_f1_ratio(self):
        p = self.plot.prep_f1(self.host("real1"))
        # the synthetic look-up costs 700 ns against 62 ns of data movement
        self.assertAlmostEqual(p["ratio"], 700 / 62.0, delta=1.5)
        self.assertEqual([b["mode"] for b in p["bars"]],
                         ["libnuma", "syscall", "table", "cached", "rseq", "rdpid", "none"])
        self.assertIn("study: > 11", p["annotation"])
        none = [b for b in p["bars"] if b["mode"] == "none"][0]
        self.assertEqual(none["lookup"], 0.0)

    def test_f2_annotation_and_ceiling(self):
        p = self.plot.prep_f2(self.host("real1"))
        m = re.search(r"cached / libnuma = ([\d.]+)\u00d7 at 8 threads", p["annotation"])
        self.assertTrue(m, p["annotation"])
        self.assertGreater(float(m.group(1)), 3)
        # regime not recorded: one group per look-up mode, all its reps
        self.assertEqual([pts[0][4] for (v, _g), pts in p["series"].items() if v == "cached"],
                         [3])

    def test_f3_one_rule_for_every_line_and_ratio(self):
        """Every percentile line is the median over the reps at each percentile (the
        same rule for every gate, said in the caption), inside its min-max band."""
        h = self.host("real1")
        p = self.plot.prep_f3a(h)
        self.assertEqual(p["threads"], 8)
        self.assertEqual([c["gate"] for c in p["curves"]], ["shared", "pernode", "perworker"])
        self.assertIn("every line: the median over the reps at each percentile",
                      " ".join(t for t in said(p)))
        for c in p["curves"]:
            self.assertEqual(c["source"], "latency.csv")
            self.assertEqual(c["nreps"], 3)
            self.assertNotIn("rep", c)
            rows = [r for r in h.data["f3-gate"]
                    if r["gate"] == c["gate"] and nrdata.threads(r) == 8]
            curves = [self.plot.latency_curve(h, r) for r in rows]
            xs, med, lo, hi = self.plot.envelope(curves)
            self.assertEqual(c["points"], list(zip(xs, med)))
            self.assertEqual(c["band"], (xs, lo, hi))
            # with three reps the median is, at every x, one of the three curves
            import numpy as np
            for i in (0, len(xs) // 2, len(xs) - 1):
                ys = sorted(10 ** np.interp(np.log10(xs[i]), np.log10([q[0] for q in cv]),
                                            np.log10([q[1] for q in cv])) for cv in curves)
                self.assertAlmostEqual(med[i] / ys[1], 1.0, places=9)
                self.assertLessEqual(lo[i], med[i])
                self.assertLessEqual(med[i], hi[i])
        self.assertIn("shared / perworker", p["annotation"])

    def test_f3_profile_layout(self):
        p = self.plot.prep_f3a(self.host("emu1"))
        self.assertTrue(all(c["source"] == "latency.csv" for c in p["curves"]))

    def test_f3_without_latency_files(self):
        d = os.path.join(self.tmp, "nolat")
        fakeresults.make_synthetic(d, "h", "real", (2, 4), reps=2, experiments=["f3-gate"],
                                   latency_files=False)
        h = self.plot.Host(d, "h")
        h.load()
        p = self.plot.prep_f3a(h)
        self.assertTrue(all(c["source"] == "summary" for c in p["curves"]))
        self.assertEqual(len(p["curves"][0]["points"]), 4)

    def test_f4_relative(self):
        p = self.plot.prep_f4(self.host("real1"))
        rel = {r["backoff"]: r for r in p["relative"]}
        self.assertNotIn("none", rel)
        self.assertLess(rel["yield"]["pct"], -15)
        self.assertLessEqual(rel["yield"]["lo"], rel["yield"]["pct"])
        self.assertLessEqual(rel["yield"]["pct"], rel["yield"]["hi"])
        self.assertTrue(rel["yield"]["exercised"])
        self.assertIn("yield \u2212", p["annotation"])

    def test_caption_real_and_emulated(self):
        real = self.plot.prep_f2(self.host("real1"))["caption"]
        emu = self.plot.prep_f2(self.host("emu1"))["caption"]
        self.assertIn("Fake CPU 9000", real[0][0])
        self.assertIn("host real1", real[0][0])
        self.assertTrue(any(t.startswith("real NUMA nodes") for t in said({"caption": real})
                            + self.plot.prep_f2(self.host("real1"))["notes"]))
        self.assertFalse(any("EMULATED" in t for t, _e in real))
        warn = [t for t, e in emu if e == "warn"]
        self.assertEqual(len(warn), 1)
        self.assertIn("EMULATED nodes (0;1)", warn[0])
        self.assertIn("not a two-socket result", warn[0])

    def test_peers_panels(self):
        p = self.plot.prep_peers_regimes(self.host("real1"))
        self.assertEqual([pn["bursts"] for pn in p["panels"]], [0, 1, 0, 1])
        self.assertIn("faa", {q for q, _g in p["panels"][0]["series"]})
        # faa has no message items, ck no bursts: not in those panels
        for pn in p["panels"]:
            qs = {q for q, _g in pn["series"]}
            self.assertEqual("faa" in qs, pn["item"] == "inline")
            self.assertEqual("ck" in qs, pn["bursts"] == 0)
        lat = self.plot.prep_peers_latency(self.host("real1"))
        # faa records no latency: no mark
        self.assertFalse([m for m in lat["panels"][0]["marks"] if m["queue"] == "faa"])
        self.assertIn("faa: no latency recorded", lat["caption"][-1][0])


def _median_harness(rows):
    vals = [float(r["harness_ops_per_s"]) for r in rows if r.get("harness_ops_per_s", "")]
    return statistics.median(vals) if vals else None


def _med(rows, col):
    return statistics.median(float(r[col]) for r in rows)


class OpenLoopF3RealizedF5(unittest.TestCase):
    """F3 in open loop (offered loads, items in flight, oversubscribed thread counts
    apart) and F5 against the realized batch, from synthetic trees of the newer
    shape ('open'; 'low': F5 realizes half of b=256; 'counters': only the queue
    counters, no items_per_transfer) and of the older one ('closed')."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-open-")
        cls.results = os.path.join(cls.tmp, "results")
        mk = fakeresults.make_synthetic
        exps = ["f3-gate", "f5-ceiling"]
        mk(cls.results, "open", "emulated", (2, 4, 8), reps=3, seed=31, oversub_above=2,
           experiments=exps, f3_loads=(0.25, 0.5, 0.75), profile="quick",
           f5_realized={1: 1.0, 4: 1.0, 16: 0.95, 64: 0.9, 256: 0.85})
        mk(cls.results, "low", "real", (2, 4), reps=3, seed=32, oversub_above=4,
           experiments=["f5-ceiling"], f5_realized={256: 0.5})
        mk(cls.results, "counters", "real", (2,), reps=2, seed=33, experiments=["f5-ceiling"],
           f5_realized=0.9, f5_realized_in="counters")
        mk(cls.results, "closed", "real", (2, 4), reps=2, seed=34, experiments=exps)
        cls.plot = importlib.import_module("scripts.figures.plot")
        cls.plot.init_matplotlib()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def host(self, name):
        h = self.plot.Host(self.results, name)
        h.load()
        return h

    def rows(self, host, exp):
        return nrdata.load_tidy(os.path.join(self.results, host, exp + ".csv"))

    def draw(self, fn, p, n):
        fig, axes = self.plot.plt.subplots(1, n, squeeze=False)
        fn(list(axes.flat), p)
        self.addCleanup(self.plot.plt.close, fig)
        return list(axes.flat)

    def caption(self, p):
        return " ".join(t for t in said(p))

    # -- F3 -----------------------------------------------------------------

    def test_f3_main_figure_is_p50_of_the_two_gates_against_the_load(self):
        p = self.plot.prep_f3a(self.host("open"))
        self.assertEqual(p["kind"], "f3main")
        self.assertEqual(p["threads"], 2)                 # 4 and 8 share CPUs
        self.assertEqual(p["order"], ["shared", "perworker"])   # the claim's pair
        self.assertEqual(p["loads"], [25.0, 50.0, 75.0])
        rows = [r for r in self.rows("open", "f3-gate") if nrdata.threads(r) == 2]
        for g in ("shared", "perworker"):
            for q in p["p50"][g]:
                at = [r for r in rows if r["gate"] == g and 100 * float(r["load"]) == q[0]
                      and regime.saturated(r) != 1]
                self.assertAlmostEqual(q[1], _med(at, "p50_ns"))
        # the study's line: 200x the per-worker gate's p50 at each load
        self.assertEqual(p["study"], [(q[0], 200.0 * q[1]) for q in p["p50"]["perworker"]])
        # one panel: per gate a mark at each load's median with its interval (no
        # line joins the loads), the study's marks, the ratio per load
        self.assertEqual(self.plot.grid_of("f3-gate-percentiles", p), (1, 1))
        axes = self.draw(self.plot.DRAW["f3main"], p, 1)
        marks = {}
        for ln in axes[0].lines:
            # the marks, not the interval bars' caps ("_")
            if ln.get_gid() and (ln.get_marker() != "_" or ln.get_gid() == "f3-study"):
                marks.setdefault(ln.get_gid(), []).append(ln)
        self.assertEqual(set(marks) - {"f3-shared-saturated", "f3-perworker-saturated"},
                         {"f3-shared-p50", "f3-perworker-p50", "f3-study"})
        for g in ("shared", "perworker"):
            self.assertEqual([round(y, 6) for ln in marks["f3-%s-p50" % g]
                              for y in ln.get_ydata()],
                             [round(q[1], 6) for q in p["p50"][g]])
            self.assertTrue(all(ln.get_linestyle() == "None" for ln in marks["f3-%s-p50" % g]))
        self.assertEqual(marks["f3-study"][0].get_linestyle(), "None")
        texts = [t.get_text() for t in axes[0].texts if t.get_gid() == "f3-ratio"]
        self.assertEqual(texts, [t for _x, t in p["ratio_at"]])
        self.assertEqual(axes[0].get_yscale(), "log")
        self.assertEqual([t.get_text() for t in axes[0].get_xticklabels()],
                         ["25%", "50%", "75%"])
        # the legend: only the marks drawn
        labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
        self.assertEqual(len(labels), 3 + bool(p["saturated"]) + bool(p["ratio_at"]))
        self.assertIn("shared / perworker", p["annotation"])
        self.assertIn("study: > 200", p["annotation"])
        # what left the figure is said where it went
        self.assertIn("f3-gate-load-diagnostics", " ".join(p["notes"]))

    def test_f3_main_data_file(self):
        p = self.plot.prep_f3a(self.host("open"))
        dat = self.plot.dat_text("f3-gate-percentiles", p)
        blocks = "\n".join(dat).split("\n\n\n")[1:]
        self.assertEqual([b.splitlines()[0] for b in blocks],
                         ['"shared"', '"perworker"', '"saturated"', '"study"',
                          '"paired ratio"'])
        for b, g in zip(blocks[:2], ("shared", "perworker")):
            cols = [x for x in b.splitlines() if x.startswith("# columns:")][0].split()[2:]
            self.assertEqual(cols, self.plot.fig_f3.F3_MAIN_COLUMNS)
            rows = [x.split() for x in b.splitlines()[1:] if not x.startswith("#")]
            self.assertEqual([float(r[0]) for r in rows], [q[0] for q in p["p50"][g]])
            self.assertEqual([float(r[1]) for r in rows],
                             [float("%.6g" % q[1]) for q in p["p50"][g]])
        rows = [x.split() for x in blocks[4].splitlines()[1:] if not x.startswith("#")]
        self.assertEqual([r[1] for r in rows], [t for _x, t in p["ratio_at"]] or ["-"])

    def test_f3_diagnostics_have_the_loads_on_x_at_the_clean_thread_count(self):
        p = self.plot.prep_f3_diag(self.host("open"))
        self.assertEqual(p["kind"], "f3load")
        self.assertEqual(p["threads"], 2)                 # 4 and 8 share CPUs
        self.assertEqual(p["loads"], [25.0, 50.0, 75.0])
        self.assertTrue(all(nrdata.threads(r) == 2 and nrdata.oversubscribed(r) is False
                            for r in p["rows"]))
        rows = [r for r in self.rows("open", "f3-gate") if nrdata.threads(r) == 2]
        for c, _name in self.plot.F3_PCT:
            for g in ("shared", "pernode", "perworker"):
                with self.subTest(percentile=c, gate=g):
                    pts = p["pct"][c][g]
                    self.assertEqual([q[0] for q in pts], [25.0, 50.0, 75.0])
                    for q in pts:
                        at = [r for r in rows if r["gate"] == g
                              and 100 * float(r["load"]) == q[0]]
                        self.assertEqual(q[4], 3)
                        self.assertAlmostEqual(q[1], _med(at, c))
        # drawn: a latency panel per gate (p50 and p99 only), against the load in %
        # of capacity, on one log axis whose limits come from the medians
        self.assertEqual(p["grid"], (2, 3))
        axes = self.draw(self.plot.DRAW["f3load"], p, 6)
        lims = {a.get_ylim() for a in axes[:3]}
        self.assertEqual(len(lims), 1)
        for a, g in zip(axes[:3], ("shared", "pernode", "perworker")):
            self.assertEqual([t.get_text() for t in a.get_xticklabels()],
                             ["25%", "50%", "75%"])
            self.assertIn("offered load", a.get_xlabel())
            self.assertIn(g, a.get_title())
            self.assertEqual(a.get_yscale(), "log")
            lines = {ln.get_gid(): ln for ln in a.lines if ln.get_gid()}
            self.assertEqual(set(lines), {"f3-%s-p50" % g, "f3-%s-p99" % g})
            for c, name in (("p50_ns", "p50"), ("p99_ns", "p99")):
                ln = lines["f3-%s-%s" % (g, name)]
                self.assertEqual(list(ln.get_xdata()), [25.0, 50.0, 75.0])
                self.assertEqual([round(y, 6) for y in ln.get_ydata()],
                                 [round(q[1], 6) for q in p["pct"][c][g]])
        self.assertIn("shared / perworker", p["annotation"])
        self.assertIn("in flight", p["annotation"])

    def test_f3_items_in_flight_and_throughput_beside_the_percentiles(self):
        p = self.plot.prep_f3_diag(self.host("open"))
        rows = [r for r in self.rows("open", "f3-gate") if nrdata.threads(r) == 2]
        for g in ("shared", "perworker"):
            for q in p["inflight"][g]:
                at = [r for r in rows if r["gate"] == g and 100 * float(r["load"]) == q[0]]
                self.assertAlmostEqual(q[1], _med(at, "inflight"))
                # Little: throughput x mean latency
                self.assertAlmostEqual(q[1], statistics.median(
                    float(r["throughput_ops_per_s"]) * float(r["mean_ns"]) * 1e-9 for r in at),
                    delta=0.01 * q[1])
            self.assertEqual([q[0] for q in p["tput"][g]], [25.0, 50.0, 75.0])
        self.assertEqual([q[0] for q in p["offered"]], [25.0, 50.0, 75.0])
        axes = self.draw(self.plot.DRAW["f3load"], p, 6)
        drawn = sorted(round(y, 6) for ln in axes[3].lines for y in ln.get_ydata()
                       if ln.get_linestyle() not in ("None", ""))
        want = sorted(round(q[1], 6) for g in p["order"] for q in p["inflight"][g])
        self.assertEqual(drawn, want)
        self.assertIn("in flight", axes[3].get_ylabel())
        self.assertIn("offered rate", axes[4].get_legend_handles_labels()[1])
        text = self.caption(p)
        self.assertIn("items in flight: summary.csv's inflight (Little", text)
        self.assertIn("every gate delivered the offered rate", text)
        self.assertIn(self.plot.F3_OVER_TITLE, text)     # where the others went

    def test_f3_diagnostics_keep_the_oversubscribed_in_a_labelled_panel(self):
        p = self.plot.prep_f3_diag(self.host("open"))
        tidy = self.rows("open", "f3-gate")
        self.assertEqual(p["over_threads"], [4, 8])
        for t, ser in p["over_p50"].items():
            for g, pts in ser.items():
                at = [r for r in tidy if nrdata.threads(r) == t and r["gate"] == g]
                self.assertTrue(all(nrdata.oversubscribed(r) for r in at))
                self.assertEqual([q[0] for q in pts], [25.0, 50.0, 75.0])
                for q in pts:
                    self.assertAlmostEqual(q[1], _med([r for r in at if 100 * float(r["load"])
                                                       == q[0]], "p50_ns"))
        axes = self.draw(self.plot.DRAW["f3load"], p, 6)
        self.assertEqual(axes[5].get_title(), self.plot.F3_OVER_TITLE.replace("; ", ";\n"))
        self.assertEqual(len([ln for ln in axes[5].lines if ln.get_linestyle() != "None"]), 6)
        # the other panels: only the 2-thread runs (their medians), nothing of 4 or 8
        want = {round(q[1], 3) for g in p["order"] for q in p["pct"]["p50_ns"][g]}
        p50 = {round(y, 3) for a in axes[:3] for ln in a.lines for y in ln.get_ydata()}
        self.assertLessEqual(want, p50)
        over = {round(q[1], 3) for ser in p["over_p50"].values() for pts in ser.values()
                for q in pts}
        self.assertFalse(over & p50)
        self.assertRegex(self.caption(p), r"the tinted panel: 18 oversubscribed points")
        dat = self.plot.dat_text("f3-gate-load-diagnostics", p)
        blocks = "\n".join(dat).split("\n\n\n")[1:]
        self.assertEqual([b.splitlines()[0] for b in blocks][3:],
                         ['"%s, %d threads"' % (g, t) for t in (4, 8)
                          for g in ("shared", "pernode", "perworker")])
        for b in blocks:
            rows = [x.split() for x in b.splitlines()[1:] if not x.startswith("#")]
            self.assertEqual({r[23] for r in rows}, {"0"} if "threads" not in b.splitlines()[0]
                             else {"1"})

    def test_f3_oversubscribed_only_in_their_own_labelled_panel(self):
        p = self.plot.prep_f3b(self.host("open"))
        tidy = self.rows("open", "f3-gate")
        over = sorted({nrdata.threads(r) for r in tidy if nrdata.oversubscribed(r)})
        self.assertEqual(over, [4, 8])
        self.assertEqual(p["over_threads"], over)
        self.assertEqual(p["grid"], (1, 3))
        for key in ("p50", "p99"):
            self.assertEqual({q[0] for pts in p[key].values() for q in pts}, {2})
            self.assertEqual({q[7] for pts in p[key].values() for q in pts}, {0})
            self.assertEqual({q[0] for pts in p["over_" + key].values() for q in pts}, {4, 8})
            self.assertEqual({q[7] for pts in p["over_" + key].values() for q in pts}, {1})
        self.assertIn("75% load", p["title"])
        axes = self.draw(self.plot.draw_f3b, p, 3)
        self.assertEqual(axes[2].get_title(), self.plot.F3_OVER_TITLE.replace("; ", ";\n"))
        for ax in axes[:2]:
            self.assertTrue(all(x < 3 for ln in ax.lines for x in ln.get_xdata()))
        xs = [x for ln in axes[2].lines for x in ln.get_xdata()]
        self.assertTrue(xs and all(x >= 3 for x in xs))
        # the data file: the separate panel's rows flagged, the others not
        dat = self.plot.dat_text("f3-gate-vs-threads", p)
        self.assertIn("over_panel", [x for x in dat if x.startswith("# columns:")][0])
        rows = [x.split() for x in dat if x and x[0].isdigit()]
        self.assertEqual({(r[0], r[10]) for r in rows}, {("2", "0"), ("4", "1"), ("8", "1")})
        self.assertRegex(self.caption(p), r"\d+ oversubscribed points \(the run's threads")

    def test_f3_diagnostics_data_file(self):
        p = self.plot.prep_f3_diag(self.host("open"))
        dat = self.plot.dat_text("f3-gate-load-diagnostics", p)
        cols = [x for x in dat if x.startswith("# columns:")][0].split()[2:]
        self.assertEqual(cols[0], "load_pct")
        self.assertEqual(len(cols), 25)
        blocks = "\n".join(dat).split("\n\n\n")[1:4]
        self.assertEqual([b.splitlines()[0] for b in blocks],
                         ['"shared"', '"pernode"', '"perworker"'])
        for b in blocks:
            rows = [x.split() for x in b.splitlines()[1:] if not x.startswith("#")]
            self.assertEqual([r[0] for r in rows], ["25", "50", "75"])
            self.assertTrue(all(len(r) == 25 for r in rows))
            g = b.splitlines()[0].strip('"')
            self.assertAlmostEqual(float(rows[1][13]) / p["inflight"][g][1][1], 1.0, places=5)

    def test_f3_closed_loop_falls_back_to_the_distribution(self):
        h = self.host("closed")
        p = self.plot.prep_f3a(h)
        self.assertEqual(p["kind"], "f3a")
        self.assertEqual(p["threads"], 4)                 # not recorded: the largest
        # no load to diagnose: the supplement is the same distribution
        self.assertEqual(self.plot.prep_f3_diag(h)["kind"], "f3a")
        self.assertIn("closed loop: the producers keep the queue full", self.caption(p))
        b = self.plot.prep_f3b(h)
        self.assertEqual(b["grid"], (1, 2))
        self.assertEqual(b["over_threads"], [])
        self.assertEqual({q[0] for pts in b["p50"].values() for q in pts}, {2, 4})
        self.assertIn("oversubscription not recorded", self.caption(b))

    # -- F5 -----------------------------------------------------------------

    def test_f5_x_is_the_realized_batch_and_the_label_the_configured(self):
        p = self.plot.prep_f5_open(self.host("open"))
        self.assertTrue(p["realized"])
        rows = self.rows("open", "f5-ceiling")
        for t, pts in p["lines"].items():
            self.assertEqual([q[8] for q in pts], [1, 4, 16, 64, 256])
            for q in pts:
                at = [r for r in rows if nrdata.threads(r) == t and int(r["batch"]) == q[8]]
                self.assertAlmostEqual(q[0], _med(at, "items_per_transfer"))
                self.assertEqual(q[0], q[9])
        # 0.85 of 256 is the least: the target holds
        self.assertEqual(p["realized_below"], [])
        text = self.caption(p)
        self.assertIn("holds at every point", text)
        self.assertIn("items_per_transfer", text)
        self.assertIn("as realized", p["title"])
        self.assertIn("vs batch size", p["title"])
        axes = self.draw(self.plot.draw_f5, p, 2)
        labels = [(a.get_text(), a.xy[0]) for a in axes[0].texts if a.get_text().startswith("b=")]
        self.assertEqual(sorted({t for t, _x in labels}),
                         sorted("b=%d" % b for b in (1, 4, 16, 64, 256)))
        for t, pts in p["lines"].items():
            for q in pts:
                self.assertIn(("b=%d" % q[8], q[0]), labels)
        self.assertIn("realized", axes[0].get_xlabel())
        dat = self.plot.dat_text("f5-ceiling-open-loop", p)
        rows = [x.split() for x in "\n".join(dat).split('\n"closed loop"\n')[0].splitlines()
                if x and x[0].isdigit()]
        self.assertTrue(rows)
        self.assertTrue(all(r[15] == "1" for r in rows))
        self.assertEqual({r[13] for r in rows}, {"1", "4", "16", "64", "256"})

    def test_f5_says_where_the_batch_was_not_realized(self):
        p = self.plot.prep_f5_open(self.host("low"))
        self.assertEqual({(t, b) for t, b, _f in p["realized_below"]}, {(2, 256), (4, 256)})
        self.assertIn("does NOT hold at 2 of 10 points", self.caption(p))
        self.assertIn("NO, 2 of 10 below", p["realized_note"])
        axes = self.draw(self.plot.draw_f5, p, 2)
        low = [a.get_text() for a in axes[0].texts if a.get_text().startswith("b=256 (")]
        self.assertEqual(len(low), 2, [a.get_text() for a in axes[0].texts])
        self.assertTrue(all(re.match(r"b=256 \(0\.[45]\d\u00d7\)$", t) for t in low), low)
        self.assertFalse([a for a in axes[0].texts if a.get_text().startswith("b=64 (")])

    def test_f5_falls_back_to_the_counters(self):
        p = self.plot.prep_f5_open(self.host("counters"))
        rows = self.rows("counters", "f5-ceiling")
        self.assertTrue(all(r["items_per_transfer"] == "" for r in rows))
        for q in p["lines"][2]:
            at = [r for r in rows if int(r["batch"]) == q[8]]
            want = statistics.median(
                (int(r["items_in"]) + int(r["items_out"])) /
                (int(r["batches_in"]) + int(r["batches_out"])) for r in at)
            self.assertAlmostEqual(q[0], want)
        self.assertIn("from the queue counters", self.caption(p))

    def test_f5_falls_back_to_the_configured_batch(self):
        p = self.plot.prep_f5_open(self.host("closed"))
        self.assertFalse(p["realized"])
        for pts in p["lines"].values():
            self.assertEqual([q[0] for q in pts], [1.0, 4.0, 16.0, 64.0, 256.0])
            self.assertTrue(all(q[9] is None for q in pts))
        text = self.caption(p)
        self.assertIn("x: the CONFIGURED batch", text)
        self.assertIn("realized / configured batch: not measured", text)
        self.assertIn("configured: realized not recorded", p["title"])
        axes = self.draw(self.plot.draw_f5, p, 2)
        self.assertFalse([a for a in axes[0].texts if a.get_text().startswith("b=")])
        self.assertIn("configured", axes[0].get_xlabel())
        dat = self.plot.dat_text("f5-ceiling-open-loop", p)
        rows = [x.split() for x in "\n".join(dat).split('\n"closed loop"\n')[0].splitlines()
                if x and x[0].isdigit()]
        self.assertTrue(rows)
        self.assertTrue(all(r[15] == "0" for r in rows))

    def test_summarize_says_the_same_of_the_realized_batch(self):
        summarize = importlib.import_module("scripts.analysis.summarize")
        for host, ok in (("open", True), ("low", False), ("counters", True)):
            with self.subTest(host=host):
                p = self.plot.prep_f5_open(self.host(host))
                rz = summarize.f5_realized(os.path.join(self.results, host))
                self.assertEqual([(x["threads"], x["batch"]) for x in rz],
                                 [(t, b) for t, b, _f in p["realized_points"]])
                for x, (_t, _b, f) in zip(rz, p["realized_points"]):
                    self.assertAlmostEqual(x["ratio"], f)
                readme = summarize.host_readme(os.path.join(self.results, host))
                row = [x for x in readme.splitlines()
                       if x.startswith("| F5 (realized batch) |")][0]
                self.assertIn("at every point: yes" if ok else "NO (2 of 10 points below)", row)
        self.assertIsNone(summarize.f5_realized(os.path.join(self.results, "closed")))
        readme = summarize.host_readme(os.path.join(self.results, "closed"))
        self.assertNotIn("| F5 (realized batch) |", readme)

    @slow
    def test_draws_both_shapes(self):
        plots = os.path.join(self.tmp, "plots")
        args = ["--results", self.results, "--plots", plots]
        if GNUPLOT:
            args.append("--gnuplot")
        r = run_plot(*args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        f3 = ("f3-gate-percentiles", "f3-gate-vs-threads", "f3-gate-load-diagnostics")
        f5 = ("f5-ceiling", "f5-ceiling-open-loop")
        for host, figs in (("open", f3 + f5), ("closed", f3 + f5), ("low", f5),
                           ("counters", f5)):
            for fig in figs:
                with self.subTest(host=host, figure=fig):
                    d = self.plot.figure_dir(os.path.join(plots, host), fig)
                    check_png(self, os.path.join(d, fig + ".png"))
                    if GNUPLOT:
                        check_png(self, os.path.join(d, "gnuplot", fig + ".png"))
        # side by side: the open-loop figure's three panels against the closed loop's one
        r = run_plot("--results", self.results, "--plots", plots, "--compare", "open", "closed")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        check_png(self, os.path.join(plots, "compare-open-vs-closed", "f3-gate-percentiles.png"))


class Harness(unittest.TestCase):
    """The harness's own ceiling (harness_ops_per_s, the null queue) on every throughput
    figure, the item modes in the peers figure and every caption, and summarize's
    harness-bound check, from synthetic trees: 'h' (harness measured, far above every
    point), 'none' (not measured) and 'tight' (some points within 20% of it)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-harness-")
        cls.results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(cls.results, "h", "real", (2, 4), reps=3, seed=7,
                                   experiments=["f1-lookup-cost", "f2-node-cache", "f3-gate",
                                                "f4-backoff", "f4-spin", "f5-ceiling", "peers",
                                                "placement"])
        fakeresults.make_synthetic(cls.results, "none", "real", (2, 4), reps=2, seed=8,
                                   harness=None)
        fakeresults.make_synthetic(cls.results, "tight", "real", (2, 4), reps=3, seed=9,
                                   harness=0.3)
        fakeresults.make_synthetic(cls.results, "inline", "real", (2, 4), reps=2, seed=10,
                                   items=("inline",), experiments=["peers"])
        cls.plot = importlib.import_module("scripts.figures.plot")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def host(self, name):
        h = self.plot.Host(self.results, name)
        h.load()
        return h

    def rows(self, host, exp):
        return nrdata.load_tidy(os.path.join(self.results, host, exp + ".csv"))

    def test_lines_figures_draw_the_harness(self):
        h = self.host("h")
        for prep, exp in ((self.plot.prep_f2, "f2-node-cache"), (self.plot.prep_f4, "f4-backoff")):
            with self.subTest(figure=exp):
                p = prep(h)
                rows = self.rows("h", exp)
                # F4: the harness of each workload and amount of local work (here one)
                line = p["harness"] if exp != "f4-backoff" else \
                    p["harness"][("prodcons", 0.0)]
                self.assertEqual([q[0] for q in line], [2, 4])
                for q in line:
                    want = _median_harness([r for r in rows if nrdata.threads(r) == q[0]])
                    self.assertAlmostEqual(q[1], want)
                self.assertTrue(any("harness alone (null queue)" in t for t in said(p)))
                if exp != "f4-backoff":   # F4's one line says only where some are
                    self.assertTrue(any("no point within 20%" in t for t in said(p)))
                else:
                    self.assertFalse(any("within 20%" in t for t in said(p)))

    def test_f5_draws_the_harness_per_point(self):
        # the open loop's figure (the supplement): the closed loop has no harness line
        p = self.plot.prep_f5_open(self.host("h"))
        rows = self.rows("h", "f5-ceiling")
        self.assertTrue(p["has_harness"])
        for t, pts in p["lines"].items():
            for q in pts:
                want = _median_harness([r for r in rows if nrdata.threads(r) == t
                                        and int(r["batch"]) == q[0]])
                self.assertAlmostEqual(q[6], want)

    def test_f1_draws_the_harness_floor(self):
        p = self.plot.prep_f1(self.host("h"))
        want = 1e9 / _median_harness(self.rows("h", "f1-lookup-cost"))
        self.assertAlmostEqual(p["harness_ns"], want)
        self.assertFalse(any(b["harness_bound"] for b in p["bars"]))
        self.assertTrue(any("the floor: %.1f ns per item" % want in t for t in said(p)))

    def test_peers_panels_by_item(self):
        p = self.plot.prep_peers_regimes(self.host("h"))
        self.assertEqual([(pn["item"], pn["bursts"]) for pn in p["panels"]],
                         [("inline", 0), ("inline", 1), ("message", 0), ("message", 1)])
        self.assertEqual(p["grid"], (2, 2))
        from scripts.figures import fig_common
        for pn in p["panels"][2:]:
            self.assertIn("message items: the payload's line travels too", pn["name"])
            self.assertIn("numaring", {q for q, _g in pn["series"]})
        rows = self.rows("h", "peers")
        for pn in p["panels"]:
            with self.subTest(panel=pn["name"]):
                self.assertEqual([q[0] for q in pn["harness"]], [2, 4])
                at2 = [r for r in rows if nrdata.threads(r) == 2 and r["item"] == pn["item"]
                       and int(r["bursts"]) == pn["bursts"]
                       and fig_common.runs_in(r["queue"], r["item"], pn["bursts"])]
                self.assertAlmostEqual(pn["harness"][0][1], _median_harness(at2))
        # the message rows are slower, and their harness too

        def numaring(pn):
            return [v for (q, _g), v in pn["series"].items() if q == "numaring"][0]
        self.assertLess(numaring(p["panels"][2])[0][1], numaring(p["panels"][0])[0][1])
        self.assertLess(p["panels"][2]["harness"][0][1], p["panels"][0]["harness"][0][1])
        lat = self.plot.prep_peers_latency(self.host("h"))
        self.assertEqual([(pn["item"], pn["bursts"]) for pn in lat["panels"]],
                         [("inline", 0), ("inline", 1), ("message", 0), ("message", 1)])
        self.assertTrue(all(pn["marks"] for pn in lat["panels"]))

    def test_peers_inline_only(self):
        p = self.plot.prep_peers_regimes(self.host("inline"))
        self.assertEqual(p["grid"], (1, 2))
        self.assertEqual([pn["item"] for pn in p["panels"]], ["inline", "inline"])
        self.assertTrue(any("message items: not measured" in t for t in said(p)))

    def test_empty_item_is_inline(self):
        d = os.path.join(self.tmp, "blank-item")
        shutil.copytree(os.path.join(self.results, "h"), os.path.join(d, "h"))
        path = os.path.join(d, "h", "peers.csv")
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        i = rows[0].index("item")
        for r in rows[1:]:
            if r[i] == "inline":
                r[i] = ""
        with open(path, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
        h = self.plot.Host(d, "h")
        h.load()
        blank = self.plot.prep_peers_regimes(h)
        orig = self.plot.prep_peers_regimes(self.host("h"))
        self.assertEqual([pn["item"] for pn in blank["panels"]],
                         [pn["item"] for pn in orig["panels"]])
        self.assertEqual(blank["panels"][0]["series"], orig["panels"][0]["series"])
        self.assertIn("items: inline", " ".join(t for t in said(blank)))
        summarize = importlib.import_module("scripts.analysis.summarize")
        self.assertEqual(summarize.peers(os.path.join(d, "h"), "inline")["b0_mops"],
                         summarize.peers(os.path.join(self.results, "h"), "inline")["b0_mops"])

    def test_every_caption_says_the_item_mode(self):
        h = self.host("h")
        for name, _exp, prep, _n in self.plot.FIGURES:
            with self.subTest(figure=name):
                text = " ".join(t for t in said(prep(h)))
                if name.startswith("f4-"):
                    # the host line and one line of what is drawn (F4 runs inline
                    # items only; the results README says so)
                    self.assertEqual(len(prep(h)["caption"]), 2)
                    self.assertNotIn("message (", text)
                    continue
                self.assertIn("items: inline (the item is a value), 1 in 64 timed", text)
                if name == "peers-throughput":
                    # the main figure: inline items; the other mode is peers-regimes'
                    self.assertNotIn("message (", text)
                    self.assertIn("the other item mode", text)
                elif name.startswith("peers"):
                    self.assertIn("message (a pointer to a message whose cache line travels "
                                  "too), 1 in 64 timed", text)
                else:
                    self.assertNotIn("message (", text)

    def test_not_measured(self):
        h = self.host("none")
        for prep in (self.plot.prep_f2, self.plot.prep_f4, self.plot.prep_peers_regimes,
                     self.plot.prep_f5_open, self.plot.prep_f1):
            with self.subTest(prep=prep.__name__):
                p = prep(h)
                self.assertIn("harness ceiling not measured",
                              " ".join(t for t in said(p)))
                self.assertFalse(p.get("harness"))
                self.assertFalse(p.get("has_harness"))
                self.assertIsNone(p.get("harness_ns"))
                for pn in p.get("panels", []):
                    self.assertEqual(pn["harness"], [])
        # the main peers figure: no harness slot where none was measured
        p = self.plot.prep_peers(h)
        self.assertIn("harness ceiling not measured", " ".join(t for t in said(p)))
        self.assertTrue(p["panels"])
        for pn in p["panels"]:
            self.assertNotIn("harness alone", [s["queue"] for s in pn["slots"]])

    @slow
    def test_not_measured_still_draws(self):
        plots = os.path.join(self.tmp, "plots-none")
        args = ["--results", self.results, "--plots", plots, "--host", "none"]
        if GNUPLOT:
            args.append("--gnuplot")
        r = run_plot(*args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for fig in FIGURES:
            with self.subTest(figure=fig):
                check_png(self, os.path.join(where(os.path.join(plots, "none"), fig),
                                             fig + ".png"))
                if GNUPLOT:
                    check_png(self, os.path.join(where(os.path.join(plots, "none"), fig),
                                                 "gnuplot", fig + ".png"))
        if GNUPLOT:
            cols, block = dat_block(os.path.join(plots, "none", "data", "f2-node-cache.dat"),
                                    "harness alone (null queue)")
            self.assertTrue(block)
            self.assertTrue(all(x[cols.index("median_ops_per_s")] == "NaN" for x in block))

    def expected_bound(self, host):
        """(experiment, point) of every point at >= 0.8 x its harness, computed here."""
        out = set()
        for exp in ("f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff", "f5-ceiling",
                    "peers"):
            rows = self.rows(host, exp)
            for pt in {r["point"] for r in rows}:
                rs = [r for r in rows if r["point"] == pt]
                t = statistics.median(float(r["throughput_ops_per_s"]) for r in rs)
                if t >= 0.8 * _median_harness(rs):
                    out.add((exp, pt))
        return out

    def test_bound_points_are_counted_in_the_caption(self):
        p = self.plot.prep_peers_regimes(self.host("tight"))
        want = len([pt for exp, pt in self.expected_bound("tight") if exp == "peers"])
        self.assertGreater(want, 0)
        self.assertEqual(sum(self.plot.bound_count(pn["series"]) for pn in p["panels"]), want)
        self.assertTrue(any("%d points within 20%% of the harness's own ceiling" % want in t
                            for t in said(p)), p["caption"])

    def test_summarize_flags_harness_bound_points(self):
        summarize = importlib.import_module("scripts.analysis.summarize")
        hostdir = os.path.join(self.results, "tight")
        bound, measured = summarize.harness_bound(hostdir)
        want = self.expected_bound("tight")
        self.assertTrue(want)
        self.assertEqual({(b["experiment"], b["point"]) for b in bound}, want)
        self.assertTrue(all(b["ratio"] >= 0.8 for b in bound))
        readme = summarize.host_readme(hostdir)
        self.assertIn("## Harness-bound points", readme)
        section = readme.split("## Harness-bound points")[1]
        for exp, pt in want:
            self.assertIn("| %s | %s |" % (exp, pt), section)
        self.assertIn("%d of %d points" % (len(want), measured), section)

    def test_summarize_says_none_is_bound(self):
        summarize = importlib.import_module("scripts.analysis.summarize")
        self.assertEqual(self.expected_bound("h"), set())
        readme = summarize.host_readme(os.path.join(self.results, "h"))
        section = readme.split("## Harness-bound points")[1]
        self.assertRegex(section, r"None \(of \d+ points with the harness's ceiling measured\)")
        readme = summarize.host_readme(os.path.join(self.results, "none"))
        self.assertIn("the harness's ceiling was not measured",
                      readme.split("## Harness-bound points")[1])
        self.assertIn("Not measured in these results.",
                      readme.split("## The harness's own ceiling")[1])

    def test_summarize_harness_ceiling_and_peers_by_item(self):
        summarize = importlib.import_module("scripts.analysis.summarize")
        hostdir = os.path.join(self.results, "h")
        rows = self.rows("h", "peers")
        one = [r for r in rows if r["producers"] == "1" and r["consumers"] == "1"]
        hc = summarize.harness_ceiling(hostdir)
        for item in ("inline", "message"):
            for b in ("0", "1"):
                want = _median_harness([r for r in one if r["item"] == item
                                        and r["bursts"] == b])
                self.assertAlmostEqual(hc["peers"][(item, b)], want)
        self.assertEqual(set(hc["f1-lookup-cost"]), {("inline", "0")})
        for item in ("inline", "message"):
            r = summarize.peers(hostdir, item)

            def paired(q, b):   # median over reps of numaring_k / q_k
                by = {}
                for x in one:
                    if x["item"] == item and x["bursts"] == b and x["queue"] in ("numaring", q):
                        by.setdefault(x["rep"], {})[x["queue"]] = float(x["throughput_ops_per_s"])
                return statistics.median(v["numaring"] / v[q] for v in by.values())
            self.assertAlmostEqual(r["b0_over_flat"], paired("flat", "0"))
            self.assertAlmostEqual(r["b1_over_rte"], paired("rte", "1"))
            self.assertLessEqual(r["b0_over_flat_lo"], r["b0_over_flat"])
            self.assertLessEqual(r["b0_over_flat"], r["b0_over_flat_hi"])
            self.assertEqual(r["sample"], "64")
        readme = summarize.host_readme(hostdir)
        self.assertIn("| peers | message |", readme)
        self.assertIn("peers (message items, the payload's line travels too, 1 in 64 timed)",
                      readme)


CEILING_VARIANTS = {
    "works": "def load_probe(path):\n    return {'path': path}\n"
             "def ceiling_ops_per_s(probe, row):\n"
             "    return 1e8 * int(row['producers'])\n",
    "none": "def load_probe(path):\n    return 1\n"
            "def ceiling_ops_per_s(probe, row):\n    return None\n",
    "raises": "def load_probe(path):\n    return 1\n"
              "def ceiling_ops_per_s(probe, row):\n    raise ValueError('no')\n",
    "bad_import": "raise RuntimeError('broken module')\n",
    "no_function": "def load_probe(path):\n    return 1\n",
    "probe_fails": "def load_probe(path):\n    raise OSError('cannot read the probe')\n"
                   "def ceiling_ops_per_s(probe, row):\n    return 1.0\n",
}


class Ceiling(unittest.TestCase):
    """scripts/analysis/ceiling.py is someone else's: missing, broken or None means no line."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-ceiling-")
        cls.results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(cls.results, "h", "real", (2, 4), reps=2,
                                   experiments=["f2-node-cache", "f5-ceiling"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def scripts_with(self, variant):
        """A copy of the scripts package with the given ceiling.py (or none):
        the folder that holds it (scripts/ under it)."""
        root = os.path.join(self.tmp, "variant-" + variant)
        d = os.path.join(root, "scripts")
        if not os.path.isdir(d):
            # the whole package but its tests, with the variant's ceiling.py
            shutil.copytree(SCRIPTS, d, ignore=shutil.ignore_patterns("tests", "__pycache__"))
            os.remove(os.path.join(d, "analysis", "ceiling.py"))
            if variant in CEILING_VARIANTS:
                with open(os.path.join(d, "analysis", "ceiling.py"), "w") as f:
                    f.write(CEILING_VARIANTS[variant])
        return root

    def prep(self, variant):
        """The copy's plot module, its package loaded under a name of its own
        (scripts_VARIANT: the real scripts package stays as it is)."""
        d = os.path.join(self.scripts_with(variant), "scripts")
        name = "scripts_" + variant
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(
                name, os.path.join(d, "__init__.py"), submodule_search_locations=[d])
            pkg = importlib.util.module_from_spec(spec)
            sys.modules[name] = pkg
            spec.loader.exec_module(pkg)
        mod = importlib.import_module(name + ".figures.plot")
        h = mod.Host(self.results, "h")
        h.load()
        return mod.prep_f2(h), mod.prep_f5(h)

    def test_model_draws_a_line(self):
        f2, f5 = self.prep("works")
        self.assertEqual(len(f2["ceiling"]), 1)
        self.assertEqual(f2["ceiling"][0]["points"], [(2, 1e8), (4, 2e8)])
        self.assertTrue(any("physical ceiling model" in t for t in said(f2)))
        self.assertTrue(f5["has_ceiling"])

    def test_not_available(self):
        for variant in ("missing", "none", "raises", "bad_import", "no_function",
                        "probe_fails"):
            with self.subTest(variant=variant):
                f2, f5 = self.prep(variant)
                self.assertEqual(f2["ceiling"], [])
                self.assertFalse(f5["has_ceiling"])
                self.assertTrue(any("ceiling: not available" in t for t in said(f2)),
                                f2["caption"])

    @slow
    def test_broken_module_still_draws(self):
        d = self.scripts_with("bad_import")
        plots = os.path.join(self.tmp, "plots-broken")
        r = run_plot("--results", self.results, "--plots", plots, root=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        check_png(self, os.path.join(plots, "h", "f2-node-cache.png"))
        check_png(self, os.path.join(plots, "h", "f5-ceiling.png"))
        self.assertIn("skipping f1-lookup-cost", r.stdout)


class BadInput(unittest.TestCase):
    """Bad CSVs: exit 2, one message naming the file, line and column, nothing written."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-bad-")
        cls.clean = os.path.join(cls.tmp, "clean")
        fakeresults.make_synthetic(cls.clean, "h", "emulated", (2, 4), reps=2,
                                   experiments=["f1-lookup-cost", "f2-node-cache", "f3-gate"])
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def fresh(self):
        Bad = type(self)
        Bad.n += 1
        d = os.path.join(self.tmp, "case%d" % Bad.n)
        shutil.copytree(self.clean, os.path.join(d, "results"))
        return os.path.join(d, "results"), os.path.join(d, "plots")

    def expect_error(self, results, plots, path, line, column, words=()):
        r = run_plot("--results", results, "--plots", plots, "--gnuplot")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        self.assertEqual(len(lines), 1, r.stderr)
        msg = lines[0]
        self.assertIn(path, msg)
        self.assertIn("line %d" % line, msg)
        self.assertIn("column %s" % column, msg)
        for w in words:
            self.assertIn(w, msg)
        self.assertEqual(all_files(plots) if os.path.exists(plots) else [], [],
                         "output written despite bad input")
        return msg

    def rewrite(self, path, fn):
        with open(path, newline="") as f:
            text = f.read()
        with open(path, "w", newline="") as f:
            f.write(fn(text))

    def test_missing_column(self):
        results, plots = self.fresh()
        path = os.path.join(results, "h", "f2-node-cache.csv")
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        i = rows[0].index("throughput_ops_per_s")
        with open(path, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows([r[:i] + r[i + 1:] for r in rows])
        self.expect_error(results, plots, path, 1, "throughput_ops_per_s", ["missing"])

    def test_bad_number(self):
        results, plots = self.fresh()
        path = os.path.join(results, "h", "f2-node-cache.csv")
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        i = rows[0].index("p99_ns")
        rows[4][i] = "12,5"  # a comma: still one CSV field, not a number
        with open(path, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
        self.expect_error(results, plots, path, 5, "p99_ns", ["'12,5' is not a number"])

    def test_empty_file(self):
        results, plots = self.fresh()
        path = os.path.join(results, "h", "f1-lookup-cost.csv")
        open(path, "w").close()
        self.expect_error(results, plots, path, 1, "experiment", ["empty file"])

    def test_truncated_file(self):
        results, plots = self.fresh()
        path = os.path.join(results, "h", "f2-node-cache.csv")
        with open(path, newline="") as f:
            text = f.read()
        nlines = text.count("\n")
        cut = text.rstrip("\n")
        cut = cut[:cut.rindex("\n") + 40]  # the last row, cut after 40 characters
        with open(path, "w", newline="") as f:
            f.write(cut)
        fields = len(next(csv.reader([cut.splitlines()[-1]])))
        msg = self.expect_error(results, plots, path, nlines, nrdata.TIDY_COLUMNS[fields],
                                ["truncated"])
        self.assertIn("%d of %d fields" % (fields, len(nrdata.TIDY_COLUMNS)), msg)

    def test_wrong_header(self):
        results, plots = self.fresh()
        path = os.path.join(results, "h", "f2-node-cache.csv")
        self.rewrite(path, lambda t: "exp" + t[len("experiment"):])
        self.expect_error(results, plots, path, 1, "exp", ["wrong header"])

    def test_wrong_experiment(self):
        results, plots = self.fresh()
        path = os.path.join(results, "h", "f1-lookup-cost.csv")
        self.rewrite(path, lambda t: t.replace("\nf1-lookup-cost,lookup-syscall,1,",
                                               "\nf2-node-cache,lookup-syscall,1,", 1))
        self.expect_error(results, plots, path, 4, "experiment", ["f2-node-cache"])

    def test_bad_latency_csv(self):
        results, plots = self.fresh()
        rows = nrdata.load_tidy(os.path.join(results, "h", "f3-gate.csv"))
        row = [r for r in rows if nrdata.threads(r) == 4 and r["gate"] == "shared"][0]
        path = nrdata.latency_path(results, "h", row)
        self.rewrite(path, lambda t: t.replace("\n", "\nfoo,0.0,1,1.00\n", 1))
        self.expect_error(results, plots, path, 2, "value_ns", ["not a number"])

    @slow
    def test_header_only_is_skipped_not_an_error(self):
        results, plots = self.fresh()
        path = os.path.join(results, "h", "f1-lookup-cost.csv")
        self.rewrite(path, lambda t: t.split("\n", 1)[0] + "\n")
        r = run_plot("--results", results, "--plots", plots, "--host", "h")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("no rows", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(plots, "h", "f1-lookup-cost.png")))
        check_png(self, os.path.join(plots, "h", "f2-node-cache.png"))

    def test_unknown_host(self):
        results, plots = self.fresh()
        r = run_plot("--results", results, "--plots", plots, "--host", "nosuch")
        self.assertEqual(r.returncode, 2)
        self.assertIn("nosuch", r.stderr)


@unittest.skipUnless(os.access(BENCH, os.X_OK), "build/numaring-bench is not built")
class RealBench(unittest.TestCase):
    """A few tiny real runs of numaring-bench, assembled as the runner would."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-bench-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.plots = os.path.join(cls.tmp, "plots")
        fakeresults.make_from_bench(cls.results, BENCH, "benchhost")
        cls.result = run_plot("--results", cls.results, "--plots", cls.plots)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_summary_columns_match_the_harness(self):
        path = glob.glob(os.path.join(self.results, "benchhost", "peers", "*", "rep-1",
                                      "summary.csv"))[0]
        with open(path, newline="") as f:
            header = next(csv.reader(f))
        self.assertEqual(header, nrdata.SUMMARY_COLUMNS)

    def test_committed_schema_is_the_binarys(self):
        """scripts/summary-schema.csv is what `numaring-bench --schema` prints
        (regenerate it with that command when harness/schema.h changes)."""
        out = subprocess.run([BENCH, "--schema"], capture_output=True, text=True, check=True)
        with open(nrdata.SCHEMA_PATH, encoding="utf-8") as f:
            self.assertEqual(f.read(), out.stdout,
                             "scripts/summary-schema.csv is stale: run "
                             "build/numaring-bench --schema > scripts/summary-schema.csv")

    def test_draws_real_runs(self):
        self.assertEqual(self.result.returncode, 0, self.result.stdout + self.result.stderr)
        for fig in ("f1-lookup-cost", "peers-throughput", "peers-latency", "peers-regimes"):
            check_png(self, os.path.join(where(os.path.join(self.plots, "benchhost"), fig),
                                         fig + ".png"))
            check_pdf(self, os.path.join(where(os.path.join(self.plots, "benchhost"), fig),
                                         fig + ".pdf"))
        self.assertIn("skipping f3-gate", self.result.stdout)

    def test_host_info_from_show_topology(self):
        info = nrdata.host_info(self.results, "benchhost")
        self.assertEqual(info["topology"], "emulated")
        self.assertNotEqual(info["cpu_model"], "unknown CPU")
        self.assertTrue(info["probe"].endswith("probe.csv"))


if __name__ == "__main__":
    unittest.main()
