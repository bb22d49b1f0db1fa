# SPDX-License-Identifier: BSD-2-Clause
"""benchrun.py - every harness run of a sweep, each into its own folder, whole or not at all.

One repetition of a point (run_rep: numaring-bench into rep-<k>.tmp,
renamed to rep-<k> when it succeeded, or rep-<k>.failed.txt with the
command and its stderr; under likwid-perfctr with --likwid; meta.json
gains the host's load and steal around the run), the capacity probe of a
group of --load points in one round (capacity_probe), and the two runs
once per host: the host probe (probe/probe.csv) and the ring's
single-thread micro-benchmark (bench-ring.csv). A harness that could not
write its results raises runio.CannotWrite, which stops the sweep.
"""

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys

from ..common import expfile, placement
from . import hostenv
from . import nrlikwid
from .collect import INTERCONNECT_JSON, read_meta, read_summary
from .runio import check_write_failure, write_whole
from .runorder import CAPACITY_DIR, PROBE_TAIL_S, probe_opts
from .sizing import BENCH_DEFAULTS, LOAD_PROBE_WARMUP_S


# ---- once per host: the host probe and the ring's micro-benchmark ---------------

def run_probe(hostdir, bench, topology, quick, force):
    pdir = os.path.join(hostdir, "probe")
    if os.path.exists(os.path.join(pdir, "probe.csv")) and not force:
        return True
    os.makedirs(pdir, exist_ok=True)
    cmd = [bench, "--probe", "--out", pdir] + (["--quick"] if quick else [])
    if topology:
        cmd += ["--topology", topology]
    print(f"probe: {' '.join(cmd[1:])}", flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        check_write_failure("probe", r.returncode, r.stderr)
        write_whole(os.path.join(pdir, "probe.failed.txt"),
                    f"command: {' '.join(cmd)}\nexit: {r.returncode}\n{r.stderr}")
        print(f"probe failed (exit {r.returncode}): {r.stderr.strip()}", file=sys.stderr)
        return False
    return True


def run_bench_ring(hostdir, bench, quick, force):
    """The ring's single-thread micro-benchmark (make bench-ring) as a CSV: the
    per-operation view of F1 without a second thread. Real topology only."""
    ring = os.path.join(os.path.dirname(bench), "bench", "bench_ring")
    out = os.path.join(hostdir, "bench-ring.csv")
    if not os.access(ring, os.X_OK) or (os.path.exists(out) and not force):
        return
    tmp = os.path.join(hostdir, f".bench-ring.csv.tmp.{os.getpid()}")
    print(f"bench-ring: {'--quick ' if quick else ''}--csv {os.path.relpath(out)}", flush=True)
    env = dict(os.environ)
    env.pop("NUMARING_TOPOLOGY", None)
    r = subprocess.run([ring, "--csv", tmp] + (["--quick"] if quick else []),
                       capture_output=True, text=True, env=env)
    if r.returncode == 0 and os.path.exists(tmp):
        os.replace(tmp, out)
    else:
        if os.path.exists(tmp):
            os.remove(tmp)
        check_write_failure("bench-ring", r.returncode, r.stderr)
        print(f"bench-ring failed (exit {r.returncode}): {r.stderr.strip()}", file=sys.stderr)


# ---- running points ------------------------------------------------------------

def record_likwid(lk, tmp, stdout):
    """A rep's likwid.csv (likwid-perfctr's CSV output) and interconnect.json:
    the bytes over the interconnect in the measured window per item of its
    ops, with where the figure comes from, or why there is none."""
    write_whole(os.path.join(tmp, "likwid.csv"), stdout or "")
    info = {"group": lk.group}
    try:
        nbytes, source = nrlikwid.interconnect_bytes(stdout or "", lk.group)
        ops = float(read_summary(os.path.join(tmp, "summary.csv"))["ops"] or 0)
        info.update(bytes=nbytes, ops=ops, source=source)
        if ops > 0:
            info["bytes_per_item"] = nbytes / ops
        else:
            info["why_not"] = "no item went through the measured window"
    except (nrlikwid.LikwidError, ValueError, KeyError) as e:
        info["why_not"] = str(e)
    write_whole(os.path.join(tmp, INTERCONNECT_JSON), json.dumps(info, indent=1) + "\n")


def run_rep(bench, args, out, timeout, likwid=None, meta=None):
    """Run one repetition into out/ (under likwid-perfctr with ``likwid``,
    an nrlikwid.Likwid). Its meta.json gains host_load (scripts/runner/hostenv.py:
    load average and steal time before and after) and the entries of
    ``meta``. Returns (ok, message)."""
    tmp = out + ".tmp"
    failed = out + ".failed.txt"
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    cmd = [bench] + args + ["--out", tmp, "--quiet"]
    if likwid is not None:
        cmd = likwid.wrap(cmd)
    before = hostenv.sample()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
        after = hostenv.sample()
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        rc = None
        err = (err or "") + f"\n(killed after the per-point timeout of {timeout:.0f} s)"
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if os.path.exists(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    if rc == 0 and os.path.exists(os.path.join(tmp, "summary.csv")):
        try:
            if likwid is not None:
                record_likwid(likwid, tmp, stdout)
            hostenv.add_to_meta(os.path.join(tmp, "meta.json"),
                                dict(host_load=hostenv.host_load(before, after), **(meta or {})))
        except BaseException:  # a write that failed (disk full): no half-done rep.tmp
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if os.path.exists(out):
            shutil.rmtree(out)
        os.replace(tmp, out)
        if os.path.exists(failed):
            os.remove(failed)
        return True, ""
    if os.path.exists(tmp):
        shutil.rmtree(tmp, ignore_errors=True)
    check_write_failure(out, rc, err)
    write_whole(failed, f"command: {' '.join(cmd)}\nexit: {rc}\nstderr:\n{err}")
    first = (err or "").strip().splitlines()
    return False, f"exit {rc}: {first[0] if first else 'no message'}"


# ---- --load: one capacity probe per group and round ----------------------------

def capacity_probe(a, bench, edir, gid, gopts, k, topology, probes):
    """(capacity, probe id, None) of group gid in round k, or (None, probe id,
    why): the probe recorded in capacity/<gid>/rep-<k>/ (by this sweep
    before, of the same options; not with --force), else one run now.
    ``probes`` holds this pass's answers: one probe per group and round."""
    prid = f"{gid}-r{k}"
    if prid in probes:
        return probes[prid]
    out = os.path.join(edir, CAPACITY_DIR, gid, f"rep-{k}")
    meta = read_meta(os.path.join(out, "meta.json"))
    rec = meta.get("capacity_group") if isinstance(meta, dict) else None
    ok, msg, what = True, "", "kept"
    if a.force or not (os.path.exists(os.path.join(out, "summary.csv")) and isinstance(rec, dict)
                       and rec.get("options") == gopts):
        popts = probe_opts(gopts)
        args = expfile.Point(None, prid, popts, "").args()
        args += ["--topology", topology] if topology else []
        timeout = a.point_timeout or (float(popts.get("load-probe", BENCH_DEFAULTS["load-probe"]))
                                      + LOAD_PROBE_WARMUP_S + float(PROBE_TAIL_S)
                                      + float(popts.get("drain-timeout", 10)) + 60)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        ok, msg = run_rep(bench, args, out, timeout,
                          meta={"capacity_group": {"id": gid, "round": k, "options": gopts}})
        what = "measured"
    cap = None
    if ok:
        try:
            cap = read_summary(os.path.join(out, "summary.csv"))["capacity_ops_per_s"]
            if not float(cap) > 0:
                raise ValueError(f"capacity_ops_per_s {cap!r}")
        except (OSError, ValueError, KeyError) as e:
            ok, msg = False, f"no capacity in its summary.csv ({e})"
    print(f"  capacity probe {prid} ({os.path.relpath(out, edir)}): "
          + (f"{float(cap) / 1e6:.3f} Mops/s, {what}" if ok else f"FAILED ({msg})"), flush=True)
    probes[prid] = (cap if ok else None, prid, None if ok else msg)
    return probes[prid]


def group_capacity(a, bench, edir, gid, gopts, rounds, topology, probes):
    """(capacity, id, None) of group gid: the median of its probes of rounds
    1..rounds (capacity_probe each, kept where recorded), or (None, id, why)
    where none gave a capacity. Every run of the group, in every round (those
    the stopping rule adds too), is offered a fraction of this one capacity:
    one round's probe that read high (its vCPUs closer than usual) no longer
    sets that round's load. probes[("detail", gid)] holds the probes and
    their spread ((max - min) / median), also written to
    capacity/<gid>/capacity.txt."""
    key = f"{gid}-median"
    if key in probes:
        return probes[key]
    got = [capacity_probe(a, bench, edir, gid, gopts, k, topology, probes)
           for k in range(1, rounds + 1)]
    caps = [float(c) for c, _p, _w in got if c is not None]
    if not caps:
        probes[key] = (None, key, "; ".join(f"{p}: {w}" for _c, p, w in got))
        return probes[key]
    med = statistics.median(caps)
    spread = (max(caps) - min(caps)) / med
    probes[("detail", gid)] = {"probes": [c for c, _p, _w in got], "spread": round(spread, 4)}
    write_whole(os.path.join(edir, CAPACITY_DIR, gid, "capacity.txt"),
                f"# the capacity every run of group {gid} is offered a fraction of: the median "
                f"of its probes of rounds 1..{rounds} (scripts/runner/benchrun.py "
                "group_capacity)\n"
                + "".join(f"{p} {'failed' if c is None else c}\n" for c, p, _w in got)
                + f"median {med:.1f}\nspread {spread:.4f}\n")
    print(f"  capacity of {gid}: {med / 1e6:.3f} Mops/s, the median of {len(caps)} probe(s) "
          f"(spread {spread:.0%} of it)", flush=True)
    probes[key] = (f"{med:.1f}", key, None)
    return probes[key]


def rerun_far(bench, args, out, timeout, lk, extra, trip, cap, tag):
    """Re-run the run in out/ while its CPUs ended more than placement.FAR x
    the probe's trip apart, at most cap times; each set-aside run is kept as
    out.far-<i>/. Records meta.json's placement (re-runs, whether the kept run
    is still far after them). Returns (ok, message, re-runs)."""
    n = 0
    ok, msg = True, ""
    while True:
        s = read_summary(os.path.join(out, "summary.csv"))
        still = placement.far(s, trip)
        if not still or n >= cap:
            break
        n += 1
        aside = f"{out}.far-{n}"
        if os.path.exists(aside):
            shutil.rmtree(aside)
        os.rename(out, aside)
        print(f"{tag}: its CPUs ended "
              + "/".join(f"{v:.0f}" for v in placement.ends(s))
              + f" ns apart, more than {placement.FAR:g}x the probe's {trip:g} ns: "
              f"re-run {n} of at most {cap} (the far run: {os.path.basename(aside)}/)",
              flush=True)
        ok, msg = run_rep(bench, args, out, timeout, lk, extra)
        if not ok:
            return ok, msg, n
    hostenv.add_to_meta(os.path.join(out, "meta.json"),
                        {"placement": {"reruns": n, "far": int(still), "probe_trip_ns": trip,
                                       "far_factor": placement.FAR, "cap": cap}})
    return ok, msg, n
