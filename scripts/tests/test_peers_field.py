# SPDX-License-Identifier: BSD-2-Clause
"""The peers as the field runs them (issue 31 item 4): peers.exp's workloads
prodcons, pairs and mixed, work 0 and a 50-150 ns delay on every thread,
compact and, on two nodes, split (prodcons) and scatter (pairs, mixed).

    /usr/bin/python3 -m unittest scripts.tests.test_peers_field -v

Synthetic hosts (tests/fakeresults.py, peers_field=): the same host with and
without the field's points. The claims, the results README's peers rows and
the figures read the sweep's named configuration (work 0, compact) alone, so
adding the field's points changes none of them; the README's section on the
field's points holds each configuration's numbers, recomputed here from the
rows; the figures draw with mixed present (peers-regimes: a row of its own,
the other configurations counted in the caption; peers-throughput: a panel of
its own), and peers-throughput, the main figure, draws a panel per workload of
the named configuration, its queues grouped by the order they keep, the queues
that take no inline items from their message runs, marked.
"""

import os
import shutil
import statistics
import tempfile
import unittest

from scripts.analysis import ceiling_tightness, claims, findings, nrdata, summarize
from scripts.tests import fakeresults, slow

PACES = ("free", "producer", "consumer")


def synthetic(results, host, field, nodes=2):
    return fakeresults.make_synthetic(
        results, host, "real", (2,), reps=3, seed=21, experiments=["peers"], nodes=nodes,
        peers_workloads=("prodcons", "pairs"), peers_paces=PACES, oversub_above=2,
        peers_field=field, latency_files=False)


def plain(v):
    """A result with its intervals as plain tuples (comparable)."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


class PeersField(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-peersfield-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.before = synthetic(cls.results, "before", False)
        cls.field = synthetic(cls.results, "field", True)
        cls.one = synthetic(cls.results, "onenode", True, nodes=1)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rows(self, hd):
        return findings.load(os.path.join(hd, "peers.csv"))

    def test_the_fixture_holds_the_field_design(self):
        got = findings.peers_configs(self.field)
        self.assertEqual(got, [("prodcons", "0", "compact"), ("prodcons", "0", "split"),
                               ("prodcons", "50-150", "compact"), ("pairs", "0", "compact"),
                               ("pairs", "0", "scatter"), ("pairs", "50-150", "compact"),
                               ("mixed", "0", "compact"), ("mixed", "0", "scatter"),
                               ("mixed", "50-150", "compact")])
        self.assertEqual(findings.peers_configs(self.before),
                         [("prodcons", "0", "compact"), ("pairs", "0", "compact")])
        self.assertNotIn("split", {c[2] for c in findings.peers_configs(self.one)})

    def test_claims_and_findings_read_the_named_configuration(self):
        for item in ("inline", "message"):
            with self.subTest(item=item):
                self.assertEqual(plain(findings.peers(self.field, item)),
                                 plain(findings.peers(self.before, item)))
                self.assertEqual(plain(findings.peers_pairs(self.field, item)),
                                 plain(findings.peers_pairs(self.before, item)))
        self.assertEqual(plain(findings.pace(self.field)), plain(findings.pace(self.before)))
        self.assertEqual(plain(ceiling_tightness.tightness(self.field)),
                         plain(ceiling_tightness.tightness(self.before)))
        got = {r["claim"]: (r["status"], r["value"]) for r in claims.report(self.field)
               if r["claim"].startswith("ring.peers") or r["claim"] == "F5.model-tight"}
        want = {r["claim"]: (r["status"], r["value"]) for r in claims.report(self.before)
                if r["claim"] in got}
        self.assertEqual(len(got), 3)
        self.assertEqual(got, want)

    def test_other_configurations_by_name(self):
        """findings.peers and peers_pairs at another work level, pin or workload
        read exactly those rows: numaring's median recomputed from them."""
        rows = self.rows(self.field)
        r = findings.peers(self.field, "inline", "50-150", "compact")
        self.assertEqual((r["work"], r["pin"]), ("50-150", "compact"))
        ring = [float(x["throughput_ops_per_s"]) for x in rows
                if x["queue"] == "numaring" and x.get("work_min_ns") == "50"
                and x.get("workload") == "prodcons" and x["bursts"] == "0"
                and x["pin"] == "compact"]
        self.assertEqual(len(ring), 3 * len(PACES))
        grp = [g for g in r["b0_groups"].values() if "numaring" in g]
        self.assertEqual(sum(g["numaring"]["runs"] for g in grp), len(ring))
        self.assertIsNotNone(findings.peers(self.field, "inline", "0", "split"))
        self.assertIsNone(findings.peers(self.one, "inline", "0", "split"))
        for wl, work, pin in (("mixed", "0", "compact"), ("mixed", "50-150", "compact"),
                              ("pairs", "0", "scatter")):
            with self.subTest(workload=wl, work=work, pin=pin):
                res = findings.peers_pairs(self.field, "inline", wl, work, pin)
                self.assertEqual([d["threads"] for d in res], [2])
                want = statistics.median(
                    float(x["throughput_ops_per_s"]) for x in rows
                    if x["queue"] == "numaring" and x.get("workload") == wl
                    and nrdata.work_label(x) == work and x["pin"] == pin
                    and x["bursts"] == "0")
                self.assertAlmostEqual(res[0]["queues"]["numaring"]["mops"], want / 1e6)

    def test_readme_section_on_the_field_points(self):
        before = summarize.host_readme(self.before)
        field = summarize.host_readme(self.field)
        self.assertNotIn("## The peers as the field runs them", before)
        self.assertIn("## The peers as the field runs them", field)
        # the finding table's peers rows and the pairs section read the named
        # configuration: the same lines with and without the field's points
        self.assertEqual([x for x in before.splitlines() if x.startswith("| peers (")],
                         [x for x in field.splitlines() if x.startswith("| peers (")])
        pairs = "## The peers under enqueue-dequeue pairs"

        def pairs_rows(text):
            return [x for x in text.split(pairs)[1].split("\n## ")[0].splitlines()
                    if x.startswith("| pairs |")]
        self.assertTrue(pairs_rows(before))
        self.assertEqual(pairs_rows(before), pairs_rows(field))
        # the field's host ran mixed too: its rows follow, each queue's order stated
        self.assertIn("| mixed | 2 | flat | fifo |", field.split(pairs)[1])
        section = field.split("## The peers as the field runs them", 1)[1].split("\n## ")[0]
        for cells in ("| 50-150 | compact | single at 2 threads", "| 0 | split | bursts at 2",
                      "| mixed | 0 | compact | 2", "| mixed | 50-150 | compact | 2",
                      "| pairs | 0 | scatter | 2", "| pairs | 50-150 | compact | 2"):
            self.assertIn(cells, section)
        self.assertNotIn("| pairs | 0 | compact |", section)  # the pairs section's
        mixed = findings.peers_pairs(self.field, "inline", "mixed")[0]["queues"]["flat"]
        self.assertIn("| mixed | 0 | compact | 2 | flat | %.1f |" % mixed["mops"], section)


    def test_figures_draw_the_named_configuration_with_mixed_beside_pairs(self):
        """peers-regimes (the supplement's): the item panels hold prodcons rows at
        work 0 and pin compact alone, a row of pairs and one of mixed (its own
        panels in the .dat's pairs block: 2, 3); the caption counts what it
        leaves out; peers-latency likewise; their data (the drawing: the next
        test, in make test-slow)."""
        from scripts.figures import plot
        h = plot.Host(self.results, "field")
        h.load()
        prep = plot.prepare(h)
        p = prep["peers-regimes"]
        named = [r for r in h.data["peers"] if nrdata.peers_named(r)]
        other = len(h.data["peers"]) - len(named)
        self.assertGreater(other, 0)
        for pn in p["panels"]:
            self.assertTrue(pn["rows"])
            self.assertTrue(all(nrdata.peers_named(r) and not r.get("threads")
                                for r in pn["rows"]))
        self.assertEqual([(pn["workload"], pn["bursts"]) for pn in p["pairs"]],
                         [("pairs", 0), ("pairs", 1), ("mixed", 0), ("mixed", 1)])
        for pn in p["pairs"]:
            self.assertEqual({r["workload"] for r in pn["rows"]}, {pn["workload"]})
            self.assertTrue(all(nrdata.peers_named(r) for r in pn["rows"]))
        self.assertEqual(p["grid"], (2 + 2, 2))
        self.assertIn("(%d runs at other work or pins" % other, p["drawn"])
        self.assertIn("under pairs and mixed", p["title"])
        dat = "\n".join(plot.dat_text("peers-regimes", p))
        block = dat.split('"pairs (every thread enqueues, then dequeues)"', 1)[1]
        panels = {ln.split()[0] for ln in block.splitlines() if ln and ln[0].isdigit()}
        self.assertEqual(panels, {"0", "1", "2", "3"})
        # the host before the field's points: the same figure, no mixed row
        b = plot.Host(self.results, "before")
        b.load()
        pb = plot.prepare(b)["peers-regimes"]
        self.assertEqual(pb["grid"], (2 + 1, 2))
        def runs(prep):
            return [[(r["point"], r["rep"], r["throughput_ops_per_s"]) for r in pn["rows"]]
                    for pn in prep["panels"]]
        self.assertEqual(runs(pb), runs(p))
        lat = prep["peers-latency"]
        self.assertTrue(all(nrdata.peers_named(r) for r in lat["rows"]))
        self.assertIn("under pairs and mixed are in peers-throughput",
                      " ".join(lat.get("notes") or []))

    @slow
    def test_the_figures_with_mixed_beside_pairs_draw(self):
        """The three figures of the field's host draw (matplotlib) and write
        their .png."""
        from scripts.figures import plot
        h = plot.Host(self.results, "field")
        h.load()
        prep = plot.prepare(h)
        out = os.path.join(self.tmp, "plots")
        for name in ("peers-throughput", "peers-regimes", "peers-latency"):
            plot.draw_one(name, prep[name], out)
            self.assertTrue(os.path.getsize(os.path.join(out, name + ".png")) > 0)


class PeersMainFigure(unittest.TestCase):
    """peers-throughput, the main figure: where NumaRing stands against the
    field's queues, a panel per workload at the named configuration, single
    operations, prodcons at its free pace; the queues grouped strict FIFO |
    relaxed | floors by the manifest's ordering, the harness alone a slot of its
    own; a queue that takes no inline items drawn from its message runs, hollow."""

    MSG = ("xenium-ramalhete", "xenium-kfifo")

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-peersmain-")
        cls.results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(
            cls.results, "quick", "real", (2, 4), reps=3, seed=31, experiments=["peers"],
            nodes=1, peers_workloads=("prodcons", "pairs"), peers_paces=PACES,
            oversub_above=2, peers_field=True, items=("inline",),
            peers_message_queues=cls.MSG, latency_files=False)
        from scripts.figures import plot
        cls.plot = plot
        cls.host = plot.Host(cls.results, "quick")
        cls.host.load()
        cls.p = plot.prepare(cls.host)["peers-throughput"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_a_panel_per_workload_of_the_named_single_free_runs(self):
        p = self.p
        self.assertEqual([pn["workload"] for pn in p["panels"]], ["prodcons", "pairs", "mixed"])
        self.assertEqual(p["grid"], (1, 3))
        from scripts.common import regime
        for pn in p["panels"]:
            with self.subTest(workload=pn["workload"]):
                # 4 threads oversubscribe (oversub_above=2): the largest with a CPU each
                self.assertEqual(pn["threads"], 2)
                self.assertTrue(pn["rows"])
                for r in pn["rows"]:
                    self.assertTrue(nrdata.peers_named(r))
                    self.assertEqual((r["bursts"], regime.pace_of(r), nrdata.threads(r)),
                                     ("0", "free", 2))
                    self.assertEqual((r.get("workload") or "prodcons"), pn["workload"])
                # each queue's median from its rows
                for s in pn["slots"]:
                    if s["queue"] == "harness alone":
                        vals = [float(r["harness_ops_per_s"]) for r in pn["rows"]
                                if r["item"] == "inline"]
                    else:
                        vals = [float(r["throughput_ops_per_s"]) for r in pn["rows"]
                                if r["queue"] == s["queue"]]
                    self.assertAlmostEqual(s["median"], statistics.median(vals))
                    self.assertLessEqual(s["lo"], s["median"])
                    self.assertLessEqual(s["median"], s["hi"])

    def test_queues_grouped_by_the_order_they_keep(self):
        from scripts.common import manifest
        for pn in self.p["panels"]:
            with self.subTest(workload=pn["workload"]):
                keys = [s["group"] for s in pn["slots"]]
                # contiguous groups, in order: strict FIFO, relaxed, floors
                self.assertEqual(keys, sorted(keys, key=["fifo", "relaxed", "floor"].index))
                self.assertEqual([g[0] for g in pn["groups"]], ["fifo", "relaxed", "floor"])
                for s in pn["slots"]:
                    if s["queue"] == "harness alone":
                        self.assertEqual(s["group"], "floor")
                        continue
                    q = manifest.queue(s["queue"])
                    want = ("floor" if not q["moves_data"] else
                            "fifo" if q["ordering"] == "fifo" else "relaxed")
                    self.assertEqual(s["group"], want, s["queue"])
                # the harness alone last, once; within a group highest first
                self.assertEqual([s["queue"] for s in pn["slots"]].count("harness alone"), 1)
                self.assertEqual(pn["slots"][-1]["queue"], "harness alone")
                for k in ("fifo", "relaxed"):
                    meds = [s["median"] for s in pn["slots"] if s["group"] == k]
                    self.assertEqual(meds, sorted(meds, reverse=True))
                # the groups apart on x
                xs = [s["x"] for s in pn["slots"]]
                self.assertEqual(xs, sorted(xs))
                self.assertIn("numaring", [s["queue"] for s in pn["slots"]])

    def test_message_only_queues_are_drawn_from_their_message_runs_and_marked(self):
        p = self.p
        self.assertEqual(sorted(p["message_queues"]), sorted(self.MSG))
        for pn in p["panels"]:
            items = {s["queue"]: s["item"] for s in pn["slots"]}
            with self.subTest(workload=pn["workload"]):
                for q in self.MSG:
                    self.assertEqual(items[q], "message")
                self.assertEqual({i for q, i in items.items() if q not in self.MSG},
                                 {"inline"})
        self.assertIn("xenium-ramalhete, xenium-kfifo: message items",
                      " ".join(p["notes"]).replace("xenium-kfifo, xenium-ramalhete",
                                                   "xenium-ramalhete, xenium-kfifo"))
        self.assertIn("hollow: message items", p["caption"][-1][0])

    def test_drawn_one_panel_per_workload_marks_and_legend(self):
        plot = self.plot
        fig = plot.render("peers-throughput", self.p)
        try:
            axes = [a for a in fig.axes if a.get_visible() and a.axison]
            self.assertEqual(len(axes), 3)
            for ax, pn in zip(axes, self.p["panels"]):
                with self.subTest(workload=pn["workload"]):
                    self.assertEqual(ax.get_yscale(), "log")
                    labels = [t.get_text() for t in ax.get_xticklabels()]
                    self.assertEqual(labels, [s["queue"] for s in pn["slots"]])
                    bold = [t.get_text() for t in ax.get_xticklabels()
                            if t.get_fontweight() == "bold"]
                    self.assertEqual(bold, ["numaring"])
                    words = [t.get_text() for t in ax.texts if t.get_gid() == "peers-main-group"]
                    self.assertEqual(words, ["strict FIFO", "relaxed order", "floors"])
                    seps = [ln for ln in ax.lines if ln.get_gid() == "peers-main-separator"]
                    self.assertEqual(len(seps), 2)
                    for s in pn["slots"]:
                        gid = ("peers-main-harness" if s["queue"] == "harness alone" else
                               "peers-main-%s" % s["queue"])
                        # (the whisker's caps share the gid: small marks)
                        lines = [ln for ln in ax.lines if ln.get_gid() == gid
                                 and ln.get_markersize() > 6.5]
                        self.assertEqual(len(lines), 1, gid)
                        ln = lines[0]
                        self.assertAlmostEqual(float(ln.get_ydata()[0]) * 1e6, s["median"])
                        if s["queue"] != "harness alone":
                            self.assertEqual(ln.get_markerfacecolor() == "white",
                                             s["item"] == "message", s["queue"])
            legend = [t.get_text() for a in axes if a.get_legend()
                      for t in a.get_legend().get_texts()]
            for want in ("NumaRing", "the field's queues", "floor: moves no data",
                         "harness alone (null queue)"):
                self.assertIn(want, legend)
            self.assertTrue(any(t.startswith("hollow: message items") for t in legend))
        finally:
            plot.fig_draw.plt.close(fig)

    def test_the_data_file_and_gnuplot(self):
        """The .dat's slots are the preparation's; peers-throughput.gp draws it,
        and a host whose runs fill no panel (bursts only) too."""
        import subprocess
        plot = self.plot
        text = plot.dat_text("peers-throughput", self.p)
        body = "\n".join(text).split('"slots"', 1)[1].split("\n\n\n")[0]
        ls = [x for x in body.splitlines() if x.strip()]
        cols = ls[0].split(":", 1)[1].split()
        rows = [dict(zip(cols, x.split())) for x in ls[1:]]
        self.assertEqual(len(rows), sum(len(pn["slots"]) for pn in self.p["panels"]))
        for r in rows:
            s = self.p["panels"][int(r["panel"])]["slots"][int(r["slot"])]
            self.assertEqual(r["message"], "1" if s["item"] == "message" and
                             s["queue"] != "harness alone" else "0")
            self.assertEqual(r["highlight"], "1" if s["queue"] == "numaring" else "0")
            self.assertAlmostEqual(float(r["median_ops_per_s"]), s["median"],
                                   delta=s["median"] * 1e-5)
        gnuplot = shutil.which("gnuplot")
        if gnuplot is None:
            self.skipTest("gnuplot is not installed")
        bursts = os.path.join(self.tmp, "bursts")
        fakeresults.make_synthetic(bursts, "b", "real", (2,), reps=2, seed=3,
                                   experiments=["peers"], nodes=1, latency_files=False)
        path = os.path.join(bursts, "b", "peers.csv")
        with open(path, encoding="utf-8") as f:
            head, *lines = f.read().splitlines()
        bi = head.split(",").index("bursts")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join([head] + [x for x in lines if x.split(",")[bi] == "1"]) + "\n")
        h = plot.Host(bursts, "b")
        h.load()
        empty = plot.prepare(h)["peers-throughput"]
        self.assertEqual([pn["slots"] for pn in empty["panels"]], [[]])
        for name, p in (("full", self.p), ("empty", empty)):
            with self.subTest(host=name):
                dat = os.path.join(self.tmp, name + ".dat")
                with open(dat, "w", encoding="utf-8") as f:
                    f.write("\n".join(plot.dat_text("peers-throughput", p)) + "\n")
                out = os.path.join(self.tmp, name + ".png")
                g = subprocess.run([gnuplot, "-e", "datafile='%s'; outfile='%s'" % (dat, out),
                                    os.path.join(os.path.dirname(os.path.dirname(
                                        os.path.abspath(__file__))), "gnuplot",
                                        "peers-throughput.gp")],
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(g.returncode, 0, g.stderr)
                said = [x for x in g.stderr.splitlines() if x.strip()
                        and "No valid data points" not in x]
                self.assertEqual(said, [], g.stderr)
                self.assertGreater(os.path.getsize(out), 10000)


if __name__ == "__main__":
    unittest.main()
