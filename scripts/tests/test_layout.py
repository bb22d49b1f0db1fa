# SPDX-License-Identifier: BSD-2-Clause
"""The scripts' layout (issue 29): sub-packages by job, imports one way.

    common    the tidy table's definition, experiment files, the manifest,
              regimes of one row, whole-file writes: standard library only
    runner    runs the experiments and side benchmarks: standard library only
              (the QEMU guest carries what it imports)
    analysis  results on disk -> statistics, findings, claims, READMEs
              (pandas, SciPy)
    figures   the figures, from the analysis
    paper     the paper's generated inputs, from the analysis
    vm        the QEMU guest: boots it, runs the runner in it, reads back

Data flows runner -> results on disk -> analysis -> figures and reports: no
module of the analysis, the figures or the paper imports the runner, and the
runner reaches the analysis only through its command line
(scripts/analysis/jobs.py). Every import statement counts, those inside
functions too, so no import circle hides behind a lazy import.
"""

import ast
import glob
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from scripts.tests import ROOT

SCRIPTS = os.path.join(ROOT, "scripts")

#: which packages each package may import (besides itself)
ALLOWED = {
    "common": set(),
    "runner": {"common"},
    "analysis": {"common"},
    "figures": {"common", "analysis"},
    "paper": {"common", "analysis"},
    "vm": {"common", "analysis"},
}

#: third-party modules the runner must not need
HEAVY = ("numpy", "pandas", "scipy", "matplotlib")


def modules(root, package="scripts"):
    """{dotted name: file} of every module under root (tests left out)."""
    out = {}
    for f in glob.glob(os.path.join(root, "**", "*.py"), recursive=True):
        rel = os.path.relpath(f, root)
        if rel.split(os.sep)[0] == "tests":
            continue
        name = ".".join([package] + rel[:-3].split(os.sep))
        if name.endswith(".__init__"):
            name = name[: -len(".__init__")]
        out[name] = f
    return out


def import_graph(root, package="scripts"):
    """{module: {modules it imports}}, within the package, from every import
    statement (module level or not)."""
    mods = modules(root, package)
    graph = {m: set() for m in mods}
    for m, f in mods.items():
        pkg = m if f.endswith("__init__.py") else m.rsplit(".", 1)[0]
        with open(f, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), f)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    if sub in mods:
                        graph[m].add(sub)
                    elif target in mods:
                        graph[m].add(target)
            elif isinstance(node, ast.Import):
                graph[m].update(a.name for a in node.names if a.name in mods)
        graph[m].discard(m)
    return graph


def circles(graph):
    """The import circles of graph: its strongly connected components of more
    than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def package_of(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else None


class LayoutTest(unittest.TestCase):
    def test_no_import_circle(self):
        self.assertEqual(circles(import_graph(SCRIPTS)), [])

    def test_the_circle_test_finds_a_circle(self):
        """Control: a package of two modules importing each other (one of them
        inside a function) is a circle."""
        with tempfile.TemporaryDirectory() as d:
            pkg = os.path.join(d, "demo")
            os.makedirs(os.path.join(pkg, "analysis"))
            os.makedirs(os.path.join(pkg, "runner"))
            for p in ("", "analysis", "runner"):
                open(os.path.join(pkg, p, "__init__.py"), "w").close()
            with open(os.path.join(pkg, "runner", "run.py"), "w") as f:
                f.write("from ..analysis import claims\n")
            with open(os.path.join(pkg, "analysis", "claims.py"), "w") as f:
                f.write("def mine():\n    from ..runner import run\n")
            with open(os.path.join(pkg, "analysis", "alone.py"), "w") as f:
                f.write("from . import claims\n")
            self.assertEqual(circles(import_graph(pkg, "demo")),
                             [["demo.analysis.claims", "demo.runner.run"]])

    def test_every_module_is_in_a_package(self):
        top = [m for m, f in modules(SCRIPTS).items()
               if m.count(".") == 1 and not f.endswith("__init__.py")]
        self.assertEqual(top, [], "modules directly under scripts/: put each in the package "
                         "of its job (" + ", ".join(sorted(ALLOWED)) + ")")
        self.assertEqual({package_of(m) for m in modules(SCRIPTS)} - {None}, set(ALLOWED))

    def test_results_csvs_are_read_in_one_place(self):
        """No module outside scripts/common and the analysis's loader
        (nrdata.py) opens a results CSV itself: they read through
        common.tidy (read_rows, read_lists, read_summary) or nrdata. The
        two CSV readers left read other tools' text: likwid-perfctr's
        output (runner/nrlikwid.py) and the model checker's summary.tsv
        (paper/model_facts.py)."""
        readers = ("csv.reader(", "csv.DictReader(", "read_csv(")
        others = {"runner/nrlikwid.py", "paper/model_facts.py", "analysis/nrdata.py"}
        found = []
        for path in sorted(glob.glob(os.path.join(SCRIPTS, "*", "*.py"))):
            rel = os.path.relpath(path, SCRIPTS)
            if rel.startswith(("common/", "tests/")) or rel in others:
                continue
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if any(r in line for r in readers) and not line.lstrip().startswith("#"):
                        found.append(f"{rel}:{n}: {line.strip()}")
        self.assertEqual(found, [], "read results CSVs through common.tidy or analysis.nrdata")

    def test_imports_go_one_way(self):
        wrong = []
        for m, deps in sorted(import_graph(SCRIPTS).items()):
            p = package_of(m)
            for d in sorted(deps):
                q = package_of(d)
                if p and q and q != p and q not in ALLOWED[p]:
                    wrong.append(f"{m} imports {d}")
        self.assertEqual(wrong, [], "a package imports one it must not (ALLOWED)")

    def test_runner_imports_with_numpy_pandas_scipy_blocked(self):
        """Every module of the runner and of common imports with the heavy
        modules made unimportable; the control: the blocker does block them."""
        blocker = textwrap.dedent(f"""
            import importlib.abc, sys
            class Block(importlib.abc.MetaPathFinder):
                def find_spec(self, name, path=None, target=None):
                    if name.split(".")[0] in {HEAVY!r}:
                        raise ImportError("blocked: " + name)
            sys.meta_path.insert(0, Block())
            """)
        names = sorted(m for m in modules(SCRIPTS) if package_of(m) in ("runner", "common"))
        self.assertIn("scripts.runner.experiments", names)
        code = blocker + "import importlib\n" + "".join(
            f"importlib.import_module({n!r})\n" for n in names)
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        for heavy in HEAVY:
            r = subprocess.run([sys.executable, "-c", blocker + f"import {heavy}\n"], cwd=ROOT,
                               capture_output=True, text=True)
            self.assertNotEqual(r.returncode, 0, f"the blocker let {heavy} through")
            self.assertIn("blocked: " + heavy, r.stderr)

    def test_the_guests_modules_hold_no_heavy_module(self):
        """What vm_image copies into the guest for the runner (modulefinder, every
        import statement followed) holds none of numpy, pandas, SciPy."""
        from scripts.vm import vm_image
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            files = [h for h, _ in vm_image.python_files(["scripts.runner.experiments"])]
        finally:
            os.chdir(cwd)
        self.assertTrue(any(f.endswith(os.path.join("runner", "experiments.py")) for f in files))
        heavy = [f for f in files if any(f"{os.sep}{h}{os.sep}" in f for h in HEAVY)]
        self.assertEqual(heavy, [])


if __name__ == "__main__":
    unittest.main()
