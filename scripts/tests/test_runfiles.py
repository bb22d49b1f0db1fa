# SPDX-License-Identifier: BSD-2-Clause
"""scripts/common/runfiles.py: each experiment's runs packed into one
archive, read in place, unpacked to go on, re-packed to the same bytes."""

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

from scripts.common import runfiles


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class RunFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-runfiles-")
        self.exp = os.path.join(self.tmp, "h", "f1")
        self.prof = os.path.join(self.exp, "quick")
        self.files = {os.path.join("p=1", "rep-1", "summary.csv"): "a,b\n1,2\n",
                      os.path.join("p=1", "rep-1", "meta.json"): '{"x": 1}\n',
                      os.path.join("p=2", "rep-1.failed.txt"): "exit 1\n",
                      "order.txt": "seed 7\n"}
        for rel, text in self.files.items():
            write(os.path.join(self.prof, rel), text)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_packed_files_read_as_if_loose(self):
        self.assertEqual(runfiles.pack(self.prof), len(self.files))
        self.assertFalse(os.path.exists(self.prof))
        self.assertTrue(os.path.isfile(self.prof + ".tar.xz"))
        for rel, text in self.files.items():
            p = os.path.join(self.prof, rel)
            self.assertTrue(runfiles.exists(p), rel)
            self.assertEqual(runfiles.read_text(p), text)
            self.assertEqual(runfiles.open_text(p).read(), text)
        self.assertFalse(runfiles.exists(os.path.join(self.prof, "p=3", "rep-1", "meta.json")))
        with self.assertRaises(FileNotFoundError):
            runfiles.read_bytes(os.path.join(self.prof, "p=3", "rep-1", "meta.json"))
        self.assertEqual(runfiles.find(os.path.join(self.tmp, "h"), "*.failed.txt"),
                         [os.path.join(self.prof, "p=2", "rep-1.failed.txt")])
        self.assertEqual(runfiles.find(os.path.join(self.tmp, "h"), "*/rep-*/meta.json"),
                         [os.path.join(self.prof, "p=1", "rep-1", "meta.json")])

    def test_the_archive_is_deterministic_and_owns_nothing_of_this_machine(self):
        runfiles.pack(self.prof)
        with open(self.prof + ".tar.xz", "rb") as f:
            first = f.read()
        with tarfile.open(self.prof + ".tar.xz", "r:xz") as tf:
            for m in tf:
                self.assertEqual((m.mtime, m.uid, m.gid, m.uname, m.gname), (0, 0, 0, "", ""))
                self.assertTrue(m.name.startswith("quick/"), m.name)
        os.utime(self.exp, (1, 1))
        self.assertEqual(runfiles.unpack(self.prof), len(self.files))
        self.assertFalse(os.path.exists(self.prof + ".tar.xz"))
        for rel in self.files:
            os.utime(os.path.join(self.prof, rel), (12345, 12345))
        runfiles.pack(self.prof)
        with open(self.prof + ".tar.xz", "rb") as f:
            self.assertEqual(f.read(), first)

    def test_a_later_sweeps_runs_join_the_archive_and_loose_files_win(self):
        runfiles.pack(self.prof)
        write(os.path.join(self.prof, "p=2", "rep-1", "summary.csv"), "a,b\n3,4\n")
        write(os.path.join(self.prof, "order.txt"), "seed 8\n")
        self.assertEqual(runfiles.pack(self.prof), len(self.files) + 1)
        self.assertEqual(runfiles.read_text(os.path.join(self.prof, "order.txt")), "seed 8\n")
        self.assertEqual(runfiles.read_text(os.path.join(self.prof, "p=2", "rep-1",
                                                         "summary.csv")), "a,b\n3,4\n")

    def test_a_damaged_archive_is_one_clear_error(self):
        os.makedirs(self.exp + "x")
        bad = os.path.join(self.exp + "x", "quick.tar.xz")
        with open(bad, "wb") as f:
            f.write(b"not xz at all")
        with self.assertRaises(runfiles.ArchiveError) as cm:
            runfiles.read_bytes(os.path.join(self.exp + "x", "quick", "p", "rep-1", "meta.json"))
        self.assertIn(bad, str(cm.exception))
        self.assertFalse(runfiles.exists(os.path.join(self.exp + "x", "quick", "order.txt")))

    def test_a_member_outside_its_folder_is_refused(self):
        evil = self.prof + ".tar.xz"
        shutil.rmtree(self.prof)
        with tarfile.open(evil, "w:xz") as tf:
            data = b"x"
            info = tarfile.TarInfo("../../escaped.txt")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        with self.assertRaises(runfiles.ArchiveError):
            runfiles.unpack(self.prof)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "escaped.txt")))

    def test_no_folder_packs_nothing(self):
        self.assertEqual(runfiles.pack(os.path.join(self.tmp, "none")), 0)
        self.assertEqual(runfiles.unpack(os.path.join(self.tmp, "none")), 0)


class CommittedResults(unittest.TestCase):
    """results/ is a download a reviewer can take (issue 47): every committed
    sweep packed, at most 1,000 files and 40 MB in all."""

    ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def test_every_sweep_is_packed_and_the_tree_is_small(self):
        # what git tracks: a sweep running (or stopped) in this checkout is loose
        try:
            r = subprocess.run(["git", "ls-files", "-z", "results"], cwd=self.ROOT,
                               capture_output=True, timeout=60)
        except OSError:
            self.skipTest("no git here")
        if r.returncode != 0:
            self.skipTest("not a git checkout")
        files = [os.path.join(self.ROOT, f) for f in r.stdout.decode().split("\0") if f]
        self.assertLessEqual(len(files), 1000)
        self.assertLessEqual(sum(os.path.getsize(f) for f in files if os.path.exists(f)),
                             40 * 2**20)
        loose = sorted(f for f in files if "/rep-" in f)
        self.assertEqual(loose[:3], [], "committed runs left loose: make pack-results")
        self.assertTrue(any(f.endswith(runfiles.ARCHIVE) for f in files))


if __name__ == "__main__":
    unittest.main()


class SweepTime(unittest.TestCase):
    """A host README states make experiments' wall time beside its estimate,
    from make-experiments.txt (issue 47 item 6), and nothing without one."""

    def test_the_sentence_and_its_absence(self):
        from scripts.analysis import results_readme
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(results_readme.sweep_time(d), [])
            path = os.path.join(d, "make-experiments.txt")
            write(path, "# c\nprofile quick\nestimate_s 1132\nat_most_s 1245\n"
                  "started 2026-12-06T10:37:00Z\n")
            self.assertEqual(results_readme.sweep_time(d), [], "no wall time yet")
            write(path, "profile quick\nestimate_s 1000\nat_most_s 1100\n"
                  "started 2026-12-06T10:00:00Z\nended 2026-12-06T10:20:00Z\nwall_s 1200\n")
            text = " ".join(results_readme.sweep_time(d))
            self.assertIn("took 0:20:00 here", text)
            self.assertIn("0:16:40 (at most 0:18:20; profile quick): 1.20x the estimate", text)
