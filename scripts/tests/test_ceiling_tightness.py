# SPDX-License-Identifier: BSD-2-Clause
"""The tightness section's sentence on the instrument (scripts/analysis/ceiling_tightness.py):
the probe's hand-over timed as the harness times an item against its one-way
transfer, and what a probe without that row says."""

import os
import shutil
import tempfile
import unittest

from scripts.analysis import ceiling_tightness


def write_probe(hostdir, rows):
    os.makedirs(os.path.join(hostdir, "probe"), exist_ok=True)
    with open(os.path.join(hostdir, "probe", "probe.csv"), "w", encoding="utf-8") as f:
        f.write("kind,cpu_a,cpu_b,node_a,node_b,value,spread,unit,method\n")
        f.write("faa_uncontended_ns,0,,0,,5,0.1,ns,faa-1thread-median\n")
        f.write("c2c_one_way_same_node,,,,,50,1,ns,half-rtt-median\n")
        for r in rows:
            f.write(r + "\n")


class Instrument(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def test_the_reachable_share_is_t_c_over_t_h(self):
        write_probe(self.dir, ["handover_stamped_ns,0,1,0,0,80,10,ns,stamp-poll-stamp-median"])
        self.assertEqual(ceiling_tightness.instrument(self.dir), (80.0, 50.0))
        s = ceiling_tightness.instrument_sentence(self.dir)
        self.assertIn("at 80.0 ns against a one-way transfer t_c of 50.0 ns", s)
        self.assertIn("at most about 0.62 of its latency term", s)

    def test_never_above_one(self):
        write_probe(self.dir, ["handover_stamped_ns,0,1,0,0,40,10,ns,stamp-poll-stamp-median"])
        self.assertIn("at most about 1.00 of", ceiling_tightness.instrument_sentence(self.dir))

    def test_an_older_probe_says_not_known(self):
        write_probe(self.dir, [])
        self.assertEqual(ceiling_tightness.instrument(self.dir), (None, 50.0))
        self.assertIn("not known here", ceiling_tightness.instrument_sentence(self.dir))

    def test_no_probe_says_nothing(self):
        self.assertEqual(ceiling_tightness.instrument(self.dir), (None, None))
        self.assertEqual(ceiling_tightness.instrument_sentence(self.dir), "")


if __name__ == "__main__":
    unittest.main()
