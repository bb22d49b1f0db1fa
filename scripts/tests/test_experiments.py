# SPDX-License-Identifier: BSD-2-Clause
"""Tests of the experiment files, their parser and the runner (make test-scripts).

The runner tests drive the real numaring-bench (NUMARING_BENCH, default
build/numaring-bench) on tiny sweeps in a temporary results folder.
"""

import csv
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from scripts.analysis import claims
from scripts.common import expfile, manifest, runfiles
from scripts.runner import experiments
from scripts.analysis import nrdata
from scripts.runner import side, sizing
from scripts.tests import module, slow

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
ROOT = os.path.dirname(SCRIPTS)


PY = sys.executable
MARKER = ".sweep-owner.json"  # scripts/runner/hostid.py's marker of a sweep's own folder
BENCH = os.path.abspath(os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build", "numaring-bench")))
RUNNER = module("runner.experiments", PY)

GOOD = """# a comment
[experiment]
name = tiny
title = A tiny sweep
finding = F2

[sweep]
queue = numaring
threads = 2
lookup = cached, none   # two points
capacity = 64
batch = 8

[quick]
duration = 0.1
warmup = 0
reps = 2

[full]
duration = 1
reps = 5
"""


def parse_text(text, name="tiny.exp"):
    return expfile.parse(name, text)


class ParserTest(unittest.TestCase):
    def test_good_file(self):
        e = parse_text(GOOD)
        self.assertEqual(e.name, "tiny")
        self.assertEqual(e.sweep["lookup"], ["cached", "none"])
        pts, reps = expfile.points(e, "quick", 2, 1)
        self.assertEqual(reps, 2)
        self.assertEqual([p.id for p in pts], ["lookup=cached", "lookup=none"])
        self.assertIn("--duration", pts[0].args())
        self.assertEqual(pts[0].opts["producers"], "1")
        self.assertEqual(pts[0].opts["consumers"], "1")
        pts, reps = expfile.points(e, "full", 2, 1)
        self.assertEqual((reps, pts[0].opts["duration"]), (5, "1.0"))

    def test_scatter_runs_only_where_there_are_nodes_to_alternate(self):
        e = parse_text(GOOD.replace("threads = 2", "threads = 2\npin = compact, scatter"))
        one = expfile.points(e, "quick", 2, 1)[0]
        two = expfile.points(e, "quick", 2, 2)[0]
        self.assertEqual({p.opts["pin"] for p in one}, {"compact"})
        self.assertEqual({p.opts["pin"] for p in two}, {"compact", "scatter"})
        self.assertEqual(len(two), 2 * len(one))

    def test_each_workload_takes_its_own_cross_node_pin(self):
        """pin = compact, split, scatter: prodcons at compact and split, pairs
        and mixed at compact and scatter on two nodes; compact alone on one
        (no emulated nodes needed); split alone still needs two nodes."""
        e = parse_text(GOOD.replace("threads = 2", "threads = 2\nworkload = prodcons, pairs, "
                                    "mixed\npin = compact, split, scatter"))
        two = {(p.opts["workload"], p.opts["pin"]) for p in expfile.points(e, "quick", 2, 2)[0]}
        self.assertEqual(two, {("prodcons", "compact"), ("prodcons", "split"),
                               ("pairs", "compact"), ("pairs", "scatter"),
                               ("mixed", "compact"), ("mixed", "scatter")})
        one = {(p.opts["workload"], p.opts["pin"]) for p in expfile.points(e, "quick", 2, 1)[0]}
        self.assertEqual(one, {("prodcons", "compact"), ("pairs", "compact"),
                               ("mixed", "compact")})
        self.assertFalse(sizing.needs_two_nodes(e, "quick"))
        f3 = expfile.parse(os.path.join(ROOT, "experiments", "f3-gate.exp"))
        self.assertTrue(sizing.needs_two_nodes(f3, "quick"))
        # split without scatter beside it: refused for a symmetric workload
        e = parse_text(GOOD.replace("threads = 2", "threads = 2\nworkload = pairs\n"
                                    "pin = compact, split"))
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.points(e, "quick", 2, 2)
        self.assertIn("pin split", str(cm.exception))

    def test_node_numbers_are_the_harness_s(self):
        # --pin nodes:P/C and --queue-mem node:N: the manifest's range, which
        # numaring-bench writes from the constants its parser checks against
        for parse, top, fmt in ((expfile._pin, manifest.pin_max_node(), "nodes:0/{}"),
                                (expfile._queue_mem, manifest.queue_mem_max_node(), "node:{}")):
            self.assertEqual(parse(fmt.format(top)), fmt.format(top))
            with self.assertRaisesRegex(ValueError, f"0..{top}"):
                parse(fmt.format(top + 1))

    def test_peers_as_the_field_runs_it(self):
        """peers.exp (issue 43 item 2), blocks not a factorial: the headline
        curve (prodcons, single operations and bursts, compact and split, every
        thread count), pairs and mixed at compact and scatter, the paced
        regimes, and (full) local work and message items at 2 threads and
        every core; single operations only for queues without bursts; compact
        alone here (inline items in quick), and the runner's schedule runs
        every point."""
        e = expfile.parse(os.path.join(ROOT, "experiments", "peers.exp"))
        self.assertFalse(sizing.needs_two_nodes(e, "quick"))
        pts, reps = expfile.points(e, "quick", 2, 1)
        opts = [p.opts for p in pts]
        self.assertEqual({o["workload"] for o in opts}, {"prodcons", "pairs", "mixed"})
        self.assertEqual({o["work"] for o in opts}, {"0"})   # 50-150: the full profile
        pointers = {"xenium-ramalhete", "xenium-kfifo"}
        self.assertEqual({(o["pin"], o["item"], o["capacity"]) for o in opts
                          if o["queue"] not in pointers}, {("compact", "inline", "1024")})
        self.assertEqual({(o["pin"], o["item"], o["capacity"]) for o in opts
                          if o["queue"] in pointers}, {("compact", "message", "1024")})
        queues = e.sweep["queue"]
        self.assertLessEqual(pointers, set(queues))
        self.assertEqual(expfile.item_left_out(e, "quick"), {})
        self.assertEqual(set(expfile.item_left_out(e, "smoke")), pointers)
        self.assertEqual(expfile.item_left_out(e, "full"), {})
        # a queue without bursts runs single operations alone (its bursts cell
        # is left out, with the reason)
        nob = {q for q in queues if not manifest.queue(q)["bursts"]}
        self.assertTrue(nob)
        self.assertFalse([o for o in opts if o["queue"] in nob and o["bursts"] == "1"])
        self.assertEqual({q for (q, cell) in expfile.left_out(e, "quick", 2, 1)
                          if cell == "bursts = 1"}, nob)
        # the headline: every queue, single operations; bursts for those that take them
        head = [o for o in opts if o["workload"] == "prodcons" and o["pace"] == "free"]
        self.assertEqual(len(head), len(queues) + len(set(queues) - nob))
        # pairs and mixed: every queue, single operations, here; bursts for the
        # bounded queues the claims weigh numaring against (its quick.queue)
        sym = [o for o in opts if o["workload"] != "prodcons"]
        self.assertEqual(len([o for o in sym if o["bursts"] == "0"]), 2 * len(queues))
        bursts = {o["queue"] for o in sym if o["bursts"] == "1"}
        self.assertIn("numaring", bursts)
        self.assertTrue(all(manifest.queue(q)["bursts"] for q in bursts))
        self.assertEqual(len([o for o in sym if o["bursts"] == "1"]), 2 * len(bursts))
        paced = next(p for p in pts if p.opts["workload"] == "prodcons"
                     and p.opts["pace"] == "producer" and p.opts["queue"] == "numaring")
        args = paced.args()
        self.assertEqual(args[args.index("--producer-work") + 1], str(expfile.PACE_WORK_NS))
        self.assertTrue(set(paced.claims) >= {"ring.cross-p99", "F5.model-tight"})
        runs = experiments.schedule(pts, reps, 7, expfile.reference_point(e, pts, 2, 1))
        self.assertEqual(len(runs), len(pts) * reps + 3)
        self.assertEqual({r[2] for r in runs} - set(nrdata.REFERENCE_POINTS),
                         {p.id for p in pts})
        # a two-socket host, full: each workload's cross-node pin, both items
        pts, _ = expfile.points(e, "full", 64, 2, 32)
        got = {(p.opts["workload"], p.opts["pin"]) for p in pts}
        self.assertEqual(got, {("prodcons", "compact"), ("prodcons", "split"),
                               ("pairs", "compact"), ("pairs", "scatter"),
                               ("mixed", "compact"), ("mixed", "scatter")})
        self.assertEqual({p.opts["item"] for p in pts}, {"inline", "message"})
        self.assertEqual({p.opts["item"] for p in pts if p.opts["queue"] in pointers},
                         {"message"})
        # the curve runs every thread count; the slices 2 threads and every core
        curve = {expfile.point_threads(p.opts) for p in pts if "curve" in p.blocks}
        self.assertEqual(curve, {2, 4, 8, 16, 32})
        self.assertEqual({expfile.point_threads(p.opts) for p in pts if "headline" in p.blocks},
                         {2, 32})
        for b in ("local-work", "message", "near-empty", "full", "symmetric"):
            self.assertEqual({expfile.point_threads(p.opts) for p in pts if p.blocks[0] == b},
                             {2, 32}, b)
        # not a factorial: the headline curve's points, and the slices at two
        # thread counts (fewer points than queues x workloads x bursts x work x
        # pace x pin x threads x item, 4,800 of them on this host)
        self.assertEqual(len([p for p in pts if "curve" in p.blocks]),
                         5 * 2 * (len(queues) + len(set(queues) - nob)))
        self.assertLess(len(pts), 600)

    def test_symmetric_workloads_count_threads(self):
        e = parse_text(GOOD.replace("threads = 2", "threads = 2, 4\nworkload = pairs, prodcons"
                                    "\nwork = 0, 300"))
        pts, _ = expfile.points(e, "quick", 4, 1)
        pairs = [p for p in pts if p.opts["workload"] == "pairs"]
        self.assertTrue(pairs)
        for p in pairs:
            self.assertIn(p.opts["threads"], ("2", "4"))
            self.assertNotIn("producers", p.opts)
            self.assertEqual(expfile.point_threads(p.opts), int(p.opts["threads"]))
            self.assertIn("--threads", p.args())
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.points(parse_text(GOOD.replace("threads = 2", "threads = 2\n"
                                                   "enqueue-share = 0.3")), "quick", 2, 1)
        self.assertIn("enqueue-share is for workload mixed", str(cm.exception))
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.points(parse_text(GOOD.replace("threads = 2", "threads = 2\nworkload = mixed"
                                                   "\npin = split")), "quick", 2, 2)
        self.assertIn("pin split", str(cm.exception))
        # nodes:P/C: producers on node P, consumers on node C; no sides in mixed
        e = parse_text(GOOD.replace("threads = 2", "threads = 2\npin = nodes:0/1, nodes:1/1"))
        pts, _ = expfile.points(e, "quick", 2, 2)
        self.assertEqual({p.opts["pin"] for p in pts}, {"nodes:0/1", "nodes:1/1"})
        self.assertTrue(any("nodes:0/1" in p.args() for p in pts))
        from scripts.runner import sizing
        self.assertTrue(sizing.needs_two_nodes(e, "quick"))
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.points(parse_text(GOOD.replace("threads = 2", "threads = 2\nworkload = mixed"
                                                   "\npin = nodes:0/1")), "quick", 2, 2)
        self.assertIn("pin nodes:0/1 puts producers and consumers", str(cm.exception))
        for bad in ("nodes:0", "nodes:a/1", "nodes:0/1/2"):
            with self.assertRaises(expfile.ExpError) as cm:
                parse_text(GOOD.replace("threads = 2", f"threads = 2\npin = {bad}"))
            self.assertIn("nodes:P/C", str(cm.exception))
        with self.assertRaises(expfile.ExpError) as cm:
            parse_text(GOOD.replace("threads = 2", "threads = 2\nworkload = triples"))
        self.assertIn("unknown value 'triples'", str(cm.exception))
        with self.assertRaises(expfile.ExpError) as cm:
            parse_text(GOOD.replace("threads = 2", "threads = 2\nenqueue-share = 1"))
        self.assertIn("enqueue-share", str(cm.exception))

    def test_bad_files_name_file_line_and_reason(self):
        cases = [
            (GOOD.replace("[sweep]", "[sweeps]"), ":7: unknown section [sweeps]"),
            ("queue = numaring\n", ":1: 'queue = numaring' comes before any [section]"),
            (GOOD.replace("queue = numaring", "queue numaring"), ":8: expected 'key = value'"),
            (GOOD.replace("capacity = 64", "capacity = 64\ncapacity = 128"),
             ":12: capacity given twice in [sweep] (first at line 11)"),
            (GOOD.replace("capacity = 64", "capacity ="), ":11: capacity has no value"),
            (GOOD.replace("capacity = 64", "colour = red"), ":11: colour: unknown key"),
            (GOOD.replace("queue = numaring", "queue = lmax"), ":8: queue: unknown value 'lmax'"),
            (GOOD.replace("capacity = 64", "capacity = 100"), ":11: capacity: 100 is not a power of two"),
            (GOOD.replace("threads = 2", "threads = 1"), ":9: threads: 1 is not between 2"),
            (GOOD.replace("threads = 2", "threads = ..., 4"), ":9: threads: '...' must stand between"),
            (GOOD.replace("threads = 2", "threads = lots"), ":9: threads: threads value 'lots'"),
            (GOOD.replace("name = tiny", "name = other"), ":3: name 'other' differs from the file name"),
            (GOOD.replace("finding = F2", "finding = F9"), ":5: finding 'F9' is not one of"),
            (GOOD.replace("finding = F2\n", ""), "[experiment] lacks finding"),
            (GOOD.replace("threads = 2", "threads = 2\nproducers = 1"), "threads and producers/consumers are alternatives"),
            (GOOD.replace("reps = 2", "reps = 2\nthreads = 4\nproducers = 1"),
             ":18: threads and producers/consumers are alternatives"),
            (GOOD.replace("threads = 2", "producers = 1, 2").replace("reps = 2", "reps = 2\nthreads = 4"),
             ":18: threads cannot override producers/consumers"),
            (GOOD.replace("reps = 2", "reps = 2\nproducers = 1"), ":18: producers cannot override threads"),
            (GOOD.replace("batch = 8", "batch = 8\nreps = 3"), ":13: reps: unknown key"),
            (GOOD.replace("reps = 2", "reps = 0"), ":17: reps: 0 is not between 1 and 1000"),
            (GOOD.replace("cached, none", "cached, cached"), ":10: lookup: a value is listed twice"),
            (GOOD.replace("cached, none", "cached,,none"), ":10: empty item in the list for lookup"),
            (GOOD.replace("duration = 0.1", "duration = -1"), ":15: duration: -1 is not above 0"),
            (GOOD.replace("duration = 0.1", "duration = nan"), ":15: duration: expected a finite number"),
            (GOOD.replace("[quick]", "[quick"), ":14: malformed section header"),
            (GOOD + "x = " + "1," * 3000 + "\n", "line longer than 4000 characters"),
            ("[experiment]\nname = tiny\ntitle = t\nfinding = F1\n", "[sweep] is missing or empty"),
        ]
        for text, want in cases:
            with self.subTest(want=want):
                with self.assertRaises(expfile.ExpError) as cm:
                    parse_text(text)
                self.assertIn(want, str(cm.exception))
                self.assertTrue(str(cm.exception).startswith("tiny.exp"))

    def test_reference_key(self):
        """[experiment] reference: the first point by default, none, or key=value pairs
        naming a point; checked when read, matched when the sweep is expanded."""
        e = parse_text(GOOD)
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertIs(expfile.reference_point(e, pts, 2, 1), pts[0])
        e = parse_text(GOOD.replace("finding = F2\n", "finding = F2\nreference = none\n"))
        self.assertIsNone(expfile.reference_point(e, pts, 2, 1))
        e = parse_text(GOOD.replace("finding = F2\n",
                                    "finding = F2\nreference = lookup=none threads=2\n"))
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertEqual(expfile.reference_point(e, pts, 2, 1).id, "lookup=none")
        for bad, want in (("colour=red", "unknown key 'colour'"),
                          ("lookup", "expected first, none or key=value pairs"),
                          ("lookup=lmax", "unknown value 'lmax'"),
                          ("lookup=none lookup=cached", "lookup given twice")):
            with self.subTest(bad=bad):
                with self.assertRaises(expfile.ExpError) as cm:
                    parse_text(GOOD.replace("finding = F2\n",
                                            "finding = F2\nreference = %s\n" % bad))
                self.assertIn(":6: reference: " + want, str(cm.exception))
        e = parse_text(GOOD.replace("finding = F2\n", "finding = F2\nreference = lookup=table\n"))
        pts, _ = expfile.points(e, "quick", 2, 1)
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.reference_point(e, pts, 2, 1)
        self.assertIn("tiny.exp:6: reference: no point of this machine's sweep has lookup=table",
                      str(cm.exception))

    def test_two_ellipses_in_one_threads_list(self):
        e = parse_text(GOOD.replace("threads = 2", "threads = 2, 4, ..., 16, 24, ..., 96"))
        self.assertEqual(e.sweep["threads"], [2, 4, "...", 16, 24, "...", 96])

    def test_batch_above_capacity_refused_at_expansion(self):
        e = parse_text(GOOD.replace("batch = 8", "batch = 128"))
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.points(e, "quick", 2, 1)
        self.assertIn("batch 128 is larger than capacity 64", str(cm.exception))

    def test_a_queue_of_pointers_runs_with_message_items(self):
        """A queue that takes message items only (the manifest's items) has no
        inline point where the sweep has message items too, and is refused by
        name where it has none (numaring-bench would refuse each point)."""
        e = parse_text(GOOD.replace("lookup = cached, none   # two points",
                                    "item = inline, message")
                       .replace("queue = numaring", "queue = numaring, xenium-kfifo"))
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertEqual(sorted((p.opts["queue"], p.opts["item"]) for p in pts),
                         [("numaring", "inline"), ("numaring", "message"),
                          ("xenium-kfifo", "message")])
        e = parse_text(GOOD.replace("queue = numaring", "queue = xenium-ramalhete"))
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.points(e, "quick", 2, 1)
        self.assertIn("queue xenium-ramalhete takes message items only; give item = message",
                      str(cm.exception))
        with self.assertRaises(expfile.ExpError):
            expfile.item_left_out(e, "full")  # no profile runs it: refused in each

    def test_a_profile_without_the_item_a_queue_takes_leaves_it_out_with_the_reason(self):
        """peers.exp's way (quick inline only, full both): where another
        profile runs the queue with an item it takes, a profile without one
        leaves the queue out, not refused, and says why; the other queues'
        points are as they were."""
        text = (GOOD.replace("queue = numaring", "queue = numaring, xenium-ramalhete")
                .replace("lookup = cached, none   # two points", "item = inline, message")
                .replace("reps = 2", "reps = 2\nitem = inline"))
        e = parse_text(text)
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertEqual([(p.opts["queue"], p.opts["item"]) for p in pts],
                         [("numaring", "inline")])
        self.assertEqual(expfile.item_left_out(e, "quick"),
                         {"xenium-ramalhete": "takes message items only; profile quick runs "
                          "item = inline (it runs in profiles full, smoke)"})
        pts, _ = expfile.points(e, "full", 2, 1)
        self.assertEqual(sorted((p.opts["queue"], p.opts["item"]) for p in pts),
                         [("numaring", "inline"), ("numaring", "message"),
                          ("xenium-ramalhete", "message")])

    def test_blocks_give_a_queue_its_item_kind_block_by_block(self):
        """The fuzzer's finding (an AssertionError): a block naming a pointer
        queue with inline items only, while another block has message items
        (the profile's kinds together would take it). Where the other block
        runs the queue, this block's cell is left out with the reason; where
        no block runs it, the file is refused by name."""
        text = """[experiment]
name = blocks
title = t
finding = peers

[sweep]
queue = numaring, xenium-ramalhete
item = inline
threads = 2

[block a]
claims = ring.cross-best-peer

[block b]
claims = ring.cross-best-peer
queue = numaring
item = message
"""
        e = expfile.parse("blocks.exp", text)
        for prof in expfile.PROFILES:
            with self.assertRaises(expfile.ExpError) as cm:
                expfile.points(e, prof, 2, 1)
            self.assertIn("queue xenium-ramalhete takes message items only", str(cm.exception))
        e = expfile.parse("blocks.exp", text.replace("queue = numaring\n",
                                                     "queue = numaring, xenium-ramalhete\n"))
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertEqual([(p.opts["queue"], p.opts["item"]) for p in pts],
                         [("numaring", "inline"), ("numaring", "message"),
                          ("xenium-ramalhete", "message")])
        self.assertEqual(expfile.left_out(e, "quick", 2, 1),
                         {("xenium-ramalhete", "item = inline"):
                          "takes message items only: another block of this profile runs "
                          "it with those"})

    def test_item_otherwise_runs_a_queue_with_the_kind_it_takes(self):
        """A profile's item-otherwise: a queue that takes none of the
        profile's item kinds runs one point per combination with that kind,
        marked in its options (so in every row), the others as they were;
        without an item axis too; a kind that is not one is refused."""
        base = (GOOD.replace("queue = numaring", "queue = numaring, xenium-ramalhete")
                .replace("lookup = cached, none   # two points", "item = inline, message"))
        e = parse_text(base.replace("reps = 2", "reps = 2\nitem = inline\nitem-otherwise = message"))
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertEqual([(p.opts["queue"], p.opts["item"]) for p in pts],
                         [("numaring", "inline"), ("xenium-ramalhete", "message")])
        self.assertIn(["--item", "message"], [p.args()[i:i + 2] for p in pts
                                              for i in range(len(p.args()))])
        self.assertEqual(expfile.item_left_out(e, "quick"), {})
        e = parse_text(GOOD.replace("queue = numaring", "queue = numaring, xenium-ramalhete")
                       .replace("lookup = cached, none   # two points", "")
                       .replace("reps = 2", "reps = 2\nitem-otherwise = message"))
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertEqual([(p.opts["queue"], p.opts.get("item")) for p in pts],
                         [("numaring", None), ("xenium-ramalhete", "message")])
        with self.assertRaises(expfile.ExpError) as cm:
            parse_text(base.replace("reps = 2", "reps = 2\nitem-otherwise = payload"))
        self.assertIn("item-otherwise: 'payload' is not an item kind", str(cm.exception))

    def test_list_says_which_queues_a_profile_leaves_out_and_why(self):
        r = run(["list", "--profile", "quick"])
        self.assertEqual(r.returncode, 0, r.stderr)
        # item-otherwise runs them: no queue is left out for its items
        self.assertNotIn("left out of peers quick: xenium", r.stdout)
        # a queue without bursts: its bursts cell is left out, said with the reason
        self.assertIn("left out of peers quick: bursts = 1 of ck,", r.stdout)
        r = run(["list", "--profile", "smoke"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for q in ("xenium-ramalhete", "xenium-kfifo"):
            self.assertIn(f"  left out of peers smoke: {q}: takes message items only; profile "
                          "smoke runs item = inline (it runs in profiles quick, full)", r.stdout)
        r = run(["list", "--profile", "full"])
        self.assertNotIn("left out of peers full: xenium", r.stdout)
        # numaring and sharded place their rings themselves: one memory policy
        self.assertRegex(r.stdout, r"left out of placement full: queue-mem = interleave of "
                         r"numaring, sharded: places its rings")

    def test_capacity_per_node_is_the_other_meaning(self):
        """capacity is the whole queue's; capacity-per-node passes numaring-bench
        --capacity-per-node (each numaring ring's); the two in one point are refused."""
        e = parse_text(GOOD.replace("capacity = 64", "capacity-per-node = 64"))
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertIn(["--capacity-per-node", "64"], [p.args()[i:i + 2] for p in pts
                                                     for i in range(len(p.args()))])
        e = parse_text(GOOD.replace("capacity = 64", "capacity = 64\ncapacity-per-node = 64"))
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.points(e, "quick", 2, 1)
        self.assertIn("capacity (the whole queue's) and capacity-per-node", str(cm.exception))
        e = parse_text(GOOD.replace("capacity = 64", "capacity-per-node = 4"))
        with self.assertRaises(expfile.ExpError) as cm:
            expfile.points(e, "quick", 2, 1)
        self.assertIn("batch 8 is larger than capacity-per-node 4", str(cm.exception))

    def test_work_with_a_minimum(self):
        """work = MIN-MAX passes numaring-bench --work MIN-MAX; a pace goes on top
        of its maximum; a minimum above the maximum is refused with the line."""
        e = parse_text(GOOD.replace("capacity = 64", "capacity = 64\nwork = 0, 50-150\n"
                                    "pace = producer\npace-work = 10"))
        pts, _ = expfile.points(e, "quick", 2, 1)
        args = [p.args() for p in pts]
        pairs = [a[i:i + 2] for a in args for i in range(len(a))]
        self.assertIn(["--work", "50-150"], pairs)
        self.assertIn(["--producer-work", "160"], pairs)
        self.assertIn(["--producer-work", "10"], pairs)
        self.assertEqual(expfile.work_max("50-150"), 150)
        self.assertEqual(expfile.work_max(300), 300)
        for bad in ("150-50", "50-", "-5", "5-1e9"):
            with self.assertRaises(expfile.ExpError, msg=bad) as cm:
                parse_text(GOOD.replace("capacity = 64", f"capacity = 64\nwork = {bad}"))
            self.assertIn("work", str(cm.exception))

    def test_unreadable_file(self):
        with tempfile.NamedTemporaryFile(suffix=".exp", delete=False) as f:
            f.write(b"\xff\xfe\x00bad")
        try:
            with self.assertRaises(expfile.ExpError) as cm:
                expfile.parse(f.name)
            self.assertIn("cannot read", str(cm.exception))
        finally:
            os.unlink(f.name)

    def test_threads_relative_to_the_machine(self):
        ex = expfile.expand_threads
        self.assertEqual(ex([2, 4, "...", "all"], 2, 1), [2])
        self.assertEqual(ex([2, 4, "...", "all"], 32, 2), [2, 4, 8, 16, 32])
        self.assertEqual(ex([2, "...", "all"], 12, 2), [2, 4, 8, 12])
        self.assertEqual(ex(["per-node", "all"], 32, 2), [16, 32])
        self.assertEqual(ex(["half"], 6, 1), [3])
        self.assertEqual(ex([2, 4, 8], 2, 1), [2, 4, 8])  # explicit: oversubscribed on purpose
        self.assertEqual(ex([2, 4, 8, "per-node", "all"], 2, 1), [2, 4, 8])
        self.assertEqual(ex([2, 4, 8, "per-node", "all"], 32, 2), [2, 4, 8, 16, 32])
        self.assertEqual(ex([8, 2, 4], 2, 1), [2, 4, 8])  # sorted

    def test_thread_counts_count_cores_unless_smt_siblings(self):
        """On 2 nodes x 16 cores x 2 hyperthreads (64 CPUs) `all` is 32, one
        thread per core; with smt = siblings it is 64, and the points say --smt."""
        e = parse_text(GOOD.replace("threads = 2", "threads = 2, 4, ..., all")
                       .replace("lookup = cached, none", "lookup = cached"))
        pts, _ = expfile.points(e, "quick", 64, 2, 32)
        self.assertEqual([int(p.opts["producers"]) + int(p.opts["consumers"]) for p in pts],
                         [2, 4, 8, 16, 32])
        self.assertNotIn("smt", pts[0].opts)
        pts, _ = expfile.points(e, "quick", 64, 2)  # no SMT said: cores = CPUs
        self.assertEqual(max(int(p.opts["producers"]) * 2 for p in pts), 64)
        e = parse_text(GOOD.replace("threads = 2", "threads = per-node, all")
                       .replace("lookup = cached, none", "smt = cores, siblings"))
        pts, _ = expfile.points(e, "quick", 64, 2, 32)
        got = {(p.opts["smt"], int(p.opts["producers"]) + int(p.opts["consumers"])) for p in pts}
        self.assertEqual(got, {("cores", 16), ("cores", 32), ("siblings", 32), ("siblings", 64)})
        self.assertIn(["--smt", "siblings"], [p.args()[i:i + 2] for p in pts
                                              for i in range(len(p.args()))])
        self.assertEqual(sorted(p.id for p in pts),
                         ["threads=16_smt=cores", "threads=32_smt=cores",
                          "threads=32_smt=siblings", "threads=64_smt=siblings"])
        # the drift reference's threads count by its point's policy
        e = parse_text(GOOD.replace("threads = 2", "threads = 2, all")
                       .replace("lookup = cached, none", "smt = siblings")
                       .replace("finding = F2\n", "finding = F2\nreference = threads=all\n"))
        pts, _ = expfile.points(e, "quick", 64, 2, 32)
        self.assertEqual(expfile.reference_point(e, pts, 64, 2, 32).opts["producers"], "32")
        with self.assertRaises(expfile.ExpError) as cm:
            parse_text(GOOD.replace("lookup = cached, none", "smt = hyper"))
        self.assertIn("smt: unknown value 'hyper' (one of: cores, siblings)", str(cm.exception))

    def test_committed_experiments_check_on_small_and_large_machines(self):
        files = sorted(glob.glob(os.path.join(ROOT, "experiments", "*.exp")))
        names = {os.path.basename(f)[:-4] for f in files}
        self.assertTrue({"f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff",
                         "f5-ceiling", "peers"} <= names)
        for f in files:
            e = expfile.parse(f)
            for prof in expfile.PROFILES:
                for ncpus, nodes in ((2, 1), (32, 2), (64, 4)):
                    pts, reps = expfile.points(e, prof, ncpus, nodes)
                    self.assertGreater(len(pts), 0)
                    # smoke (make vm-experiments): two, the fewest a paired ratio takes
                    self.assertGreaterEqual(reps, 2 if prof == "smoke" else 3)
        e = expfile.parse(os.path.join(ROOT, "experiments", "f2-node-cache.exp"))
        pts, _ = expfile.points(e, "full", 32, 2)
        self.assertIn("32", {str(int(p.opts["producers"]) + int(p.opts["consumers"])) for p in pts})

        def counts(name, prof, ncpus, nodes, cores=None):
            e = expfile.parse(os.path.join(ROOT, "experiments", name + ".exp"))
            pts, _ = expfile.points(e, prof, ncpus, nodes, cores)
            return sorted({expfile.point_threads(p.opts) for p in pts})
        # F3 and F4's quick profile: one thread per core (F3 on two emulated
        # nodes; none oversubscribed), up to every core on a 2 x 16-core host
        self.assertEqual(counts("f3-gate", "quick", 2, 2), [2])
        self.assertEqual(counts("f4-backoff", "quick", 2, 1), [2])
        for name in ("f2-node-cache", "f3-gate", "f4-backoff", "f5-ceiling", "peers"):
            for prof in expfile.PROFILES:
                if (name, prof) == ("peers", "smoke"):
                    continue  # 2 threads: a peer at 16 threads costs seconds a run under TCG
                self.assertEqual(counts(name, prof, 64, 2, 32)[-1], 32, (name, prof))


def run(args, packed=False, **kw):
    """The runner; a sweep ("run") keeps its runs loose for the checks to look
    at (--loose) unless ``packed`` (what make experiments does: PackedSweep)."""
    if args[:1] == ["run"] and not packed:
        args = ["run", "--loose"] + args[1:]
    return subprocess.run(RUNNER + args, capture_output=True, text=True, cwd=ROOT, **kw)


def tidy_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_order(path):
    """An order.txt: {"seed", "reference", "runs": [(run folder, rep)]}."""
    out = {"runs": []}
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.split()
            if parts[0] == "seed":
                out["seed"] = int(parts[1])
            elif parts[0] == "reference":
                out["reference"] = parts[1]
            else:
                out["runs"].append((parts[1], int(parts[2])))
    return out


def tree_hash(top):
    """sha256 over every path, kind, mode and file content under top."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(root, name)
            st = os.lstat(path)
            h.update(f"{os.path.relpath(path, top)}\0{st.st_mode:o}\0".encode())
            if name in files and not os.path.islink(path):
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def tidy_rows_plain(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def hostid_key():
    from scripts.runner import hostid
    return hostid.host_key()


def identity_of(text):
    return hashlib.sha256(f"numaring-machine:{text}".encode()).hexdigest()[:16]


INTEL_F6M106 = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 106
model name\t: Intel(R) Xeon(R) Processor @ 2.60GHz

processor\t: 1
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 106
"""
INTEL_F6M207 = INTEL_F6M106.replace("model\t\t: 106", "model\t\t: 207")
AMD_F26M2 = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
             "model name\t: AMD EPYC\n")
ARM = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n"


class MachineIdentityTest(unittest.TestCase):
    """How the runner names the machine and its folder (scripts/runner/hostid.py)."""

    def setUp(self):
        from scripts.runner import hostid
        self.h = hostid
        self.saved = (hostid.MACHINE_ID_FILES, hostid.BOOT_ID_FILE,
                      os.environ.get("NUMARING_MACHINE_ID"), os.environ.get("NUMARING_CPUINFO"))
        os.environ.pop("NUMARING_MACHINE_ID", None)
        self.tmp = tempfile.mkdtemp(prefix="nr-id-test-")

    def tearDown(self):
        self.h.MACHINE_ID_FILES, self.h.BOOT_ID_FILE, old, cpu = self.saved
        for k, v in (("NUMARING_MACHINE_ID", old), ("NUMARING_CPUINFO", cpu)):
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.tmp, ignore_errors=True)

    def file(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_hash_of_machine_id_then_dbus_then_fallback(self):
        raw = "0123456789abcdef0123456789abcdef"
        missing = os.path.join(self.tmp, "missing")
        self.h.MACHINE_ID_FILES = (self.file("etc", raw + "\n"), self.file("dbus", "other\n"))
        ident, how = self.h.machine_identity()
        self.assertEqual(ident, identity_of(raw))
        self.assertNotIn(raw, how)
        self.assertNotIn("FALLBACK", how)
        self.h.MACHINE_ID_FILES = (missing, self.file("dbus", raw + "\n"))
        self.assertEqual(self.h.machine_identity()[0], identity_of(raw))
        self.h.MACHINE_ID_FILES = (missing, self.file("empty", ""))
        self.h.BOOT_ID_FILE = self.file("boot", "boot-1\n")
        ident1, how = self.h.machine_identity()
        self.assertRegex(ident1, r"^[0-9a-f]{16}$")
        self.assertTrue(how.startswith("# FALLBACK"), how)
        self.h.BOOT_ID_FILE = self.file("boot", "boot-2\n")
        self.assertNotEqual(self.h.machine_identity()[0], ident1)  # another boot

    def test_override_is_hashed_too(self):
        os.environ["NUMARING_MACHINE_ID"] = "test-A_1"
        ident, how = self.h.machine_identity()
        self.assertEqual(ident, identity_of("test-A_1"))
        self.assertIn("NUMARING_MACHINE_ID", how)

    def test_two_cpu_models_give_two_keys(self):
        """Under KVM both Xeons are "Intel(R) Xeon(R) Processor": the family and
        model numbers tell them apart."""
        keys = {}
        for name, text in (("m106", INTEL_F6M106), ("m207", INTEL_F6M207), ("amd", AMD_F26M2),
                           ("arm", ARM)):
            os.environ["NUMARING_CPUINFO"] = self.file(name, text)
            keys[name] = self.h.host_key(name="vm", nodes=1)
        self.assertEqual(keys, {"m106": "vm-intel-f6m106-1node", "m207": "vm-intel-f6m207-1node",
                                "amd": "vm-amd-f26m2-1node", "arm": "vm-arm41-f8m3340-1node"})
        os.environ["NUMARING_CPUINFO"] = self.file("m106", INTEL_F6M106)
        self.assertEqual(self.h.host_key(name="vm", nodes=1, emulated=(2, "0;1")),
                         "vm-intel-f6m106-1node-emulated-2node-0_1")
        fp106 = self.h.fingerprint("x")
        os.environ["NUMARING_CPUINFO"] = self.file("m207", INTEL_F6M207)
        self.assertNotEqual(self.h.fingerprint("x"), fp106)  # same machine-id, other CPU

    def test_claim_rules(self):
        """Free and own folders are used; a folder with files and no marker of
        this fingerprint (committed, copied, another machine's) is not, and
        the real folder and its emulated siblings share one suffix."""
        res = os.path.join(self.tmp, "results")
        fp, other = {"machine": "a"}, {"machine": "b"}
        keys = ["h-1node", "h-1node-emulated-2node-0_1"]
        dirs, skipped = self.h.claim(res, keys, fp)
        self.assertEqual(dirs, {k: os.path.join(res, k) for k in keys})
        self.assertEqual(skipped, [])
        self.assertEqual(self.h.owner(dirs[keys[0]], fp), "ours")
        self.assertEqual(self.h.owner(dirs[keys[0]], other), "other")
        self.assertEqual(self.h.claim(res, keys, fp)[0], dirs)  # resumed
        # committed results: files, no marker
        os.remove(os.path.join(dirs[keys[1]], self.h.MARKER))
        with open(os.path.join(dirs[keys[1]], "f3-gate.csv"), "w") as f:
            f.write("x\n")
        dirs2, skipped = self.h.claim(res, keys, fp)
        self.assertEqual(dirs2, {keys[0]: os.path.join(res, "h-1node-r2"),
                                 keys[1]: os.path.join(res, "h-1node-r2-emulated-2node-0_1")})
        self.assertEqual(skipped, [dirs[keys[1]]])
        # the sibling counts even when only the real key is asked for
        self.assertEqual(self.h.claim(res, keys[:1], fp, write=False)[0][keys[0]],
                         os.path.join(res, "h-1node-r2"))
        # another fingerprint: neither folder is its own
        self.assertEqual(self.h.claim(res, keys[:1], other, write=False)[0][keys[0]],
                         os.path.join(res, "h-1node-r3"))
        # an empty folder is free
        os.makedirs(os.path.join(res, "e-1node", "sub"))
        self.assertEqual(self.h.owner(os.path.join(res, "e-1node"), fp), "free")

    def test_capture_env_stores_the_hash_and_how(self):
        raw = "fedcba9876543210fedcba9876543210"
        self.h.MACHINE_ID_FILES = (self.file("etc", raw + "\n"),)
        ident = self.h.machine_identity()
        envdir = os.path.join(self.tmp, "results", "host", "env")
        from scripts.runner import experiments
        with open(os.devnull, "w") as null:
            saved, sys.stdout = sys.stdout, null
            try:
                experiments.capture_env(envdir, "/nonexistent", None, "{}", False, ident)
            finally:
                sys.stdout = saved
        with open(os.path.join(envdir, "machine-id.txt")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], identity_of(raw))
        self.assertEqual(len(lines), 2)
        self.assertTrue(lines[1].startswith("# first 16 hex digits of sha256"), lines)
        for path in glob.glob(os.path.join(envdir, "*")):
            with open(path, errors="replace") as f:
                self.assertNotIn(raw, f.read(), path)


@unittest.skipUnless(os.access(BENCH, os.X_OK), "numaring-bench not built")
class OrderAndFlagsTest(unittest.TestCase):
    """The runner's randomized order (schedule) and the oversubscribed flag, in process."""

    def points(self, n=4):
        e = parse_text(GOOD.replace("lookup = cached, none",
                                    "lookup = " + ", ".join(expfile.LOOKUPS[:n])))
        return expfile.points(e, "quick", 2, 1)[0]

    def test_schedule_is_blocked_randomized_and_reproducible(self):
        pts = self.points(5)
        a = experiments.schedule(pts, 4, seed=11)
        self.assertEqual(a, experiments.schedule(pts, 4, seed=11))   # the seed repeats it
        self.assertNotEqual([r[2] for r in a], [r[2] for r in experiments.schedule(pts, 4, 12)])
        # round k holds rep k of every point once
        for k in range(1, 5):
            self.assertEqual(sorted(r[2] for r in a if r[1] == k), sorted(p.id for p in pts))
            self.assertEqual([r[1] for r in a[(k - 1) * 5:k * 5]], [k] * 5)
        orders = {tuple(r[2] for r in a if r[1] == k) for k in range(1, 5)}
        self.assertGreater(len(orders), 1, "every round in the same order: not shuffled")
        # the reference: first, after half the runs, last
        b = experiments.schedule(pts, 4, seed=11, ref=pts[2])
        self.assertEqual(len(b), 23)
        self.assertEqual([i for i, r in enumerate(b) if r[2].startswith("reference-")],
                         [0, 11, 22])
        self.assertEqual([r[2] for r in b if r[2].startswith("reference-")],
                         list(nrdata.REFERENCE_POINTS))
        self.assertTrue(all(r[0] is pts[2] and r[1] == 1 for r in b
                            if r[2].startswith("reference-")))
        self.assertEqual([r for r in b if not r[2].startswith("reference-")], a)

    def test_oversubscribed_from_meta(self):
        def threads(*cpus):
            return [{"role": "producer", "index": i, "cpu": c, "pinned": c >= 0}
                    for i, c in enumerate(cpus)]
        over = experiments.oversubscribed
        self.assertEqual(over({"threads": threads(0, 1)}), 0)
        self.assertEqual(over({"threads": threads(0, 0, 1, 1)}), 1)        # two on one CPU
        self.assertEqual(over({"threads": threads(-1, -1), "allowed_cpus": "0-1"}), 0)
        self.assertEqual(over({"threads": threads(-1, -1, -1), "allowed_cpus": "0-1"}), 1)
        self.assertEqual(over({"threads": threads(-1, -1, -1),
                               "nodes": [{"ncpus": 2}, {"ncpus": 2}]}), 0)
        self.assertEqual(over({"threads": threads(-1, -1, -1), "cpus_online": 2}), 1)
        self.assertEqual(over({"threads": threads(0, -1, -1), "allowed_cpus": "0-2,5"}), 0)
        self.assertIsNone(over({"threads": threads(-1, -1)}))              # CPUs unknown
        self.assertIsNone(over({}))
        self.assertIsNone(over(None))
        self.assertIsNone(over({"threads": [{"cpu": "x"}]}))
        # two hyperthreads of one core (design 6b): flagged like a shared CPU
        def placed(*pairs):
            return [{"role": "producer", "index": i, "cpu": c, "core": k, "node": 0,
                     "pinned": True} for i, (c, k) in enumerate(pairs)]
        self.assertEqual(over({"threads": placed((0, 0), (32, 0))}), 1)
        self.assertEqual(over({"threads": placed((0, 0), (1, 1))}), 0)
        self.assertEqual(over({"threads": placed((0, 0), (1, None))}), 0)  # core unknown

    def test_emulated_halves_keep_a_core_on_one_node(self):
        """On one SMT node, the emulated halves split the cores, not the CPUs
        (CPU c and c + 4 are one core's hyperthreads here)."""
        cores = [[0, 4], [1, 5], [2, 6], [3, 7]]
        orig = sizing.core_groups
        sizing.core_groups = lambda cpus: cores
        try:
            self.assertEqual(experiments.emulated_halves(), "0,4,1,5;2,6,3,7")
        finally:
            sizing.core_groups = orig
        # this machine: every allowed CPU once, in one group or another
        got = experiments.core_groups(os.sched_getaffinity(0))
        self.assertEqual(sorted(c for g in got for c in g), sorted(os.sched_getaffinity(0)))


class SizingTest(unittest.TestCase):
    """experiments.py list: points, repetitions and estimated time here or for
    another host (--cpus/--cores, --nodes, --smt)."""

    def list_rows(self, out):
        rows = {}
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 6 and f[1] in expfile.PROFILES and f[0] != "total":
                rows[(f[0], f[1])] = {"points": int(f[2]), "reps": int(f[3]),
                                      "ref": int(f[4]), "runs": int(f[5]), "time": f[6],
                                      "at_most": f[7], "threads": f[8] if len(f) > 8 else ""}
        return rows

    def test_the_readme_states_the_estimate_as_generated(self):
        r = run(["readme", "README.md", "--check"])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(ROOT, "README.md")) as f:
            first = f.read().split("## ")[0]
        self.assertIn("How long `make experiments` takes", first)
        self.assertIn("two-socket host", first)

    def test_at_most_is_the_budget_of_the_stopping_rule(self):
        """At most: the stopping rule's rounds go to the points a claim reads
        (an experiment no claim reads adds only its re-runs), and the whole
        stays within AT_MOST_EXTRA of the estimate (issue 43: 4 h, 6 h)."""
        r = run(["list", "--profile", "quick"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.list_rows(r.stdout)
        self.assertIn("side benchmarks", r.stdout)

        def secs(text):
            return sum(int(v) * 60 ** i for i, v in enumerate(reversed(text.split(":"))))
        for (name, _p), row in rows.items():
            with self.subTest(experiment=name):
                t, m = secs(row["time"]), secs(row["at_most"])
                self.assertGreaterEqual(m, t)
                claimed = name not in ("f4-spin", "placement")   # figure-only here
                if claimed:
                    self.assertGreater(m, 1.25 * t + 1)
                else:   # the re-runs alone
                    self.assertLessEqual(m, 1.25 * t + 1)
        total = re.search(r"(?m)^total +quick +\d+ +([0-9:]+) +([0-9:]+)$", r.stdout)
        est, most = secs(total.group(1)), secs(total.group(2))
        self.assertLessEqual(most, (1 + sizing.AT_MOST_EXTRA) * est + 1)
        self.assertGreater(most, est)

    def test_a_two_socket_host(self):
        r = run(["list", "--cores", "32", "--nodes", "2", "--smt", "2", "--profile", "full"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 node x 16 core x 2 hardware thread host (64 CPUs, 32 cores)", r.stdout)
        rows = self.list_rows(r.stdout)
        names = {os.path.basename(f)[:-4] for f in glob.glob(os.path.join(ROOT, "experiments",
                                                                           "*.exp"))}
        self.assertEqual({n for n, _ in rows}, names)
        total = 0.0
        exps = {e.name: e for e in (expfile.parse(f) for f in
                                    glob.glob(os.path.join(ROOT, "experiments", "*.exp")))}
        for (name, prof), row in rows.items():
            self.assertEqual(prof, "full")
            pts, reps = expfile.points(exps[name], "full", 64, 2, 32)
            ref = expfile.reference_point(exps[name], pts, 64, 2, 32)
            self.assertEqual((row["points"], row["reps"]), (len(pts), reps))
            self.assertEqual(row["runs"], len(pts) * reps + row["ref"])
            # the points' runs with one capacity probe a group and round (load
            # points: test_experiments_capacity), the drift reference's own
            want = (experiments.points_seconds(pts, reps)
                    + row["ref"] * (experiments.run_seconds(ref.opts) if ref else 0))
            self.assertEqual(row["time"], experiments.fmt_time(want))
            total += want
            # f1, f4-spin: 1P1C / 2 threads; placement: up to a node's cores
            # (both sides on one node at nodes:0/0)
            if name not in ("f1-lookup-cost", "f4-spin", "placement"):
                self.assertTrue(row["threads"].endswith(",32"), (name, row["threads"]))
        total += side.seconds("full") + sizing.fixed_seconds(1)
        self.assertRegex(r.stdout, r"(?m)^total +full +%d +%s +[0-9:]+$" % (
            sum(x["runs"] for x in rows.values()), re.escape(experiments.fmt_time(total))))
        self.assertIn("overhead", r.stdout)
        # --cpus counts hardware threads: the same host
        r2 = run(["list", "--cpus", "64", "--nodes", "2", "--smt", "2", "--profile", "full"])
        self.assertEqual(r2.stdout, r.stdout)

    def test_this_host_by_default(self):
        r = run(["list"])
        self.assertEqual(r.returncode, 0, r.stderr)
        ncpus, cores, nodes = experiments.host_shape()
        self.assertIn(f"this host: {ncpus} CPUs on {cores} cores", r.stdout)
        rows = self.list_rows(r.stdout)
        self.assertEqual({p for _, p in rows}, set(expfile.PROFILES))
        if ncpus == 2 and nodes == 1:  # the development machine: today's points
            self.assertEqual(rows[("f4-backoff", "quick")]["threads"], "2")
            self.assertRegex(r.stdout, r"(?m)^f3-gate +quick .* 2 \(2 emulated nodes\)$")

    def test_run_seconds_counts_what_a_run_does(self):
        o = experiments.RUN_OVERHEAD_S
        self.assertAlmostEqual(experiments.run_seconds({"duration": "3", "warmup": "1"}),
                               4 + 0.1 + experiments.CALIBRATE_WARMUP_S + o)
        self.assertAlmostEqual(experiments.run_seconds({"queue": "faa", "duration": "1",
                                                        "warmup": "0"}), 1 + o)
        self.assertAlmostEqual(experiments.run_seconds({"duration": "1", "warmup": "0",
                                                        "calibrate": "0", "load": "0.5"}),
                               1 + 0.3 + experiments.LOAD_PROBE_WARMUP_S + o)
        # a load point given the capacity of its group's probe: no capacity run
        self.assertAlmostEqual(experiments.run_seconds({"duration": "1", "warmup": "0",
                                                        "calibrate": "0", "load": "0.5"},
                                                       probe=False), 1 + o)
        self.assertAlmostEqual(experiments.run_seconds({}), 2.5 + 0.12 + o)

    def test_bench_defaults_are_the_harness_defaults(self):
        """The estimate's defaults are numaring-bench's (--help says them)."""
        if not os.access(BENCH, os.X_OK):
            self.skipTest("numaring-bench not built")
        h = subprocess.run([BENCH, "--help"], capture_output=True, text=True).stdout
        for opt, key in (("--duration SEC", "duration"), ("--warmup SEC", "warmup"),
                         ("--calibrate SEC", "calibrate")):
            m = re.search(re.escape(opt) + r".*?\(default ([0-9.]+)\)", h, re.S)
            self.assertIsNotNone(m, opt)
            self.assertEqual(float(m.group(1)), experiments.BENCH_DEFAULTS[key], opt)
        m = re.search(r"--load-probe SEC\) \(default ([0-9.]+)\)|--load-probe SEC \(default "
                      r"([0-9.]+)\)", h)
        self.assertIsNotNone(m)
        self.assertEqual(float(m.group(1) or m.group(2)), experiments.BENCH_DEFAULTS["load-probe"])

    def test_bad_values_exit_2_with_one_message(self):
        cases = [
            (["--cpus", "0"], "list --cpus 0: expected a whole number from 1"),
            (["--cores", "-4"], "expected a whole number from 1"),
            (["--cpus", "lots"], "list --cpus lots: expected a whole number from 1"),
            (["--cpus", "32", "--smt", "3"], "list --smt 3: hardware threads per core are 1, 2, 4 or 8"),
            (["--cpus", "33", "--smt", "2"], "the CPUs are not a whole number of cores"),
            (["--cpus", "64", "--cores", "16", "--smt", "2"], "16 cores of 2 hardware threads are 32 CPUs"),
            (["--cores", "32", "--nodes", "3"], "32 cores do not split evenly over 3 nodes"),
            (["--cores", "2", "--nodes", "4"], "do not split evenly over 4 nodes"),
            (["--nodes", "0", "--cores", "8"], "list --nodes 0: expected a whole number from 1"),
            (["--nodes", "65", "--cores", "65"], "at most 64 nodes"),
            (["--nodes", "2"], "with --cpus N (hardware threads) or --cores N"),
            (["--cpus", "2048"], "at most 1024"),
            (["--profile", "slow"], "argument --profile: invalid choice: 'slow'"),
        ]
        for extra, want in cases:
            with self.subTest(extra=extra):
                r = run(["list"] + extra)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn(want, r.stderr)
                self.assertEqual(r.stdout, "")
                self.assertNotIn("Traceback", r.stderr)
                lines = r.stderr.strip().splitlines()
                if extra[0] == "--profile":  # argparse's: its usage, then one error line
                    self.assertTrue(lines[0].startswith("usage: "), r.stderr)
                    self.assertEqual([x for x in lines if ": error: " in x], lines[-1:])
                else:
                    self.assertEqual(len(lines), 1, r.stderr)


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-exp-test-")
        self.results = os.path.join(self.tmp, "results")
        self.expdir = os.path.join(self.tmp, "exp")
        os.makedirs(self.expdir)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write_exp(self, text, name="tiny", reference=False):
        """The experiment file; without ``reference`` it runs no drift reference
        (reference = none), so that the counts of these tests are its points'."""
        if not reference and "reference =" not in text:
            text = text.replace("finding = F2\n", "finding = F2\nreference = none\n", 1)
        with open(os.path.join(self.expdir, name + ".exp"), "w") as f:
            f.write(text)

    def base(self):
        # no placement re-runs: this VM's vCPUs move, and the counts below are the plan's
        return ["run", "--loose", "--results", self.results, "--bench", BENCH,
                "--exp-dir", self.expdir, "--placement-reruns", "0", "--profile", "quick"]

    def test_a_finished_sweep_packs_its_runs_and_reads_them_in_place(self):
        """make experiments' default: each experiment's runs go into one
        deterministic <profile>.tar.xz when the sweep ends; the analysis reads
        them in place, and a second sweep unpacks, keeps every run and packs
        the same bytes again (issue 47 item 1)."""
        self.write_exp(GOOD)
        args = [x for x in self.base() if x != "--loose"]
        r = run(args, packed=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        (archive,) = glob.glob(os.path.join(self.results, "*", "tiny", "quick.tar.xz"))
        self.assertIn("4 runs (4 run now", r.stdout)
        self.assertRegex(r.stdout, r"tiny/quick\.tar\.xz: \d+ files packed")
        self.assertFalse(os.path.exists(archive[:-len(".tar.xz")]))
        hostdir = os.path.dirname(os.path.dirname(archive))
        rows = nrdata.load_tidy(os.path.join(hostdir, "tiny.csv"), experiment="tiny",
                                role=None)
        self.assertEqual(len(rows), 4)
        res, host = os.path.split(hostdir)
        for row in rows:
            d = nrdata.run_dir(res, host, row)
            self.assertTrue(runfiles.exists(os.path.join(d, "latency.csv")), d)
            self.assertTrue(nrdata.load_latency(nrdata.latency_path(res, host, row)))
            summary = list(csv.DictReader(runfiles.open_text(os.path.join(d, "summary.csv"))))
            self.assertEqual(summary[0]["throughput_ops_per_s"], row["throughput_ops_per_s"])
            self.assertIsInstance(json.loads(runfiles.read_text(os.path.join(d, "meta.json"))),
                                  dict)
        # the estimate it printed, recorded beside the wall time make's last step adds
        rec = experiments.read_time_record(os.path.join(hostdir, experiments.TIME_TXT))
        self.assertEqual(rec["profile"], "quick")
        self.assertGreater(float(rec["at_most_s"]), float(rec["estimate_s"]))
        r = run(["record-time", "--results", self.results, "--bench", BENCH,
                 "--started", "1000", "--ended", "1090"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rec = experiments.read_time_record(os.path.join(hostdir, experiments.TIME_TXT))
        self.assertEqual((rec["wall_s"], rec["started"], rec["ended"]),
                         ("90", "1970-01-01T00:16:40Z", "1970-01-01T00:18:10Z"))
        r = run(["record-time", "--results", self.results, "--started", "1090", "--ended", "1000"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("before the start", r.stderr)
        with open(archive, "rb") as f:
            first = f.read()
        r = run(args, packed=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("4 runs (0 run now, 4 kept, 0 failed)", r.stdout)
        with open(archive, "rb") as f:
            self.assertEqual(f.read(), first, "re-packing the same runs changed the archive")
        self.assertEqual(nrdata.load_tidy(os.path.join(hostdir, "tiny.csv"), experiment="tiny",
                                          role=None), rows)

    @slow
    def test_smoke_of_every_committed_experiment_then_plots(self):
        r = run(["run", "--smoke", "--results", self.results, "--bench", BENCH])
        self.assertEqual(r.returncode, 0, r.stderr)
        hosts = sorted(os.listdir(self.results))
        self.assertTrue(hosts)
        found = set()
        for h in hosts:
            hd = os.path.join(self.results, h)
            for f in ("README.md", "env/show-topology.json", "env/lscpu.txt", "probe/probe.csv"):
                self.assertTrue(os.path.exists(os.path.join(hd, f)), f"{h}/{f}")
            for csvf in glob.glob(os.path.join(hd, "*.csv")):
                if os.path.basename(csvf) in ("bench-ring.csv", "claims.csv"):
                    continue  # the ring's micro-benchmark and the report, not sweeps
                rows = tidy_rows(csvf)
                self.assertEqual(len(rows), 1, csvf)
                self.assertEqual(list(rows[0])[:len(nrdata.RUNNER_COLUMNS) + 1],
                                 nrdata.RUNNER_COLUMNS + ["queue"])
                self.assertEqual(rows[0]["role"], "point")
                self.assertIn(rows[0]["oversubscribed"], ("0", "1"))
                self.assertIn(rows[0]["verify"], ("ok", "n/a"))
                found.add(rows[0]["experiment"])
        # every committed experiment file ran its smoke profile
        self.assertEqual(found, set(expfile.experiment_names()))
        self.assertGreaterEqual(len(found), 8)
        # the smoke profile too ends with the reproduction report of the real folder
        (real,) = [h for h in hosts if "-emulated-" not in h]
        report = tidy_rows_plain(os.path.join(self.results, real, "claims.csv"))
        self.assertEqual(len(report), len(claims.CLAIMS))
        self.assertIn("experiments: reproduction report", r.stdout)
        if os.path.exists(os.path.join(SCRIPTS, "figures", "plot.py")):
            plots = os.path.join(self.tmp, "plots")
            p = subprocess.run(module("figures.plot", PY) + ["--results", self.results,
                                "--plots", plots], capture_output=True, text=True, cwd=ROOT)
            self.assertEqual(p.returncode, 0, p.stderr)
            pngs = glob.glob(os.path.join(plots, "*", "*.png"))
            pdfs = glob.glob(os.path.join(plots, "*", "*.pdf"))
            self.assertGreaterEqual(len(pngs), 6)
            self.assertEqual(len(pngs), len(pdfs))

    def test_bad_experiment_file_runs_nothing(self):
        self.write_exp(GOOD.replace("capacity = 64", "capacity = 63"))
        r = run(self.base())
        self.assertEqual(r.returncode, 2)
        # line 12: write_exp adds "reference = none" after finding
        self.assertIn("tiny.exp:12: capacity: 63 is not a power of two", r.stderr)
        self.assertFalse(os.path.exists(self.results))

    def test_bad_command_line_exits_2_with_one_message(self):
        self.write_exp(GOOD)
        cases = [
            (["--reps", "0"], "experiments: --reps must be between 1 and 1000"),
            (["--reps", "many"], "argument --reps: invalid int value: 'many'"),
            (["--budget", "0"], "experiments: --budget must be between 1 and 10"),
            (["--placement-reruns", "-1"],
             "experiments: --placement-reruns must be between 0 and 10"),
            (["--placement-trip-ns", "0"], "experiments: --placement-trip-ns must be above 0"),
            (["--point-timeout", "-1"], "experiments: --point-timeout must be above 0"),
            (["--point-timeout", "nan"], "experiments: --point-timeout must be above 0"),
            (["--profile", "huge"], "argument --profile: invalid choice: 'huge'"),
            (["--experiments", "nosuch"], "nosuch"),
            (["--topology", "0;;1"], "topology"),
            (["--bench", "/nonexistent/bench"], "is not built (run make bench)"),
            (["--colour"], "unrecognized arguments: --colour"),
        ]
        for extra, want in cases:
            with self.subTest(extra=extra):
                args = self.base()
                if extra[0] == "--bench":
                    args[args.index("--bench") + 1] = extra[1]
                    extra = []
                r = run(args + extra)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(want, r.stderr)
                self.assertNotIn("Traceback", r.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.results)), extra)
        r = run(self.base(), env=dict(os.environ, NUMARING_TOPOLOGY="0-x"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("NUMARING_TOPOLOGY", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    @slow
    def test_the_stopping_rule_adds_rounds_to_an_undecided_claim_up_to_its_budget(self):
        # an experiment named as F2's: at 2 planned rounds F2.cache-faster
        # cannot decide (fewer than 6 pairs), so the runner adds rounds up to
        # the first look, 6 (the budget of 4 x 2 planned: budget_rounds(2) = 6)
        text = GOOD.replace("name = tiny", "name = f2-node-cache").replace(
            "lookup = cached, none   # two points", "lookup = cached, libnuma")
        self.write_exp(text, name="f2-node-cache")
        r = run(self.base() + ["--budget", "1"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("stopping rule: undecided", r.stdout)
        (csvf,) = glob.glob(os.path.join(self.results, "*", "f2-node-cache.csv"))
        self.assertEqual({x["rep"] for x in tidy_rows(csvf)}, {"1", "2"})
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)
        # a file without blocks names no claim: each claim that reads the
        # experiment reads every point of it
        self.assertRegex(r.stdout, r"stopping rule: undecided F2\.cache-faster.* read 2 point\(s\) "
                         r"of [^ ]+/f2-node-cache \(-> 6 rounds\)")
        self.assertRegex(r.stdout,
                         r"stopping rule: [^ ]+/f2-node-cache: 2 of 2 points to 6 rounds \(budget 6\)")
        rows = tidy_rows(csvf)
        self.assertEqual({x["rep"] for x in rows}, {str(k) for k in range(1, 7)})
        self.assertEqual(len(rows), 12)
        order = read_order(os.path.join(os.path.dirname(csvf), "f2-node-cache", "quick",
                                        "order.txt"))
        # the planned rounds keep their places, the added ones follow
        self.assertEqual([k for _rid, k in order["runs"]], [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])

    @slow
    def test_a_run_whose_cpus_ended_far_apart_is_rerun_within_its_share(self):
        # a trip of 0.001 ns: every run that times its CPUs' trip is "far";
        # 8 runs (4 points x 2 rounds) allow int(0.25 x 8) = 2 re-runs in all,
        # at most 2 of one run
        self.write_exp(GOOD.replace("lookup = cached, none   # two points",
                                    "lookup = cached, none, table, syscall"))
        args = [x for x in self.base()]
        i = args.index("--placement-reruns")
        args[i + 1] = "2"
        r = run(args + ["--placement-trip-ns", "0.001"])
        self.assertEqual(r.returncode, 0, r.stderr)
        # the first run takes both (the cap), the share is then spent
        self.assertEqual(r.stdout.count("re-run 1 of at most 2"), 1, r.stdout)
        self.assertEqual(r.stdout.count("re-run 2 of at most 2"), 1, r.stdout)
        self.assertIn("2 re-run because their CPUs ended more than 2x", r.stdout)
        (csvf,) = glob.glob(os.path.join(self.results, "*", "tiny.csv"))
        rows = tidy_rows(csvf)
        self.assertEqual(sorted(x["placement_reruns"] for x in rows), ["0"] * 7 + ["2"])
        self.assertEqual({x["placement_far"] for x in rows}, {"1"})
        aside = glob.glob(os.path.join(os.path.dirname(csvf), "tiny", "quick", "*",
                                       "rep-*.far-*"))
        self.assertEqual(len(aside), 2)
        self.assertTrue(all(os.path.exists(os.path.join(d, "summary.csv")) for d in aside))

    @slow
    def test_kill_in_the_middle_then_resume(self):
        text = GOOD.replace("lookup = cached, none", "lookup = cached, none, table, rseq, syscall")
        text = text.replace("duration = 0.1", "duration = 0.25")
        self.write_exp(text)
        proc = subprocess.Popen(RUNNER + self.base(), stdout=subprocess.PIPE, cwd=ROOT,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            done = glob.glob(os.path.join(self.results, "*", "tiny", "quick", "*", "rep-*",
                                          "summary.csv"))
            if len(done) >= 3:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)  # like a power loss: runner and harness die
        proc.communicate()
        self.assertGreaterEqual(len(done), 3)
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("done before, kept", r.stdout)
        reps = sorted(glob.glob(os.path.join(self.results, "*", "tiny", "quick", "*", "rep-*")))
        self.assertEqual(len(reps), 10)  # 5 points x 2 reps, each once
        for d in reps:
            self.assertFalse(d.endswith(".tmp"), d)
            self.assertEqual(sorted(os.listdir(d)),
                             # numaring writes its latency by path too
                             ["latency-path.csv", "latency.csv", "latency.hgrm", "meta.json",
                              "summary.csv"])
        leftovers = [p for p in glob.glob(os.path.join(self.results, "**", ".*"), recursive=True)
                     if os.path.basename(p) != MARKER]
        self.assertEqual(leftovers, [])
        rows = tidy_rows(glob.glob(os.path.join(self.results, "*", "tiny.csv"))[0])
        self.assertEqual(len(rows), 10)
        self.assertEqual(len({(r["point"], r["rep"]) for r in rows}), 10)

    @slow
    def test_randomized_order_references_and_resume(self):
        """The runs go in the order order.txt records for the seed; the drift reference
        runs first, after half the runs and last; a run stopped half way resumes with
        the same seed, keeping every finished repetition; the tidy CSV holds the
        reference's runs as role reference, which nrdata leaves out of the points."""
        text = GOOD.replace("lookup = cached, none", "lookup = cached, none, table")
        self.write_exp(text, reference=True)
        counter = os.path.join(self.tmp, "count")
        # the fifth harness run finds the disk full (exit 3): the sweep stops there
        args = self.fake_bench(
            "case \"$*\" in *rep-*) "
            f"n=$(cat '{counter}' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '{counter}'; "
            "[ $n -eq 5 ] && { echo 'numaring-bench: cannot write: No space left on device' >&2;"
            " exit 3; };; esac")
        r = run(args + ["--seed", "1234"])
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("in randomized order, seed 1234", r.stdout)
        (odir,) = glob.glob(os.path.join(self.results, "*", "tiny", "quick"))
        order = read_order(os.path.join(odir, "order.txt"))
        self.assertEqual(order["seed"], 1234)
        self.assertEqual(order["reference"], "lookup=cached")
        want = [(rid, k) for _p, k, rid in experiments.schedule(
            expfile.points(expfile.parse(os.path.join(self.expdir, "tiny.exp")), "quick", 2,
                           1)[0], 2, 1234, ref=None)]
        self.assertEqual([x for x in order["runs"] if not x[0].startswith("reference-")], want)
        self.assertEqual(len(order["runs"]), 9)
        self.assertEqual([i for i, x in enumerate(order["runs"])
                          if x[0].startswith("reference-")], [0, 4, 8])
        # the progress lines follow order.txt, and the first four runs are the ones done
        done = {(os.path.basename(os.path.dirname(os.path.dirname(p))),
                 int(os.path.basename(os.path.dirname(p))[4:]))
                for p in glob.glob(os.path.join(odir, "*", "rep-*", "summary.csv"))}
        self.assertEqual(done, set(order["runs"][:4]))
        # resume without --seed: the same seed and order, finished runs kept
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("in randomized order, seed 1234", r.stdout)
        self.assertEqual(r.stdout.count("done before, kept"), 4)
        self.assertEqual(read_order(os.path.join(odir, "order.txt")), order)
        tags = [l.split("] ", 1)[1].split(":")[0] for l in r.stdout.splitlines()
                if l.startswith("[")]
        self.assertEqual(tags[0], "tiny reference-start (lookup=cached)")
        self.assertEqual(tags[-1], "tiny reference-end (lookup=cached)")
        csvf = glob.glob(os.path.join(self.results, "*", "tiny.csv"))[0]
        rows = tidy_rows(csvf)
        self.assertEqual(len(rows), 9)
        refs = [x for x in rows if x["role"] == "reference"]
        self.assertEqual(sorted(x["point"] for x in refs), sorted(nrdata.REFERENCE_POINTS))
        self.assertTrue(all(x["lookup"] == "cached" and x["rep"] == "1" for x in refs))
        self.assertTrue(all(x["oversubscribed"] == "0" for x in rows))  # 1P1C, pinned apart
        self.assertEqual(len(nrdata.load_tidy(csvf)), 6)
        self.assertEqual(len(nrdata.load_tidy(csvf, role="reference")), 3)
        self.assertEqual(len(nrdata.load_tidy(csvf, role=None)), 9)
        self.no_leftovers()

    @slow
    def test_oversubscribed_runs_are_flagged(self):
        """Four threads pinned compact on fewer CPUs share CPUs: oversubscribed 1."""
        if len(os.sched_getaffinity(0)) >= 4:
            self.skipTest("needs fewer than 4 CPUs to oversubscribe 4 threads")
        self.write_exp(GOOD.replace("threads = 2", "threads = 2, 4")
                       .replace("lookup = cached, none", "lookup = cached")
                       .replace("reps = 2", "reps = 1"))
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = tidy_rows(glob.glob(os.path.join(self.results, "*", "tiny.csv"))[0])
        flags = {int(x["producers"]) + int(x["consumers"]): x["oversubscribed"] for x in rows}
        self.assertEqual(flags, {2: "0", 4: "1"})

    @slow
    def test_threads_on_one_cores_hyperthreads_are_flagged(self):
        """A host whose two CPUs are one core's hyperthreads (as hwloc describes
        it: HWLOC_SYNTHETIC): smt = siblings puts P0 and C0 on them, and the
        tidy row says oversubscribed 1 with smt_shared 1; the runner sized
        `all` by CPUs for it."""
        if sorted(os.sched_getaffinity(0)) != [0, 1]:
            self.skipTest("needs exactly CPUs 0 and 1 (a synthetic core of two)")
        self.write_exp(GOOD.replace("threads = 2", "threads = all")
                       .replace("lookup = cached, none", "smt = siblings")
                       .replace("reps = 2", "reps = 1"))
        r = run(self.base(), env=dict(os.environ, HWLOC_SYNTHETIC="core:1 pu:2"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 CPUs on 1 core,", r.stdout)
        rows = tidy_rows(glob.glob(os.path.join(self.results, "*", "tiny.csv"))[0])
        self.assertEqual([(x["smt"], x["smt_shared"], x["threads_per_core"], x["oversubscribed"])
                          for x in rows], [("siblings", "1", "2", "1")])

    @slow
    def test_environment_and_host_load_are_recorded(self):
        """env/ holds versions.csv and cpu-state.json (scripts/runner/hostenv.py); each
        run's meta.json gains host_load (load average and steal time before and
        after) with every key the harness wrote kept; the tidy CSV carries
        steal_pct and stolen right after oversubscribed. A folder captured by an
        older runner gets the two files on the next run."""
        self.write_exp(GOOD.replace("lookup = cached, none", "lookup = cached")
                       .replace("reps = 2", "reps = 1"))
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)
        (hd,) = glob.glob(os.path.join(self.results, "*"))
        env = os.path.join(hd, "env")
        with open(os.path.join(env, "versions.csv")) as f:
            versions = list(csv.DictReader(f))
        self.assertIn("gcc", [v["package"] for v in versions])
        self.assertIn("python3 (interpreter)", [v["package"] for v in versions])
        with open(os.path.join(env, "cpu-state.json")) as f:
            state = json.load(f)
        for key in ("microcode", "cpufreq", "kernel_cmdline", "transparent_hugepage",
                    "cpu_mhz"):
            self.assertIn(key, state)
        (rep,) = glob.glob(os.path.join(hd, "tiny", "quick", "*", "rep-1"))
        with open(os.path.join(rep, "meta.json")) as f:
            meta = json.load(f)
        keys = list(meta)
        # only the placement re-run's record (benchrun.rerun_far, written when the
        # probe measured a trip) may come after host_load
        self.assertIn(keys[keys.index("host_load") + 1:], ([], ["placement"]))
        if "placement" in meta:
            self.assertEqual(meta["placement"]["far_factor"], 2)
        for k in ("host", "command_line", "threads", "verify", "lost_items"):
            self.assertIn(k, keys)
        hl = meta["host_load"]
        self.assertEqual(len(hl["loadavg_before"]), 3)
        self.assertEqual(len(hl["loadavg_after"]), 3)
        self.assertGreater(hl["total_jiffies_after"], hl["total_jiffies_before"])
        self.assertGreaterEqual(hl["steal_jiffies_after"], hl["steal_jiffies_before"])
        self.assertTrue(0 <= hl["steal_pct"] <= 100)
        self.assertEqual(sorted(os.listdir(rep)),
                         # numaring writes its latency by path too
                         ["latency-path.csv", "latency.csv", "latency.hgrm", "meta.json",
                          "summary.csv"])
        (row,) = tidy_rows(os.path.join(hd, "tiny.csv"))
        cols = list(row)
        self.assertEqual(cols[cols.index("oversubscribed") + 1:cols.index("oversubscribed") + 3],
                         ["steal_pct", "stolen"])
        self.assertAlmostEqual(float(row["steal_pct"]), hl["steal_pct"], places=3)
        self.assertEqual(row["stolen"], "1" if hl["steal_pct"] > 3.0 else "0")
        self.assertEqual(nrdata.stolen(row), hl["steal_pct"] > 3.0)
        self.assertEqual(len(nrdata.load_tidy(os.path.join(hd, "tiny.csv"))), 1)
        # an older capture (no versions.csv, no cpu-state.json): added, the rest kept
        os.remove(os.path.join(env, "versions.csv"))
        os.remove(os.path.join(env, "cpu-state.json"))
        stamp = os.path.getmtime(os.path.join(env, "captured.txt"))
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(env, "versions.csv")))
        self.assertTrue(os.path.exists(os.path.join(env, "cpu-state.json")))
        self.assertEqual(os.path.getmtime(os.path.join(env, "captured.txt")), stamp)
        self.no_leftovers()

    @slow
    def test_sigint_stops_cleanly(self):
        self.write_exp(GOOD.replace("duration = 0.1", "duration = 0.5"))
        proc = subprocess.Popen(RUNNER + self.base(), stdout=subprocess.PIPE, cwd=ROOT,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("Run the same command again to continue", err)
        self.assertEqual(glob.glob(os.path.join(self.results, "**", "*.tmp"), recursive=True), [])

    @slow
    def test_failed_point_is_recorded_and_the_sweep_goes_on(self):
        self.write_exp(GOOD)
        fake = os.path.join(self.tmp, "flaky-bench")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\ncase \"$*\" in *'--lookup none'*) echo 'numaring-bench: boom' >&2; "
                    f"exit 1;; esac\nexec '{BENCH}' \"$@\"\n")
        os.chmod(fake, 0o755)
        args = self.base()
        args[args.index("--bench") + 1] = fake
        r = run(args)
        self.assertEqual(r.returncode, 1)
        self.assertIn("run(s) failed", r.stderr)
        self.assertIn("lookup=none rep 1: exit 1: numaring-bench: boom", r.stderr)
        failed = glob.glob(os.path.join(self.results, "*", "tiny", "quick", "lookup=none",
                                        "rep-*.failed.txt"))
        self.assertEqual(len(failed), 2)
        with open(failed[0]) as f:
            self.assertIn("boom", f.read())
        ok = glob.glob(os.path.join(self.results, "*", "tiny", "quick", "lookup=cached",
                                    "rep-*", "summary.csv"))
        self.assertEqual(len(ok), 2)
        # fixed bench: the rerun redoes only the failed runs and clears their records
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(glob.glob(os.path.join(self.results, "**", "*.failed.txt"),
                                   recursive=True), [])

    def fake_bench(self, body):
        """A wrapper of the harness: `body` (sh) runs first, then the harness."""
        fake = os.path.join(self.tmp, "fake-bench")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\n{body}\nexec '{BENCH}' \"$@\"\n")
        os.chmod(fake, 0o755)
        args = self.base()
        args[args.index("--bench") + 1] = fake
        return args

    def no_leftovers(self):
        left = [p for p in glob.glob(os.path.join(self.results, "**", "*"), recursive=True)
                if ".tmp" in os.path.basename(p)]
        left += [p for p in glob.glob(os.path.join(self.results, "**", ".*"), recursive=True)
                 if os.path.basename(p) != MARKER]  # the sweep's own marker is meant to stay
        self.assertEqual(left, [])

    @slow
    def test_hung_point_is_killed_at_the_point_timeout(self):
        self.write_exp(GOOD)
        # the harness hangs on one point (as a deadlocked queue would)
        args = self.fake_bench("case \"$*\" in *'--lookup none'*) exec sleep 600;; esac")
        t0 = time.monotonic()
        r = run(args + ["--point-timeout", "2"])
        self.assertLess(time.monotonic() - t0, 60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("lookup=none rep 1: exit None", r.stderr)
        failed = glob.glob(os.path.join(self.results, "*", "tiny", "quick", "lookup=none",
                                        "rep-*.failed.txt"))
        self.assertEqual(len(failed), 2)
        with open(failed[0]) as f:
            self.assertIn("killed after the per-point timeout of 2 s", f.read())
        ok = glob.glob(os.path.join(self.results, "*", "tiny", "quick", "lookup=cached",
                                    "rep-*", "summary.csv"))
        self.assertEqual(len(ok), 2)
        self.no_leftovers()
        # the hung harness was killed, not left behind
        ps = subprocess.run(["pgrep", "-f", "sleep 600"], capture_output=True, text=True)
        self.assertEqual(ps.stdout.strip(), "")

    def test_results_folder_that_cannot_be_created(self):
        self.write_exp(GOOD)
        blocker = os.path.join(self.tmp, "a-file")
        with open(blocker, "w") as f:
            f.write("not a folder\n")
        args = self.base()
        args[args.index("--results") + 1] = os.path.join(blocker, "results")
        r = run(args)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write the results", r.stderr)
        self.assertIn("Not a directory", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    @slow
    def test_disk_full_in_the_middle_keeps_finished_runs_and_resumes(self):
        text = GOOD.replace("lookup = cached, none", "lookup = cached, none, table")
        self.write_exp(text)
        # the first run of lookup=table finds the disk full: the harness's message
        # and its exit status 3; the runs before it (order.txt) are kept
        args = self.fake_bench(
            "case \"$*\" in *'--lookup table'*) "
            "echo 'numaring-bench: cannot write into somewhere: No space left on device' >&2; "
            "exit 3;; esac")
        r = run(args)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write the results", r.stderr)
        self.assertIn("No space left on device", r.stderr)
        self.assertIn("run the same command again", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        done = glob.glob(os.path.join(self.results, "*", "tiny", "quick", "*", "rep-*",
                                      "summary.csv"))
        order = read_order(glob.glob(os.path.join(self.results, "*", "tiny", "quick",
                                                  "order.txt"))[0])
        before = [i for i, (pid, _k) in enumerate(order["runs"]) if pid == "lookup=table"][0]
        self.assertEqual(len(done), before)
        self.assertEqual(glob.glob(os.path.join(self.results, "**", "*.failed.txt"),
                                   recursive=True), [])
        self.no_leftovers()
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("done before, kept"), before)
        rows = tidy_rows(glob.glob(os.path.join(self.results, "*", "tiny.csv"))[0])
        self.assertEqual(len(rows), 6)

    @slow
    def test_runner_own_writes_failing_leave_nothing_half_written(self):
        self.write_exp(GOOD)
        import resource

        def small_files():  # every file the runner writes is cut at 300 bytes
            resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))
        r = subprocess.run(RUNNER + self.base(), capture_output=True, text=True, cwd=ROOT,
                           preexec_fn=small_files)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write the results", r.stderr)
        self.assertIn("File too large", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.no_leftovers()
        r = run(self.base())
        self.assertEqual(r.returncode, 0, r.stderr)

    # ---- whose results a folder holds (issue 11) -------------------------

    @slow
    def test_a_point_above_the_ceiling_model_is_a_claim_not_a_failure(self):
        """A probe that makes every atomic take a second puts every point far
        above the model: the run keeps its results and exits 0, and the
        reproduction report says the model's claim does not hold, with the point."""
        self.write_exp(GOOD)
        env = dict(os.environ, NUMARING_MACHINE_ID="model-check")
        r = run(self.base(), env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        (host,) = [h for h in os.listdir(self.results) if "-emulated-" not in h]
        probe = os.path.join(self.results, host, "probe", "probe.csv")
        with open(probe, newline="") as f:
            rows = list(csv.DictReader(f))
            fields = list(rows[0].keys())
        for row in rows:
            if row["kind"] == "faa_uncontended_ns":
                row["value"] = "1000000000"
        with open(probe, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        r = run(self.base(), env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"does not hold on {host}: F5.model-bounds", r.stdout)
        self.assertIn("bound: ops", r.stdout)
        self.assertEqual(len(glob.glob(os.path.join(self.results, host, "tiny", "quick", "*",
                                                    "rep-*", "summary.csv"))), 4)
        claims_rows = tidy_rows_plain(os.path.join(self.results, host, "claims.csv"))
        f5 = [x for x in claims_rows if x["claim"] == "F5.model-bounds"][0]
        self.assertEqual(f5["status"], "does not hold")
        self.assertIn("above the model", f5["detail"])
        with open(os.path.join(self.results, host, "README.md")) as f:
            self.assertIn("## Reproduction report", f.read())

    def run_as(self, machine, extra=()):
        r = run(self.base() + list(extra), env=dict(os.environ, NUMARING_MACHINE_ID=machine))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def measured_afresh(self, r, folder, runs=4):
        self.assertNotIn("done before, kept", r.stdout)
        self.assertIn(f"{runs} runs ({runs} run now, 0 kept, 0 failed)", r.stdout)
        self.assertIn(f"runs into {os.path.relpath(os.path.join(self.results, folder))}",
                      r.stdout)
        done = glob.glob(os.path.join(self.results, folder, "tiny", "quick", "*", "rep-*",
                                      "summary.csv"))
        self.assertEqual(len(done), runs)
        self.assertEqual(len(tidy_rows(os.path.join(self.results, folder, "tiny.csv"))), runs)

    @slow
    def test_another_machines_folder_is_left_alone_and_a_new_one_measured(self):
        self.write_exp(GOOD)
        self.run_as("machine-A")
        (host,) = os.listdir(self.results)
        old = os.path.join(self.results, host)
        with open(os.path.join(old, "env", "machine-id.txt")) as f:
            self.assertEqual(f.readline().strip(), identity_of("machine-A"))
        before = tree_hash(old)
        # the same host key, another machine
        r = self.run_as("machine-B")
        self.assertIn(f"{os.path.relpath(old)}: results this working tree did not start", r.stdout)
        self.assertIn("left untouched", r.stdout)
        self.measured_afresh(r, f"{host}-r2")
        self.assertEqual(tree_hash(old), before)
        # even -r2 is another's: -r3
        bdir = os.path.join(self.results, f"{host}-r2")
        os.remove(os.path.join(bdir, ".sweep-owner.json"))
        before_b = tree_hash(bdir)
        r = self.run_as("machine-B")
        self.measured_afresh(r, f"{host}-r3")
        self.assertEqual((tree_hash(old), tree_hash(bdir)), (before, before_b))
        self.assertEqual(len(os.listdir(self.results)), 3)

    @slow
    def test_a_clone_with_the_same_machine_id_measures_afresh(self):
        """Committed results carry no marker (git ignores it): a clone on a
        machine whose machine-id is the committed one's (a cloned cloud image)
        neither resumes them nor writes into them, not even with --force."""
        self.write_exp(GOOD)
        self.run_as("machine-A")
        (host,) = os.listdir(self.results)
        old = os.path.join(self.results, host)
        self.assertTrue(os.path.exists(os.path.join(old, ".sweep-owner.json")))
        clone = os.path.join(self.tmp, "clone-results")
        shutil.copytree(self.results, clone)
        os.remove(os.path.join(clone, host, ".sweep-owner.json"))  # what git would give
        self.results = clone
        old = os.path.join(clone, host)
        with open(os.path.join(old, "env", "machine-id.txt")) as f:
            self.assertEqual(f.readline().strip(), identity_of("machine-A"))  # same id
        before = tree_hash(old)
        r = self.run_as("machine-A", ["--force"])
        self.assertIn(f"{os.path.relpath(old)}: results this working tree did not start", r.stdout)
        self.measured_afresh(r, f"{host}-r2")
        self.assertEqual(tree_hash(old), before)

    @slow
    def test_the_same_tree_resumes_in_its_own_folder(self):
        self.write_exp(GOOD)
        (host_a,) = [l.split()[2] for l in self.run_as("machine-A").stdout.splitlines()
                     if l.startswith("experiments: host ")]
        r = self.run_as("machine-A")
        self.assertEqual(r.stdout.count("done before, kept"), 4)
        self.assertIn("4 runs (0 run now, 4 kept, 0 failed)", r.stdout)
        self.assertIn(f"runs into {os.path.relpath(os.path.join(self.results, host_a))}", r.stdout)
        self.assertEqual(os.listdir(self.results), [host_a])
        self.assertIn(hostid_key(), host_a)

    @slow
    def test_emulated_pass_follows_the_same_rule(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs 2 CPUs for two emulated nodes")
        self.write_exp(GOOD)
        cpus = sorted(os.sched_getaffinity(0))
        topo = ["--topology", f"{cpus[0]};{cpus[1]}"]
        self.run_as("machine-A", topo)
        (host,) = os.listdir(self.results)
        self.assertIn("-emulated-", host)
        before = tree_hash(os.path.join(self.results, host))
        r = self.run_as("machine-B", topo)
        # the suffix before "-emulated-": still the real folder's sibling
        real, emu = host.split("-emulated-", 1)
        self.measured_afresh(r, f"{real}-r2-emulated-{emu}")
        self.assertEqual(tree_hash(os.path.join(self.results, host)), before)

    @slow
    def test_bad_machine_id_exits_2_with_one_message(self):
        self.write_exp(GOOD)
        for bad in ("", "a b", "x" * 65, "../etc", "id\n"):
            with self.subTest(bad=bad):
                r = run(self.base(), env=dict(os.environ, NUMARING_MACHINE_ID=bad))
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertIn("experiments: NUMARING_MACHINE_ID=", r.stderr)
                self.assertIn("expected 1 to 64 characters", r.stderr)
                self.assertFalse(os.path.exists(self.results))
        r = run(self.base(), env=dict(os.environ, NUMARING_MACHINE_ID="x" * 64))
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
