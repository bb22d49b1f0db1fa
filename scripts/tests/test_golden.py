# SPDX-License-Identifier: BSD-2-Clause
"""Golden outputs (make test-scripts): every generated file that the
committed CSVs decide is regenerated here and compared byte for byte with the
committed copy: the results READMEs and claims.csv and every gnuplot .dat
under plots/<host>/data/ (paper/generated/numbers.tex and claims.tex:
test_paper.py and test_claims.py, the same way).
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
from scripts.tests import module

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

    def test_claims_csv(self):
        from scripts.analysis import claims
        for h in hosts():
            path = os.path.join(RESULTS, h, "claims.csv")
            if not os.path.exists(path):
                continue
            with self.subTest(host=h):
                with open(path, encoding="utf-8") as f:
                    self.assertEqual(claims.csv_text(claims.report(os.path.join(RESULTS, h))),
                                     f.read(), f"results/{h}/claims.csv: claims.py write {h}")

    def test_plot_data_files(self):
        if shutil.which("gnuplot") is None:
            self.skipTest("gnuplot is not installed (scripts/deps.sh experiments)")
        tmp = tempfile.mkdtemp(prefix="nr-golden-plots-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        r = subprocess.run(module("figures.plot", PY) + ["--gnuplot", "--plots", tmp],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        n = 0
        for h in hosts():
            want_dir = os.path.join(PLOTS, h, "data")
            if not os.path.isdir(want_dir):
                continue
            got_dir = os.path.join(tmp, h, "data")
            for name in sorted(os.listdir(want_dir)):
                if not name.endswith(".dat"):
                    continue
                n += 1
                with self.subTest(file=f"{h}/{name}"):
                    got = os.path.join(got_dir, name)
                    self.assertTrue(os.path.exists(got), f"plots/{h}/data/{name} not regenerated")
                    self.assertTrue(filecmp.cmp(got, os.path.join(want_dir, name), shallow=False),
                                    f"plots/{h}/data/{name} differs: make plots")
            self.assertEqual(sorted(x for x in os.listdir(got_dir) if x.endswith(".dat")),
                             sorted(x for x in os.listdir(want_dir) if x.endswith(".dat")), h)
        self.assertGreater(n, 0)


if __name__ == "__main__":
    unittest.main()
