# SPDX-License-Identifier: BSD-2-Clause
"""F4's figures: backoff against spinning, per workload (issues 21, 22 and 33).

    /usr/bin/python3 -m unittest scripts.tests.test_f4_figure -v

Synthetic hosts (tests/fakeresults.py, workloads=): prodcons (none loses no
races: not exercised), pairs (exercised without local work, not with 300 ns)
and mixed (exercised at both), at one thread count and at several. Checks that
every panel is drawn, that the changes are summarize.f4's and shown only where
the none run lost races ("not exercised" elsewhere, never inside the study's
band, which only the prodcons panel has), the category axis with one thread
count, the marks of oversubscribed points, the caption's two lines, and that
scripts/gnuplot/f4-backoff-diagnostics.gp reads the columns of the data file
plot.py writes by their names: the supplement's f4-backoff-diagnostics (the
full grid). MainFigure checks the main f4-backoff (one panel per workload:
each backoff's change against none, the study's slot, "not exercised") and
its f4-backoff.gp; Spin the main f4-spin and its f4-spin.gp.
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
from scripts.analysis import findings, summarize
from scripts.tests import ROOT, module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
GP = os.path.join(SCRIPTS, "gnuplot", "f4-backoff-diagnostics.gp")
MAIN_GP = os.path.join(SCRIPTS, "gnuplot", "f4-backoff.gp")
SPIN_GP = os.path.join(SCRIPTS, "gnuplot", "f4-spin.gp")
DIAG = "f4-backoff-diagnostics"


GNUPLOT = shutil.which("gnuplot")
WORKLOADS = ("prodcons", "pairs", "mixed")
BAND_COLOR = "#ffd27f"


def have_matplotlib():
    try:
        importlib.import_module("matplotlib")
        return True
    except ImportError:
        return False


def gp_columns(text):
    """{block index: {column name: number}} the .gp names (<prefix>_<name> = N)
    and {prefix: block index} (B_<NAME> = i)."""
    blocks = {m.group(1): int(m.group(2))
              for m in re.finditer(r"^B_(\w+) = (\d+)$", text, re.M)}
    cols = {}
    for m in re.finditer(r"^(pt|ch|hn|pn)_(\w+) = (\d+)$", text, re.M):
        cols.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
    return blocks, cols


def dat_blocks(lines):
    """[(name, [columns], [rows])] of an F4 data file (blocks after two blank lines)."""
    text = "\n".join(lines)
    out = []
    for chunk in text.split("\n\n\n")[1:]:
        ls = [x for x in chunk.splitlines() if x.strip()]
        name = ls[0].strip('"')
        cols = [x for x in ls if x.startswith("# columns:")][0].split(":", 1)[1].split()
        rows = [x.split() for x in ls[1:] if not x.startswith("#")]
        out.append((name, cols, rows))
    return out


class F4Figure(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-f4fig-")
        cls.results = os.path.join(cls.tmp, "results")
        # one thread count (the 2-CPU shape), five reps: categories on x
        fakeresults.make_synthetic(cls.results, "one", "real", (2,), reps=5, seed=7,
                                   experiments=["f4-backoff"], workloads=WORKLOADS,
                                   oversub_above=2, latency_files=False)
        # three thread counts, 8 oversubscribed: against threads
        fakeresults.make_synthetic(cls.results, "many", "real", (2, 4, 8), reps=3, seed=8,
                                   experiments=["f4-backoff"], workloads=WORKLOADS,
                                   oversub_above=4, latency_files=False)
        # prodcons exercised without local work, not with 300 ns: the study's
        # band behind the exercised changes only
        fakeresults.make_synthetic(
            cls.results, "half", "real", (2,), reps=5, seed=10, experiments=["f4-backoff"],
            workloads={"prodcons": dict(fakeresults.F4_WORKLOADS["prodcons"],
                                        failed={0: 0.05, 300: 0.0002})},
            oversub_above=2, latency_files=False)
        # a table from before the fairness column: its cells empty
        fakeresults.make_synthetic(cls.results, "old", "real", (2,), reps=3, seed=9,
                                   experiments=["f4-backoff"], workloads=WORKLOADS,
                                   oversub_above=2, latency_files=False, fairness=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def prep(self, name):
        h = plot.Host(self.results, name)
        h.load()
        return plot.prep_f4(h)

    def drawn(self, name):
        """(prepared data, {(row key, workload): axes}, figure), drawn as draw_one does."""
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        plot.init_matplotlib()
        p = self.prep(name)
        nrows, ncols = plot.grid_of(DIAG, p)
        fig, axes = plot.plt.subplots(nrows, ncols, figsize=p["figsize"],
                                      layout="constrained", squeeze=False)
        plot.DRAW[p["kind"]](list(axes.flat), p)
        fig.canvas.draw()
        self.addCleanup(plot.plt.close, fig)
        out = {}
        for r, (key, _label) in enumerate(plot.F4_ROWS):
            for c, col in enumerate(p["columns"]):
                out[(key, col["workload"])] = axes[r][c]
        return p, out, fig

    # ---- what is drawn ---------------------------------------------------------

    def test_a_column_of_every_panel_per_workload(self):
        p, ax, _fig = self.drawn("one")
        self.assertEqual([c["workload"] for c in p["columns"]], list(WORKLOADS))
        self.assertEqual(p["grid"], (6, 3))
        for (key, w), a in ax.items():
            with self.subTest(panel=key, workload=w):
                self.assertTrue(a.axison, "%s of %s not drawn" % (key, w))
                if key in ("tput", "p99") or (key in ("failed", "bns") and w != "prodcons"):
                    self.assertTrue(a.lines, "%s of %s has no data" % (key, w))
        # the works apart: filled for none, hollow for 300 ns
        faces = {tuple(ln.get_markerfacecolor()) if not isinstance(ln.get_markerfacecolor(), str)
                 else ln.get_markerfacecolor() for ln in ax[("tput", "pairs")].lines
                 if ln.get_marker() == "o"}
        self.assertIn("white", faces)
        self.assertGreater(len(faces), 2)

    def test_one_thread_count_puts_the_backoffs_on_x(self):
        p, ax, _fig = self.drawn("one")
        self.assertTrue(p["categorical"])
        self.assertIn("throughput by backoff at 2 threads", p["title"])
        for key in ("tput", "change", "failed", "p99"):
            with self.subTest(panel=key):
                a = ax[(key, "pairs")]
                self.assertEqual([t.get_text() for t in a.get_xticklabels()],
                                 ["none", "pause", "exp", "yield"])
                self.assertEqual(a.get_xscale(), "linear")
                # a dot per backoff, no line joins them
                self.assertEqual({ln.get_linestyle() for ln in a.lines
                                  if ln.get_marker() == "o"}, {"None"})

    def test_several_thread_counts_draw_lines_against_threads(self):
        p, ax, _fig = self.drawn("many")
        self.assertFalse(p["categorical"])
        self.assertIn("throughput vs threads by backoff", p["title"])
        a = ax[("tput", "mixed")]
        self.assertEqual([t.get_text() for t in a.get_xticklabels()], ["2", "4", "8"])
        self.assertEqual(a.get_xscale(), "log")
        # a line per backoff and amount of work, each through the three counts
        joined = [ln for ln in a.lines if ln.get_linestyle() in ("-", "--")
                  and len(ln.get_xdata()) == 3]
        self.assertGreaterEqual(len(joined), 8)
        styles = {ln.get_linestyle() for ln in a.lines}
        self.assertTrue({"-", "--"} <= styles, styles)   # no work solid, 300 ns dashed
        # the change stays a comparison of backoffs at the quoted count (4: 8 is
        # oversubscribed)
        self.assertEqual([t.get_text() for t in ax[("change", "mixed")].get_xticklabels()],
                         ["none", "pause", "exp", "yield"])
        self.assertEqual({e["threads"] for e in p["relative"]}, {4})

    @slow
    def test_oversubscribed_points_are_marked(self):
        p, ax, _fig = self.drawn("many")
        for w in WORKLOADS:
            with self.subTest(workload=w):
                xs = [ln for ln in ax[("tput", w)].lines if ln.get_marker() == "x"]
                self.assertEqual(sorted({x for ln in xs for x in ln.get_xdata()})[-1] // 1, 8)
        caption = " ".join(t for t, _e in p["caption"])
        self.assertRegex(caption, r"\d+ oversubscribed points \(the run's threads")
        _p, ax, _fig = self.drawn("one")
        self.assertFalse([ln for ln in ax[("tput", "pairs")].lines if ln.get_marker() == "x"])

    def test_caption_is_the_host_and_one_line(self):
        p = self.prep("one")
        self.assertEqual(len(p["caption"]), 2)
        self.assertTrue(p["caption"][0][0].startswith("host one \u00b7 "))
        line = p["caption"][1][0]
        self.assertIn("filled no local work, hollow 300 ns local work", line)
        self.assertLess(len(line), 400)

    # ---- fairness ----------------------------------------------------------------

    def fairness_medians(self, host):
        """{(workload, work, backoff, threads): median fairness} from the CSV itself."""
        rows = nrdata.load_tidy(os.path.join(self.results, host, "f4-backoff.csv"))
        by = {}
        for r in rows:
            v = (r.get("fairness") or "").strip()
            if v:
                by.setdefault((r["workload"], float(r["work_ns"]), r["backoff"],
                               nrdata.threads(r)), []).append(float(v))
        return {k: statistics.median(v) for k, v in by.items()}

    def test_fairness_row_draws_the_column(self):
        self.assertIn("fairness", nrdata.SUMMARY_COLUMNS)
        p, ax, _fig = self.drawn("one")
        self.assertEqual([k for k, _l in plot.F4_ROWS].index("fair"), 4)
        want = self.fairness_medians("one")
        self.assertEqual(len(want), 3 * 2 * 4)
        for w in WORKLOADS:
            a = ax[("fair", w)]
            with self.subTest(workload=w):
                # y from 0 to (a little above) 1, the dotted line at 1 and its words
                lo, hi = a.get_ylim()
                self.assertEqual(lo, 0.0)
                self.assertTrue(1.0 < hi <= 1.25, hi)
                self.assertEqual(a.get_yscale(), "linear")
                ones = [ln for ln in a.lines if ln.get_linestyle() == ":"
                        and list(ln.get_ydata()) == [1.0, 1.0]]
                self.assertEqual(len(ones), 1)
                self.assertEqual([t.get_text() for t in a.texts
                                  if t.get_gid() == "f4-fair-line"], [plot.F4_FAIR_LINE])
                # a dot per backoff and amount of work, at the median of the column
                dots = sorted(round(float(ln.get_ydata()[0]), 6) for ln in a.lines
                              if ln.get_marker() == "o")
                self.assertEqual(dots, sorted(round(v, 6) for (w_, _k, _b, _t), v
                                              in want.items() if w_ == w))
                self.assertEqual([t.get_text() for t in a.get_xticklabels()],
                                 ["none", "pause", "exp", "yield"])
        # the prepared series are the medians (and min, max) of the column
        for pn in p["columns"]:
            for g in pn["groups"]:
                for b, pts in g["fair"].items():
                    for q in pts:
                        self.assertAlmostEqual(q[1], want[(g["workload"], g["work"], b, q[0])])
                        self.assertLessEqual(q[3], 1.0)
                        self.assertGreater(q[2], 0.0)
        self.assertNotIn("not recorded", " ".join(t for t, _e in p["caption"]))

    @slow
    def test_fairness_lines_against_threads(self):
        p, ax, _fig = self.drawn("many")
        a = ax[("fair", "pairs")]
        joined = [ln for ln in a.lines if ln.get_linestyle() in ("-", "--")
                  and len(ln.get_xdata()) == 3]
        self.assertEqual(len(joined), 8)   # 4 backoffs x 2 amounts of work
        self.assertEqual(a.get_ylim()[0], 0.0)
        want = self.fairness_medians("many")
        got = sorted(round(float(y), 6) for ln in joined for y in ln.get_ydata())
        self.assertEqual(got, sorted(round(v, 6) for (w, _k, _b, _t), v in want.items()
                                     if w == "pairs"))

    def test_fairness_not_recorded(self):
        p, ax, _fig = self.drawn("old")
        self.assertEqual(self.fairness_medians("old"), {})
        for w in WORKLOADS:
            a = ax[("fair", w)]
            with self.subTest(workload=w):
                self.assertEqual([t.get_text() for t in a.texts],
                                 ["fairness not recorded in these results"])
                self.assertEqual(len(a.lines), 0)
                self.assertEqual(len(a.collections), 0)
            # the other rows are drawn as before
            self.assertTrue(ax[("tput", w)].lines)
        self.assertIn("fairness: fewest / most operations of one thread over the run "
                      "(1: every thread did the same), not recorded in these results",
                      p["caption"][1][0])

    def test_the_data_file_carries_fairness(self):
        with open(GP, encoding="utf-8") as f:
            _blocks, cols = gp_columns(f.read())
        self.assertTrue({"fairness", "fairness_min", "fairness_max"} <= set(cols["pt"]))
        for host in ("one", "old"):
            found = {name: (c, rows) for name, c, rows
                     in dat_blocks(plot.dat_text(DIAG, self.prep(host)))}
            header, rows = found["points"]
            ix = {c: i for i, c in enumerate(header)}
            want = self.fairness_medians(host)
            with self.subTest(host=host):
                self.assertEqual(len(rows), 3 * 2 * 4)
                for r in rows:
                    key = (r[ix["workload"]], float(r[ix["work_ns"]]), r[ix["backoff"]],
                           int(r[ix["threads"]]))
                    if host == "old":
                        self.assertEqual(r[ix["fairness"]], "NaN")
                        self.assertEqual(r[ix["fairness_max"]], "NaN")
                    else:
                        self.assertAlmostEqual(float(r[ix["fairness"]]), want[key], places=4)
                        self.assertLessEqual(float(r[ix["fairness_max"]]), 1.0)

    # ---- the change against none ----------------------------------------------

    def change_texts(self, a):
        return [t.get_text() for t in a.texts if re.search(r"[\u2212+]\d+\.\d%", t.get_text())]

    def test_changes_where_exercised_not_exercised_where_not(self):
        p, ax, _fig = self.drawn("one")
        hostdir = os.path.join(self.results, "one")
        by = {(e["workload"], e["work"], e["backoff"]): e for e in p["relative"]}
        for w, work in summarize.f4_workloads(hostdir):
            d = summarize.f4(hostdir, w, work)
            ex = d["none_failed_per_item"] >= nrdata.BACKOFF_EXERCISED
            with self.subTest(workload=w, work=work):
                # the fake model: prodcons never, pairs without work only, mixed both
                self.assertEqual(ex, w == "mixed" or (w == "pairs" and not work))
                for b in ("pause", "exp", "yield"):
                    e = by[(w, work, b)]
                    self.assertEqual(e["exercised"], ex)
                    self.assertEqual(e["pct"], d["%s_change_pct" % b])
                    if ex:
                        self.assertEqual(e["text"], plot.fmt_claim(e["claim"], e["pct"]))
                    else:
                        self.assertIsNone(e["text"])
        # drawn: a value per exercised backoff, "not exercised" for the rest
        counts = {w: len(self.change_texts(ax[("change", w)])) for w in WORKLOADS}
        self.assertEqual(counts, {"prodcons": 0, "pairs": 3, "mixed": 6})
        idle = {w: [t.get_text() for t in ax[("change", w)].texts
                    if t.get_gid() == "f4-not-exercised"] for w in WORKLOADS}
        self.assertEqual(len(idle["prodcons"]), 2)
        self.assertEqual(len(idle["pairs"]), 1)
        self.assertIn("300 ns local work: not exercised", idle["pairs"][0])
        self.assertIn("none lost 0.4 races per 1,000 operations", idle["pairs"][0])
        self.assertEqual(idle["mixed"], [])

    def test_inconclusive_where_the_interval_holds_zero(self):
        p, ax, _fig = self.drawn("one")
        texts = {w: self.change_texts(ax[("change", w)]) for w in ("pairs", "mixed")}
        seen = 0
        for e in p["relative"]:
            if not e["text"]:
                continue
            label = [t for t in texts[e["workload"]] if t.startswith(e["text"])]
            self.assertEqual(len(label), 1, (e, texts[e["workload"]]))
            self.assertEqual("inconclusive" in label[0], e["lo"] <= 0 <= e["hi"])
            seen += e["lo"] <= 0 <= e["hi"]
        self.assertGreater(seen, 0)   # the model's pairs yield: no change

    @slow
    def test_the_study_band_only_behind_exercised_changes(self):
        """The band is drawn behind each change measured here, never where none
        lost no races: "not exercised" cannot read as inside it."""
        from matplotlib.colors import to_hex
        for host in ("one", "half"):
            p, ax, fig = self.drawn(host)
            renderer = fig.canvas.get_renderer()
            for pn in p["columns"]:
                w = pn["workload"]
                a = ax[("change", w)]
                band = [pt for pt in a.patches if to_hex(pt.get_facecolor()) == BAND_COLOR]
                label = [t for t in a.texts if t.get_text() == "study: 32 workers, 2 nodes"]
                absent = [t for t in a.texts if t.get_gid() == "f4-study-absent"]
                shown = [e for g in pn["groups"] for e in g["change"]
                         if g["exercised"] is not False and e["pct"] is not None]
                with self.subTest(host=host, workload=w):
                    self.assertEqual(len(band), len(shown) if w == "prodcons" else 0)
                    self.assertEqual(len(label), 1 if w == "prodcons" and shown else 0)
                    self.assertEqual(len(absent), 1 if w == "prodcons" and not shown else 0)
                    # each band piece behind an exercised dot, none at a slot of an idle one
                    xs = sorted(b.get_x() + b.get_width() / 2 for b in band)
                    want = sorted(plot.f4_slot_x(p, e["backoff"], g["j"]) for g in pn["groups"]
                                  if g["exercised"] is not False for e in g["change"]
                                  if e["pct"] is not None) if w == "prodcons" else []
                    self.assertEqual([round(x, 6) for x in xs], [round(x, 6) for x in want])
                self.check_not_exercised_outside(a, band, renderer, w)
        p = self.prep("half")
        self.assertEqual([g["exercised"] for g in p["columns"][0]["groups"]], [True, False])

    def check_not_exercised_outside(self, a, band, renderer, w):
        """No "not exercised" box overlaps a piece of the band; each is above it."""
        for b in band:
            box = b.get_window_extent(renderer)
            for t in a.texts:
                if t.get_gid() != "f4-not-exercised":
                    continue
                tb = t.get_bbox_patch().get_window_extent(renderer)
                with self.subTest(workload=w, text=t.get_text()):
                    self.assertFalse(tb.overlaps(box), "not exercised inside the band")
                    self.assertGreater(tb.y0, box.y1)

    def test_the_figure_prints_summarizes_changes(self):
        ratios = plot.figure_ratios(self.results, "one")
        hostdir = os.path.join(self.results, "one")
        want = {}
        for w, work in summarize.f4_workloads(hostdir):
            d = summarize.f4(hostdir, w, work)
            if d["none_failed_per_item"] < nrdata.BACKOFF_EXERCISED:
                continue
            for b in ("pause", "exp", "yield"):
                cid = ("f4.%s_change_pct" % b if w == "prodcons" and not work else
                       "f4.%s.%s_change_pct" % (w, b) if not work else
                       "f4.%s.work%g.%s_change_pct" % (w, work, b))
                want[cid] = d["%s_change_pct" % b]
        self.assertEqual(ratios, want)
        self.assertIn("f4.pairs.pause_change_pct", ratios)
        self.assertIn("f4.mixed.work300.yield_change_pct", ratios)
        self.assertNotIn("f4.pause_change_pct", ratios)          # prodcons: not exercised
        self.assertNotIn("f4.pairs.work300.pause_change_pct", ratios)

    def test_headline(self):
        p = self.prep("one")
        ann = p["annotation"]
        self.assertTrue(ann.startswith("vs none at 2 threads, no local work: "), ann)
        self.assertIn("prodcons pause/exp/yield: backoff not exercised on this host", ann)
        self.assertIn("pairs: pause +", ann)
        self.assertNotIn("%", ann.split("pairs")[0])
        self.assertIn("(study, prodcons: \u221215 to \u221230% at 32 workers, 2 nodes)", ann)

    # ---- gnuplot: the same panels from the same data ---------------------------

    def test_the_gp_reads_the_columns_by_name(self):
        with open(GP, encoding="utf-8") as f:
            gp = f.read()
        blocks, cols = gp_columns(gp)
        names = [b[0] for b in plot.F4_DAT_BLOCKS]
        self.assertEqual(blocks, {"POINTS": names.index("points"),
                                  "CHANGE": names.index("change vs none"),
                                  "HARNESS": names.index("harness alone (null queue)"),
                                  "PANELS": names.index("panels")})
        prefix = {"pt": "points", "ch": "change vs none", "hn": "harness alone (null queue)",
                  "pn": "panels"}
        for p_ in ("one", "many"):
            dat = plot.dat_text(DIAG, self.prep(p_))
            found = {name: (c, rows) for name, c, rows in dat_blocks(dat)}
            self.assertEqual(list(found), names)
            for pre, named in cols.items():
                header, rows = found[prefix[pre]]
                for name, n in named.items():
                    with self.subTest(host=p_, block=prefix[pre], column=name):
                        self.assertEqual(header[n - 1], name)
                for row in rows:
                    self.assertEqual(len(row), len(header), row)
        # every column it reads goes through a name: no $N, no column(N)
        code = "\n".join(ln for ln in gp.splitlines() if not ln.lstrip().startswith("#"))
        self.assertNotRegex(code, r"\$\d")
        self.assertNotRegex(code, r"column\(\d")
        self.assertNotRegex(code, r"strcol\(\d")
        # and each named column is used
        for pre, named in cols.items():
            for name in named:
                self.assertRegex(code, r"\b%s_%s\b[^=]" % (pre, name))

    def test_the_data_file_says_what_the_figure_shows(self):
        p = self.prep("one")
        found = {name: (c, rows) for name, c, rows in dat_blocks(plot.dat_text(DIAG, p))}
        cols, rows = found["change vs none"]
        ix = {c: i for i, c in enumerate(cols)}
        for e in p["relative"]:
            row = [r for r in rows if r[ix["workload"]] == e["workload"]
                   and float(r[ix["work_ns"]]) == e["work"] and r[ix["backoff"]] == e["backoff"]]
            self.assertEqual(len(row), 1)
            row = row[0]
            self.assertEqual("%+.1f" % float(row[ix["change_pct"]]), "%+.1f" % e["pct"])
            self.assertEqual(row[ix["exercised"]], "%d" % e["exercised"])
            self.assertEqual(row[ix["inconclusive"]], "%d" % (e["lo"] <= 0 <= e["hi"]))
        cols, rows = found["panels"]
        ix = {c: i for i, c in enumerate(cols)}
        band = {r[ix["workload"]]: r[ix["band"]] for r in rows}
        self.assertEqual(band, {"prodcons": "1", "pairs": "0", "mixed": "0"})
        ex = {(r[ix["workload"]], r[ix["work_ns"]]): r[ix["exercised"]] for r in rows}
        self.assertEqual(ex, {("prodcons", "0"): "0", ("prodcons", "300"): "0",
                              ("pairs", "0"): "1", ("pairs", "300"): "0",
                              ("mixed", "0"): "1", ("mixed", "300"): "1"})
        cols, rows = found["points"]
        ix = {c: i for i, c in enumerate(cols)}
        self.assertEqual({r[ix["x"]] for r in rows if r[ix["workload"]] == "pairs"},
                         {"-0.17", "0.17", "0.83", "1.17", "1.83", "2.17", "2.83", "3.17"})

    @slow
    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_draws_both_shapes(self):
        plots = os.path.join(self.tmp, "plots")
        py = sys.executable if have_matplotlib() else "/usr/bin/python3"
        r = subprocess.run(module("figures.plot", py) + ["--results", self.results,
                                                 "--plots", plots, "--gnuplot"],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for host in ("one", "many", "old"):
            with self.subTest(host=host):
                for name, sub, gp in ((DIAG, "supplement", GP), ("f4-backoff", "", MAIN_GP)):
                    png = os.path.join(plots, host, sub, "gnuplot", name + ".png")
                    self.assertTrue(os.path.isfile(png))
                    self.assertGreater(os.path.getsize(png), 30000)
                    # standalone, from the data file alone
                    out = os.path.join(self.tmp, "%s-%s-standalone.png" % (host, name))
                    g = subprocess.run([GNUPLOT, "-e", "datafile='%s'; outfile='%s'" % (
                        os.path.join(plots, host, sub, "data", name + ".dat"), out), gp],
                        capture_output=True, text=True, timeout=120)
                    self.assertEqual(g.returncode, 0, g.stderr)
                    self.assertTrue(os.path.isfile(out))


def gp_named(text, prefixes):
    """{prefix: {column: number}} and {block: index} of a .gp (B_<NAME> = i)."""
    blocks = {m.group(1): int(m.group(2))
              for m in re.finditer(r"^B_(\w+) = (\d+)$", text, re.M)}
    cols = {}
    for m in re.finditer(r"^(%s)_(\w+) = (\d+)$" % "|".join(prefixes), text, re.M):
        cols.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
    return blocks, cols


class GpByName:
    """A .gp reads its data file's blocks and columns by name, each it names used."""

    def check_gp(self, gp_path, block_names, bmap, prefix, dats):
        """bmap: {B_<NAME>: block}; prefix: {column prefix: block}."""
        with open(gp_path, encoding="utf-8") as f:
            gp = f.read()
        blocks, cols = gp_named(gp, list(prefix))
        self.assertEqual(blocks, {k: block_names.index(v) for k, v in bmap.items()})
        for dat in dats:
            found = {name: (c, rows) for name, c, rows in dat_blocks(dat)}
            self.assertEqual(list(found), block_names)
            for pre, named in cols.items():
                header, rows = found[prefix[pre]]
                for name, n in named.items():
                    with self.subTest(block=prefix[pre], column=name):
                        self.assertEqual(header[n - 1], name)
                for row in rows:
                    self.assertEqual(len(row), len(header), row)
        code = "\n".join(ln for ln in gp.splitlines() if not ln.lstrip().startswith("#"))
        self.assertNotRegex(code, r"\$\d")
        self.assertNotRegex(code, r"column\(\d")
        self.assertNotRegex(code, r"strcol\(\d")
        for pre, named in cols.items():
            for name in named:
                self.assertRegex(code, r"\b%s_%s\b[^=]" % (pre, name))


class MainFigure(GpByName, unittest.TestCase):
    """The main f4-backoff: a panel per workload, the backoffs on x, each one's
    paired change against none; the rest is the supplement's."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-f4main-")
        cls.results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(cls.results, "one", "real", (2,), reps=5, seed=7,
                                   experiments=["f4-backoff"], workloads=WORKLOADS,
                                   oversub_above=2, latency_files=False)
        fakeresults.make_synthetic(cls.results, "many", "real", (2, 4, 8), reps=3, seed=8,
                                   experiments=["f4-backoff"], workloads=WORKLOADS,
                                   oversub_above=4, latency_files=False)
        fakeresults.make_synthetic(
            cls.results, "half", "real", (2,), reps=5, seed=10, experiments=["f4-backoff"],
            workloads={"prodcons": dict(fakeresults.F4_WORKLOADS["prodcons"],
                                        failed={0: 0.05, 300: 0.0002})},
            oversub_above=2, latency_files=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def prepared(self, name):
        h = plot.Host(self.results, name)
        h.load()
        return plot.prepare(h)

    def drawn(self, name):
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        p = self.prepared(name)["f4-backoff"]
        fig = plot.render("f4-backoff", p)
        self.addCleanup(plot.plt.close, fig)
        fig.canvas.draw()
        axes = [a for a in fig.axes if a.axison]
        return p, dict(zip([c["workload"] for c in p["columns"]], axes)), fig

    def test_a_panel_per_workload_the_backoffs_on_x(self):
        p, ax, fig = self.drawn("one")
        self.assertEqual(p["kind"], "f4-change")
        self.assertEqual(list(ax), list(WORKLOADS))
        self.assertEqual(len([a for a in fig.axes if a.axison]), 3)
        self.assertEqual(fig._suptitle.get_text(), "F4: throughput change of each backoff "
                         "against none, per workload, at 2 threads")
        for w, a in ax.items():
            with self.subTest(workload=w):
                want = ["none", "pause", "exp", "yield"] + (["study"] if w == "prodcons" else [])
                self.assertEqual([t.get_text() for t in a.get_xticklabels()], want)
                self.assertEqual(a.get_ylabel() != "", w == "prodcons")
        # one caption line under the host's, the rest in the notes
        self.assertEqual(len(p["caption"]), 2)
        self.assertIn("filled no local work, hollow 300 ns local work", p["caption"][1][0])
        self.assertTrue(any("f4-backoff-diagnostics" in t for t in p["notes"]))

    def test_the_changes_are_the_diagnostics_and_summarizes(self):
        preps = self.prepared("one")
        main, diag = preps["f4-backoff"], preps[DIAG]
        self.assertEqual(main["ratios"], diag["ratios"])
        self.assertEqual(main["relative"], diag["relative"])
        self.assertEqual(plot.figure_ratios(self.results, "one", by_figure=True)["f4-backoff"],
                         diag["ratios"])
        _p, ax, _fig = self.drawn("one")
        texts = {w: [t.get_text() for t in a.texts if re.search(r"[\u2212+]\d+\.\d%",
                                                                t.get_text())]
                 for w, a in ax.items()}
        self.assertEqual({w: len(v) for w, v in texts.items()},
                         {"prodcons": 0, "pairs": 3, "mixed": 6})
        for e in main["relative"]:
            if e["text"]:
                self.assertTrue(any(t.startswith(e["text"]) for t in texts[e["workload"]]))
        # a dot per exercised change, at summarize's value
        dots = sorted(round(float(ln.get_ydata()[0]), 6) for a in ax.values()
                      for ln in a.lines if ln.get_marker() == "o")
        self.assertEqual(dots, sorted(round(e["pct"], 6) for e in main["relative"]
                                      if e["text"] is not None))

    def test_not_exercised_and_the_study_slot(self):
        from matplotlib.colors import to_hex
        for host, idle in (("one", {"prodcons": 2, "pairs": 1, "mixed": 0}),
                           ("half", {"prodcons": 1})):
            p, ax, _fig = self.drawn(host)
            for w, a in ax.items():
                with self.subTest(host=host, workload=w):
                    boxes = [t.get_text() for t in a.texts if t.get_gid() == "f4-not-exercised"]
                    self.assertEqual(len(boxes), idle[w])
                    band = [pt for pt in a.patches
                            if to_hex(pt.get_facecolor()) == BAND_COLOR]
                    self.assertEqual(len(band), 1 if w == "prodcons" else 0)
                    if band:
                        # in the study's own slot, beside the backoffs: -30 to -15
                        b = band[0]
                        self.assertAlmostEqual(b.get_x() + b.get_width() / 2,
                                               len(p["backoffs"]))
                        self.assertEqual((b.get_y(), b.get_y() + b.get_height()),
                                         (-30.0, -15.0))
        _p, _ax, fig = self.drawn("one")
        legend = [t.get_text() for a in fig.axes if a.get_legend()
                  for t in a.get_legend().get_texts()]
        self.assertIn("study, prodcons:\n\u221215 to \u221230%", legend)
        self.assertNotIn("harness alone (null queue)", legend)

    def test_several_thread_counts_quote_one(self):
        p = self.prepared("many")["f4-backoff"]
        self.assertEqual(p["quoted"], [4])
        self.assertIn("at 4 threads", p["title"])

    def test_the_gp_reads_the_columns_by_name(self):
        names = [b[0] for b in plot.fig_f4.F4_CHANGE_DAT_BLOCKS]
        self.check_gp(MAIN_GP, names, {"CHANGE": "change vs none", "PANELS": "panels",
                                       "SLOTS": "slots", "STUDY": "study"},
                      {"ch": "change vs none", "pn": "panels", "sl": "slots", "st": "study"},
                      [plot.dat_text("f4-backoff", self.prepared(h)["f4-backoff"])
                       for h in ("one", "many", "half")])

    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_draws_it(self):
        p = self.prepared("one")["f4-backoff"]
        dat = os.path.join(self.tmp, "f4-backoff.dat")
        with open(dat, "w", encoding="utf-8") as f:
            f.write("\n".join(plot.dat_text("f4-backoff", p)) + "\n")
        out = os.path.join(self.tmp, "f4-backoff.png")
        g = subprocess.run([GNUPLOT, "-e", "datafile='%s'; outfile='%s'" % (dat, out), MAIN_GP],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(g.returncode, 0, g.stderr)
        self.assertGreater(os.path.getsize(out), 20000)


class Spin(GpByName, unittest.TestCase):
    """f4-spin: pause by its spin, exp by its cap, each against none."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-f4spin-")
        cls.results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(cls.results, "spin", "real", (2,), reps=5, seed=11,
                                   experiments=["f4-backoff", "f4-spin"], workloads=WORKLOADS,
                                   latency_files=False)
        h = plot.Host(cls.results, "spin")
        h.load()
        cls.p = plot.prepare(h)["f4-spin"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_a_panel_per_backoff_its_changes_the_findings(self):
        p = self.p
        self.assertEqual([pn["backoff"] for pn in p["panels"]], ["pause", "exp"])
        self.assertEqual([[d["spin"] for d in pn["points"]] for pn in p["panels"]],
                         [[8, 32, 128], [64, 1024]])
        self.assertEqual([pn["default"] for pn in p["panels"]], [32, 1024])
        want = findings.f4_spin(os.path.join(self.results, "spin"))
        got = [d for pn in p["panels"] for d in pn["points"]]
        self.assertEqual([d["change_pct"] for d in got], [d["change_pct"] for d in want])
        for d in got:
            model = fakeresults.F4_SPIN_CHANGE[(d["backoff"], d["spin"])] * 100
            self.assertAlmostEqual(d["change_pct"], model, delta=12)
            self.assertLessEqual(d["change_pct_lo"], d["change_pct"])
        self.assertEqual(p["title"], "F4: throughput change against none by spin length "
                         "(pairs, 2 threads, no local work)")
        self.assertEqual(len(p["caption"]), 2)

    def test_drawn(self):
        if not have_matplotlib():
            self.skipTest("no matplotlib")
        fig = plot.render("f4-spin", self.p)
        self.addCleanup(plot.plt.close, fig)
        axes = [a for a in fig.axes if a.axison]
        self.assertEqual(len(axes), 2)
        for a, pn in zip(axes, self.p["panels"]):
            with self.subTest(backoff=pn["backoff"]):
                self.assertEqual(a.get_xscale(), "log")
                self.assertEqual([t.get_text() for t in a.get_xticklabels()],
                                 [str(d["spin"]) for d in pn["points"]])
                dots = [round(float(ln.get_ydata()[0]), 6) for ln in a.lines
                        if ln.get_marker() == "o"]
                self.assertEqual(dots, [round(d["change_pct"], 6) for d in pn["points"]])
                self.assertEqual(len([pt for pt in a.patches
                                      if pt.get_gid() == "f4-study-band"]), 1)

    def test_the_gp_reads_the_columns_by_name(self):
        names = [b[0] for b in plot.fig_f4_spin.F4_SPIN_DAT_BLOCKS]
        self.check_gp(SPIN_GP, names, {"SPINS": "spins", "PANELS": "panels"},
                      {"sp": "spins", "pn": "panels"},
                      [plot.dat_text("f4-spin", self.p)])

    @unittest.skipUnless(GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_draws_it(self):
        dat = os.path.join(self.tmp, "f4-spin.dat")
        with open(dat, "w", encoding="utf-8") as f:
            f.write("\n".join(plot.dat_text("f4-spin", self.p)) + "\n")
        out = os.path.join(self.tmp, "f4-spin.png")
        g = subprocess.run([GNUPLOT, "-e", "datafile='%s'; outfile='%s'" % (dat, out), SPIN_GP],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(g.returncode, 0, g.stderr)
        self.assertGreater(os.path.getsize(out), 20000)


if __name__ == "__main__":
    unittest.main()
