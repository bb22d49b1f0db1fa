"""The paper's numbers match the committed CSVs (make test-scripts).

paper/generated/numbers.tex is written by scripts/paper_numbers.py. These
tests (1) regenerate it from results/ and require the committed file to be
identical, and (2) recompute a few numbers from the CSVs with code of their
own (csv + statistics + random, not scripts/summarize.py) and compare: every
ratio between configurations is paired per repetition (the median over reps
of a_k / b_k) with a percentile bootstrap 95% CI (2000 resamples, the seed
of scripts/nrdata.py), and the drift reference's rows are left out.
"""

import csv
import os
import random
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
    """The rows of the sweep's points: the drift reference's runs left out."""
    with open(path, newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if (r.get("role") or "point") == "point"
                and not r["point"].startswith("reference-")]


def refs(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if r.get("role") == "reference"
                or r["point"].startswith("reference-")]


BOOT_SEED = 20240613   # scripts/nrdata.py's
BOOT_N = 2000


def boot(vals):
    """(median, lo, hi): percentile bootstrap of the median, as nrdata documents it."""
    rnd = random.Random(BOOT_SEED)
    k = len(vals)
    if k == 1:
        return vals[0], vals[0], vals[0]
    meds = sorted(statistics.median([vals[rnd.randrange(k)] for _ in range(k)])
                  for _ in range(BOOT_N))
    return (statistics.median(vals), meds[int(round(0.025 * (BOOT_N - 1)))],
            meds[int(round(0.975 * (BOOT_N - 1)))])


def per_rep(rs, key="throughput_ops_per_s"):
    out = {}
    for r in rs:
        if (r.get(key) or "").strip():
            out.setdefault(int(r["rep"]), []).append(float(r[key]))
    return {k: statistics.median(v) for k, v in out.items()}


def paired(a_rows, b_rows, key="throughput_ops_per_s", fn=lambda x, y: x / y):
    a, b = per_rep(a_rows, key), per_rep(b_rows, key)
    return boot([fn(a[k], b[k]) for k in sorted(set(a) & set(b))])


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
        est = paired([r for r in at if r["lookup"] == "cached"],
                     [r for r in at if r["lookup"] == "libnuma"])
        self.assertEqual([self.m["FTwoRatio"], self.m["FTwoRatioLo"], self.m["FTwoRatioHi"]],
                         [f"{v:.1f}" for v in est])
        self.assertEqual(self.m["FTwoThreads"], str(top))

    def test_f1_ratio_recomputed(self):
        rs = rows(os.path.join(self.real, "f1-lookup-cost.csv"))
        none_rows = [r for r in rs if r["lookup"] == "none"]
        none = median_of(none_rows, "throughput_ops_per_s")
        move = 1e9 / none
        # look-up / data movement per repetition: none_k / libnuma_k - 1
        est = paired(none_rows, [r for r in rs if r["lookup"] == "libnuma"],
                     fn=lambda n, b: n / b - 1)
        self.assertEqual([self.m["FOneRatio"], self.m["FOneRatioLo"], self.m["FOneRatioHi"]],
                         [f"{v:.1f}" for v in est])
        self.assertEqual(self.m["FOneMoveNs"], f"{move:.1f}")
        self.assertEqual(self.m["FOneLookupNs"], f"{est[0] * move:.1f}")
        for mode, name, fmt in (("cached", "FOneCachedVsNone", "{:.2f}"),
                                ("rseq", "FOneRseqVsNone", "{:.2f}"),
                                ("syscall", "FOneSyscallVsNone", "{:.1f}")):
            est = paired(none_rows, [r for r in rs if r["lookup"] == mode])
            self.assertEqual([self.m[name], self.m[name + "Lo"], self.m[name + "Hi"]],
                             [fmt.format(v) for v in est])

    def test_f3_ratio_recomputed(self):
        if not self.emu:
            self.skipTest("no emulated-node results")
        rs = rows(os.path.join(self.emu, "f3-gate.csv"))
        top = max(int(r["producers"]) + int(r["consumers"]) for r in rs)
        # the largest thread count whose runs are not oversubscribed, else the largest
        clean = [t for t in {int(r["producers"]) + int(r["consumers"]) for r in rs}
                 if all(r.get("oversubscribed") == "0" for r in rs
                        if int(r["producers"]) + int(r["consumers"]) == t)]
        top = max(clean) if clean else top
        at = [r for r in rs if int(r["producers"]) + int(r["consumers"]) == top]
        loads = sorted({(r.get("load") or "").strip() for r in at},
                       key=lambda v: float(v) if v else -1.0)
        at = [r for r in at if (r.get("load") or "").strip() == loads[-1]]
        sh = [r for r in at if r["gate"] == "shared"]
        pw = [r for r in at if r["gate"] == "perworker"]
        for key, name in (("p50_ns", "FThreeRatio"), ("p99_ns", "FThreeNinetyNineRatio")):
            est = paired(sh, pw, key)
            self.assertEqual([self.m[name], self.m[name + "Lo"], self.m[name + "Hi"]],
                             [f"{v:.1f}" for v in est])
        self.assertEqual(self.m["FThreeThreads"], str(top))

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
        est = paired([r for r in single if r["queue"] == "numaring"],
                     [r for r in single if r["queue"] == best])
        self.assertEqual([self.m["PeersSingleOverBest"], self.m["PeersSingleOverBestLo"],
                          self.m["PeersSingleOverBestHi"]], [f"{v:.2f}" for v in est])

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
                    est = paired(ring, peer)
                    name = pre + ("SingleOverFlat" if b == "0" else "BurstOverRte")
                    self.assertEqual([macro, self.m[name + "Lo"], self.m[name + "Hi"]],
                                     [f"{v:.2f}" for v in est])
                    h = harness_median(rs)
                    self.assertEqual(self.m[f"{pre}{word}HarnessMops"],
                                     f"{h / 1e6:.1f}" if h else "n/a")

    def test_f4_recomputed(self):
        """F4: the paired change per backoff with its CI, failed attempts per 1,000
        operations, and "not exercised" below 1 in 1,000."""
        rs = rows(os.path.join(self.real, "f4-backoff.csv"))
        top = max(int(r["producers"]) + int(r["consumers"]) for r in rs)
        at = [r for r in rs if int(r["producers"]) + int(r["consumers"]) == top]
        none = [r for r in at if r["backoff"] == "none"]
        ran = 0
        for b, word in (("pause", "Pause"), ("exp", "Exp"), ("yield", "Yield")):
            with self.subTest(backoff=b):
                brs = [r for r in at if r["backoff"] == b]
                est = paired(brs, none, fn=lambda x, y: 100 * (x / y - 1))
                self.assertEqual([self.m["FFour" + word], self.m[f"FFour{word}Lo"],
                                  self.m[f"FFour{word}Hi"]], [f"{v:+.1f}" for v in est])
                rate = statistics.median(int(r["failed_attempts"]) / int(r["ops"]) for r in brs)
                self.assertEqual(self.m[f"FFour{word}Failed"], f"{rate * 1000:.3g}")
                says = self.m[f"FFour{word}Says"]
                if rate < 0.001:
                    self.assertEqual(says, "backoff not exercised on this host")
                else:
                    ran += 1
                    self.assertTrue(says.startswith(f"${est[0]:+.1f}$"), says)
        self.assertEqual(self.m["FFourExercised"], str(ran))

    def test_drift_recomputed(self):
        """Drift<F>: (max - min) / median of the reference's runs, in percent."""
        for exp, word, hostdir in (("f1-lookup-cost", "FOne", self.real),
                                   ("f2-node-cache", "FTwo", self.real),
                                   ("f3-gate", "FThree", self.emu),
                                   ("f4-backoff", "FFour", self.real),
                                   ("f5-ceiling", "FFive", self.emu),
                                   ("peers", "Peers", self.real)):
            with self.subTest(experiment=exp):
                path = os.path.join(hostdir, exp + ".csv") if hostdir else None
                rs = refs(path) if path and os.path.exists(path) else []
                key = "p50_ns" if exp == "f3-gate" and all(r["p50_ns"] for r in rs) \
                    else "throughput_ops_per_s"
                vals = [float(r[key]) for r in rs if r[key]]
                if len(vals) < 2:
                    self.assertEqual(self.m["Drift" + word], "n/a")
                    continue
                drift = (max(vals) - min(vals)) / statistics.median(vals)
                self.assertEqual(self.m["Drift" + word], f"{drift * 100:.1f}\\%")

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
