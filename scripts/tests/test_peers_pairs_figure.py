# SPDX-License-Identifier: BSD-2-Clause
"""The peers under enqueue-dequeue pairs in the peers figures (issue 21, item 4).

    /usr/bin/python3 -m unittest scripts.tests.test_peers_pairs_figure -v

Synthetic hosts (tests/fakeresults.py, peers_workloads=): both workloads at one
thread count with inline and message items, both at three thread counts with
inline items only, prodcons alone (a host from before pairs) and bursts alone (the
smoke profile: panels without runs). Checks that
the panels by item mode hold producers-and-consumers rows only (peers-regimes,
the supplement's figure of each regime apart,
and peers-latency), that the pairs row holds pairs rows only, each data-moving
queue's operations/s (queues on x with one thread count, lines against threads
with several) and the lost races of the queues that count them, summarize's
peers_pairs' numbers, that a host without pairs draws the figure as before, and
that scripts/gnuplot/peers-regimes.gp reads the pairs block by its columns'
names and draws every shape.
"""

import csv
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
from scripts.figures import fig_common
from scripts.analysis import nrdata
from scripts.figures import plot
from scripts.analysis import summarize
from scripts.tests import ROOT, module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
GP = os.path.join(SCRIPTS, "gnuplot", "peers-regimes.gp")


def said(p):
    """Everything a figure's preparation says: its caption (the host, its
    warnings, one line of what is drawn) and its notes (the .dat header)."""
    return [t for t, _e in p["caption"]] + list(p.get("notes") or [])


GNUPLOT = shutil.which("gnuplot")
#: the data-moving queues of the synthetic model, in the figure's order
MOVERS = ["numaring", "flat", "ck", "rte", "moodycamel", "urcu", "mutex"]


def have_matplotlib():
    try:
        importlib.import_module("matplotlib")
        return True
    except ImportError:
        return False


def workload(r):
    return (r.get("workload") or "").strip() or "prodcons"


def medians(rows, value, key):
    """{key(row): median of value(row)} over rows where value is not None."""
    by = {}
    for r in rows:
        v = value(r)
        if v is not None:
            by.setdefault(key(r), []).append(v)
    return {k: statistics.median(v) for k, v in by.items()}


def tput(r):
    return float(r["throughput_ops_per_s"])


def lost_1000(r):
    v = nrdata.failed_per_item(r)
    return None if v is None else v * 1000.0


def pairs_key(r):
    return (int(r["bursts"]), r["queue"], r["item"] or "inline", nrdata.threads(r))


def group_key(r):
    """pairs_key and the run's (pace, regime) group: prodcons runs are drawn per group."""
    return pairs_key(r) + (fig_common.group_of(r),)


def movers(bursts):
    """The data-moving queues of a pairs panel: ck has no bursts."""
    return [q for q in MOVERS if fig_common.runs_in(q, "inline", bursts)]


def meaningful(r):
    return fig_common.runs_in(r["queue"], r["item"] or "inline", int(r["bursts"]))


def dots(a):
    """The data lines of a pairs panel (not the whiskers' caps): {gid: line}."""
    return [ln for ln in a.lines if (ln.get_gid() or "").startswith("peers-pairs-")
            and ln.get_marker() not in ("_", "|")]


def pairs_block(lines):
    """(columns, rows) of the pairs block of peers-regimes.dat."""
    text = "\n".join(lines)
    chunk = text.split('"%s"' % plot.PEERS_PAIRS_BLOCK)[1]
    ls = [x for x in chunk.splitlines() if x.strip()]
    cols = [x for x in ls if x.startswith("# columns:")][0].split(":", 1)[1].split()
    return cols, [x.split() for x in ls if not x.startswith("#")]


class PeersPairs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-peerspairs-")
        cls.results = os.path.join(cls.tmp, "results")
        both = ("prodcons", "pairs")
        # one thread count, inline and message items (the 2-CPU shape)
        fakeresults.make_synthetic(cls.results, "one", "real", (2,), reps=3, seed=11,
                                   experiments=["peers"], peers_workloads=both,
                                   oversub_above=2)
        # three thread counts, inline items only, 8 oversubscribed
        fakeresults.make_synthetic(cls.results, "many", "real", (2, 4, 8), reps=3, seed=12,
                                   experiments=["peers"], peers_workloads=both,
                                   items=("inline",), oversub_above=4)
        # producers and consumers only: a host from before pairs
        fakeresults.make_synthetic(cls.results, "plain", "real", (2, 4), reps=2, seed=13,
                                   experiments=["peers"])
        # bursts only (peers.exp's smoke profile): no single-operation panel anywhere
        fakeresults.make_synthetic(cls.results, "bursts", "real", (2,), reps=2, seed=14,
                                   experiments=["peers"], peers_workloads=both,
                                   items=("inline",))
        csvp = os.path.join(cls.results, "bursts", "peers.csv")
        with open(csvp, newline="") as f:
            rows = list(csv.DictReader(f))
        with open(csvp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(r for r in rows if r["bursts"] == "1")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def host(self, name):
        h = plot.Host(self.results, name)
        h.load()
        return h

    def rows(self, name):
        return nrdata.load_tidy(os.path.join(self.results, name, "peers.csv"))

    def drawn(self, name):
        """(prepared data, axes, figure) of peers-regimes, drawn as draw_one does."""
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        plot.init_matplotlib()
        p = plot.prep_peers_regimes(self.host(name))
        nrows, ncols = plot.grid_of("peers-regimes", p)
        w, hgt = plot.figure_size(ncols)
        fig, axes = plot.plt.subplots(nrows, ncols, figsize=(w, hgt * nrows ** 0.9),
                                      layout="constrained", squeeze=False)
        plot.DRAW[p["kind"]](list(axes.flat), p)
        fig.canvas.draw()
        self.addCleanup(plot.plt.close, fig)
        return p, list(axes.flat), fig

    # ---- the synthetic hosts are what the tests need -----------------------------

    def test_the_hosts_hold_both_workloads(self):
        for name in ("one", "many"):
            ws = {workload(r) for r in self.rows(name)}
            self.assertEqual(ws, {"prodcons", "pairs"})
        self.assertEqual({workload(r) for r in self.rows("plain")}, {"prodcons"})
        # the two workloads differ at the same queue, item, bursts and threads:
        # pooling them would show
        rows = self.rows("one")
        a = medians([r for r in rows if workload(r) == "prodcons"], tput, pairs_key)
        b = medians([r for r in rows if workload(r) == "pairs"], tput, pairs_key)
        common = set(a) & set(b)
        self.assertTrue(common)
        for k in common:
            self.assertNotAlmostEqual(a[k] / b[k], 1.0, places=2)

    # ---- producers and consumers apart: prodcons rows only -------------------------

    def test_the_item_panels_hold_prodcons_rows_only(self):
        for name in ("one", "many", "plain"):
            rows = self.rows(name)
            want = medians([r for r in rows if workload(r) == "prodcons" and meaningful(r)],
                           tput, group_key)
            p = plot.prep_peers_regimes(self.host(name))
            with self.subTest(host=name):
                self.assertEqual({workload(r) for r in p["rows"]}, {"prodcons"})
                n = 0
                for pn in p["panels"]:
                    self.assertEqual({workload(r) for r in pn["rows"]}, {"prodcons"})
                    for (q, grp), pts in pn["series"].items():
                        for pt in pts:
                            self.assertAlmostEqual(
                                pt[1], want[(pn["bursts"], q, pn["item"], pt[0], grp)])
                            n += 1
                self.assertEqual(n, len(want))
                # no pooling of points that differ (the pairs rows did)
                self.assertFalse(any("medians pool" in t for t in said(p)))

    def test_latency_holds_prodcons_rows_only(self):
        for name in ("one", "many", "plain"):
            rows = self.rows(name)
            pc = [r for r in rows if workload(r) == "prodcons"]
            lat = plot.prep_peers_latency(self.host(name))
            with self.subTest(host=name):
                self.assertEqual({workload(r) for r in lat["rows"]}, {"prodcons"})
                for pn in lat["panels"]:
                    self.assertEqual(pn["threads"], max(nrdata.threads(r) for r in pc))
                    for b in pn["marks"]:
                        if b["p50"] is None:
                            continue
                        want = statistics.median(
                            float(r["p50_ns"]) for r in pc if r["queue"] == b["queue"]
                            and r["item"] == pn["item"] and int(r["bursts"]) == pn["bursts"]
                            and nrdata.threads(r) == pn["threads"]
                            and fig_common.group_of(r) == b["group"])
                        self.assertAlmostEqual(b["p50"][0], want)
                text = " ".join(said(lat))
                if name == "plain":
                    self.assertNotIn("pairs", text)
                else:
                    self.assertIn("runs under pairs are in peers-throughput", text)

    # ---- the pairs row --------------------------------------------------------------

    def test_the_pairs_panels_hold_pairs_rows_only(self):
        for name, items in (("one", ["inline", "message"]), ("many", ["inline"])):
            rows = self.rows(name)
            pr = [r for r in rows if workload(r) == "pairs"]
            want = medians([r for r in pr if r["queue"] != "faa" and meaningful(r)], tput,
                           pairs_key)
            lost = medians(pr, lost_1000, pairs_key)
            p = plot.prep_peers_regimes(self.host(name))
            with self.subTest(host=name):
                self.assertEqual([pn["bursts"] for pn in p["pairs"]], [0, 1])
                self.assertEqual(p["grid"], (len(items) + 1, 2))
                n = 0
                for pn in p["pairs"]:
                    self.assertEqual({workload(r) for r in pn["rows"]}, {"pairs"})
                    # faa moves no data; ck has no bursts
                    self.assertEqual(pn["queues"], movers(pn["bursts"]))
                    self.assertEqual(pn["items"], items)
                    for (q, item), pts in pn["series"].items():
                        for pt in pts:
                            k = (pn["bursts"], q, item, pt[0])
                            self.assertAlmostEqual(pt[1], want[k])
                            if q in fakeresults.PEERS_PAIRS_LOST:
                                self.assertAlmostEqual(pt[8], lost[k])
                            else:
                                self.assertIsNone(pt[8])
                            n += 1
                self.assertEqual(n, len(want))
                text = " ".join(said(p))
                self.assertIn("pairs (every thread enqueues, then dequeues", text)
                self.assertIn("the queues that count them: numaring, flat", text)
                self.assertIn("faa left out", text)
                self.assertIn("ck not in the bursts panel (no bursts)", text)
                self.assertIn("under pairs: operations/s by queue", p["title"])

    def test_the_numbers_are_summarizes(self):
        """Inline items, single operations: summarize.peers_pairs' medians and lost
        races (the README's table) are the panel's."""
        for name in ("one", "many"):
            p = plot.prep_peers_regimes(self.host(name))
            pn = [x for x in p["pairs"] if x["bursts"] == 0][0]
            res = summarize.peers_pairs(os.path.join(self.results, name))
            self.assertEqual([d["threads"] for d in res], p["pairs_threads"])
            for d in res:
                for q, e in d["queues"].items():
                    if q == "faa":
                        self.assertNotIn(q, pn["queues"])
                        continue
                    pt = [x for x in pn["series"][(q, "inline")] if x[0] == d["threads"]][0]
                    with self.subTest(host=name, threads=d["threads"], queue=q):
                        self.assertAlmostEqual(pt[1] / 1e6, e["mops"])
                        if e["lost"] is None:
                            self.assertIsNone(pt[8])
                        else:
                            self.assertAlmostEqual(pt[8], e["lost"] * 1000)

    def test_one_thread_count_puts_the_queues_on_x(self):
        p, axes, _fig = self.drawn("one")
        self.assertTrue(p["pairs_categorical"])
        self.assertEqual(len(axes), 6)
        pairs = [a for a in axes if a.get_gid() == "peers-pairs"]
        self.assertEqual(pairs, axes[4:6])
        want = medians([r for r in self.rows("one") if workload(r) == "pairs"], tput,
                       pairs_key)
        lost = medians([r for r in self.rows("one") if workload(r) == "pairs"], lost_1000,
                       pairs_key)
        for b, a in enumerate(pairs):
            with self.subTest(bursts=b):
                self.assertEqual([t.get_text() for t in a.get_xticklabels()], movers(b))
                self.assertIn("pairs: every thread enqueues, then dequeues", a.get_title())
                self.assertIn("2 threads", a.get_title())
                self.assertEqual(a.get_ylabel(), "throughput (million operations/s)")
                # a dot per queue and item mode: filled inline, hollow message
                got = {}
                for ln in dots(a):
                    _p, _x, q, item = ln.get_gid().split("-", 3)
                    self.assertEqual(ln.get_linestyle(), "None")
                    self.assertEqual(ln.get_markerfacecolor() == "white", item == "message")
                    self.assertEqual(len(ln.get_ydata()), 1)
                    got[(b, q, item, 2)] = float(ln.get_ydata()[0]) * 1e6
                self.assertEqual(set(got), {k for k in want if k[0] == b and k[1] in movers(b)})
                for k, v in got.items():
                    self.assertAlmostEqual(v / want[k], 1.0, places=9)
                # the lost races along the bottom: numaring and flat, both item modes
                texts = sorted(t.get_text() for t in a.texts if t.get_gid() == "peers-pairs-lost")
                self.assertEqual(texts, sorted(
                    plot.pairs_lost_text(v).split()[1] for k, v in lost.items()
                    if k[0] == b and k[1] != "faa"))
                self.assertEqual(len(texts), 4)
                self.assertTrue([t for t in a.texts
                                 if t.get_text() == "lost races per 1,000 operations"])
                # every dot and whisker above the band of numbers
                lo = a.get_ylim()[0]
                band = lo * (a.get_ylim()[1] / lo) ** 0.24
                self.assertTrue(all(v / 1e6 > band for v in got.values()))
        # the item panels: prodcons values only, each (pace, regime) group's median
        pc = medians([r for r in self.rows("one") if workload(r) == "prodcons"], tput,
                     group_key)
        for a in axes[:4]:
            ys = [float(y) for ln in a.lines if ln.get_marker() not in ("None", "", "_", "x")
                  for y in ln.get_ydata()]
            self.assertTrue(ys)
            for y in ys:
                self.assertTrue(any(abs(y * 1e6 / v - 1) < 1e-9 for v in pc.values()), y)
            self.assertNotEqual(a.get_gid(), "peers-pairs")

    def test_several_thread_counts_draw_lines_against_threads(self):
        p, axes, _fig = self.drawn("many")
        self.assertFalse(p["pairs_categorical"])
        self.assertEqual(len(axes), 4)
        pairs = axes[2:4]
        for b, a in enumerate(pairs):
            with self.subTest(bursts=b):
                self.assertEqual(a.get_gid(), "peers-pairs")
                self.assertEqual([t.get_text() for t in a.get_xticklabels()], ["2", "4", "8"])
                joined = dots(a)
                self.assertEqual(len(joined), len(movers(b)))
                for ln in joined:
                    self.assertEqual(len(ln.get_xdata()), 3)
                    self.assertEqual(ln.get_linestyle(), "-")
                lost = [t.get_text() for t in a.texts if t.get_gid() == "peers-pairs-lost"]
                self.assertEqual(len(lost), 2 * 3)   # numaring and flat, 3 counts
                self.assertTrue(all(t.startswith("lost ") for t in lost))
                # the oversubscribed count (8) marked
                xs = [x for ln in a.lines if ln.get_marker() == "x" for x in ln.get_xdata()]
                self.assertTrue(xs and min(xs) > 6)

    def test_a_host_without_pairs_draws_as_before(self):
        p, axes, _fig = self.drawn("plain")
        self.assertEqual(p["pairs"], [])
        self.assertEqual(p["grid"], (2, 2))
        self.assertEqual(len(axes), 4)
        self.assertFalse([a for a in axes if a.get_gid() == "peers-pairs"])
        self.assertEqual([(pn["item"], pn["bursts"]) for pn in p["panels"]],
                         [("inline", 0), ("inline", 1), ("message", 0), ("message", 1)])
        self.assertEqual(p["title"], "Peers: throughput vs threads by queue, each regime apart")
        self.assertFalse(any("pairs" in t for t in said(p)))
        cols, rows = pairs_block(plot.dat_text("peers-regimes", p))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0][cols.index("has_pairs")], "0")

    # ---- gnuplot: the same from the same data ----------------------------------------

    def test_the_gp_reads_the_pairs_block_by_name(self):
        with open(GP, encoding="utf-8") as f:
            gp = f.read()
        named = {m.group(1): int(m.group(2))
                 for m in re.finditer(r"^pp_(\w+) = (\d+)$", gp, re.M)}
        self.assertTrue({"panel", "qidx", "message", "x", "median_ops_per_s",
                         "min_ops_per_s", "max_ops_per_s", "lost_per_1000",
                         "harness_ops_per_s", "categorical", "has_pairs"} <= set(named))
        code = "\n".join(ln for ln in gp.splitlines() if not ln.lstrip().startswith("#"))
        for name in named:
            self.assertRegex(code, r"\bpp_%s\b[^=]" % name)
        for host in ("one", "many", "plain"):
            p = plot.prep_peers_regimes(self.host(host))
            cols, rows = pairs_block(plot.dat_text("peers-regimes", p))
            self.assertEqual(cols, plot.PEERS_PAIRS_COLUMNS)
            for name, n in named.items():
                with self.subTest(host=host, column=name):
                    self.assertEqual(cols[n - 1], name)
            for r in rows:
                self.assertEqual(len(r), len(cols), r)
            if host == "plain":
                continue
            ix = {c: i for i, c in enumerate(cols)}
            want = medians([r for r in self.rows(host) if workload(r) == "pairs"
                            and r["queue"] != "faa" and meaningful(r)], tput, pairs_key)
            got = {(int(r[ix["panel"]]), r[ix["queue"]],
                    "message" if r[ix["message"]] == "1" else "inline",
                    int(r[ix["threads"]])): float(r[ix["median_ops_per_s"]]) for r in rows}
            self.assertEqual(set(got), set(want))
            for k, v in got.items():
                self.assertAlmostEqual(v / want[k], 1.0, places=5)
            # the blocks before it: prodcons, its ceiling, its harness
            text = "\n".join(plot.dat_text("peers-regimes", p))
            head = text.split('"%s"' % plot.PEERS_PAIRS_BLOCK)[0]
            self.assertEqual(re.findall(r'^"(.*)"$', head, re.M),
                             ["prodcons", "ceiling (model)", "harness alone (null queue)"])

    @slow
    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_draws_every_shape(self):
        plots = os.path.join(self.tmp, "plots")
        py = sys.executable if have_matplotlib() else "/usr/bin/python3"
        r = subprocess.run(module("figures.plot", py) + ["--results", self.results,
                                                 "--plots", plots, "--gnuplot"],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        sizes = {}
        for host in ("one", "many", "plain", "bursts"):
            with self.subTest(host=host):
                png = os.path.join(plots, host, "supplement", "gnuplot", "peers-regimes.png")
                self.assertTrue(os.path.isfile(png))
                with open(png, "rb") as f:
                    head = f.read(24)
                sizes[host] = int.from_bytes(head[20:24], "big")   # the PNG's height
                out = os.path.join(self.tmp, "%s-standalone.png" % host)
                g = subprocess.run([GNUPLOT, "-e", "datafile='%s'; outfile='%s'" % (
                    os.path.join(plots, host, "supplement", "data", "peers-regimes.dat"), out), GP],
                    capture_output=True, text=True, timeout=120)
                self.assertEqual(g.returncode, 0, g.stderr)
                self.assertNotIn("expecting", g.stderr)
                self.assertTrue(os.path.isfile(out))
        # a row more where the host ran pairs
        self.assertGreater(sizes["one"], sizes["plain"])


if __name__ == "__main__":
    unittest.main()
