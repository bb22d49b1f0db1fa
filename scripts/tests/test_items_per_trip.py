# SPDX-License-Identifier: BSD-2-Clause
"""Items per line trip (issue 31 item 7): a cross-node result divided by the
probe's one-way line trip between nodes, so that two hosts' results compare.

    /usr/bin/python3 -m unittest scripts.tests.test_items_per_trip -v

Synthetic hosts (tests/fakeresults.py): F3 and F5 on two emulated nodes with
producers and consumers apart (pin split) and the peers with their split
points, against a probe whose c2c_one_way_other_node is 170 ns. Every value
is recomputed from the tidy CSV's throughput and the probe's row: the
derivation (nrdata.items_per_trip), the results README's table, and the
second axis of the F5 and F3 throughput panels.
"""

import csv
import os
import shutil
import statistics
import tempfile
import unittest

from scripts.analysis import findings, nrdata, summarize
from scripts.tests import fakeresults

#: the fixture probe's c2c_one_way_other_node (fakeresults.write_env)
TRIP_NS = 170.0


class ItemsPerTrip(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-trip-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.cross = fakeresults.make_synthetic(
            cls.results, "cross-emulated-2node-0_1", "emulated", (2, 4), reps=3, seed=31,
            experiments=["f3-gate", "f5-ceiling", "peers"], nodes=2, f3_loads=(0.5,),
            f5_realized=0.9, f5_closed=True, f5_pin="split", peers_field=True,
            peers_paces=("free",), items=("inline",), latency_files=False)
        cls.one = fakeresults.make_synthetic(
            cls.results, "one", "real", (2,), reps=3, seed=32, nodes=1,
            experiments=["f5-ceiling", "peers"], latency_files=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rows(self, hd, exp):
        with open(os.path.join(hd, exp + ".csv"), newline="") as f:
            return list(csv.DictReader(f))

    def test_the_derivation(self):
        self.assertEqual(nrdata.probe_trip_ns(self.cross), TRIP_NS)
        self.assertIsNone(nrdata.probe_trip_ns(os.path.join(self.tmp, "nowhere")))
        seen = 0
        for exp in ("f3-gate", "f5-ceiling", "peers"):
            for r in self.rows(self.cross, exp):
                got = nrdata.items_per_trip(r, TRIP_NS)
                if r["pin"] == "split":
                    seen += 1
                    self.assertAlmostEqual(got, float(r["throughput_ops_per_s"]) * TRIP_NS * 1e-9)
                else:   # compact, scatter: not every item crosses
                    self.assertIsNone(got)
                self.assertIsNone(nrdata.items_per_trip(r, None))
        self.assertGreater(seen, 0)
        # one node: nothing crosses, whatever the pin says
        r = dict(self.rows(self.cross, "f5-ceiling")[0], nodes="1")
        self.assertIsNone(nrdata.items_per_trip(r, TRIP_NS))

    def test_readme_states_every_cross_node_point(self):
        text = summarize.host_readme(self.cross)
        self.assertIn("## Items per line trip (cross-node runs)", text)
        section = text.split("## Items per line trip (cross-node runs)", 1)[1].split("\n## ")[0]
        self.assertIn("`probe/probe.csv c2c_one_way_other_node`, 170.0 ns here", section)
        lines = [x for x in section.splitlines() if x.startswith("| ") and "---" not in x][1:]
        want = 0
        for exp in ("f3-gate", "f5-ceiling", "peers"):
            pts = findings.points([r for r in findings.load(os.path.join(self.cross,
                                                                          exp + ".csv"))
                                   if r["pin"] == "split"])
            for (_prof, pid), rs in pts.items():
                v = [float(r["throughput_ops_per_s"]) * TRIP_NS * 1e-9 for r in rs]
                cells = (f"| {exp} | {pid} | ")
                line = next(x for x in lines if x.startswith(cells))
                self.assertTrue(line.endswith(
                    f"| {len(rs)} | "
                    f"{statistics.median(float(r['throughput_ops_per_s']) for r in rs) / 1e6:.2f} "
                    f"| {statistics.median(v):#.3g} [{min(v):#.3g}..{max(v):#.3g}] |"), line)
                want += 1
        self.assertEqual(len(lines), want)
        self.assertTrue(any(x.startswith("| peers | ") for x in lines))
        self.assertNotIn("Items per line trip", summarize.host_readme(self.one))

    def test_throughput_panels_carry_the_second_axis(self):
        from scripts.figures import fig_draw, fig_f3, fig_f5, plot
        fig_draw.init_matplotlib()
        h = plot.Host(self.results, os.path.basename(self.cross))
        h.load()
        prep = plot.prepare(h)
        # the throughput panels: F5's closed-loop capacity (main) and open loop
        # (supplement), F3's throughput against the offered rate (its supplement;
        # the main F3 draws latency only)
        p5, p5o, p3 = (prep["f5-ceiling"], prep["f5-ceiling-open-loop"],
                       prep["f3-gate-load-diagnostics"])
        self.assertEqual((p5["trip_ns"], p5o["trip_ns"], p3["trip_ns"]),
                         (TRIP_NS, TRIP_NS, TRIP_NS))
        for draw, p, n in ((fig_f5.draw, p5, 2), (fig_f5.draw_open, p5o, 2),
                           (fig_f3.draw_f3_load, p3, 6)):
            fig, axes = fig_draw.plt.subplots(1, n)
            draw(list(axes.flat), p)
            secs = [c for ax in axes.flat for c in ax.child_axes
                    if c.get_gid() == "items-per-trip"]
            self.assertEqual(len(secs), 1)
            for sec in secs:
                self.assertIn("170.0 ns", sec.get_ylabel())
                # 10 M items/s on the first axis is 10e6 x 170e-9 = 1.7 items per trip
                self.assertAlmostEqual(sec._functions[0](10.0), 1.7)
            fig_draw.plt.close(fig)
        # F5 on one node (pin compact in the fixture): no second axis
        o = plot.Host(self.results, "one")
        o.load()
        self.assertIsNone(plot.prepare(o)["f5-ceiling"]["trip_ns"])
        self.assertIsNone(plot.prepare(o)["f5-ceiling-open-loop"]["trip_ns"])


if __name__ == "__main__":
    unittest.main()
