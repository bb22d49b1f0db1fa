# SPDX-License-Identifier: BSD-2-Clause
"""scripts/runner/benchresult.py: the side benchmarks write results/<host>/bench/<name>.csv
+ .meta.json and env/ (once) into the folder scripts/runner/hostid.py chooses, whole
(temporary + rename); a folder of committed results (no marker) is left
untouched and the result goes to <key>-r2; a bad --results is one message and
exit 2; --no-save writes nothing. Through bench_oversub's wrapper and
bench_fidelity (the shortest runs), plus the loader a claims module uses and
bench_oversub --csv's own errors. Timings are not judged."""

import csv
import os
import subprocess
import tempfile
import unittest

from scripts.runner import benchresult
from scripts.runner import hostid
from scripts.tests import module, slow

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

BENCH = os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build", "numaring-bench"))
BARE = os.environ.get("NUMARING_BARE", os.path.join(ROOT, "build", "bench", "bare_loop"))
OVERSUB = os.environ.get("NUMARING_OVERSUB", os.path.join(ROOT, "build", "bench", "bench_oversub"))
WRAPPER = os.path.join(ROOT, "scripts", "runner", "benchresult.py")
MACHINE = "benchresult-test-id"
# the smallest bench_oversub run: one lookup, one backoff, 3 gates, 600 items
TINY = ("--items", "200", "--seconds", "5", "--lookup", "cached", "--backoff", "none")


def env():
    return dict(os.environ, NUMARING_MACHINE_ID=MACHINE)


def oversub(*args):
    return subprocess.run(module("runner.benchresult") + ["oversub", "--bin", OVERSUB,
                           "--bench", BENCH, *args], capture_output=True, text=True,
                          timeout=120, env=env(), cwd=ROOT)


def key():
    return hostid.host_key()


def snapshot(folder):
    out = {}
    for d, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, folder)] = fh.read()
    return out


def check_result(test, hostdir, name, nrows):
    """The CSV (documented header, nrows rows, loadable), meta and env of one result."""
    path = benchresult.csv_path(hostdir, name)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    test.assertEqual(rows[0], benchresult.HEADERS[name])
    test.assertEqual(len(rows) - 1, nrows)
    loaded = benchresult.load(path)
    test.assertEqual(len(loaded), nrows)
    test.assertEqual({r["bench"] for r in loaded}, {name})
    meta = benchresult.load_meta(benchresult.meta_path(hostdir, name))
    test.assertEqual(meta["bench"], name)
    test.assertRegex(meta["git_commit"], r"^([0-9a-f]{40}(-dirty)?|unknown)$")
    test.assertIn("--results", meta["command_line"])
    test.assertEqual(meta["rows"], nrows)
    test.assertEqual(meta["host_key"], key())
    test.assertEqual(meta["columns"], benchresult.HEADERS[name])
    for k in ("started_utc", "ended_utc", "options", "cpu_model"):
        test.assertIn(k, meta)
    test.assertTrue(os.path.isfile(os.path.join(hostdir, "env", "captured.txt")))
    test.assertTrue(os.path.isfile(os.path.join(hostdir, hostid.MARKER)))
    leftovers = [f for f in os.listdir(os.path.dirname(path)) if ".tmp" in f]
    test.assertEqual(leftovers, [])
    return loaded, meta


@unittest.skipUnless(os.access(OVERSUB, os.X_OK) and os.access(BENCH, os.X_OK),
                     "bench_oversub or numaring-bench not built "
                     "(make bench build/bench/bench_oversub)")
class Oversub(unittest.TestCase):
    def test_writes_csv_meta_and_env(self):
        with tempfile.TemporaryDirectory() as res:
            r = oversub(*TINY, "--results", res)
            self.assertEqual(r.returncode, 0, r.stderr)
            hostdir = os.path.join(res, key())
            rows, meta = check_result(self, hostdir, "bench-oversub", 3)
            self.assertEqual([x["gate"] for x in rows], ["shared", "pernode", "perworker"])
            self.assertEqual({x["round"] for x in rows}, {1})
            self.assertEqual(rows[2]["ratio_to_perworker"], 1.0)
            self.assertIn("--csv", meta["inner_command"])
            self.assertIn(f"result written to {benchresult.csv_path(hostdir, 'bench-oversub')}",
                          r.stdout)
            self.assertIn("lookup", r.stdout)  # the program's own table is still printed

    def test_committed_folder_is_left_alone_and_r2_is_used(self):
        with tempfile.TemporaryDirectory() as res:
            committed = os.path.join(res, key())
            os.makedirs(os.path.join(committed, "bench"))
            with open(os.path.join(committed, "bench", "bench-oversub.csv"), "w") as f:
                f.write("someone else's numbers\n")
            before = snapshot(committed)
            r = oversub(*TINY, "--results", res)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(snapshot(committed), before)
            self.assertFalse(os.path.exists(os.path.join(committed, hostid.MARKER)))
            r2 = os.path.join(res, key() + "-r2")
            check_result(self, r2, "bench-oversub", 3)
            self.assertIn("-r2", r.stdout)
            self.assertIn("left untouched", r.stdout)
            # a second run is the same tree's: it goes to -r2 again
            r = oversub(*TINY, "--results", res)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(os.listdir(res)), sorted([key(), key() + "-r2"]))

    def test_bad_results_is_one_message_and_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = os.path.join(tmp, "a-file")
            with open(f, "w") as fh:
                fh.write("x")
            r = oversub(*TINY, "--results", f)
            self.assertEqual(r.returncode, 2)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn("not a folder", r.stderr)
            self.assertEqual(r.stdout, "")

    def test_bad_machine_id_is_one_message_and_exit_2(self):
        with tempfile.TemporaryDirectory() as res:
            r = subprocess.run(module("runner.benchresult") + ["oversub", "--bin", OVERSUB, *TINY,
                                "--results", res], capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, NUMARING_MACHINE_ID="bad id!"), cwd=ROOT)
            self.assertEqual(r.returncode, 2)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn("NUMARING_MACHINE_ID", r.stderr)
            self.assertEqual(os.listdir(res), [])

    def test_no_save_writes_nothing(self):
        with tempfile.TemporaryDirectory() as res:
            r = oversub(*TINY, "--results", res, "--no-save")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("lookup", r.stdout)
            self.assertNotIn("result written", r.stdout)
            self.assertEqual(os.listdir(res), [])

    def test_program_errors_pass_through_and_write_no_result(self):
        with tempfile.TemporaryDirectory() as res:
            r = oversub("--items", "200", "--backoff", "bogus", "--results", res)
            self.assertEqual(r.returncode, 2)
            self.assertIn("--backoff", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(res, key(), "bench", "bench-oversub.csv")))


@unittest.skipUnless(os.access(OVERSUB, os.X_OK), "bench_oversub not built")
class OversubCsv(unittest.TestCase):
    def test_csv_is_written_whole_with_its_header(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "o.csv")
            r = subprocess.run([OVERSUB, *TINY, "--csv", out], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                lines = f.read().splitlines()
            self.assertEqual(lines[0].split(","), benchresult.OVERSUB_C_HEADER)
            self.assertEqual(len(lines), 4)
            self.assertEqual(os.listdir(tmp), ["o.csv"])  # no temporary left

    def test_bad_csv_path_is_one_message_and_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            for path in (os.path.join(tmp, "no", "such", "o.csv"), tmp):
                with self.subTest(path=path):
                    r = subprocess.run([OVERSUB, *TINY, "--csv", path], capture_output=True,
                                       text=True, timeout=60)
                    self.assertEqual(r.returncode, 2)
                    self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                    self.assertIn("cannot write", r.stderr)
                    self.assertEqual(r.stdout, "")
            self.assertEqual(os.listdir(tmp), [])


@unittest.skipUnless(os.access(BENCH, os.X_OK) and os.access(BARE, os.X_OK),
                     "numaring-bench or bare_loop not built (make bench build/bench/bare_loop)")
class Fidelity(unittest.TestCase):
    @slow
    def test_one_round_writes_one_row_per_run(self):
        with tempfile.TemporaryDirectory() as res:
            r = subprocess.run(module("runner.bench_fidelity") + ["--bench", BENCH, "--bare", BARE,
                                "--reps", "1", "--duration", "0.2", "--warmup", "0.02",
                                "--results", res], capture_output=True, text=True,
                               timeout=120, env=env(), cwd=ROOT)
            self.assertEqual(r.returncode, 0, r.stderr)
            # 3 queues x 2 modes x (1p1c bare and harness with inline and message
            # items, pairs and pairs1 bare and harness, and 1p1c's 5 stripped
            # runs); 2p2c only where 4 CPUs are allowed, with 5 stripped runs
            four = len(os.sched_getaffinity(0)) >= 4
            rows, _ = check_result(self, os.path.join(res, key()), "bench-fidelity",
                                   6 * (13 + 7 * four))
            self.assertEqual({(x["where"], x["config"], x["item"]) for x in rows},
                             {(w, c, i) for w in ("bare", "harness")
                              for c, i in (("1p1c", "inline"), ("1p1c", "message"),
                                           ("pairs", "inline"), ("pairs1", "inline"))
                              + ((("2p2c", "inline"),) if four else ())})
            self.assertEqual({x["stripped"] for x in rows},
                             {None, "sampling", "publish", "window", "accounting", "all"})
            self.assertTrue(all(x["item"] == "inline" and x["config"] in ("1p1c", "2p2c")
                                for x in rows if x["stripped"]))
            self.assertIn("where the time goes", r.stdout)
            self.assertEqual({x["queue"] for x in rows}, {"flat", "numaring", "rte"})
            self.assertEqual({x["bursts"] for x in rows}, {0, 1})
            self.assertTrue(all(x["throughput_ops_per_s"] > 0 for x in rows))
            self.assertIn("h/bare", r.stdout)
            # every run's trip (2 CPUs: P0 and C0 apart; pairs1: one thread, none)
            timed = [x for x in rows if x["config"] != "pairs1"]
            self.assertTrue(all(x["c2c_one_way_before_ns"] and x["c2c_one_way_after_ns"]
                                for x in timed))
            self.assertTrue(all(x["c2c_one_way_before_ns"] is None
                                for x in rows if x["config"] == "pairs1"))
            self.assertTrue(all(x["placement_reruns"] in range(3) for x in rows))
            self.assertIn("placement: ", r.stdout)

    def test_bare_loop_times_its_first_two_cpus_with_hand_over(self):
        def fields(*args):
            r = subprocess.run([BARE, "--queue", "flat", "--duration", "0.05", "--warmup", "0",
                                *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout.strip().split(",")
        self.assertEqual(len(fields()), 3)  # without it: the line bench-peers reads
        two = fields("--hand-over")
        self.assertEqual(len(two), 5)
        if len(os.sched_getaffinity(0)) >= 2:  # P0 and C0 on two CPUs: both ends timed
            self.assertTrue(all(float(x) > 0 for x in two[3:]), two)
        # one thread: no second CPU, nothing timed
        self.assertEqual(fields("--workload", "pairs", "--threads", "1", "--hand-over")[3:],
                         ["", ""])

    def test_a_pair_whose_runs_found_their_cpus_apart_runs_again(self):
        """Placements: the nearest trip seen is the reference; a pair of which one
        run's longer end is more than FAR x it and the other's is not runs again,
        at most RERUN_CAP times and within the budget; one untimed run decides
        nothing."""
        from scripts.common import placement
        from scripts.runner.bench_fidelity import Placements
        p = Placements(pairs=40)  # a budget of 10 re-runs
        self.assertFalse(p.again((40.0, 42.0), (41.0, 45.0), 0))  # both near
        self.assertFalse(p.again((160.0, 170.0), (150.0, 200.0), 0))  # both far: alike
        far = 41.0 * placement.FAR + 1  # the nearest run by then: 41 ns at its longer end
        self.assertTrue(p.again((40.0, 41.0), (40.0, far), 0))  # one end far
        self.assertTrue(p.again((40.0, 41.0), (40.0, far), placement.RERUN_CAP - 1))
        self.assertFalse(p.again((40.0, 41.0), (40.0, far), placement.RERUN_CAP))
        self.assertFalse(p.again((None, None), (far, far), 0))  # not timed: no verdict
        self.assertEqual((p.reruns, p.pairs, p.differ), (2, 4, 1))
        self.assertIn("2 re-runs", p.line())
        self.assertIn("1 of 4 pairs still differ", p.line())
        # a nearer trip later moves the reference: 60 ns is far from 25 ns
        self.assertTrue(p.again((25.0, 25.0), (60.0, 60.0), 0))
        tight = Placements(pairs=4)  # a budget of one re-run
        self.assertTrue(tight.again((40.0, 40.0), (far, far), 0))
        self.assertFalse(tight.again((40.0, 40.0), (far, far), 0))
        self.assertEqual(tight.differ, 1)

    def test_bad_configs_is_one_message_and_exit_2(self):
        r = subprocess.run(module("runner.bench_fidelity") + ["--bench", BENCH, "--bare", BARE,
                            "--configs", "1p1c,3p3c", "--no-save"], capture_output=True,
                           text=True, timeout=60, env=env(), cwd=ROOT)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--configs", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_bad_results_is_one_message_and_exit_2(self):
        with tempfile.NamedTemporaryFile() as f:
            r = subprocess.run(module("runner.bench_fidelity") + ["--bench", BENCH, "--bare", BARE,
                                "--reps", "1", "--results", f.name], capture_output=True,
                               text=True, timeout=60, env=env(), cwd=ROOT)
            self.assertEqual(r.returncode, 2)
            self.assertIn("not a folder", r.stderr)
            self.assertEqual(r.stdout, "")


@unittest.skipUnless(os.access(BENCH, os.X_OK), "numaring-bench not built (make bench)")
@unittest.skipUnless(len(os.sched_getaffinity(0)) >= 2, "bench-backoff needs 2 CPUs")
class Backoff(unittest.TestCase):
    @slow
    def test_rounds_write_one_row_per_run_and_say_what_ran_no_backoff(self):
        with tempfile.TemporaryDirectory() as res:
            r = subprocess.run(module("runner.bench_backoff") + [
                "--bench", BENCH, "--reps", "2", "--duration", "0.1", "--warmup", "0.02",
                "--cells", "pairs-w0,prodcons-w0", "--backoffs", "none,pause,exp",
                "--pause-spins", "8,64", "--results", res],
                capture_output=True, text=True, timeout=300, env=env(), cwd=ROOT)
            self.assertEqual(r.returncode, 0, r.stderr)
            # 2 rounds x 2 cells x (none, pause8, pause64, exp)
            rows, _ = check_result(self, os.path.join(res, key()), "bench-backoff", 16)
            self.assertEqual({x["backoff"] for x in rows}, {"none", "pause8", "pause64", "exp"})
            self.assertEqual({x["pause_spin"] for x in rows if x["backoff"].startswith("pause")},
                             {8, 64})
            self.assertTrue(all(x["pause_spin"] is None for x in rows
                                if not x["backoff"].startswith("pause")))
            self.assertTrue(all(x["throughput_ops_per_s"] > 0 for x in rows))
            # 1P1C: no two threads share a side, so no race is lost and no backoff runs
            self.assertTrue(all(x["failed_attempts"] == 0 for x in rows
                                if x["cell"] == "prodcons-w0"))
            self.assertIn("not exercised", r.stdout)
            self.assertIn("<- best", r.stdout)

    def test_bad_options_are_one_message_and_exit_2(self):
        for args in (["--cells", "pairs"], ["--backoffs", "none,bogus"],
                     ["--pause-spins", "0"], ["--pause-spins", "8,8"], ["--reps", "0"],
                     ["--duration", "-1"]):
            with self.subTest(args=args):
                r = subprocess.run(module("runner.bench_backoff") + ["--bench", BENCH,
                                   "--no-save"] + args, capture_output=True, text=True,
                                   timeout=60, env=env(), cwd=ROOT)
                self.assertEqual(r.returncode, 2)
                self.assertIn(args[0], r.stderr)
                self.assertEqual(r.stdout, "")


class BareRate(unittest.TestCase):
    def test_a_stalled_window_is_run_once_more_and_twice_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            count = os.path.join(tmp, "n")
            fake = os.path.join(tmp, "bare")
            with open(fake, "w") as f:
                # stalls while the counter file is shorter than $STALLS lines
                f.write("#!/bin/sh\necho x >> %s\n"
                        "if [ $(wc -l < %s) -le ${STALLS:-1} ]; then\n"
                        "  echo 'bare_loop: no item went through flat in the measured window' >&2\n"
                        "  exit 1\nfi\necho flat,1,12345\n" % (count, count))
            os.chmod(fake, 0o755)
            self.assertEqual(benchresult.bare_rate("t", [fake]), 12345.0)
            os.remove(count)
            os.environ["STALLS"] = "2"
            try:
                with self.assertRaises(SystemExit) as cm:
                    benchresult.bare_rate("t", [fake])
                self.assertEqual(cm.exception.code, 1)
            finally:
                del os.environ["STALLS"]


class Loader(unittest.TestCase):
    ROWS = [dict(bench="bench-placement", round=rnd, cells_at=c, throughput_ops_per_s=v)
            for rnd, c, v in ((1, 0, 100.0), (1, 128, 200.0), (2, 0, 50.0), (2, 128, 150.0),
                              (3, 128, 10.0))]

    def write(self, tmp, text):
        p = os.path.join(tmp, "bench-placement.csv")
        with open(p, "w") as f:
            f.write(text)
        return p

    def test_round_trip_and_paired_ratios(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = self.write(tmp, benchresult.csv_text("bench-placement", self.ROWS))
            rows = benchresult.load(p)
            self.assertEqual(rows, self.ROWS)
            self.assertIsInstance(rows[0]["round"], int)
            self.assertIsInstance(rows[0]["throughput_ops_per_s"], float)
            # round 3 has no cells_at 0: no pair
            self.assertEqual(benchresult.paired_ratios(rows, "throughput_ops_per_s",
                                                       {"cells_at": 128}, {"cells_at": 0}),
                             [(1, 2.0), (2, 3.0)])
            with self.assertRaises(benchresult.BadResult):  # names two rows a round
                benchresult.paired_ratios(rows, "throughput_ops_per_s", {}, {"cells_at": 0})

    def test_empty_cells_load_as_none(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "bench-peers.csv")
            with open(p, "w") as f:
                f.write(",".join(benchresult.HEADERS["bench-peers"]) + "\n"
                        "bench-peers,1,rte,1x1,1,,bare,,0.05,123,\n")
            row, = benchresult.load(p)
            self.assertIsNone(row["item"])
            self.assertIsNone(row["full_retries_per_burst"])
            self.assertEqual(row["bursts"], 1)

    def test_an_older_fidelity_file_loads_without_its_later_columns(self):
        # written before the stripped column existed, and before config (the
        # committed ones)
        with tempfile.TemporaryDirectory() as tmp:
            for text in ("bench,round,queue,bursts,item,where,throughput_ops_per_s\n"
                         "bench-fidelity,1,flat,0,inline,harness,123\n",
                         "bench,round,queue,bursts,item,where,stripped,throughput_ops_per_s\n"
                         "bench-fidelity,1,flat,0,inline,harness,,123\n"):
                row, = benchresult.load(self.write(tmp, text))
                self.assertIsNone(row["stripped"])
                self.assertIsNone(row["config"])
                self.assertEqual(row["throughput_ops_per_s"], 123.0)
                self.assertEqual(list(row), benchresult.HEADERS["bench-fidelity"])
            # a later column elsewhere, or another one missing, is still refused
            for text in ("bench,round,queue,bursts,item,throughput_ops_per_s\n"
                         "bench-fidelity,1,flat,0,inline,123\n",
                         "bench,round,queue,bursts,item,where,throughput_ops_per_s,stripped\n"
                         "bench-fidelity,1,flat,0,inline,harness,123,\n",
                         "bench,round,queue,bursts,config,item,where,stripped,"
                         "throughput_ops_per_s\nbench-fidelity,1,flat,0,1p1c,inline,harness,,1\n"):
                with self.assertRaises(benchresult.BadResult):
                    benchresult.load(self.write(tmp, text))

    def test_bad_files_raise_bad_result(self):
        with tempfile.TemporaryDirectory() as tmp:
            for text in ("round,bench\n",
                         "bench,round,cells_at\nbench-placement,1,0\n",
                         "bench,round,cells_at,throughput_ops_per_s\nbench-placement,x,0,1\n",
                         "bench,round,cells_at,throughput_ops_per_s\nbench-placement,1,0\n",
                         "bench,round,cells_at,throughput_ops_per_s\nbench-nope,1,0,1\n"):
                with self.subTest(text=text):
                    with self.assertRaises(benchresult.BadResult):
                        benchresult.load(self.write(tmp, text))

    def test_rows_must_have_the_documented_columns(self):
        with self.assertRaises(ValueError):
            benchresult.csv_text("bench-placement", [dict(bench="bench-placement", round=1)])

    def test_headers_are_documented(self):
        for name, header in benchresult.HEADERS.items():
            self.assertEqual(header[:2], ["bench", "round"])
        with open(WRAPPER) as f:
            doc = f.read()
        for name in benchresult.HEADERS:
            self.assertIn(name, doc)


if __name__ == "__main__":
    unittest.main()
