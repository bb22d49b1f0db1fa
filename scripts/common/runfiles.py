# SPDX-License-Identifier: BSD-2-Clause
"""runfiles.py - each run's raw files, loose while a sweep runs and packed
once it is complete (standard library only: the QEMU guest runs the runner).

A sweep writes results/<host>/<experiment>/<profile>/<point>/rep-<k>/ (the
run's summary.csv, meta.json, latency.csv and latency.hgrm; failed runs'
rep-<k>.failed.txt, the capacity probes, order.txt): thousands of small
files. When the sweep ends, pack() turns that folder into one archive beside
it, <profile>.tar.xz, and removes the folder (issue 47: results/ held 38,627
files and 246 MB, their tidy CSVs 4.8 MB). The archive is deterministic:
members sorted, no times or owners, so re-packing the same runs gives the same
bytes and git sees no change.

Readers never unpack: read_text() takes a path as if the folder were there
and finds it loose, or in the archive of the nearest folder above it that has
one (each archive is read once per process and kept in memory, its runs are a
few MB of text). A sweep that goes on with a packed experiment unpack()s it
first, so that resume (which looks for each run's summary.csv) sees every run.
"""

import contextlib
import fnmatch
import io
import os
import re
import shutil
import tarfile

#: the archive of a folder D is D + ARCHIVE (xz: the standard library's lzma)
ARCHIVE = ".tar.xz"

#: {archive path: (mtime_ns, size, {member name: bytes})}
_cache = {}


class ArchiveError(Exception):
    """An archive that cannot be read: one message naming it and why."""


def _members(archive):
    """{member name: bytes} of the regular files of an archive, read once."""
    st = os.stat(archive)
    key = (st.st_mtime_ns, st.st_size)
    got = _cache.get(archive)
    if got is not None and got[0] == key:
        return got[1]
    out = {}
    try:
        with tarfile.open(archive, "r:xz") as tf:
            for m in tf:
                if m.isfile():
                    out[m.name] = tf.extractfile(m).read()
    except (tarfile.TarError, EOFError, OSError) as e:
        raise ArchiveError(f"{archive}: not a readable {ARCHIVE} archive ({e})") from None
    _cache[archive] = (key, out)
    return out


def _archived(path):
    """(archive, member name) holding path: the nearest folder above path
    with an archive beside it; None where none has one."""
    path = os.path.normpath(os.path.abspath(path))
    d = os.path.dirname(path)
    while True:
        a = d + ARCHIVE
        if os.path.isfile(a):
            return a, os.path.relpath(path, os.path.dirname(d)).replace(os.sep, "/")
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up


def read_bytes(path):
    """The bytes of a run's file, loose or packed; FileNotFoundError where it
    is neither, ArchiveError where its archive cannot be read."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        with open(path, "rb") as f:
            return f.read()
    hit = _archived(path)
    if hit is not None:
        data = _members(hit[0]).get(hit[1])
        if data is not None:
            return data
    raise FileNotFoundError(2, "No such file, loose or packed", path)


def read_text(path):
    """read_bytes(path) as UTF-8 text (undecodable bytes replaced)."""
    return read_bytes(path).decode("utf-8", errors="replace")


def open_text(path):
    """A text stream of read_text(path), for csv and json readers."""
    return io.StringIO(read_text(path), newline=None)


def exists(path):
    """Whether a run's file is there, loose or packed."""
    if os.path.isfile(path):
        return True
    hit = _archived(path)
    try:
        return hit is not None and hit[1] in _members(hit[0])
    except ArchiveError:
        return False


def find(folder, pattern):
    """Paths under folder whose path relative to it matches the fnmatch
    pattern (a '*' crosses '/'), loose or in folder's or its subfolders'
    archives, sorted."""
    folder = os.path.normpath(folder)
    match = re.compile(fnmatch.translate(pattern)).match  # compiled once:
    cut = len(folder) + len(os.sep)  # the analysis walks big folders often
    out = set()
    for d, _dirs, files in os.walk(folder):
        rel_d = d[cut:].replace(os.sep, "/")  # "" for folder itself
        for f in files:
            rel = f"{rel_d}/{f}" if rel_d else f
            if match(rel):
                out.add(os.path.join(d, f))
            elif f.endswith(ARCHIVE):
                for name in _members(os.path.join(d, f)):
                    if match(f"{rel_d}/{name}" if rel_d else name):
                        out.add(os.path.join(d, *name.split("/")))
    return sorted(out)


def _clean(info):
    """A member with no times, owners or modes of this machine."""
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o755 if info.isdir() else 0o644
    return info


def unpack(folder):
    """Put folder's archive back as loose files (a sweep going on with a packed
    experiment); files already loose are kept (they are newer). Returns the
    number of files written."""
    archive = folder.rstrip(os.sep) + ARCHIVE
    if not os.path.isfile(archive):
        return 0
    base, n = os.path.dirname(archive), 0
    members = _members(archive)
    for name in members:  # all checked before anything is written
        if ".." in name.split("/") or name.startswith("/"):
            raise ArchiveError(f"{archive}: member {name!r} points outside its folder")
    for name, data in members.items():
        p = os.path.join(base, *name.split("/"))
        if os.path.exists(p):
            continue
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        n += 1
    os.remove(archive)
    _cache.pop(archive, None)
    return n


def pack(folder, preset=6):
    """Pack folder into folder + ARCHIVE (its runs merged with any archive
    already there), check that every file reads back the same, then remove
    the folder. Returns the number of files packed; 0 where there is no
    folder. Written whole: an interrupted pack leaves the folder as it was."""
    folder = folder.rstrip(os.sep)
    if not os.path.isdir(folder):
        return 0
    unpack(folder)  # a previous pack's runs join this one's
    base = os.path.dirname(folder) or "."
    files = sorted(os.path.relpath(os.path.join(d, f), base).replace(os.sep, "/")
                   for d, _dirs, fs in os.walk(folder) for f in fs
                   if not f.startswith("."))
    archive = folder + ARCHIVE
    tmp = f"{os.path.dirname(archive) or '.'}/.{os.path.basename(archive)}.tmp.{os.getpid()}"
    try:
        with tarfile.open(tmp, "w:xz", preset=preset, format=tarfile.PAX_FORMAT) as tf:
            for name in files:
                tf.add(os.path.join(base, *name.split("/")), arcname=name,
                       recursive=False, filter=_clean)
        got = _members_uncached(tmp)
        for name in files:
            with open(os.path.join(base, *name.split("/")), "rb") as f:
                if got.get(name) != f.read():
                    raise ArchiveError(f"{archive}: {name} did not read back the same")
        os.replace(tmp, archive)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        if isinstance(e, tarfile.TarError):  # no lzma in this Python, say
            raise ArchiveError(f"{archive}: cannot write ({e})") from None
        raise
    _cache.pop(archive, None)
    shutil.rmtree(folder)
    return len(files)


def _members_uncached(archive):
    _cache.pop(archive, None)
    try:
        return _members(archive)
    finally:
        _cache.pop(archive, None)


def bytes_per_run(results):
    """(file bytes a run writes, archive bytes it keeps once packed, runs) over
    every archive under results (a run: a summary.csv); None where there is
    none. What the README's disk figure is measured from."""
    loose = packed = runs = 0
    for d, dirs, files in os.walk(results):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(ARCHIVE):
                continue
            p = os.path.join(d, f)
            packed += os.path.getsize(p)
            for name, data in _members(p).items():
                loose += len(data)
                runs += name.endswith("/summary.csv")
    return (loose / runs, packed / runs, runs) if runs else None


def run_folders(path):
    """The <experiment>/<profile> folders of runs under a results folder or
    one host's: those holding a rep-* folder or file two levels down."""
    out = []
    for d, dirs, _files in os.walk(path):
        dirs.sort()
        if any(x.startswith("rep-") for x in os.listdir(d)):
            prof = os.path.dirname(d)
            if os.path.basename(os.path.dirname(prof)) != "bench":
                out.append(prof)
            dirs[:] = []
    # a profile's capacity probes (capacity/<group>/rep-<k>) are its own runs
    out = sorted(set(out))
    return [f for f in out if not any(f.startswith(g + os.sep) for g in out)]


def main(argv=None):
    import argparse
    import sys
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.common.runfiles",
        description="Pack each experiment's runs (results/<host>/<experiment>/<profile>/) into "
        "<profile>.tar.xz beside it, deterministic and checked, as make experiments does when "
        "a sweep ends; or unpack them (a sweep unpacks what it goes on with by itself).")
    ap.add_argument("command", choices=("pack", "unpack"))
    ap.add_argument("paths", nargs="+", metavar="DIR",
                    help="a results folder, a host's folder, or <host>/<experiment>/<profile>")
    a = ap.parse_args(argv)
    for path in a.paths:
        if not os.path.isdir(path) and not os.path.isfile(path.rstrip(os.sep) + ARCHIVE):
            print(f"runfiles: {path}: no such folder", file=sys.stderr)
            return 2
    try:
        for path in a.paths:
            if a.command == "unpack":
                folders = ([path] if os.path.isfile(path.rstrip(os.sep) + ARCHIVE) else
                           [f[:-len(ARCHIVE)] for f in find(path, "*" + ARCHIVE)])
                for f in folders:
                    print(f"{f}: {unpack(f)} files unpacked")
                continue
            for f in run_folders(path):
                print(f"{f}{ARCHIVE}: {pack(f)} files packed", flush=True)
    except (OSError, ArchiveError) as e:
        print(f"runfiles: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
