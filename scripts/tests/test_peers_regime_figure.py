# SPDX-License-Identifier: BSD-2-Clause
"""The peers figures by regime (peers-regimes, the supplement's; peers-latency) (scripts/common/regime.py), with one thread count and
several, free and paced runs.

    /usr/bin/python3 -m unittest scripts.tests.test_peers_regime_figure -v

Synthetic hosts (tests/fakeresults.py, peers_paces=): 'free' (the committed
shape: no pace, each run near empty or full by chance), 'paced' (peers.exp's
pace = free, producer, consumer) at one thread count, 'many' paced at three.
Checks that no median pools runs of two (pace, regime) groups, that each
group is drawn apart (marker shape per regime, hollow where paced), that one
thread count puts the queues on x with each queue's ceiling a short bar over
its slot, that faa is in no message panel and ck in no burst panel, that
peers-latency says it is closed-loop latency set by the queue's occupancy,
and that gnuplot draws every shape from the same data file.
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
from scripts.figures import fig_common
from scripts.analysis import nrdata
from scripts.figures import plot
from scripts.common import regime
from scripts.tests import ROOT, module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)


GNUPLOT = shutil.which("gnuplot")


def have_matplotlib():
    try:
        importlib.import_module("matplotlib")
        return True
    except ImportError:
        return False


def key(r):
    return (r["item"] or "inline", int(r["bursts"]), r["queue"], nrdata.threads(r),
            regime.group_of(r))


class PeersRegimes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-peersregime-")
        cls.results = os.path.join(cls.tmp, "results")
        mk = fakeresults.make_synthetic
        mk(cls.results, "free", "real", (2,), reps=5, seed=21, experiments=["peers"],
           peers_paces=("free",))
        mk(cls.results, "paced", "real", (2,), reps=4, seed=22, experiments=["peers"],
           peers_paces=("free", "producer", "consumer"), peers_workloads=("prodcons", "pairs"))
        mk(cls.results, "many", "real", (2, 4, 8), reps=3, seed=23, experiments=["peers"],
           peers_paces=("free", "producer", "consumer"), items=("inline",))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def host(self, name):
        h = plot.Host(self.results, name)
        h.load()
        return h

    def rows(self, name):
        return [r for r in nrdata.load_tidy(os.path.join(self.results, name, "peers.csv"))
                if (r.get("workload") or "prodcons") == "prodcons"]

    def drawn(self, name, fig="peers-regimes"):
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        plot.init_matplotlib()
        p = (plot.prep_peers_regimes if fig == "peers-regimes" else plot.prep_peers_latency)(
            self.host(name))
        nrows, ncols = plot.grid_of(fig, p)
        w, hgt = plot.figure_size(ncols)
        fig_, axes = plot.plt.subplots(nrows, ncols, figsize=(w, hgt * nrows ** 0.9),
                                       layout="constrained", squeeze=False)
        plot.DRAW[p["kind"]](list(axes.flat), p)
        fig_.canvas.draw()
        self.addCleanup(plot.plt.close, fig_)
        return p, list(axes.flat)

    # ---- the fixture is what the tests need ---------------------------------------

    def test_the_hosts_hold_the_regimes(self):
        groups = {n: {regime.group_of(r) for r in self.rows(n)} for n in ("free", "paced")}
        self.assertEqual(groups["free"], {("free", "near-empty"), ("free", "full")})
        self.assertEqual(groups["paced"], {("free", "near-empty"), ("free", "full"),
                                           ("producer-paced", "near-empty"),
                                           ("consumer-paced", "full")})

    # ---- no median pools two regimes ------------------------------------------------

    def test_each_group_apart(self):
        for name in ("free", "paced", "many"):
            rows = self.rows(name)
            want = {}
            for r in rows:
                want.setdefault(key(r), []).append(float(r["throughput_ops_per_s"]))
            p = plot.prep_peers_regimes(self.host(name))
            with self.subTest(host=name):
                seen = 0
                for pn in p["panels"]:
                    for (q, g), pts in pn["series"].items():
                        for pt in pts:
                            vals = want[(pn["item"], pn["bursts"], q, pt[0], g)]
                            self.assertAlmostEqual(pt[1], statistics.median(vals))
                            self.assertEqual(pt[4], len(vals))
                            self.assertLessEqual(pt[2], pt[1])
                            self.assertLessEqual(pt[1], pt[3])
                            seen += 1
                self.assertEqual(seen, len([k for k in want if fig_common.runs_in(
                    k[2], k[0], k[1])]))

    def test_faa_has_no_message_panel_and_ck_no_burst_panel(self):
        for name in ("free", "paced"):
            p = plot.prep_peers_regimes(self.host(name))
            lat = plot.prep_peers_latency(self.host(name))
            dat = plot.dat_text("peers-regimes", p)
            with self.subTest(host=name):
                for pn in p["panels"]:
                    qs = {q for q, _g in pn["series"]}
                    self.assertEqual("faa" in qs, pn["item"] == "inline")
                    self.assertEqual("ck" in qs, pn["bursts"] == 0)
                for pn in lat["panels"]:
                    self.assertNotIn("faa", pn["queues"])        # no latency recorded
                    self.assertEqual("ck" in pn["queues"], pn["bursts"] == 0)
                # the data file: the same
                cols = [x for x in dat if x.startswith("# columns: panel message bursts")]
                cols = cols[0].split(":", 1)[1].split()
                body = "\n".join(dat).split('\n"prodcons"\n')[1].split("\n\n\n")[0]
                for ln in body.splitlines():
                    if not ln.strip() or ln.startswith("#"):
                        continue
                    f = dict(zip(cols, ln.split()))
                    self.assertFalse(f["queue"] == "faa" and f["message"] == "1", ln)
                    self.assertFalse(f["queue"] == "ck" and f["bursts"] == "1", ln)
                said = " ".join(t for t, _e in p["caption"])
                self.assertIn("faa not in the message panels (no message mode)", said)
                self.assertIn("ck not in the burst panels (no bursts)", said)

    # ---- drawn ----------------------------------------------------------------------

    def test_one_thread_count_puts_the_queues_on_x(self):
        p, axes = self.drawn("paced")
        self.assertTrue(p["categorical"])
        for ax, pn in zip(axes, p["panels"]):
            with self.subTest(panel=pn["name"]):
                self.assertEqual([t.get_text() for t in ax.get_xticklabels()], pn["queues"])
                self.assertEqual(ax.get_xlabel(), "queue")
                dots = [ln for ln in ax.lines if (ln.get_gid() or "").startswith("peers-")
                        and ln.get_gid() not in ("peers-ceiling", "peers-n")
                        and ln.get_marker() not in ("None", "", "_", "|")]
                self.assertEqual(len(dots), sum(len(v) for v in pn["series"].values()))
                for ln in dots:
                    _p, q, label = ln.get_gid().split("-", 2)
                    g = [g for g in pn["groups"] if fig_common.group_label(g) == label][0]
                    # shape per regime, hollow where paced, at the queue's slot
                    self.assertEqual(ln.get_marker(), fig_common.REGIME_MARKER[g[1]])
                    self.assertEqual(ln.get_markerfacecolor() == "white", g[0] != "free")
                    x = float(ln.get_xdata()[0])
                    self.assertLess(abs(x - pn["queues"].index(q)), 0.3)
                    self.assertAlmostEqual(float(ln.get_ydata()[0]) * 1e6,
                                           pn["series"][(q, g)][0][1])
                # the ceiling: a short black bar over each queue's slot
                bars = [ln for ln in ax.lines if ln.get_gid() == "peers-ceiling"]
                want = {q for q in pn["queues"] if pn["ceiling"].get(q)}
                self.assertEqual(len(bars), len(want))
                for ln in bars:
                    x0, x1 = ln.get_xdata()
                    self.assertLess(x1 - x0, 1.0)
                    q = pn["queues"][round((x0 + x1) / 2)]
                    self.assertAlmostEqual(ln.get_ydata()[0] * 1e6,
                                           next(iter(pn["ceiling"][q].values())))
                # n beside every dot: the runs split into groups
                self.assertEqual(len([t for t in ax.texts if t.get_gid() == "peers-n"]),
                                 len(dots))

    def test_several_thread_counts_draw_a_line_per_queue_and_group(self):
        p, axes = self.drawn("many")
        self.assertFalse(p["categorical"])
        for ax, pn in zip(axes, p["panels"]):
            lines = [ln for ln in ax.lines if len(ln.get_xdata()) == 3
                     and ln.get_marker() not in ("None", "", "_", "|")]
            with self.subTest(panel=pn["name"]):
                self.assertEqual(len(lines), len(pn["series"]))
                styles = {ln.get_linestyle() for ln in lines}
                self.assertEqual(styles, {"-", "--", ":"})   # free, producer-, consumer-paced

    def test_the_latency_figure_says_closed_loop_and_occupancy(self):
        p, axes = self.drawn("paced", "peers-latency")
        self.assertIn("closed-loop latency", p["title"])
        self.assertIn("set by how full the queue runs", p["title"])
        for ax, pn in zip(axes, p["panels"]):
            with self.subTest(panel=pn["name"]):
                self.assertIn("closed-loop latency", ax.get_ylabel())
                self.assertIn("occupancy", ax.get_ylabel())
                self.assertEqual({m["group"] for m in pn["marks"]}, set(pn["groups"]))
                rows = [r for r in self.rows("paced") if (r["item"] or "inline") == pn["item"]
                        and int(r["bursts"]) == pn["bursts"]]
                for m in pn["marks"]:
                    vals = [float(r["p50_ns"]) for r in rows if r["queue"] == m["queue"]
                            and regime.group_of(r) == m["group"]]
                    self.assertAlmostEqual(m["p50"].est, statistics.median(vals))
        with open(os.path.join(SCRIPTS, "gnuplot", "peers-latency.gp")) as f:
            gp = f.read()
        self.assertIn("closed-loop latency", gp)
        self.assertIn("occupancy", gp)

    @slow
    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_draws_every_shape(self):
        plots = os.path.join(self.tmp, "plots")
        py = sys.executable if have_matplotlib() else "/usr/bin/python3"
        r = subprocess.run(module("figures.plot", py) + ["--results", self.results,
                                                 "--plots", plots, "--gnuplot"],
                           capture_output=True, text=True, timeout=600, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for host in ("free", "paced", "many"):
            for fig in ("peers-throughput", "peers-regimes", "peers-latency"):
                with self.subTest(host=host, figure=fig):
                    # the supplement's figures are in the host's supplement/
                    where = plot.figure_dir(os.path.join(plots, host), fig)
                    png = os.path.join(where, "gnuplot", fig + ".png")
                    self.assertTrue(os.path.isfile(png))
                    self.assertGreater(os.path.getsize(png), 20000)
                    out = os.path.join(self.tmp, "%s-%s.png" % (host, fig))
                    g = subprocess.run([GNUPLOT, "-e", "datafile='%s'; outfile='%s'" % (
                        os.path.join(where, "data", fig + ".dat"), out),
                        os.path.join(SCRIPTS, "gnuplot", fig + ".gp")],
                        capture_output=True, text=True, timeout=120)
                    self.assertEqual(g.returncode, 0, g.stderr)
                    # nothing but gnuplot's note that a filtered plot element is empty
                    said = [x for x in g.stderr.splitlines() if x.strip()
                            and "No valid data points" not in x]
                    self.assertEqual(said, [], g.stderr)


if __name__ == "__main__":
    unittest.main()
