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
rows; the figures draw with mixed present (a row of its own), the other
configurations counted in the caption.
"""

import os
import shutil
import statistics
import tempfile
import unittest

from scripts.analysis import ceiling_report, claims, findings, nrdata, summarize
from scripts.tests import fakeresults

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
        self.assertEqual(plain(ceiling_report.tightness(self.field)),
                         plain(ceiling_report.tightness(self.before)))
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
        """peers-throughput: the item panels hold prodcons rows at work 0 and
        pin compact alone, a row of pairs and one of mixed (its own panels in
        the .dat's pairs block: 2, 3); the caption counts what it leaves out;
        peers-latency likewise; both draw (matplotlib) and write their data."""
        from scripts.figures import plot
        h = plot.Host(self.results, "field")
        h.load()
        prep = plot.prepare(h)
        p = prep["peers-throughput"]
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
        dat = "\n".join(plot.dat_text("peers-throughput", p))
        block = dat.split('"pairs (every thread enqueues, then dequeues)"', 1)[1]
        panels = {ln.split()[0] for ln in block.splitlines() if ln and ln[0].isdigit()}
        self.assertEqual(panels, {"0", "1", "2", "3"})
        # the host before the field's points: the same figure, no mixed row
        b = plot.Host(self.results, "before")
        b.load()
        pb = plot.prepare(b)["peers-throughput"]
        self.assertEqual(pb["grid"], (2 + 1, 2))
        def runs(prep):
            return [[(r["point"], r["rep"], r["throughput_ops_per_s"]) for r in pn["rows"]]
                    for pn in prep["panels"]]
        self.assertEqual(runs(pb), runs(p))
        lat = prep["peers-latency"]
        self.assertTrue(all(nrdata.peers_named(r) for r in lat["rows"]))
        self.assertIn("under pairs and mixed are in peers-throughput",
                      " ".join(lat.get("notes") or []))
        out = os.path.join(self.tmp, "plots")
        for name in ("peers-throughput", "peers-latency"):
            plot.draw_one(name, prep[name], out)
            self.assertTrue(os.path.getsize(os.path.join(out, name + ".png")) > 0)


if __name__ == "__main__":
    unittest.main()
