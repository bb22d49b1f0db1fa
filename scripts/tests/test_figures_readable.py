# SPDX-License-Identifier: BSD-2-Clause
"""The placement and F3 figures a reader can read (issue 47 item 4), checked
on every committed host that has them: the placement heatmap prints one
number per cell, each row its n, its colour bar in the cells' unit and its
ratio labelled as paired; F3's main figure draws each load's median with its
interval and no line through the loads."""

import os
import unittest

from scripts.tests import slow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "results")


def hosts_with(table):
    return sorted(h for h in os.listdir(RESULTS)
                  if os.path.isfile(os.path.join(RESULTS, h, table + ".csv")))


def draw(host, name):
    """(prepared figure, its matplotlib figure) of one host's figure."""
    from scripts.figures import plot
    plot.init_matplotlib()
    h = plot.Host(RESULTS, host)
    h.load()
    p = plot.prepare(h)[name]
    nrows, ncols = plot.grid_of(name, p)
    fig, axes = plot.plt.subplots(nrows, ncols, squeeze=False,
                                  figsize=plot.figure_size(ncols))
    plot.DRAW[p["kind"]](list(axes.flat), p)
    return p, fig


@slow
class Readable(unittest.TestCase):
    def test_placement_one_number_per_cell(self):
        from scripts.figures import plot
        hosts = hosts_with("placement")
        self.assertTrue(hosts)
        for host in hosts:
            with self.subTest(host=host):
                p, fig = draw(host, "placement")
                cells = [t.get_text() for t in fig.findobj(lambda a: getattr(
                    a, "get_gid", lambda: None)() == "placement-cell")]
                self.assertTrue(cells)
                for text in cells:
                    float(text)   # one number, nothing else
                for pn in p["panels"]:
                    for pr in pn["rows"]:
                        self.assertIn("(n = ", pr["label"])
                        if p["not_placed"]:
                            self.assertIn("mem not placed", pr["label"])
                labels = [a.get_ylabel() for a in fig.axes]
                self.assertTrue(any("M/s" in x for x in labels), labels)
                self.assertTrue(any("paired median ratio" in a.get_title() for a in fig.axes))
                plot.plt.close(fig)

    def test_f3_medians_with_intervals_no_lines(self):
        from scripts.figures import plot
        hosts = hosts_with("f3-gate")
        self.assertTrue(hosts)
        for host in hosts:
            with self.subTest(host=host):
                p, fig = draw(host, "f3-gate-percentiles")
                import matplotlib.lines
                marks = [a for a in fig.findobj(matplotlib.lines.Line2D)
                         if str(a.get_gid() or "").endswith("-p50")]
                self.assertTrue(marks)
                for m in marks:
                    self.assertEqual(m.get_linestyle(), "None", "a line joins the loads")
                # every (gate, load) drawn has the interval of its median
                for g, pts in p["p50"].items():
                    for q in pts:
                        if q[1] > 0:
                            self.assertIn((g, q[0]), p["p50_iv"])
                plot.plt.close(fig)


if __name__ == "__main__":
    unittest.main()
