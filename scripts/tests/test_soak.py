"""make soak's draws (scripts/runner/soak.py): every workload, thread counts up
to 4x the CPUs (oversubscribed runs), every data-moving queue, emulated nodes
for every queue, and no configuration numaring-bench would refuse by design
(split for a symmetric workload, a per-ring share below the batch, inline
items for a queue that takes message items only)."""
import os
import random
import subprocess
import unittest

from scripts.common import manifest
from scripts.runner import soak
from scripts.tests import ROOT, module, slow

BENCH = os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build", "numaring-bench"))


def opt(args, flag):
    return args[args.index(flag) + 1] if flag in args else None


class SoakDrawsTest(unittest.TestCase):
    def test_draws_cover_what_broke_before(self):
        rng = random.Random(1)
        draws = [soak.random_config(rng, 2) for _ in range(2000)]
        self.assertEqual({opt(a, "--workload") for a in draws}, set(manifest.workloads()))
        self.assertEqual({opt(a, "--queue") for a in draws},
                         set(manifest.queues(moves_data=True)))
        threads = [int(opt(a, "--threads")) if "--threads" in a
                   else int(opt(a, "--producers")) + int(opt(a, "--consumers")) for a in draws]
        self.assertEqual(max(threads), soak.OVERSUBSCRIBE * 2)
        self.assertGreater(sum(t > 2 for t in threads), len(draws) // 2)
        self.assertTrue({opt(a, "--queue") for a in draws if "--topology" in a}
                        >= {"rte", "ck", "boost", "sharded", "numaring"})
        # every --queue-mem policy, node:N on a node of the machine (here node 0)
        mems = {opt(a, "--queue-mem") for a in draws}
        self.assertEqual(mems, {m.replace(":N", ":0") for m in manifest.queue_mems()})
        for a in draws:
            symmetric = opt(a, "--workload") in manifest.symmetric_workloads()
            self.assertEqual("--threads" in a, symmetric, a)
            if symmetric:
                self.assertNotEqual(opt(a, "--pin"), "split", a)
            # an item the queue takes (a queue of pointers only: message)
            self.assertIn(opt(a, "--item") or manifest.items()[0],
                          manifest.queue(opt(a, "--queue"))["items"], a)
            cap = int(opt(a, "--capacity") or opt(a, "--capacity-per-node"))
            batch = int(opt(a, "--batch"))
            self.assertLessEqual(batch, cap, a)
            if opt(a, "--queue") == "scq":  # at most capacity threads (k <= n)
                self.assertLessEqual(int(opt(a, "--threads") or 0) or
                                     int(opt(a, "--producers")) + int(opt(a, "--consumers")),
                                     cap, a)
            if (manifest.queue(opt(a, "--queue"))["capacity_kind"] == "split"
                    and "--capacity" in a):
                rings = 2 if "--topology" in a else 1
                self.assertGreaterEqual(cap // rings, max(2, batch), a)


@unittest.skipUnless(os.access(BENCH, os.X_OK), "numaring-bench not built (make bench)")
class SoakRunTest(unittest.TestCase):
    @slow
    def test_each_run_says_its_order_check_and_the_end_counts_them(self):
        r = subprocess.run(module("runner.soak") + ["--duration", "6", "--segment", "1.5",
                                                     "--bench", BENCH, "--seed", "7"],
                           capture_output=True, text=True, timeout=180, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        runs = [ln for ln in r.stdout.splitlines() if ln.startswith("run ")]
        self.assertGreaterEqual(len(runs), 2, r.stdout)
        for ln in runs:
            self.assertRegex(ln, r" memory [a-z:0-9-]+ \(pages [^)]*\) ")
            self.assertRegex(ln, r"verify ok, \d+ items, order [a-z/-]+ "
                                 r"(enforced|counted: [\d.e+]+ inversions per million)")
        last = r.stdout.splitlines()[-1]
        self.assertRegex(last, r"; queue memory [a-z]")
        # the workloads in turn: four runs hold all three
        for w in manifest.workloads():
            self.assertRegex(last, r"\b%s [1-9]" % w)
        self.assertRegex(last, r"items delivered exactly once, the order enforced in \d+ runs "
                               r"with no inversion and counted in \d+")


if __name__ == "__main__":
    unittest.main()
