# SPDX-License-Identifier: BSD-2-Clause
"""The model-checking facts come from the model's own run (make test-scripts).

    /usr/bin/python3 -m unittest scripts.tests.test_model_facts -v

* ring/model/results.tsv (the recorded `make model-check`) is a complete run
  of today's model (ring/model/ring.pml's blob hash) and of check.sh's
  configuration list.
* ring/model/README.md's table, the facts of README.md and docs/testing.md
  and paper/generated/model.tex are exactly what scripts/paper/model_facts.py
  generates from it; the counts they state are recomputed here with code of
  this file's own.
* No page types a count of configurations or states outside those blocks.
* check.sh writes the summary model_facts.py reads (where spin is installed).
"""

import csv
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from scripts.paper import model_facts

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

RESULTS = os.path.join(ROOT, "ring", "model", "results.tsv")

#: pages whose prose must not type the model's counts (outside generated blocks)
PROSE = ["README.md", os.path.join("docs", "testing.md"),
         os.path.join("ring", "model", "README.md"), os.path.join("scripts", "model.mk"),
         os.path.join("paper", "numaring.tex")]

TYPED = [re.compile(r"(?<![\w.])\d+\s+(?:\w+\s+)?configurations\b"),
         re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:M|million)\s+(?:stored\s+)?states\b"),
         re.compile(r"(?<![\w.])\d+\s+(?:large\s+)?ones\b")]


def own_rows():
    """results.tsv read with csv alone: (meta, rows)."""
    meta, body = {}, []
    with open(RESULTS, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                k, _, v = line[1:].partition(":")
                meta[k.strip()] = v.strip()
            elif line.strip():
                body.append(line)
    return meta, list(csv.DictReader(body, delimiter="\t", quoting=csv.QUOTE_NONE))


def strip_blocks(text):
    for begin, end, _ in model_facts.MARKERS.values():
        while begin in text and end in text:
            a, b = text.index(begin), text.index(end) + len(end)
            text = text[:a] + text[b:]
    return text


@unittest.skipUnless(os.path.exists(RESULTS), "ring/model/results.tsv not recorded yet")
class RecordedRunTest(unittest.TestCase):

    def test_run_is_of_todays_model_and_list(self):
        meta, rows = model_facts.load()
        self.assertEqual(model_facts.stale(meta, rows), [],
                         "ring/model/results.tsv is stale: make model-check && make model-record")

    def test_generated_text_is_what_the_run_gives(self):
        meta, rows = model_facts.load()
        for rel, text in model_facts.outputs(meta, rows).items():
            with self.subTest(file=rel):
                with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                    self.assertEqual(f.read(), text, f"{rel} is stale: run "
                                     "python3 -m scripts.paper.model_facts write")

    def test_counts_recomputed(self):
        meta, rows = own_rows()
        f = model_facts.facts(*model_facts.load())
        self.assertEqual(f["configs"], len(rows))
        self.assertEqual(f["safety"], sum(r["kind"] == "safety" for r in rows))
        self.assertEqual(f["np"], sum(r["kind"] == "np" for r in rows))
        mutants = [r for r in rows if r["kind"] in ("mutant", "mutant-np")]
        self.assertEqual(f["mutants"], len(mutants))
        self.assertEqual(f["caught"], sum(r["verdict"] == "PASS" for r in mutants))
        big = max(rows, key=lambda r: float(r["states"]))
        self.assertEqual((f["states_max"], f["states_max_config"]),
                         (int(float(big["states"])), big["configuration"]))
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
            readme = fh.read()
        self.assertIn(f"{len(rows)} configurations", readme)
        self.assertIn(f"{int(float(big['states'])) / 1e6:.1f} million states", readme)
        tex = model_facts.macros_of(os.path.join(ROOT, "paper", "generated", "model.tex"))
        self.assertEqual(tex["ModelConfigs"], str(len(rows)))
        self.assertEqual(tex["ModelMutants"], str(len(mutants)))

    def test_no_typed_counts(self):
        for rel in PROSE:
            with self.subTest(file=rel):
                with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                    text = strip_blocks(f.read())
                found = [m.group(0) for p in TYPED for m in p.finditer(text)]
                self.assertEqual(found, [], f"{rel} types a count of the model's run; say "
                                 "it through scripts/paper/model_facts.py instead")


class FactsTest(unittest.TestCase):
    """The parts, on made-up runs."""

    HEAD = "\t".join(model_facts.COLUMNS)

    def summary(self, rows, **meta):
        m = {"full": "0", "only": "", "spin": "6.5.2"}
        m.update(meta)
        lines = [f"# {k}: {v}" for k, v in m.items()] + [self.HEAD]
        lines += ["\t".join(r) for r in rows]
        return "\n".join(lines) + "\n"

    def test_bounds_from_flags_and_defaults(self):
        d = model_facts.model_defaults()
        row = {"flags": "-DMODE=2 -DGATE=1 -DP0=2 -DC1=1 -DNPER=2"}
        self.assertEqual(model_facts.bounds_of(row, d), (3, 2, 2, 4))
        row = {"flags": "-DMODE=2 -DP0=1 -DP1=1 -DC1=1 -DNPER0=3 -DNPER=2"}
        self.assertEqual(model_facts.bounds_of(row, d)[3], 5)
        row = {"flags": "-DMODE=1 -DPS=1 -DPB=1 -DCS=1 -DCB=1 -DCAP=4 -DBATCH=3 -DNPER=3"}
        self.assertEqual(model_facts.bounds_of(row, d), (4, 4, 3, 6))

    def test_failures_are_said(self):
        meta, rows = model_facts.parse(self.summary([
            ["a", "safety", "-DMODE=1", "10", "20", "1.0", "100", "PASS", ""],
            ["b", "np", "-DMODE=1", "1.2e+08", "2e+08", "9.0", "900", "FAIL", "x"],
            ["m", "mutant", "-DMODE=1 -DBUG=1", "5", "6", "1.0", "100", "FAIL",
             "the injected bug was NOT found"]]))
        f = model_facts.facts(meta, rows, {"MODE": "1"})
        self.assertEqual((f["configs"], f["caught"], f["failed"]), (3, 0, ["b", "m"]))
        self.assertEqual(f["states_max"], 120000000)
        line = model_facts.md_line(f, "results.tsv")
        self.assertIn("1 of 2 searches passed; failed: `b`, `m`", line)
        self.assertIn("0 of 1 injected bugs were caught", line)
        self.assertIn("\\ModelAllPassedfalse", model_facts.tex_text(meta, rows, f))

    def test_stale_run_is_refused(self):
        meta, rows = model_facts.load() if os.path.exists(RESULTS) else ({}, [])
        if not rows:
            self.skipTest("no recorded run")
        self.assertTrue(any("changed" in w for w in model_facts.stale(
            dict(meta, model_blob="0" * 40), rows)))
        self.assertTrue(any("configurations differ" in w for w in model_facts.stale(
            meta, rows[1:])))
        self.assertTrue(any("default configurations" in w for w in model_facts.stale(
            dict(meta, only="bug"), rows)))

    def test_block_replacement(self):
        begin, end, _ = model_facts.MARKERS["README.md"]
        text = f"a\n{begin}\nold\n{end}\nb\n"
        self.assertEqual(model_facts.replace_block(text, begin, end, ["new"], "x"),
                         f"a\n{begin}\nnew\n{end}\nb\n")
        with self.assertRaises(model_facts.FactsError):
            model_facts.replace_block("no markers", begin, end, ["new"], "x")

    @unittest.skipUnless(shutil.which("spin") and shutil.which("gcc"), "needs spin and gcc")
    def test_check_sh_writes_the_summary(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([os.path.join(ROOT, "ring", "model", "check.sh"), "-j", "1",
                                "-o", tmp, "--only", "^bug1-"], capture_output=True, text=True,
                               cwd=ROOT, timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            meta, rows = model_facts.load(os.path.join(tmp, "summary.tsv"))
        self.assertEqual([x["configuration"] for x in rows], ["bug1-burst-claims-unseen"])
        self.assertEqual(rows[0]["verdict"], "PASS")
        self.assertEqual(meta["model_blob"], model_facts.blob_hash(
            os.path.join(ROOT, "ring", "model", "ring.pml")))
        self.assertEqual(meta["only"], "^bug1-")
        self.assertTrue(model_facts.stale(meta, rows), "a partial run must not be recordable")


if __name__ == "__main__":
    unittest.main()
