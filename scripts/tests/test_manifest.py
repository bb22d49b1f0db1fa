# SPDX-License-Identifier: BSD-2-Clause
"""The manifest of names (issue 23, "one manifest"; make test-scripts).

scripts/manifest.json is what `numaring-bench --manifest` prints
(harness/manifest.c, made from the tables the harness runs on), and the
scripts read the names through scripts/common/manifest.py instead of typing them:

* the committed copy equals the binary's output (NUMARING_BENCH, default
  build/numaring-bench; regenerate with
  build/numaring-bench --manifest > scripts/manifest.json), and its summary
  columns are summary-schema.csv's (both are --schema's table);
* no script (scripts/*.py; the tests are fixtures) types a collection of
  manifest names outside scripts/manifest-allowlist.txt.

What counts as a typed collection: a tuple, list or set display, or a
"a b c".split(), holding two or more names of one of the manifest's lists:
the queues, look-ups, gates, backoffs, workloads, placements (pins), smt
choices, item kinds, accountings and probe row kinds, or the experiments
(experiments/*.exp). One name alone is a value a script means
(queue == "numaring"), not a list. The summary columns, queue counters,
probe meta facts and option names are left out: a script's tuple of them is
the columns or keys it reads, which the schema tests check.

scripts/manifest-allowlist.txt: one exception a line,

    FILE | NAMES | REASON

NAMES the collection's manifest names, sorted, space-separated (one line
covers every collection of exactly those names in FILE), REASON why they are
typed there. A line that no collection matches any more fails too (remove
it).
"""

import ast
import csv
import glob
import json
import os
import subprocess
import tempfile
import unittest

from scripts.common import expfile
from scripts.common import manifest

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
ROOT = os.path.dirname(SCRIPTS)
BENCH = os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build", "numaring-bench"))
ALLOWLIST = os.path.join(SCRIPTS, "manifest-allowlist.txt")

#: the manifest's lists whose names a script must not type as a collection
#: (manifest.py's function of each)
SCANNED = {
    "queues": lambda: manifest.queues(test_only=None),
    "lookups": manifest.lookups,
    "gates": manifest.gates,
    "backoffs": manifest.backoffs,
    "workloads": manifest.workloads,
    "pins": manifest.pins,
    "smts": manifest.smts,
    "items": manifest.items,
    "accountings": manifest.accountings,
    "probe_kinds": manifest.probe_kinds,
    "experiments": expfile.experiment_names,
}


def scanned_lists():
    return {k: frozenset(fn()) for k, fn in SCANNED.items()}


def collection_strings(node):
    """The string constants of a collection display or "a b".split(), or None."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "split" and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str) and not node.keywords
            and all(isinstance(a, ast.Constant) for a in node.args)):
        sep = node.args[0].value if node.args else None
        return node.func.value.value.split(sep)
    return None


def typed_collections(path, lists):
    """[(line, names)] of the collections of manifest names in the file:
    names the frozenset of its strings that are in a scanned list, for every
    collection with two names or more of one list."""
    every = frozenset().union(*lists.values())
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        strings = collection_strings(node)
        if not strings:
            continue
        s = set(strings)
        if any(len(s & names) >= 2 for names in lists.values()):
            out.append((node.lineno, frozenset(s & every)))
    return sorted(out, key=lambda x: x[0])


def read_allowlist(path=ALLOWLIST):
    """{(file, names): reason}; ValueError on a malformed line."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|", 2)]
            if len(parts) != 3 or not all(parts):
                raise ValueError(f"{path}:{n}: expected FILE | NAMES | REASON")
            key = (parts[0], frozenset(parts[1].split()))
            if key in out:
                raise ValueError(f"{path}:{n}: {parts[0]} | {parts[1]} given twice")
            out[key] = parts[2]
    return out


def script_files():
    return sorted(p for p in glob.glob(os.path.join(SCRIPTS, "**", "*.py"), recursive=True)
                  if os.sep + "tests" + os.sep not in p)


class CommittedCopyTest(unittest.TestCase):
    @unittest.skipUnless(os.access(BENCH, os.X_OK), f"{BENCH} is not built (make bench)")
    def test_committed_manifest_is_the_binarys(self):
        out = subprocess.run([BENCH, "--manifest"], capture_output=True, text=True, check=True)
        with open(manifest.PATH, encoding="utf-8") as f:
            self.assertEqual(f.read(), out.stdout,
                             "scripts/manifest.json is stale: run build/numaring-bench "
                             "--manifest > scripts/manifest.json")

    def test_summary_columns_are_the_schemas(self):
        """summary-schema.csv and manifest.json's summary_columns are one
        table's (--schema's) two copies."""
        with open(os.path.join(SCRIPTS, "summary-schema.csv"), newline="", encoding="utf-8") as f:
            schema = [(r["column"], r["type"], r["description"]) for r in csv.DictReader(f)]
        got = [(c["name"], c["type"], c["description"])
               for c in manifest.data()["summary_columns"]]
        self.assertEqual(got, schema)
        self.assertEqual(list(manifest.summary_columns()), [c for c, _, _ in schema])


class ReaderTest(unittest.TestCase):
    def test_is_json_with_every_list(self):
        with open(manifest.PATH, encoding="utf-8") as f:
            d = json.load(f)
        for key in ("queues", "lookups", "gates", "backoffs", "workloads",
                    "symmetric_workloads", "pins", "smts", "items", "accountings",
                    "queue_counters", "probe_kinds", "probe_meta", "limits", "summary_columns"):
            self.assertIn(key, d)
            self.assertTrue(d[key], key)

    def test_queues_and_what_they_can_do(self):
        names = manifest.queues(test_only=None)
        self.assertEqual(len(set(names)), len(names))
        self.assertIn("numaring", manifest.queues())
        for q in manifest.queues():
            self.assertFalse(manifest.queue(q)["test_only"], q)
        for q in manifest.queues(test_only=True):
            self.assertNotIn(q, manifest.queues())
        for q in names:
            d = manifest.queue(q)
            self.assertEqual(d["bursts"], d["enqueue_burst"] and d["dequeue_burst"], q)
            self.assertTrue(set(d["items"]) <= set(manifest.items()), q)
            self.assertEqual(tuple(d["workloads"]), manifest.workloads(), q)
            self.assertTrue(set(d["counters"]) <= set(manifest.queue_counters()), q)
        self.assertEqual(manifest.queues(bounded=True, test_only=None),
                         tuple(q for q in names if manifest.queue(q)["bounded"]))
        with self.assertRaises(KeyError):
            manifest.queue("no-such-queue")

    def test_symmetric_workloads_are_workloads(self):
        self.assertTrue(set(manifest.symmetric_workloads()) < set(manifest.workloads()))

    def test_limits(self):
        lims = manifest.limits()
        for opt, lim in lims.items():
            with self.subTest(option=opt):
                self.assertEqual(set(lim), {"whole", "min", "max", "min_in", "max_in", "pow2"})
                self.assertLess(lim["min"], lim["max"])
                if lim["whole"]:
                    self.assertTrue(lim["min_in"] and lim["max_in"])
                    self.assertIsInstance(lim["min"], int)
                    self.assertIsInstance(lim["max"], int)
        self.assertEqual(manifest.limit("capacity")["pow2"], True)
        with self.assertRaises(KeyError):
            manifest.limit("no-such-option")

    def test_expfile_checks_the_harness_bounds(self):
        """An experiment file's value is checked against numaring-bench's own
        bound: the bound passes, one past it fails."""
        for opt, lim in manifest.limits().items():
            if opt not in expfile.SWEEP_KEYS:
                continue
            check = expfile.SWEEP_KEYS[opt]
            with self.subTest(option=opt):
                if lim["whole"]:
                    self.assertEqual(check(str(lim["max"])), lim["max"])
                    with self.assertRaises(ValueError):
                        check(str(lim["max"] + 1))
                    if lim["min"] > 0:
                        with self.assertRaises(ValueError):
                            check(str(lim["min"] - 1))
                else:
                    inside = (lim["min"] + lim["max"]) / 2
                    self.assertEqual(check(repr(inside)), inside)
                    for bound, ok in ((lim["min"], lim["min_in"]), (lim["max"], lim["max_in"])):
                        if ok:
                            self.assertEqual(check(repr(bound)), bound)
                        else:
                            with self.assertRaises(ValueError):
                                check(repr(bound))


class ExperimentNamesTest(unittest.TestCase):
    def test_one_per_file_in_the_findings_order(self):
        names = expfile.experiment_names()
        files = sorted(os.path.basename(p)[:-4]
                       for p in glob.glob(os.path.join(ROOT, "experiments", "*.exp")))
        self.assertEqual(sorted(names), files)
        order = [expfile.FINDINGS.index(e.finding) for e in expfile.experiments()]
        self.assertEqual(order, sorted(order))

    def test_the_scripts_read_them(self):
        from scripts.analysis import summarize
        from scripts.vm import vm_experiments
        self.assertEqual(summarize.EXPERIMENTS, expfile.experiment_names())
        self.assertEqual(vm_experiments.EXPERIMENTS, tuple(expfile.experiment_names()))
        self.assertTrue(summarize.CROSS_NODE)
        self.assertTrue(set(summarize.CROSS_NODE) <= set(summarize.EXPERIMENTS))


class CeilingKindsTest(unittest.TestCase):
    def test_the_probe_kinds_the_model_reads_are_the_harness_s(self):
        """Every kind ceiling.py asks a probe for (_first(probe, ...),
        probe.get(...)) is a kind of row numaring-bench --probe writes."""
        path = os.path.join(SCRIPTS, "analysis", "ceiling.py")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        asked = set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Name) and f.id == "_first":
                args = node.args[1:]
            elif (isinstance(f, ast.Attribute) and f.attr == "get"
                  and isinstance(f.value, ast.Name) and f.value.id == "probe"):
                args = node.args[:1]
            else:
                continue
            asked |= {a.value for a in args if isinstance(a, ast.Constant)}
        self.assertGreater(len(asked), 5)
        self.assertEqual(sorted(asked - set(manifest.probe_kinds())), [])


class FigureNamesTest(unittest.TestCase):
    def test_the_pairs_the_figures_compare_are_the_harness_s(self):
        """F2's and F3's figures print a ratio where they draw the two values
        its claim compares (fig_host.compared): two look-ups, two gates."""
        from scripts.figures import fig_host
        for claim, names in (("f2.cached_over_libnuma", manifest.lookups()),
                             ("f3.p50_shared_over_perworker", manifest.gates())):
            with self.subTest(claim=claim):
                pair = fig_host.compared(claim)
                self.assertEqual(len(set(pair)), 2)
                self.assertTrue(set(pair) <= set(names), pair)


class NoTypedNamesTest(unittest.TestCase):
    def test_the_scanner_finds_what_it_should(self):
        lists = {"queues": frozenset({"a", "b", "c"})}
        src = ('X = ("a", "b")\nY = ["a"]\nZ = {"b", "c", "z"}\nW = "a c".split()\n'
               'V = "a,b".split(",")\nU = f("a", "b")\n')
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "scanned.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(src)
            got = typed_collections(path, lists)
        self.assertEqual(got, [(1, frozenset("ab")), (3, frozenset("bc")), (4, frozenset("ac")),
                               (5, frozenset("ab"))])

    def test_allowlist_is_well_formed(self):
        allowed = read_allowlist()
        for (path, names), reason in allowed.items():
            self.assertTrue(os.path.isfile(os.path.join(ROOT, path)), path)
            self.assertTrue(names, path)
            self.assertTrue(reason, path)

    def test_no_collection_of_manifest_names_outside_the_allowlist(self):
        lists = scanned_lists()
        allowed = read_allowlist()
        used = set()
        typed = []
        for path in script_files():
            rel = os.path.relpath(path, ROOT)
            for line, names in typed_collections(path, lists):
                key = (rel, names)
                if key in allowed:
                    used.add(key)
                else:
                    typed.append(f"{rel}:{line}: {' '.join(sorted(names))}")
        self.assertEqual(typed, [], "collections of manifest names typed in the scripts: read "
                         "them from scripts/common/manifest.py (or expfile.experiment_names()), or "
                         "add 'FILE | NAMES | REASON' to scripts/manifest-allowlist.txt")
        stale = [f"{p} | {' '.join(sorted(n))}" for p, n in sorted(set(allowed) - used,
                                                                     key=lambda k: k[0])]
        self.assertEqual(stale, [], "scripts/manifest-allowlist.txt lines that no collection "
                         "matches any more: remove them")


if __name__ == "__main__":
    unittest.main()
