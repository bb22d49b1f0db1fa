# SPDX-License-Identifier: BSD-2-Clause
"""The results README's figures beside their claims (issue 33 item 3,
scripts/analysis/gallery.py), on a synthetic one-node host and its emulated
sibling (fakeresults.make_synthetic) with PNGs faked as files:

* every figure whose PNG exists gets an image link whose target exists, and
  no other figure does;
* the claim rows under a figure are those of its finding, each with the
  status, value and n of claims.csv;
* a figure whose PNG is missing says "Not drawn" instead of a link;
* the gnuplot copy and its .dat are linked where they exist, said missing
  where not;
* a figure added to scripts/common/figlist.py appears without anything else
  changing, and plot.py prepares exactly figlist's figures.
"""

import csv
import os
import re
import shutil
import tempfile
import unittest
from unittest import mock

from scripts.analysis import claims, gallery, hostfacts
from scripts.common import expfile, figlist
from scripts.figures import plot
from scripts.tests import fakeresults

SMALL = {"cores": 2, "threads_per_core": 1, "sockets": 1, "hypervisor": "KVM"}
HOST = "small"
SIB = "small-emulated-2node-0_1"
#: the figure left undrawn, and the one with a gnuplot copy (read from figlist:
#: the first figure of a one-node experiment is drawn with gnuplot, the second
#: left out)
ONE_NODE = [f for f, exp in figlist.figures() if exp not in hostfacts.CROSS_NODE]
GNUPLOT_FIG, MISSING_FIG = ONE_NODE[0], ONE_NODE[1]

IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)]+)\)")
LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)]+)\)")


def fake_png(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\nfake")


def sections(text):
    """{figure: its lines} of the section "Figures and their claims"."""
    body = text.split("## Figures and their claims", 1)[1]
    out, cur = {}, None
    for line in body.splitlines():
        m = re.match(r"### `([^`]+)`", line)
        if m:
            cur = out.setdefault(m.group(1), [])
        elif line.startswith("## "):
            break
        elif cur is not None:
            cur.append(line)
    return out


def table_rows(lines):
    """[(claim, status, value, claimed, n)] of a figure's claim table."""
    out = []
    for line in lines:
        m = re.match(r"\| `([^`]+)` \| (.*) \|$", line)
        if m:
            out.append((m.group(1),) + tuple(c.strip() for c in m.group(2).split(" | ")))
    return out


class GalleryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-gallery-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.plots = os.path.join(cls.tmp, "plots")
        fakeresults.make_synthetic(cls.results, HOST, kind="real", threads=(2,), reps=3,
                                   machine=SMALL, nodes=1)
        fakeresults.make_synthetic(cls.results, SIB, kind="emulated", threads=(2,), reps=3,
                                   machine=SMALL, nodes=2, f3_loads=(0.5,), f5_realized=0.9,
                                   experiments=list(hostfacts.CROSS_NODE),
                                   machine_nodes=1)
        cls.hostdir = os.path.join(cls.results, HOST)
        cls.sibdir = os.path.join(cls.results, SIB)
        cls.rows = claims.write_claims(cls.hostdir)
        with open(os.path.join(cls.hostdir, "claims.csv"), newline="") as f:
            cls.csv = {r["claim"]: r for r in csv.DictReader(f)}
        # the PNGs plot.py would draw: one-node figures in the host's folder, the
        # cross-node ones in the sibling's; one left out
        cls.drawn = {}
        for fig, exp in figlist.figures():
            if fig == MISSING_FIG:
                continue
            where = SIB if exp in hostfacts.CROSS_NODE else HOST
            fake_png(os.path.join(cls.plots, where, f"{fig}.png"))
            cls.drawn[fig] = where
        # the supplement's: listed by link, never inline
        for fig, exp in figlist.supplement():
            where = SIB if exp in hostfacts.CROSS_NODE else HOST
            fake_png(os.path.join(cls.plots, where, figlist.SUPPLEMENT_DIR, f"{fig}.png"))
        fake_png(os.path.join(cls.plots, HOST, "gnuplot", f"{GNUPLOT_FIG}.png"))
        fake_png(os.path.join(cls.plots, HOST, "data", f"{GNUPLOT_FIG}.dat"))
        cls.text = "\n".join(gallery.lines(cls.hostdir, cls.rows))
        cls.sib_text = "\n".join(gallery.lines(cls.sibdir))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def target(self, hostdir, rel):
        return os.path.normpath(os.path.join(hostdir, rel))

    def test_every_drawn_figure_is_inline_and_its_link_resolves(self):
        images = IMAGE.findall(self.text)
        self.assertEqual(sorted(alt for alt, _ in images), sorted(self.drawn))
        for alt, rel in images:
            with self.subTest(figure=alt):
                self.assertFalse(os.path.isabs(rel), rel)
                self.assertTrue(rel.startswith("../../plots/"), rel)
                path = self.target(self.hostdir, rel)
                self.assertTrue(os.path.isfile(path), rel)
                self.assertEqual(path, os.path.join(self.plots, self.drawn[alt], f"{alt}.png"))

    def test_every_link_resolves(self):
        for text, d in ((self.text, self.hostdir), (self.sib_text, self.sibdir)):
            for _alt, rel in IMAGE.findall(text) + LINK.findall(text):
                with self.subTest(link=rel):
                    self.assertTrue(os.path.exists(self.target(d, rel)), rel)

    def test_claim_rows_are_the_figures_finding_as_claims_csv_states_them(self):
        exps = {e.name: e for e in expfile.experiments()}
        secs = sections(self.text)
        findings_with_claims = {r["finding"] for r in self.csv.values()}
        for fig, exp in figlist.figures():
            with self.subTest(figure=fig):
                got = table_rows(secs[fig])
                finding = exps[exp].finding
                if finding not in findings_with_claims and not any(
                        r["reads"].startswith(f"{exp}.csv:") for r in self.csv.values()):
                    # a figure no claim reads (placement): it says so
                    self.assertEqual(got, [])
                    self.assertIn("Claims: none of this figure's finding.", secs[fig])
                    continue
                self.assertTrue(got, secs[fig])
                if finding in findings_with_claims:
                    # every claim of the finding, in claims.csv's order
                    self.assertEqual([g[0] for g in got],
                                     [c for c, r in self.csv.items() if r["finding"] == finding])
                else:
                    # peers: the claims that read its CSV, of one finding no
                    # experiment carries (ring)
                    fs = {self.csv[g[0]]["finding"] for g in got}
                    self.assertEqual(len(fs), 1, fs)
                    self.assertNotIn(fs.pop(), expfile.FINDINGS)
                    for g in got:
                        self.assertTrue(self.csv[g[0]]["reads"].startswith(f"{exp}.csv:"), g)
                for claim, status, value, _claimed, n in got:
                    r = self.csv[claim]
                    self.assertEqual(status, claims.status_word(r))
                    self.assertEqual(value, claims.fmt_value(r))
                    self.assertEqual(n, r["n"] or "—")

    def test_a_missing_figure_says_so(self):
        sec = "\n".join(sections(self.text)[MISSING_FIG])
        self.assertIn("Not drawn", sec)
        self.assertNotIn("![", sec)
        self.assertIn("`make plots`", sec)

    def test_the_gnuplot_copy_is_linked_where_drawn(self):
        secs = sections(self.text)
        sec = "\n".join(secs[GNUPLOT_FIG])
        for rel in (f"gnuplot/{GNUPLOT_FIG}.png", f"data/{GNUPLOT_FIG}.dat"):
            self.assertIn(f"](../../plots/{HOST}/{rel})", sec)
        self.assertIn("matplotlib drew this PNG", sec)
        self.assertIn("by column name", sec)
        other = "\n".join(secs[ONE_NODE[2]])
        self.assertIn("gnuplot draws", other)
        self.assertIn("not drawn: make plots with gnuplot", other)

    def test_the_emulated_sibling_shows_its_figures_with_the_real_hosts_claims(self):
        images = dict((a, r) for a, r in IMAGE.findall(self.sib_text))
        cross = sorted(f for f, w in self.drawn.items() if w == SIB)
        self.assertEqual(sorted(images), cross)
        self.assertIn(f"](../{HOST}/claims.csv)", self.sib_text)
        for fig in cross:
            for claim, status, value, _c, _n in table_rows(sections(self.sib_text)[fig]):
                self.assertEqual((status, value), (claims.status_word(self.csv[claim]),
                                                   claims.fmt_value(self.csv[claim])))
        self.assertIn("Not drawn for this host", self.sib_text)
        self.assertIn(f"`{MISSING_FIG}`", self.sib_text)

    def test_a_new_figure_appears_through_figlist(self):
        name = "zz-new-figure"
        first, exp = figlist.figures()[0]
        fake_png(os.path.join(self.plots, HOST, f"{name}.png"))
        try:
            with mock.patch.object(figlist, "FIGURES", figlist.FIGURES + ((name, exp, 1),)):
                text = "\n".join(gallery.lines(self.hostdir, self.rows))
        finally:
            os.remove(os.path.join(self.plots, HOST, f"{name}.png"))
        self.assertIn(f"![{name}](../../plots/{HOST}/{name}.png)", text)
        self.assertEqual([g[0] for g in table_rows(sections(text)[name])],
                         [g[0] for g in table_rows(sections(text)[first])])

    def test_plot_draws_figlists_figures(self):
        self.assertEqual(sorted(plot.PREPARE), sorted(f for f, _e in figlist.every_figure()))
        self.assertEqual([f[:2] for f in plot.FIGURES], figlist.every_figure())
        self.assertEqual(plot.MAIN_NAMES, [f for f, _e in figlist.figures()])

    def test_the_supplement_is_listed_by_link_not_shown(self):
        """Each supplement figure (figlist.SUPPLEMENT) drawn for the host or
        its sibling is one link under "Supplement", with what it shows; none
        is inline, and a main figure's name is not in the list."""
        sup = self.text.split("### Supplement: the diagnostics", 1)
        self.assertEqual(len(sup), 2, "no supplement section")
        listed = {alt: rel for alt, rel in LINK.findall(sup[1])}
        self.assertEqual(sorted(listed), sorted(f for f, _e in figlist.supplement()))
        for fig, exp in figlist.supplement():
            with self.subTest(figure=fig):
                where = SIB if exp in hostfacts.CROSS_NODE else HOST
                self.assertEqual(self.target(self.hostdir, listed[fig]),
                                 os.path.join(self.plots, where, figlist.SUPPLEMENT_DIR,
                                              f"{fig}.png"))
                self.assertIn(figlist.SUPPLEMENT_WHAT[fig], sup[1])
        self.assertFalse({alt for alt, _ in IMAGE.findall(self.text)}
                         & {f for f, _e in figlist.supplement()})

    def test_every_supplement_figure_says_what_it_shows(self):
        self.assertEqual(sorted(figlist.SUPPLEMENT_WHAT), sorted(f for f, _e in figlist.supplement()))
        self.assertFalse({f for f, _e in figlist.figures()} & {f for f, _e in figlist.supplement()})


if __name__ == "__main__":
    unittest.main()
