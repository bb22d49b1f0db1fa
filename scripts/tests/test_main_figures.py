# SPDX-License-Identifier: BSD-2-Clause
"""test_main_figures.py - one message per main figure (issue 33 item 1).

Every main figure (scripts/common/figlist.py FIGURES) is rendered from the
synthetic results of a one-node host and its emulated two-node sibling, every
experiment with every workload, and must have at most figlist.MAX_PANELS
panels (axes that draw data: a legend's own axes do not count), a title of
one line (no line break, and short enough for the figure's width, which
matplotlib would otherwise let run past the edge) and under the figure at
most one caption line of what is drawn beside the host's line and the
warnings of where the numbers came from (EMULATED nodes, a guest): no
paragraph.
The supplement (figlist.SUPPLEMENT) holds what a main figure leaves out and
is not bound by these.
"""

import os
import shutil
import tempfile
import unittest

from scripts.common import figlist
from scripts.figures import plot
from scripts.tests import fakeresults

SMALL = {"cores": 2, "threads_per_core": 1, "sockets": 1, "hypervisor": "KVM"}
EVERY = ["f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff", "f4-spin", "f5-ceiling",
         "peers", "placement"]


def panels(fig):
    """The axes of a figure that draw something: visible, with their axis on."""
    return [a for a in fig.axes if a.get_visible() and a.axison]


def caption_lines(fig):
    """The lines of what is drawn under the axes: the figure's texts below
    y = 0 but the first (the host) and the warnings (red: EMULATED nodes, a
    guest), which say where the numbers came from and always stay."""
    import matplotlib.colors as mcolors
    under = [t for t in fig.texts if t.get_position()[1] < 0 and t.get_text()]
    return [t.get_text() for t in under[1:]
            if mcolors.to_hex(t.get_color()) != "#b00000"]


class MainFigures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-mainfig-")
        results = os.path.join(cls.tmp, "results")
        fakeresults.make_synthetic(results, "one", kind="real", threads=(2,), reps=3,
                                   machine=SMALL, nodes=1, seed=5,
                                   experiments=[e for e in EVERY if e not in (
                                       "f3-gate", "f5-ceiling", "placement")],
                                   workloads=("prodcons", "pairs", "mixed"),
                                   peers_workloads=("prodcons", "pairs", "mixed"),
                                   peers_paces=("free", "producer", "consumer"),
                                   closed_regimes=("f1-lookup-cost", "f2-node-cache",
                                                   "f4-backoff"), latency_files=False)
        fakeresults.make_synthetic(results, "one-emulated-2node-0_1", kind="emulated",
                                   threads=(2,), reps=3, machine=SMALL, nodes=2, seed=6,
                                   machine_nodes=1, f3_loads=(0.25, 0.5, 0.75),
                                   f5_realized=0.9, f5_closed=True,
                                   experiments=["f3-gate", "f5-ceiling", "placement"],
                                   latency_files=False)
        cls.preps = {}
        for host in ("one", "one-emulated-2node-0_1"):
            h = plot.Host(results, host)
            h.load()
            for name, p in plot.prepare(h).items():
                cls.preps.setdefault(name, p)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_main_figure_is_prepared_from_the_fixture(self):
        self.assertEqual(sorted(n for n in self.preps if not figlist.in_supplement(n)),
                         sorted(n for n, _e in figlist.figures()))

    def test_at_most_four_panels_one_line_title_no_paragraph(self):
        for name, _exp in figlist.figures():
            with self.subTest(figure=name):
                fig = plot.render(name, self.preps[name])
                try:
                    n = len(panels(fig))
                    self.assertGreaterEqual(n, 1)
                    self.assertLessEqual(n, figlist.MAX_PANELS, "%d panels" % n)
                    title = fig._suptitle.get_text() if fig._suptitle else ""
                    self.assertTrue(title, "no title")
                    self.assertNotIn("\n", title)
                    # one line that fits the figure's width as drawn
                    fig.canvas.draw()
                    width = fig._suptitle.get_window_extent().width
                    self.assertLessEqual(width, fig.bbox.width, title)
                    self.assertLessEqual(len(caption_lines(fig)), 1, caption_lines(fig))
                finally:
                    plot.fig_draw.plt.close(fig)


if __name__ == "__main__":
    unittest.main()
