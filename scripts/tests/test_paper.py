"""The paper's numbers match the committed CSVs (make test-scripts).

paper/generated/numbers.tex is written by scripts/paper_numbers.py. These
tests (1) regenerate it from results/ and require the committed file to be
identical, and (2) recompute a few numbers from the CSVs with code of their
own (csv + statistics, not scripts/summarize.py) and compare.
"""

import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NUMBERS = os.path.join(ROOT, "paper", "generated", "numbers.tex")


def macros(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\\newcommand\{\\([A-Za-z]+)\}\{(.*)\}$", line.strip())
            if m:
                out[m.group(1)] = m.group(2)
    return out


def sources(path):
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    m = re.search(r"from (.*)\.$", first.strip())
    return [p.strip() for p in m.group(1).split(",")] if m else []


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def median_of(rs, key):
    return statistics.median(float(r[key]) for r in rs)


def item(r):
    """inline (the default, also an empty cell) or message."""
    return (r.get("item") or "").strip() or "inline"


def harness_median(rs):
    vals = [float(r["harness_ops_per_s"]) for r in rs if (r.get("harness_ops_per_s") or "")]
    return statistics.median(vals) if vals else None


EXPERIMENTS = ("f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff", "f5-ceiling",
               "peers")


@unittest.skipUnless(os.path.exists(NUMBERS), "paper/generated/numbers.tex not generated yet")
class PaperNumbersTest(unittest.TestCase):
    def setUp(self):
        self.m = macros(NUMBERS)
        src = sources(NUMBERS)
        self.real = os.path.join(ROOT, src[0])
        self.emu = os.path.join(ROOT, src[1]) if len(src) > 1 else None

    def test_committed_file_is_what_the_generator_writes(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "numbers.tex")
            src = sources(NUMBERS)
            cmd = [sys.executable, os.path.join(ROOT, "scripts", "paper_numbers.py"),
                   "--results", os.path.dirname(src[0]), "--real", os.path.basename(src[0]),
                   "--out", out]
            if len(src) > 1:
                cmd += ["--emulated", os.path.basename(src[1])]
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out, encoding="utf-8") as a, open(NUMBERS, encoding="utf-8") as b:
                self.assertEqual(a.read(), b.read(),
                                 "paper/generated/numbers.tex is stale: run make paper")

    def test_f2_ratio_recomputed(self):
        rs = rows(os.path.join(self.real, "f2-node-cache.csv"))
        top = max(int(r["producers"]) + int(r["consumers"]) for r in rs)
        at = [r for r in rs if int(r["producers"]) + int(r["consumers"]) == top]
        cached = median_of([r for r in at if r["lookup"] == "cached"], "throughput_ops_per_s")
        lib = median_of([r for r in at if r["lookup"] == "libnuma"], "throughput_ops_per_s")
        self.assertEqual(self.m["FTwoRatio"], f"{cached / lib:.1f}")
        self.assertEqual(self.m["FTwoThreads"], str(top))

    def test_f1_ratio_recomputed(self):
        rs = rows(os.path.join(self.real, "f1-lookup-cost.csv"))
        none = median_of([r for r in rs if r["lookup"] == "none"], "throughput_ops_per_s")
        lib = median_of([r for r in rs if r["lookup"] == "libnuma"], "throughput_ops_per_s")
        move = 1e9 / none
        self.assertEqual(self.m["FOneRatio"], f"{(1e9 / lib - move) / move:.1f}")
        self.assertEqual(self.m["FOneMoveNs"], f"{move:.1f}")

    def test_f3_ratio_recomputed(self):
        if not self.emu:
            self.skipTest("no emulated-node results")
        rs = rows(os.path.join(self.emu, "f3-gate.csv"))
        top = max(int(r["producers"]) + int(r["consumers"]) for r in rs)
        at = [r for r in rs if int(r["producers"]) + int(r["consumers"]) == top]
        sh = median_of([r for r in at if r["gate"] == "shared"], "p50_ns")
        pw = median_of([r for r in at if r["gate"] == "perworker"], "p50_ns")
        self.assertEqual(self.m["FThreeRatio"], f"{sh / pw:.1f}")

    def test_peers_ratio_recomputed(self):
        rs = [r for r in rows(os.path.join(self.real, "peers.csv")) if item(r) == "inline"]
        low = min(int(r["producers"]) + int(r["consumers"]) for r in rs)
        single = [r for r in rs if r["bursts"] == "0"
                  and int(r["producers"]) + int(r["consumers"]) == low]
        med = {}
        for q in {r["queue"] for r in single}:
            med[q] = median_of([r for r in single if r["queue"] == q], "throughput_ops_per_s")
        peers = {q: v for q, v in med.items() if q not in ("numaring", "faa")}
        best = max(peers, key=peers.get)
        self.assertEqual(self.m["PeersSingleBest"], best)
        self.assertEqual(self.m["PeersSingleOverBest"], f"{med['numaring'] / peers[best]:.2f}")

    def peers_at_low(self, which):
        rs = [r for r in rows(os.path.join(self.real, "peers.csv")) if item(r) == which]
        if not rs:
            return []
        low = min(int(r["producers"]) + int(r["consumers"]) for r in rs)
        return [r for r in rs if int(r["producers"]) + int(r["consumers"]) == low]

    def test_peers_by_item_recomputed(self):
        """Peers... are inline items, PeersMsg... message items, each on its own rows."""
        for which, pre in (("inline", "Peers"), ("message", "PeersMsg")):
            at = self.peers_at_low(which)
            for b, word, other, name in (("0", "Single", "flat", "OverFlat"),
                                         ("1", "Burst", "rte", "OverRte")):
                with self.subTest(item=which, bursts=b):
                    rs = [r for r in at if r["bursts"] == b]
                    ring = [r for r in rs if r["queue"] == "numaring"]
                    peer = [r for r in rs if r["queue"] == other]
                    macro = self.m[pre + ("SingleOverFlat" if b == "0" else "BurstOverRte")]
                    if not ring or not peer:
                        self.assertEqual(macro, "n/a")
                        continue
                    want = (median_of(ring, "throughput_ops_per_s") /
                            median_of(peer, "throughput_ops_per_s"))
                    self.assertEqual(macro, f"{want:.2f}")
                    h = harness_median(rs)
                    self.assertEqual(self.m[f"{pre}{word}HarnessMops"],
                                     f"{h / 1e6:.1f}" if h else "n/a")

    def test_harness_recomputed(self):
        f1 = rows(os.path.join(self.real, "f1-lookup-cost.csv"))
        h = harness_median(f1)
        self.assertEqual(self.m["FOneHarnessNs"], f"{1e9 / h:.1f}" if h else "n/a")
        for prefix, hostdir in (("Real", self.real), ("Emu", self.emu)):
            with self.subTest(host=prefix):
                measured = bound = 0
                samples = set()
                for exp in EXPERIMENTS if hostdir else ():
                    path = os.path.join(hostdir, exp + ".csv")
                    if not os.path.exists(path):
                        continue
                    rs = rows(path)
                    samples |= {r.get("sample", "") for r in rs} - {"", None}
                    for pt in {(r.get("profile", ""), r["point"]) for r in rs}:
                        prs = [r for r in rs if (r.get("profile", ""), r["point"]) == pt]
                        t = median_of(prs, "throughput_ops_per_s")
                        hm = harness_median(prs)
                        if t and hm:
                            measured += 1
                            bound += t >= 0.8 * hm
                self.assertEqual(self.m[prefix + "HarnessPoints"],
                                 str(measured) if measured else "n/a")
                self.assertEqual(self.m[prefix + "HarnessBound"],
                                 str(bound) if measured else "n/a")
                self.assertEqual(self.m[prefix + "ItemSample"],
                                 "/".join(sorted(samples, key=float)) if samples else "n/a")


if __name__ == "__main__":
    unittest.main()
