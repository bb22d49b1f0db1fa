# SPDX-License-Identifier: BSD-2-Clause
"""Every .dat file plot.py writes names its columns, and every .gp script reads
only columns its .dat has.

    /usr/bin/python3 -m unittest scripts.tests.test_dat_columns_figure -v

From synthetic hosts of every shape (tests/fakeresults.py): one thread count
with paced peers, both F5 loops and F1, F2 and F4's runs split by regime,
several thread counts with open-loop F3 and oversubscribed counts, a
closed-loop F3, F4 per workload. For every
figure's data file: each block (its name in quotes on its own line) has a
'# columns:' line and each of its rows has that many fields; for every
scripts/gnuplot/*.gp: each column it names (<prefix>_<column> = N; in a script
that reads two shapes of data file, those of the shape's part) is column N
of some block of its data file, and each column number it reads ($N,
column(N), a bare N in a using spec) exists in the widest block.
"""

import os
import re
import shutil
import tempfile
import unittest

from scripts.tests import fakeresults
from scripts.figures import plot

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
GPDIR = os.path.join(SCRIPTS, "gnuplot")


#: gnuplot variables of the form <prefix>_<name> = N that are not columns
NOT_COLUMNS = ("B",)


def blocks(lines):
    """[(name, columns or None, rows)] of a .dat: the header (name None) and
    each block after two blank lines."""
    text = "\n".join(lines)
    out = []
    for i, chunk in enumerate(text.split("\n\n\n")):
        ls = [x for x in chunk.splitlines() if x.strip()]
        if not ls:
            continue
        name = ls[0].strip('"') if i and ls[0].startswith('"') else None
        cols = [x.split(":", 1)[1].split() for x in ls if x.startswith("# columns:")]
        rows = [x.split() for x in ls if not x.startswith("#") and not x.startswith('"')]
        out.append((name, cols[0] if cols else None, rows))
    return out


def gp_named(text):
    """{(prefix, name): N} of a .gp's column variables."""
    return {(m.group(1), m.group(2)): int(m.group(3))
            for m in re.finditer(r"^([a-z]+)_(\w+) = (\d+)\s*$", text, re.M)
            if m.group(1) not in NOT_COLUMNS and int(m.group(3)) > 0}


#: scripts that read two shapes of data file, and where the second shape's code
#: starts: (the marker, the width of the second shape's rows); the shape probe
#: before both (a stats of a column only the first shape has) is left out
TWO_SHAPES = {"f3-gate-percentiles": ("# Blocks: one per gate and offered load", 6),
              "f3-gate-load-diagnostics": ("# Blocks: one per gate and offered load", 6)}


def gp_for_shape(name, text, widest):
    """The part of a .gp that reads data of this width."""
    if name not in TWO_SHAPES:
        return text
    marker, width = TWO_SHAPES[name]
    head, tail = text.split(marker, 1)
    if widest <= width:
        return tail
    return head.split("if (openloop) {", 1)[1]


def gp_numbers(text):
    """The column numbers a .gp reads by number: $N, column(N) and bare
    integers between the colons of a using spec."""
    code = "\n".join(ln.split("#")[0] if not ln.lstrip().startswith("#") else ""
                     for ln in text.splitlines())
    nums = {int(x) for x in re.findall(r"\$(\d+)", code)}
    nums |= {int(x) for x in re.findall(r"\bcolumn\((\d+)\)", code)}
    for spec in re.findall(r"\busing\s+([^\s,]+)", code):
        for part in spec.split(":"):
            if part.isdigit():
                nums.add(int(part))
    return nums


class DatColumns(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-datcols-")
        cls.results = os.path.join(cls.tmp, "results")
        mk = fakeresults.make_synthetic
        every = ["f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff", "f4-spin",
                 "f5-ceiling", "peers", "placement"]
        mk(cls.results, "small", "real", (2,), reps=4, seed=41, oversub_above=2, experiments=every,
           peers_workloads=("prodcons", "pairs"), peers_paces=("free", "producer", "consumer"),
           f5_realized=0.9, f5_closed=True, workloads=("prodcons", "pairs", "mixed"),
           latency_files=False,
           closed_regimes=("f1-lookup-cost", "f2-node-cache", "f4-backoff"))
        mk(cls.results, "big", "emulated", (2, 4, 8), reps=3, seed=42, oversub_above=4,
           experiments=every,
           f3_loads=(0.25, 0.5, 0.75), f5_realized=0.9, peers_workloads=("prodcons", "pairs"),
           latency_files=False)
        mk(cls.results, "older", "real", (2, 4), reps=2, seed=43,
           experiments=["f3-gate", "f5-ceiling", "peers"], latency_files=False)
        cls.dats = {}
        for host in ("small", "big", "older"):
            h = plot.Host(cls.results, host)
            h.load()
            for name, p in plot.prepare(h).items():
                cls.dats[(host, name)] = plot.dat_text(name, p)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_figure_has_a_data_file(self):
        for host in ("small", "big"):
            self.assertEqual({n for h, n in self.dats if h == host}, set(plot.FIGURE_NAMES))

    def test_every_block_names_its_columns_and_its_rows_fit(self):
        for (host, name), lines in self.dats.items():
            bs = blocks(lines)
            with self.subTest(host=host, figure=name):
                self.assertTrue(lines[0].startswith("# %s:" % name))
                for bname, cols, rows in bs:
                    if bname is None:
                        # the header: where the file is one block (F1), its columns
                        continue
                    self.assertIsNotNone(cols, "block %r names no columns" % bname)
                    self.assertTrue(rows, "block %r has no rows" % bname)
                    for r in rows:
                        self.assertEqual(len(r), len(cols), (bname, r))
                if len(bs) == 1:   # one block after the header (F1): the header names them
                    self.assertTrue(any(x.startswith("# columns:") for x in lines))

    def test_the_gp_reads_only_columns_its_data_has(self):
        for name in plot.FIGURE_NAMES:
            with open(os.path.join(GPDIR, name + ".gp"), encoding="utf-8") as f:
                gp = f.read()
            for (host, fig), lines in self.dats.items():
                if fig != name:
                    continue
                bs = blocks(lines)
                header = [x.split(":", 1)[1].split() for x in lines
                          if x.startswith("# columns:")]
                colsets = [c for c in header if c and c[0] != "see"]
                widest = max([len(c) for c in colsets] + [len(r) for _b, _c, rs in bs
                                                           for r in rs])
                numbers = gp_numbers(gp_for_shape(name, gp, widest))
                named = gp_named(gp_for_shape(name, gp, widest))
                with self.subTest(host=host, figure=name):
                    for (prefix, col), n in named.items():
                        self.assertTrue(any(len(c) >= n and c[n - 1] == col for c in colsets),
                                        "%s.gp: %s_%s = %d: no block has %s as column %d"
                                        % (name, prefix, col, n, col, n))
                    for n in numbers:
                        self.assertLessEqual(n, widest, "%s.gp reads column %d" % (name, n))

    def test_a_wrong_column_number_is_caught(self):
        """The check itself: a .gp naming a column at the wrong number fails it."""
        lines = self.dats[("small", "peers-regimes")]
        colsets = [x.split(":", 1)[1].split() for x in lines if x.startswith("# columns:")]
        good = {("pc", "queue"): 4}
        bad = {("pc", "queue"): 5}
        for named, ok in ((good, True), (bad, False)):
            hit = all(any(len(c) >= n and c[n - 1] == col for c in colsets)
                      for (_p, col), n in named.items())
            self.assertEqual(hit, ok)
        self.assertLess(max(gp_numbers("plot 'x' using 1:($99):(column(3))")), 100)
        self.assertIn(99, gp_numbers("plot 'x' using 1:($99):(column(3))"))


if __name__ == "__main__":
    unittest.main()


class OversubscribedDashes(unittest.TestCase):
    def test_dash_column_cycles_as_the_matplotlib_line_styles(self):
        """F3's load supplement: the oversubscribed thread counts' dash column
        (gnuplot's dt) follows fig_f3.LOAD_DASHES, 4 styles in turn, so the
        gnuplot twin draws the 4th count dash-dot as matplotlib does."""
        from scripts.figures import fig_f3
        threads = [4, 6, 8, 10, 12]
        p = {"caption": [], "threads": 2, "order": [], "pct": {c: {} for c, _n in fig_f3.F3_PCT},
             "inflight": {}, "tput": {}, "offered": [], "over_threads": threads,
             "over_p50": {t: {"shared": [(50.0, 1e3, 9e2, 1.1e3, 3)]} for t in threads}}
        lines = fig_f3.dat_f3load("f3-gate-load-diagnostics", p)
        # the data rows (a block opens with its quoted name)
        dashes = [ln.split()[-1] for ln in lines if ln[:1].isdigit()]
        self.assertEqual(dashes, ["1", "2", "3", "4", "1"])
        self.assertEqual(len(fig_f3.LOAD_DASHES), 4)
