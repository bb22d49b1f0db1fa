# SPDX-License-Identifier: BSD-2-Clause
"""The placement sweep (experiments/placement.exp, issue 31 item 3) and its
heatmap (scripts/figures/fig_placement.py, scripts/gnuplot/placement.gp).

    /usr/bin/python3 -m unittest scripts.tests.test_placement -v

* the experiment file: queue-mem is a sweep key passed as --queue-mem; each
  workload takes its own cross-node pins (prodcons nodes:P/C, pairs and
  mixed scatter) and pairs and mixed leave consumers' memory out (thread
  0's either way); the quick profile's subset and size, the smoke profile
  within make vm-experiments' budget; it needs two nodes (emulated on one);
* the figure, from a synthetic host (fakeresults.make_synthetic): every
  cell's number is the median of its runs in the CSV, the best peer of each
  placement the peer with the highest median there, numaring's ratio the
  median over the reps of numaring / that peer, p50/p99 only where every
  item crosses nodes; an emulated host's notes (the .dat header) say its
  memory was not placed, a real host's do not; the .dat's cells are the drawn ones and
  gnuplot draws it.
"""

import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

from scripts.analysis import results_readme, stats
from scripts.common import expfile
from scripts.figures import fig_gnuplot, fig_placement, plot
from scripts.runner import sizing
from scripts.tests import fakeresults, module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(TESTS))
EXP = os.path.join(ROOT, "experiments", "placement.exp")
GNUPLOT = shutil.which("gnuplot")


class ExperimentFile(unittest.TestCase):
    def setUp(self):
        self.exp = expfile.parse(EXP)

    def points(self, profile, nodes=2, ncpus=2):
        return expfile.points(self.exp, profile, ncpus, nodes)

    def test_queue_mem_is_an_axis_passed_to_the_harness(self):
        pts, _ = self.points("quick")
        mems = {p.opts["queue-mem"] for p in pts}
        self.assertEqual(mems, {"producers", "consumers", "interleave"})
        for p in pts:
            args = p.args()
            self.assertIn("--queue-mem", args)
            self.assertEqual(args[args.index("--queue-mem") + 1], p.opts["queue-mem"])

    def test_a_bad_queue_mem_names_its_line(self):
        with open(EXP) as f:
            text = f.read()
        bad = text.replace("queue-mem = producers, consumers, interleave",
                           "queue-mem = producers, nowhere")
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.parse(EXP, bad)
        self.assertRegex(str(cm.exception), r"placement\.exp:\d+: queue-mem: unknown value "
                                             r"'nowhere'")
        # node:N is a policy too
        ok = text.replace("queue-mem = producers, consumers, interleave",
                          "queue-mem = node:1, interleave")
        self.assertEqual(expfile.parse(EXP, ok).sweep["queue-mem"], ["node:1", "interleave"])

    def test_each_workload_takes_its_own_pins(self):
        for profile in ("quick", "full", "smoke"):
            pts, _ = self.points(profile, ncpus=32)
            for p in pts:
                wl, pin = p.opts["workload"], p.opts["pin"]
                if wl == "prodcons":
                    self.assertTrue(pin.startswith("nodes:"), (profile, p.id))
                else:
                    self.assertEqual(pin, "scatter", (profile, p.id))
                    # consumers' memory is thread 0's, as producers' is
                    self.assertNotEqual(p.opts["queue-mem"], "consumers", (profile, p.id))
            # mixed: exploratory, the full profile's alone
            self.assertEqual({p.opts["workload"] for p in pts},
                             {"prodcons", "pairs"} | ({"mixed"} if profile == "full" else set()))

    def test_the_quick_profile_is_the_stated_subset(self):
        pts, reps = self.points("quick")
        self.assertEqual({p.opts["queue"] for p in pts},
                         {"numaring", "flat", "rte", "scq", "moodycamel", "sharded"})
        self.assertEqual({p.opts["pin"] for p in pts}, {"nodes:0/0", "nodes:0/1", "scatter"})
        # 1P1C, and a node's cores (2 threads on two emulated nodes of one CPU each)
        self.assertEqual({expfile.point_threads(p.opts) for p in pts}, {2})
        # per queue: prodcons 2 pins x 3 memories, pairs 2 memories; numaring
        # and sharded place their rings themselves: one memory policy each
        self.assertEqual(len(pts), 4 * (6 + 2) + 2 * (2 + 1))
        self.assertEqual(reps, 3)
        self.assertEqual({(p.opts.get("producers"), p.opts.get("consumers")) for p in pts
                          if p.opts["workload"] == "prodcons"}, {("1", "1")})
        self.assertTrue(all(p.figures == ["placement"] and p.tier == "figure" for p in pts))

    def test_the_quick_profile_fits_its_stated_share(self):
        # figure-only points within the 2-CPU machine's 20 minutes: under 2 minutes
        row, = sizing.sizing([self.exp], "quick", 2, 2, 1)
        self.assertTrue(row["emulated"])
        self.assertEqual(row["nodes"], 2)
        self.assertLess(row["seconds"], 2 * 60)
        self.assertGreater(row["seconds"], 30)

    def test_the_full_profile_adds_queues_pins_and_threads(self):
        quick, _ = self.points("quick", ncpus=32)
        full, _ = self.points("full", ncpus=32)
        qq = {p.opts["queue"] for p in quick}
        fq = {p.opts["queue"] for p in full}
        self.assertLess(qq, fq)
        self.assertIn("nodes:1/0", {p.opts["pin"] for p in full})
        self.assertIn("nodes:1/1", {p.opts["pin"] for p in full})
        self.assertEqual(max(expfile.point_threads(p.opts) for p in full), 16)

    def test_smoke_is_tiny_and_needs_two_nodes(self):
        pts, reps = self.points("smoke", ncpus=16)
        self.assertLessEqual(len(pts) * reps, 80)
        self.assertEqual({p.opts["queue"] for p in pts}, {"numaring", "flat", "rte"})
        self.assertEqual({p.opts["pin"] for p in pts}, {"nodes:0/0", "nodes:0/1", "scatter"})
        for profile in ("quick", "full", "smoke"):
            self.assertTrue(sizing.needs_two_nodes(self.exp, profile), profile)


def synthetic(kind="emulated", reps=3):
    tmp = tempfile.mkdtemp(prefix="placement-")
    fakeresults.make_synthetic(os.path.join(tmp, "results"), kind=kind, reps=reps,
                               experiments=["placement"], oversub_above=2)
    return tmp


def csv_rows(tmp):
    with open(os.path.join(tmp, "results", "fakehost", "placement.csv")) as f:
        return [r for r in csv.DictReader(f) if r.get("role", "point") == "point"]


def prepared(tmp):
    h = plot.Host(os.path.join(tmp, "results"), "fakehost")
    h.load()
    return plot.prepare(h)["placement"]


class Figure(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = synthetic()
        cls.rows = csv_rows(cls.tmp)
        cls.p = prepared(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def cell_rows(self, workload, key, queue):
        t, pin, mem = key
        return [r for r in self.rows if r["workload"] == workload and r["pin"] == pin
                and r["queue_mem"] == mem and int(r["threads"]) == t and r["queue"] == queue]

    def test_a_panel_per_workload(self):
        self.assertEqual([pn["workload"] for pn in self.p["panels"]],
                         ["prodcons", "pairs", "mixed"])
        self.assertEqual(plot.grid_of("placement", self.p), (1, 3))
        # prodcons: 2 thread counts x 2 pins (x 3 memories, one configuration where
        # memory is not placed, as here: one row); pairs, mixed: 2 x 1 (x 2)
        self.assertEqual([len(pn["rows"]) for pn in self.p["panels"]], [4, 2, 2])

    def test_every_cell_is_the_median_of_its_runs(self):
        n = 0
        for pn in self.p["panels"]:
            for pr in pn["rows"]:
                for q, c in pr["cells"].items():
                    rs = self.cell_rows(pn["workload"], pr["key"], q)
                    self.assertEqual(len(rs), 3)
                    want = statistics.median(float(r["throughput_ops_per_s"]) for r in rs)
                    self.assertAlmostEqual(c["tput"].est, want, delta=want * 1e-9)
                    n += 1
        self.assertEqual(n, 5 * (4 + 2 + 2))

    def test_numaring_over_the_best_peer_per_placement(self):
        seen = set()
        for pn in self.p["panels"]:
            for pr in pn["rows"]:
                meds = {q: statistics.median(float(r["throughput_ops_per_s"]) for r in
                                             self.cell_rows(pn["workload"], pr["key"], q))
                        for q in pr["cells"]}
                best = max((q for q in meds if q != "numaring"), key=meds.get)
                self.assertEqual(pr["best"], best)
                nr = {r["rep"]: float(r["throughput_ops_per_s"]) for r in
                      self.cell_rows(pn["workload"], pr["key"], "numaring")}
                bp = {r["rep"]: float(r["throughput_ops_per_s"]) for r in
                      self.cell_rows(pn["workload"], pr["key"], best)}
                want = statistics.median(nr[k] / bp[k] for k in nr)
                self.assertAlmostEqual(pr["ratio"].est, want, places=9)
                seen.add((best, want > 1))
        # the model: rte is the best peer everywhere; numaring behind it on
        # one node, ahead across nodes
        self.assertEqual(seen, {("rte", False), ("rte", True)})

    def test_latency_only_where_items_cross(self):
        crossing = 0
        for pn in self.p["panels"]:
            for pr in pn["rows"]:
                for q, c in pr["cells"].items():
                    crosses = pn["workload"] == "prodcons" and pr["key"][1] == "nodes:0/1"
                    self.assertEqual(c["crosses"], crosses)
                    self.assertEqual(c["p99"] is not None, crosses)
                    if crosses:
                        crossing += 1
                        rs = self.cell_rows(pn["workload"], pr["key"], q)
                        self.assertAlmostEqual(c["p99"].est, statistics.median(
                            float(r["p99_ns"]) for r in rs))
        self.assertEqual(crossing, 5 * 2)

    def test_the_caption_says_emulated_and_not_placed(self):
        text = " ".join(t for t, _e in self.p["caption"])
        self.assertIn("EMULATED nodes", text)
        # the caption's one line of what is drawn; not placed: in the notes (the .dat header)
        self.assertNotIn("not placed", text)
        notes = " ".join(self.p["notes"])
        self.assertIn("emulated, not placed", notes)
        self.assertIn("memory policies are one configuration", notes)
        self.assertTrue(any(ln.startswith("# ") and "one configuration" in ln
                            for ln in plot.dat_text("placement", self.p)))
        # the 4-thread cells (oversub_above=2): 5 queues x (2 prodcons + 1 pairs + 1 mixed)
        self.assertIn("20 oversubscribed points (the run's threads", text)
        self.assertTrue(self.p["not_placed"])

    def test_a_real_host_is_placed(self):
        tmp = synthetic(kind="real")
        try:
            p = prepared(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        text = " ".join([t for t, _e in p["caption"]] + p["notes"])
        self.assertNotIn("not placed", text)
        self.assertNotIn("EMULATED", text)
        self.assertFalse(p["not_placed"])

    def test_the_data_file_holds_the_drawn_cells(self):
        lines = plot.dat_text("placement", self.p)
        blocks = "\n".join(lines).split("\n\n\n")
        cells = [b for b in blocks if b.startswith('"cells"')][0].splitlines()
        cols = [ln for ln in cells if ln.startswith("# columns:")][0].split()[2:]
        self.assertEqual(cols, fig_placement.CELL_COLUMNS)
        data = [dict(zip(cols, ln.split())) for ln in cells
                if not ln.startswith("#") and not ln.startswith('"')]
        self.assertEqual(len(data), 5 * (4 + 2 + 2))
        for d in data:
            pn = self.p["panels"][int(d["panel"])]
            pr = pn["rows"][int(d["row"])]
            c = pr["cells"][d["queue"]]
            self.assertEqual(pn["queues"][int(d["col"])], d["queue"])
            self.assertAlmostEqual(float(d["median_ops_per_s"]), c["tput"].est,
                                   delta=c["tput"].est * 1e-5)
        rows = [b for b in blocks if b.startswith('"rows"')][0].splitlines()
        ratios = [ln.split() for ln in rows if not ln.startswith("#") and not ln.startswith('"')]
        self.assertEqual(len(ratios), 4 + 2 + 2)
        for f in ratios:
            pr = self.p["panels"][int(f[0])]["rows"][int(f[1])]
            self.assertAlmostEqual(float(f[3]), pr["ratio"].est, delta=pr["ratio"].est * 1e-5)
            self.assertEqual(f[6], pr["best"])
            self.assertNotIn(" ", f[2])

    def test_the_results_readme_prints_the_figures_ratios(self):
        hostdir = os.path.join(self.tmp, "results", "fakehost")
        lines = results_readme.placement_section(hostdir)
        table = [ln.split(" | ") for ln in lines if ln.startswith("| prodcons")
                 or ln.startswith("| pairs") or ln.startswith("| mixed")]
        drawn = [(pn["workload"], pr) for pn in self.p["panels"] for pr in pn["rows"]]
        self.assertEqual(len(table), len(drawn))
        for cols, (wl, pr) in zip(table, drawn):
            self.assertEqual(cols[0], "| " + wl)
            self.assertEqual(cols[2:4], [pr["key"][1], pr["key"][2]])
            self.assertEqual(cols[4], pr["best"])
            self.assertEqual(cols[7], stats.fmt(pr["ratio"]) + "x |")
        self.assertTrue(any("not placed" in ln for ln in lines))
        # a host without the sweep has no section
        self.assertEqual(results_readme.placement_section(os.path.join(self.tmp, "none")), [])

    @unittest.skipUnless(GNUPLOT, "gnuplot not installed")
    def test_gnuplot_draws_it(self):
        out = os.path.join(self.tmp, "gp")
        err = fig_gnuplot.run_gnuplot(GNUPLOT, "placement", self.p, out,
                                      plot.dat_text("placement", self.p))
        self.assertIsNone(err)
        png = os.path.join(out, "gnuplot", "placement.png")
        self.assertGreater(os.path.getsize(png), 10000)

    @slow
    @unittest.skipUnless(GNUPLOT, "gnuplot not installed")
    def test_matplotlib_and_gnuplot_draw_it(self):
        plots = os.path.join(self.tmp, "plots")
        r = subprocess.run(module("figures.plot") + ["--results", os.path.join(
            self.tmp, "results"), "--plots", plots, "--gnuplot"], cwd=ROOT,
            capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertNotIn("undefined", r.stderr)
        for path in ("placement.png", "placement.pdf", os.path.join("gnuplot", "placement.png"),
                     os.path.join("data", "placement.dat")):
            full = os.path.join(plots, "fakehost", path)
            self.assertTrue(os.path.isfile(full) and os.path.getsize(full) > 1000, path)
        self.assertRegex(r.stdout, re.compile(r"gnuplot drew 1 figures"))


if __name__ == "__main__":
    sys.exit(unittest.main())
