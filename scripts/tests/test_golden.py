# SPDX-License-Identifier: BSD-2-Clause
"""Golden outputs (make test-scripts): every generated file that the
committed CSVs decide is regenerated here and compared byte for byte with the
committed copy: the results READMEs and every gnuplot .dat under
plots/<host>/data/ and plots/<host>/supplement/data/ (the supplement's
figures); each host's claims.csv (test_claims.CommittedTest), and
paper/generated/numbers.tex and claims.tex (test_paper.py, test_claims.py)
the same way.
A refactoring of the scripts (issue 23: modules moved, names read from the
manifest) must leave these bytes as they are; a change of what they say
regenerates them in the same commit (scripts/analysis/summarize.py --readme,
scripts/analysis/claims.py write, make paper, make plots).
"""

import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from scripts.analysis import nrdata
from scripts.tests import module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
ROOT = os.path.dirname(SCRIPTS)
RESULTS = os.path.join(ROOT, "results")
PLOTS = os.path.join(ROOT, "plots")
PY = sys.executable


def hosts():
    return nrdata.list_hosts(RESULTS)


class GoldenTest(unittest.TestCase):
    def test_results_readmes(self):
        from scripts.analysis import summarize
        for h in hosts():
            with self.subTest(host=h):
                with open(os.path.join(RESULTS, h, "README.md"), encoding="utf-8") as f:
                    self.assertEqual(summarize.host_readme(os.path.join(RESULTS, h)), f.read(),
                                     f"results/{h}/README.md: "
                                     f"python3 -m scripts.analysis.summarize --readme {h}")

    def committed_dat(self):
        """(host, name, path) of every committed plots/<host>/data/*.dat and
        plots/<host>/supplement/data/*.dat (the supplement's figures), by host;
        and {host: sorted .dat names}."""
        out, names = [], {}
        for h in hosts():
            if not os.path.isdir(os.path.join(PLOTS, h, "data")):
                continue
            names[h] = []
            for sub in ("data", os.path.join("supplement", "data")):
                want_dir = os.path.join(PLOTS, h, sub)
                here = sorted(x for x in os.listdir(want_dir) if x.endswith(".dat")) \
                    if os.path.isdir(want_dir) else []
                names[h] += here
                out += [(h, name, os.path.join(want_dir, name)) for name in here]
            names[h].sort()
        return out, names

    def test_plot_data_files(self):
        """Every .dat, as make plots writes it (run_gnuplot writes each prepared
        figure's dat_text, a line each), from the plotter's own preparation,
        in this process: no figure is drawn (test_plot_cli_... draws them all,
        in make test-slow)."""
        from scripts.figures import plot
        want, names = self.committed_dat()
        got = {}
        for h in names:
            host = plot.Host(RESULTS, h)
            host.load()
            prep = plot.prepare(host)
            got[h] = {name + ".dat": "\n".join(plot.dat_text(name, prep[name])) + "\n"
                      for name in plot.FIGURE_NAMES if name in prep}
        for h, name, path in want:
            with self.subTest(file=f"{h}/{name}"):
                self.assertIn(name, got[h], f"{path} not regenerated")
                with open(path, encoding="utf-8", newline="") as f:
                    self.assertEqual(got[h][name], f.read(),
                                     f"{path} differs: make plots")
        for h in names:
            self.assertEqual(sorted(got[h]), names[h], h)
        self.assertGreater(len(want), 0)

    @slow
    def test_plot_cli_draws_every_figure_and_writes_the_same_data_files(self):
        """make plots --gnuplot over the committed results, into a temporary
        folder: it exits 0 (every figure drawn, matplotlib and gnuplot) and
        writes the committed .dat files byte for byte."""
        if shutil.which("gnuplot") is None:
            self.skipTest("gnuplot is not installed (scripts/deps.sh experiments)")
        tmp = tempfile.mkdtemp(prefix="nr-golden-plots-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        r = subprocess.run(module("figures.plot", PY) + ["--gnuplot", "--plots", tmp],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        want, names = self.committed_dat()
        for h, name, path in want:
            rel = os.path.relpath(path, PLOTS)
            with self.subTest(file=rel):
                got = os.path.join(tmp, rel)
                self.assertTrue(os.path.exists(got), f"plots/{rel} not regenerated")
                self.assertTrue(filecmp.cmp(got, path, shallow=False),
                                f"plots/{rel} differs: make plots")
        for h in names:
            dirs = [os.path.join(tmp, h, sub) for sub in ("data", os.path.join("supplement",
                                                                                "data"))]
            self.assertEqual(sorted(x for d in dirs if os.path.isdir(d) for x in os.listdir(d)
                                    if x.endswith(".dat")), names[h], h)
        self.assertGreater(len(want), 0)

if __name__ == "__main__":
    unittest.main()
