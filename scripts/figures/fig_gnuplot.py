# SPDX-License-Identifier: BSD-2-Clause
"""fig_gnuplot.py - the gnuplot export: .dat files and scripts/gnuplot/*.gp.

Each fig_<figure>.py writes its figure's data file from its one preparation
(a list of lines: a header of '# ' lines saying what the figure draws, then
blocks, each its name, a '# columns:' line and its rows) with the helpers
here; run_gnuplot writes it to plots/<host>/data/<figure>.dat and draws
plots/<host>/gnuplot/<figure>.png with scripts/gnuplot/<figure>.gp.
"""

import os
import subprocess
import tempfile

from .fig_host import guest, GUEST_TITLE, is_bound, SCRIPT_DIR, wrap_note  # noqa: F401


def g(v):
    return "NaN" if v is None else ("%.6g" % v)


def g3(q):
    """The median, lo and hi of a point (q[1:4]); NaN where there is none."""
    return [g(v) for v in q[1:4]] if q else ["NaN"] * 3


def ov_col(v):
    """The oversubscribed column of a .dat row: 1, 0, or NaN where not recorded."""
    return "NaN" if v is None else "%d" % int(v)


#: the columns line of a .dat of several blocks
SEE_BLOCKS = ["see each block's '# columns:' line"]


def dat_header(name, p, what, columns, notes=True):
    """A .dat's header: '# <name>: <what>', its caption's, notes' (where
    notes) and annotation's lines, and its columns (SEE_BLOCKS where each
    block names its own)."""
    out = ["# %s: %s" % (name, what)]
    for text, _e in p["caption"]:
        out.append("# " + text)
    for text in (p.get("notes") or []) if notes else []:
        out.append("# " + text)
    # a line of the annotation each (F4's is a line per workload)
    out += ["# " + ln for ln in (p.get("annotation") or "").splitlines()]
    out.append("# columns: " + " ".join(columns))
    return out


def gp_str(s):
    """A gnuplot single-quoted string literal ('' is a quote inside)."""
    return "'" + s.replace("'", "''") + "'"


def gp_lines(lines):
    """A gnuplot expression joining lines with newlines."""
    return '."\\n".'.join(gp_str(line) for line in lines) if lines else "''"


def write_atomic(path, text):
    d = os.path.dirname(path)
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def run_gnuplot(gnuplot, name, p, outroot, text):
    """Write ``text`` (the figure's data file, a list of lines) to
    data/<name>.dat and draw gnuplot/<name>.png with
    scripts/gnuplot/<name>.gp; return an error or None."""
    script = os.path.join(SCRIPT_DIR, "gnuplot", name + ".gp")
    dat = os.path.join(outroot, "data", name + ".dat")
    write_atomic(dat, "\n".join(text) + "\n")
    if not os.path.isfile(script):
        return "no %s" % os.path.relpath(script)
    outdir = os.path.join(outroot, "gnuplot")
    os.makedirs(outdir, exist_ok=True)
    final = os.path.join(outdir, name + ".png")
    tmp = os.path.join(outdir, ".%s.png.tmp%d" % (name, os.getpid()))
    import textwrap
    lines = []
    for t, _e in p["caption"]:
        lines += textwrap.wrap(t, 150, subsequent_indent="    ") or [""]
    expr = "datafile=%s; outfile=%s; caption=%s; figtitle=%s" % (
        gp_str(dat), gp_str(tmp), gp_lines(lines),
        gp_str(p["title"] + (GUEST_TITLE if guest(p) else "")))
    if p.get("trip_ns"):
        # every run's items crossed nodes: a second y axis in items per line trip
        expr += "; trip_ns=%.6g" % p["trip_ns"]
    if p.get("annotation") and p["kind"] == "f4":
        # gnuplot does not wrap: whole workloads on a line
        expr += "; note=%s" % gp_lines(wrap_note(p["annotation"], 150))
    elif p.get("annotation"):
        expr += "; note=%s" % gp_str(p["annotation"])
    try:
        r = subprocess.run([gnuplot, "-e", expr, script], capture_output=True, text=True,
                           timeout=120)
        if r.returncode != 0 or not os.path.isfile(tmp) or os.path.getsize(tmp) == 0:
            err = (r.stderr or r.stdout).strip().splitlines()
            return "gnuplot %s failed (exit %d): %s" % (os.path.basename(script), r.returncode,
                                                       err[-1] if err else "no output")
        os.replace(tmp, final)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "gnuplot %s failed: %s" % (os.path.basename(script), e)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return None
