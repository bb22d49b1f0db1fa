# SPDX-License-Identifier: BSD-2-Clause
"""The ratio a figure prints is the paper's and the results README's (issue 20).

    python3 -m unittest scripts.tests.test_figure_ratios

One estimator: every ratio between two configurations a figure of
scripts/figures/plot.py prints (and F1's "the look-up adds N ns") is the value of
scripts/analysis/summarize.py for the same claim (the paired median ratio: the median
over the repetitions k of the ratio of the two configurations' rep-k runs),
printed at the precision of the paper's macro for it (scripts/paper/paper_numbers.py).

* Committed: for every host under results/, plot.figure_ratios() equals
  summarize's values, the figures' text prints them (and no other N.N\u00d7), and
  they equal the macros of paper/generated/numbers.tex regenerated into a
  temporary file, digit for digit.
* Synthetic (tests/fakeresults.py): repetitions made so that the ratio of the
  medians and the median of the paired ratios differ clearly (paired = 0.8 x
  the ratio of the medians); the figures print the paired one, F1 the look-up's
  addition (paired ratio x the data movement), not the total time per item.

The drawn text needs matplotlib; where this Python lacks it, the drawing runs
in Debian's /usr/bin/python3 (this file run as a script: --drawn-texts).
"""

import csv
import importlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

from scripts.tests import fakeresults
from scripts.analysis import findings, nrdata
from scripts.figures import fig_host, plot
from scripts.analysis import summarize
from scripts.tests import module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
REPO = os.path.dirname(SCRIPTS)
RESULTS = os.path.join(REPO, "results")


#: claim id -> (summarize function, its key, the paper's macro, the paper's format)
#: (written out here, not read from plot.py: the test's own idea of the mapping)
EXPECT = {
    "f1.lookup_over_move": ("f1", "ratio", "FOneRatio", "{:.1f}"),
    "f1.lookup_ns": ("f1", "lookup_ns", "FOneLookupNs", "{:.1f}"),
    "f1.move_ns": ("f1", "move_ns", "FOneMoveNs", "{:.1f}"),
    "f2.cached_over_libnuma": ("f2", "cached_over_libnuma", "FTwoRatio", "{:.1f}"),
    "f3.p50_shared_over_perworker": ("f3", "shared_over_perworker", "FThreeRatio", "{:.1f}"),
    "f4.pause_change_pct": ("f4", "pause_change_pct", "FFourPause", "{:+.1f}"),
    "f4.exp_change_pct": ("f4", "exp_change_pct", "FFourExp", "{:+.1f}"),
    "f4.yield_change_pct": ("f4", "yield_change_pct", "FFourYield", "{:+.1f}"),
}

#: the figures that print a ratio between configurations, and the claims each must
#: print where summarize has the value (F4: where the backoff ran)
FIGURE_CLAIMS = {
    "f1-lookup-cost": ["f1.lookup_over_move", "f1.lookup_ns", "f1.move_ns"],
    "f2-node-cache": ["f2.cached_over_libnuma"],
    "f3-gate-percentiles": ["f3.p50_shared_over_perworker"],
    "f3-gate-vs-threads": ["f3.p50_shared_over_perworker"],
    "f3-gate-load-diagnostics": ["f3.p50_shared_over_perworker"],
    "f4-backoff": ["f4.pause_change_pct", "f4.exp_change_pct", "f4.yield_change_pct"],
}


#: F4 per workload (issue 21): f4.<workload>.<backoff>_change_pct without local
#: work, f4.<workload>.work<N>.<backoff>_change_pct with N ns of it (prodcons
#: without work: the f4.<backoff>_change_pct above, the paper's); summarize.f4(
#: hostdir, workload, work)'s <backoff>_change_pct; no paper macro
#: the backoffs F4 compares with none: the study's three and the production
#: default (adaptive; f4-backoff.exp's block default-backoff), as findings.f4
F4_BACKOFFS = tuple(findings.F4_BACKOFFS)
F4_CLAIM_RE = re.compile(r"^f4\.(?:(\w+)\.)?(?:work(\d+(?:\.\d+)?)\.)?(%s)_change_pct$"
                         % "|".join(F4_BACKOFFS))


#: F3 per offered load (the main figure's ratio above each load):
#: f3.load<L>.p50_shared_over_perworker, summarize.f3's "loads" entry of that
#: load, its shared_over_perworker; no paper macro (the paper's is the highest load's)
F3_LOAD_RE = re.compile(r"^f3\.load([0-9.]+)\.p50_shared_over_perworker$")


def f4_claim_id(workload, work, backoff):
    if workload == "prodcons" and not work:
        return "f4.%s_change_pct" % backoff
    if not work:
        return "f4.%s.%s_change_pct" % (workload, backoff)
    return "f4.%s.work%g.%s_change_pct" % (workload, work, backoff)


def expect(claim):
    """EXPECT's entry for a claim, F4's per workload too: (summarize function,
    its key, the paper's macro or None, the format, summarize's extra arguments)."""
    if claim in EXPECT:
        return EXPECT[claim] + ((),)
    if F3_LOAD_RE.match(claim):
        return ("f3", "shared_over_perworker", None, "{:.1f}", ())
    m = F4_CLAIM_RE.match(claim)
    if m is None:
        return None
    return ("f4", "%s_change_pct" % m.group(3), None, "{:+.1f}",
            (m.group(1) or "prodcons", float(m.group(2) or 0)))


def split(claim):
    """(base claim, '' / '_lo' / '_hi')."""
    for sfx in ("_lo", "_hi"):
        if claim.endswith(sfx):
            return claim[:-len(sfx)], sfx
    return claim, ""


def summarized(hostdir, claim):
    """summarize's value for a claim (its interval's bounds for _lo/_hi), or None."""
    base, sfx = split(claim)
    fn, key, _m, _f, args = expect(base)
    m = F3_LOAD_RE.match(base)
    if m:
        d = [d for d in (summarize.f3(hostdir) or {}).get("loads", [])
             if d.get("load") == m.group(1)]
        return d[0].get(key + sfx) if d else None
    return (getattr(summarize, fn)(hostdir, *args) or {}).get(key + sfx)


def paper_text(claim, v):
    """A value as the paper's macro prints it."""
    base, _sfx = split(claim)
    return expect(base)[3].format(v)


def macro_of(claim):
    """The paper's macro of a claim; None where the paper prints none."""
    base, sfx = split(claim)
    m = expect(base)[2]
    return None if m is None else m + {"": "", "_lo": "Lo", "_hi": "Hi"}[sfx]


def read_macros(path):
    with open(path, encoding="utf-8") as f:
        return dict(re.findall(r"\\newcommand\{\\([A-Za-z]+)\}\{(.*)\}", f.read()))


def hosts_of(results):
    return sorted(d for d in os.listdir(results) if os.path.isdir(os.path.join(results, d)))


def wanted(hostdir, name, undetermined=False):
    """The claims figure ``name`` must print on this host: those summarize has a
    value for (F4: every workload and amount of local work, where the none run
    lost races: at least nrdata.BACKOFF_EXERCISED per operation, or not recorded),
    less those whose pairs support no value (fig_host.undetermined), which the
    figure prints as 'undetermined'; with ``undetermined``, only those."""
    if name == "f4-backoff":
        if undetermined:    # changes in % are not judged (fig_host.undetermined)
            return []
        out = []
        for w, work in summarize.f4_workloads(hostdir):
            d = summarize.f4(hostdir, w, work) or {}
            rate = d.get("none_failed_per_item")
            if rate is not None and rate < nrdata.BACKOFF_EXERCISED:
                continue
            out += [f4_claim_id(w, work, b) for b in F4_BACKOFFS
                    if d.get("%s_change_pct" % b) is not None]
        return out
    out = []
    for claim in FIGURE_CLAIMS.get(name, []):
        fn, key, _m, _f = EXPECT[claim]
        d = getattr(summarize, fn)(hostdir) or {}
        if d.get(key) is None:
            continue
        if fig_host.undetermined(claim, d, key) == undetermined:
            out.append(claim)
    return out


# ---- the drawn text -----------------------------------------------------------

#: a ratio as a figure prints it (N.N\u00d7; the study's "> 11\u00d7" has no decimals),
#: an interval [lo\u2013hi], a change in percent with a decimal
RATIO_RE = re.compile(r"(\d+\.\d+)\u00d7")
INTERVAL_RE = re.compile(r"\[([\u2212+]?\d+\.\d+)\u2013([\u2212+]?\d+\.\d+)(?:, [\d.]+%\+?)?\]")
PCT_RE = re.compile(r"([\u2212+]\d+\.\d+)%")
NS_RE = re.compile(r"adds (\d+\.\d+) ns")


def drawn_texts(results, host):
    """{figure: [every text drawn in it]} (titles, annotations, bar labels, legend,
    caption) for the figures that print ratios; matplotlib, nothing saved."""
    plot.init_matplotlib()
    import matplotlib.text
    h = plot.Host(results, host)
    h.load()
    preps = plot.prepare(h)
    out = {}
    for name in FIGURE_CLAIMS:
        p = preps.get(name)
        if p is None:
            continue
        nrows, ncols = plot.grid_of(name, p)
        fig, axes = plot.plt.subplots(nrows, ncols, squeeze=False,
                                      figsize=plot.figure_size(ncols))
        plot.DRAW[p["kind"]](list(axes.flat), p)
        plot.suptitle(fig, p["title"], plot.emulated(p), plot.guest(p))
        plot.add_caption(fig, [(None, p["caption"])])
        fig.canvas.draw()
        out[name] = [t.get_text() for t in fig.findobj(matplotlib.text.Text)
                     if t.get_text()]
        plot.plt.close(fig)
    return out


def have_matplotlib():
    try:
        importlib.import_module("matplotlib")
        return True
    except ImportError:
        return False


def drawn(results, host):
    if have_matplotlib():
        return drawn_texts(results, host)
    py = "/usr/bin/python3"
    if not os.path.exists(py):
        raise unittest.SkipTest("no Python with matplotlib")
    r = subprocess.run([py, os.path.abspath(__file__), "--drawn-texts", results, host],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        if "No module named 'matplotlib'" in r.stderr:
            raise unittest.SkipTest("no Python with matplotlib")
        raise AssertionError(r.stderr)
    return json.loads(r.stdout)


def printed(texts):
    """The ratio-like numbers in a figure's texts: (ratios, interval bounds,
    percentages, ns the look-up adds), each a sorted list of the strings found
    (once each: F4 prints a change above its bar and in the title)."""
    text = "\n".join(texts)
    return (sorted(set(RATIO_RE.findall(text))),
            sorted({x for pair in INTERVAL_RE.findall(text) for x in pair}),
            sorted(set(PCT_RE.findall(text))), sorted(set(NS_RE.findall(text))))


def expected_printed(ratios):
    """What printed() must find for a figure's recorded claims."""
    rat, bounds, pct, ns = [], [], [], []
    for claim, v in ratios.items():
        base, sfx = split(claim)
        s = plot.fmt_claim(base, v, unit=False)
        if sfx:
            bounds.append(s)
        elif base.endswith("_pct"):
            pct.append(s)
        elif base == "f1.lookup_ns":
            ns.append(s)
        elif not base.endswith("_ns"):
            rat.append(s)
    return sorted(set(rat)), sorted(set(bounds)), sorted(set(pct)), sorted(set(ns))


class Checks:
    """What holds for any results tree: figure = summarize = paper."""

    results = None
    host_list = ()

    def check_host(self, host):
        hostdir = os.path.join(self.results, host)
        per = plot.figure_ratios(self.results, host, by_figure=True)
        flat = plot.figure_ratios(self.results, host)
        preps = plot.prepare(self.load(host))
        for name, ratios in per.items():
            for claim in wanted(hostdir, name):
                with self.subTest(host=host, figure=name, claim=claim):
                    self.assertIn(claim, ratios, "%s prints no %s" % (name, claim))
            for claim in wanted(hostdir, name, undetermined=True):
                with self.subTest(host=host, figure=name, claim=claim, undetermined=True):
                    self.assertNotIn(claim, ratios, "%s prints a value for %s, whose "
                                     "pairs support none" % (name, claim))
                    self.assertIn("undetermined", self.said(preps[name]),
                                  "%s does not say %s is undetermined" % (name, claim))
            for claim, v in ratios.items():
                with self.subTest(host=host, figure=name, claim=claim):
                    self.assertIsNotNone(expect(split(claim)[0]), claim)
                    want = summarized(hostdir, claim)
                    self.assertIsNotNone(want)
                    self.assertEqual(v, want)
                    self.assertEqual(flat[claim], want)
                    self.assertEqual(plot.fmt_claim(split(claim)[0], v, unit=False),
                                     plot.fmt_claim(split(claim)[0], want, unit=False))
                    # the figure prints it: annotation, F4's bar label or F3's
                    # ratio above each load
                    text = self.said(preps[name])
                    self.assertIn(plot.fmt_claim(split(claim)[0], want,
                                                 unit=not split(claim)[1]), text)
        return per

    @staticmethod
    def said(prep):
        """The texts a prepared figure prints its claims in: the annotation, F4's
        bar labels, F3's ratio above each load."""
        return "\n".join([prep.get("annotation") or ""] +
                         [r.get("text") or "" for r in prep.get("relative", [])] +
                         [t for _x, t in prep.get("ratio_at", [])])

    def load(self, host):
        h = plot.Host(self.results, host)
        h.load()
        return h

    def check_drawn(self, host, per):
        """Every N.N\u00d7, interval, signed percentage and 'adds N ns' drawn in a
        figure is one of its claims as recorded, and every claim is drawn."""
        texts = drawn(self.results, host)
        for name, ratios in per.items():
            if name not in texts:
                continue
            with self.subTest(host=host, figure=name):
                self.assertEqual(printed(texts[name]), expected_printed(ratios),
                                 "\n".join(t for t in texts[name] if "\u00d7" in t or
                                           "%" in t))

    def check_paper(self, numbers, real, cross):
        macros = read_macros(numbers)
        seen = 0
        for host in (real, cross):
            if not host:
                continue
            for claim, v in plot.figure_ratios(self.results, host).items():
                base = split(claim)[0]
                if (base.startswith("f3.") and host != cross) or \
                        (not base.startswith("f3.") and host != real):
                    continue
                if macro_of(claim) is None:
                    continue   # F4 per workload: figures and README, no paper macro
                with self.subTest(host=host, claim=claim, macro=macro_of(claim)):
                    got = macros.get(macro_of(claim))
                    self.assertEqual(got, paper_text(claim, v))
                    # the figure's digits are the paper's
                    self.assertEqual(plot.fmt_claim(base, v, unit=False)
                                     .replace("\u2212", "-"), got)
                    seen += 1
        return seen


def paper_numbers(results, out, *args):
    r = subprocess.run(module("paper.paper_numbers") + ["--results", results, "--out", out]
                       + list(args),
                       capture_output=True, text=True, timeout=300, cwd=REPO)
    if r.returncode != 0:
        raise AssertionError("paper_numbers.py failed: %s" % r.stderr)
    return out


@slow
class Committed(Checks, unittest.TestCase):
    """The committed results: each figure ratio is summarize's, and the paper's."""

    @classmethod
    def setUpClass(cls):
        cls.results = RESULTS
        cls.host_list = hosts_of(RESULTS) if os.path.isdir(RESULTS) else []
        if not cls.host_list:
            raise unittest.SkipTest("no committed results")
        cls.tmp = tempfile.mkdtemp(prefix="nr-figratios-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_figure_ratio_is_summarizes(self):
        printed_any = set()
        for host in self.host_list:
            per = self.check_host(host)
            printed_any |= {split(c)[0] for r in per.values() for c in r}
        # the hosts committed now print F1's, F2's and F3's ratios somewhere
        for claim in ("f1.lookup_over_move", "f1.lookup_ns", "f2.cached_over_libnuma",
                      "f3.p50_shared_over_perworker"):
            self.assertIn(claim, printed_any)

    def test_drawn_text_is_the_claims(self):
        for host in self.host_list:
            self.check_drawn(host, plot.figure_ratios(self.results, host, by_figure=True))

    def test_figure_ratio_is_the_papers(self):
        out = paper_numbers(self.results, os.path.join(self.tmp, "numbers.tex"))
        macros = read_macros(out)
        real = macros["RealHost"].replace("\\_", "_")
        cross = macros.get("CrossHost", "n/a").replace("\\_", "_")
        self.assertIn(real, self.host_list)
        seen = self.check_paper(out, real, cross if cross in self.host_list else None)
        self.assertGreaterEqual(seen, 4)   # F1 (ratio, ns, move), F2, F3 at least

    def test_issue_20(self):
        """The numbers of the issue: the paper's 10.7x and 10.6x, not 9.75x and 10.3x."""
        host = "vm-intel-f6m106-1node"
        if host not in self.host_list:
            self.skipTest("%s is not committed" % host)
        preps = plot.prepare(self.load(host))
        hostdir = os.path.join(self.results, host)
        f1 = summarize.f1(hostdir)
        self.assertIn("= %.1f\u00d7" % f1["ratio"], preps["f1-lookup-cost"]["annotation"])
        self.assertIn("adds %.1f ns" % f1["lookup_ns"], preps["f1-lookup-cost"]["annotation"])
        self.assertNotIn("9.75", preps["f1-lookup-cost"]["annotation"])
        f2 = summarize.f2(hostdir)
        self.assertIn("= %.1f\u00d7" % f2["cached_over_libnuma"],
                      preps["f2-node-cache"]["annotation"])
        self.assertNotIn("10.3\u00d7", preps["f2-node-cache"]["annotation"])

    def test_gnuplot_prints_the_change_at_the_figures_precision(self):
        """f4-backoff.gp labels the change itself: at the claim's precision."""
        with open(os.path.join(SCRIPTS, "gnuplot", "f4-backoff.gp")) as f:
            gp = f.read()
        fmt, unit = plot.claim_style("f4.pause_change_pct")
        self.assertEqual((fmt, unit), ("{:+.1f}", "%"))
        self.assertIn("sprintf('%+.1f%%", gp)
        self.assertNotIn("%+.0f%%", gp)


# ---- synthetic: the ratio of the medians is not the median of the paired ratios

#: per-rep factors (reps 1..5) of the numerator's and the denominator's runs: the
#: median of the two is the same rep's (3), the paired ratios' median is 0.8 x
#: the ratio of the medians (per rep 3, 0.5, 1.67, 0.5, 0.8)
NUM = {1: 3.0, 2: 1.0, 3: 5.0, 4: 2.0, 5: 4.0}
DEN = {1: 1.0, 2: 2.0, 3: 3.0, 4: 4.0, 5: 5.0}

#: experiment -> (column, (column, value) of the numerator's rows, of the denominator's)
SKEW = {
    "f1-lookup-cost": ("throughput_ops_per_s", ("lookup", "none"), ("lookup", "libnuma")),
    "f2-node-cache": ("throughput_ops_per_s", ("lookup", "cached"), ("lookup", "libnuma")),
    "f3-gate": ("p50_ns", ("gate", "shared"), ("gate", "perworker")),
    "f4-backoff": ("throughput_ops_per_s", ("backoff", "pause"), ("backoff", "none")),
}


def skew(hostdir):
    """Multiply each SKEW column of the numerator's rows by NUM[rep] and of the
    denominator's by DEN[rep], in the tidy CSVs."""
    for exp, (col, (ka, va), (kb, vb)) in SKEW.items():
        path = os.path.join(hostdir, exp + ".csv")
        if not os.path.exists(path):
            continue
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        head = rows[0]
        ic, ia, ib, ir = (head.index(c) for c in (col, ka, kb, "rep"))
        for r in rows[1:]:
            f = NUM if r[ia] == va else DEN if r[ib] == vb else None
            if f and r[ic]:
                v = float(r[ic]) * f[int(r[ir])]
                r[ic] = "%d" % round(v) if col == "p50_ns" else "%.1f" % v
        with open(path, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)


def per_rep(rows, col):
    return {int(r["rep"]): float(r[col]) for r in rows}


class Synthetic(Checks, unittest.TestCase):
    """Repetitions where pairing matters: the figures print the paired ratio."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-figratios-syn-")
        cls.results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(cls.results, "closed", "real", (2, 4), reps=5, seed=3,
                                   latency_files=False)
        # open loop; 4 threads oversubscribed: F3 is quoted at 2
        fakeresults.make_synthetic(cls.results, "open", "emulated", (2, 4), reps=5, seed=4,
                                   experiments=["f3-gate"], f3_loads=(0.5, 0.75),
                                   latency_files=False, oversub_above=2)
        # F4 per workload (issue 21): prodcons not exercised, pairs and mixed exercised
        # (pairs not with local work): f4.<workload>[.work<N>].<backoff>_change_pct
        fakeresults.make_synthetic(cls.results, "workloads", "real", (2,), reps=5, seed=5,
                                   experiments=["f4-backoff"], latency_files=False,
                                   workloads=("prodcons", "pairs", "mixed"))
        for h in ("closed", "open", "workloads"):
            skew(os.path.join(cls.results, h))
        cls.host_list = ["closed", "open", "workloads"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rows(self, host, exp, **kw):
        path = os.path.join(self.results, host, exp + ".csv")
        with open(path, newline="") as f:
            return [r for r in csv.DictReader(f)
                    if all(r.get(k) == v for k, v in kw.items())]

    def both(self, host, exp, threads=None, load=None):
        """(paired median ratio, ratio of the medians) of SKEW's two groups."""
        col, (ka, va), (kb, vb) = SKEW[exp]
        sel = {}
        if load is not None:
            sel["load"] = load

        def keep(rs):
            if threads is None:
                return rs
            return [r for r in rs if int(r["producers"]) + int(r["consumers"]) == threads]
        a = per_rep(keep(self.rows(host, exp, **{ka: va}, **sel)), col)
        b = per_rep(keep(self.rows(host, exp, **{kb: vb}, **sel)), col)
        paired = statistics.median(a[k] / b[k] for k in sorted(set(a) & set(b)))
        of_medians = statistics.median(a.values()) / statistics.median(b.values())
        return paired, of_medians

    def test_the_two_estimators_differ_here(self):
        for exp, threads, load in (("f1-lookup-cost", None, None), ("f2-node-cache", 4, None),
                                   ("f4-backoff", 4, None), ("f3-gate", 4, None),
                                   ("f3-gate", 2, "0.75")):
            with self.subTest(experiment=exp):
                host = "open" if load else "closed"
                paired, of_medians = self.both(host, exp, threads, load)
                self.assertLess(paired / of_medians, 0.9)

    def test_figure_ratio_is_summarizes(self):
        for host in self.host_list:
            self.check_host(host)
        # the workloads' changes: where the none run lost races, and only there
        per = plot.figure_ratios(self.results, "workloads")
        self.assertIn("f4.pairs.pause_change_pct", per)
        self.assertIn("f4.mixed.work300.exp_change_pct", per)
        self.assertNotIn("f4.pause_change_pct", per)
        self.assertNotIn("f4.pairs.work300.pause_change_pct", per)

    def test_drawn_text_is_the_claims(self):
        for host in self.host_list:
            self.check_drawn(host, plot.figure_ratios(self.results, host, by_figure=True))

    def test_figure_ratio_is_the_papers(self):
        out = os.path.join(self.tmp, "numbers.tex")
        paper_numbers(self.results, out, "--real", "closed", "--emulated", "open")
        self.assertGreaterEqual(self.check_paper(out, "closed", "open"), 6)

    def test_figures_print_the_paired_ratio(self):
        preps = plot.prepare(self.load("closed"))
        # F1: look-up / data movement = none_k / libnuma_k - 1, paired
        paired, of_medians = self.both("closed", "f1-lookup-cost")
        ann = preps["f1-lookup-cost"]["annotation"]
        self.assertIn("= %.1f\u00d7" % (paired - 1), ann)
        self.assertNotIn("%.1f\u00d7" % (of_medians - 1), ann)
        # ... and what it adds: that x the data movement (1e9 / none's median), not
        # libnuma's total time per item nor the difference of the medians
        none = statistics.median(per_rep(self.rows("closed", "f1-lookup-cost",
                                                   lookup="none"),
                                         "throughput_ops_per_s").values())
        lib = statistics.median(per_rep(self.rows("closed", "f1-lookup-cost",
                                                  lookup="libnuma"),
                                        "throughput_ops_per_s").values())
        adds = (paired - 1) * 1e9 / none
        self.assertIn("adds %.1f ns" % adds, ann)
        for other in (1e9 / lib, 1e9 / lib - 1e9 / none):
            self.assertNotIn("adds %.1f ns" % other, ann)
        # F2 at its quoted thread count (4): cached_k / libnuma_k
        paired, of_medians = self.both("closed", "f2-node-cache", 4)
        ann = preps["f2-node-cache"]["annotation"]
        self.assertIn("= %.1f\u00d7 at 4 threads" % paired, ann)
        self.assertNotIn("%.1f\u00d7" % of_medians, ann)
        # F4: pause against none, paired, at 4 threads (exercised: 1 in 100 failed)
        paired, of_medians = self.both("closed", "f4-backoff", 4)
        rel = {r["backoff"]: r for r in preps["f4-backoff"]["relative"]}
        want = plot.fmt_claim("f4.pause_change_pct", 100 * (paired - 1))
        self.assertEqual(rel["pause"]["text"], want)
        self.assertIn("pause " + want, preps["f4-backoff"]["annotation"])
        self.assertNotIn(plot.fmt_claim("f4.pause_change_pct", 100 * (of_medians - 1)),
                         preps["f4-backoff"]["annotation"])
        # F3 closed loop, at 4 threads: p50 shared_k / perworker_k
        paired, of_medians = self.both("closed", "f3-gate", 4)
        for name in ("f3-gate-percentiles", "f3-gate-vs-threads"):
            with self.subTest(figure=name):
                ann = preps[name]["annotation"]
                self.assertIn("= %.1f\u00d7" % paired, ann)
                self.assertNotIn("= %.1f\u00d7" % of_medians, ann)

    def test_open_loop_f3_prints_the_paired_ratio_at_the_highest_load(self):
        preps = plot.prepare(self.load("open"))
        paired, of_medians = self.both("open", "f3-gate", 2, "0.75")
        self.assertEqual(preps["f3-gate-percentiles"]["kind"], "f3main")
        self.assertEqual(preps["f3-gate-load-diagnostics"]["kind"], "f3load")
        for name in ("f3-gate-percentiles", "f3-gate-vs-threads", "f3-gate-load-diagnostics"):
            with self.subTest(figure=name):
                ann = preps[name]["annotation"]
                self.assertIn("p50 shared / perworker = %.1f\u00d7" % paired, ann)
                self.assertNotIn("= %.1f\u00d7" % of_medians, ann)
                self.assertIn("at 2 threads", ann)
        # the main figure: above each load that load's paired ratio, summarize's,
        # recorded as f3.load<L>.p50_shared_over_perworker
        p = preps["f3-gate-percentiles"]
        loads = [d for d in summarize.f3(os.path.join(self.results, "open"))["loads"]
                 if d.get("shared_over_perworker") is not None]
        self.assertGreaterEqual(len(loads), 2)
        self.assertEqual(p["ratio_at"], [(100 * float(d["load"]), plot.fmt_claim(
            "f3.p50_shared_over_perworker", d["shared_over_perworker"])) for d in loads])
        for d in loads:
            self.assertEqual(p["ratios"]["f3.load%s.p50_shared_over_perworker" % d["load"]],
                             d["shared_over_perworker"])

    def test_caption_says_what_the_ratio_is(self):
        preps = plot.prepare(self.load("closed"))
        for name in ("f1-lookup-cost-regimes", "f2-node-cache-regimes", "f3-gate-percentiles",
                     "f3-gate-vs-threads"):
            with self.subTest(figure=name):
                # in the one line of what is drawn
                self.assertIn(plot.PAIRED_WORDS, preps[name]["caption"][-1][0])
        # the open loop's F3: in the legend (its one caption line has no room)
        fig = plot.render("f3-gate-percentiles", plot.prepare(self.load("open"))[
            "f3-gate-percentiles"])
        try:
            legend = [t.get_text() for ax in fig.axes if ax.get_legend()
                      for t in ax.get_legend().get_texts()]
            self.assertIn(plot.fig_f3.RATIO_WORDS, legend)
        finally:
            plot.fig_draw.plt.close(fig)
        for name in ("f1-lookup-cost", "f2-node-cache"):
            with self.subTest(figure=name):
                # a main figure's one line has no room: its notes (the .dat header) say it
                self.assertNotIn(plot.PAIRED_WORDS, preps[name]["caption"][-1][0])
                self.assertIn(plot.PAIRED_WORDS, preps[name]["notes"])
                self.assertIn("# " + plot.PAIRED_WORDS, plot.dat_text(name, preps[name]))

    def test_gnuplot_gets_the_same_text(self):
        """The .dat file's header and gnuplot's note are the figure's annotation."""
        preps = plot.prepare(self.load("closed"))
        for name in ("f1-lookup-cost", "f2-node-cache", "f4-backoff"):
            with self.subTest(figure=name):
                dat = plot.dat_text(name, preps[name])
                ann = preps[name]["annotation"].splitlines()[0]
                self.assertTrue(any(ln.startswith("# " + ann) for ln in dat), ann)
        # F4's change column is summarize's value; the .gp labels it at %+.1f
        dat = plot.dat_text("f4-backoff", preps["f4-backoff"])
        block = "\n".join(dat).split('"change vs none"')[1].strip().splitlines()
        pause = [ln.split() for ln in block if ln.startswith("pause ")][0]
        want = summarize.f4(os.path.join(self.results, "closed"))["pause_change_pct"]
        self.assertEqual("%+.1f" % float(pause[2]), "%+.1f" % want)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--drawn-texts"]:
        json.dump(drawn_texts(sys.argv[2], sys.argv[3]), sys.stdout)
        sys.exit(0)
    unittest.main()
