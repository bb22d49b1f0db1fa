# SPDX-License-Identifier: BSD-2-Clause
"""runio.py - how the runner writes and stops: whole files, a full results folder, one-line exits.

Every module of the runner (scripts/experiments.py and the modules it is
split into) writes through write_whole, so that no file is ever half
written, treats a harness exit of EXIT_CANNOT_WRITE (or SIGXFSZ) as
CannotWrite, which stops the sweep, and exits on bad input with die's one
line. Standard library only.
"""

import errno
import os
import signal
import sys


class CannotWrite(Exception):
    """The results folder cannot take more data (full, read-only, over quota):
    every further run would fail the same way, so the sweep stops."""


# errors of the runner's own writes that mean "the results folder cannot take it"
WRITE_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EROFS, errno.EDQUOT, errno.EACCES,
                 errno.EPERM, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG}

# numaring-bench and bench_ring exit with 3 when their results could not be
# written (HB_EXIT_CANNOT_WRITE in harness/options.h); a file size limit kills
# them with SIGXFSZ unless ignored.
EXIT_CANNOT_WRITE = 3


def check_write_failure(what, rc, stderr):
    """Raise CannotWrite if a harness run failed for want of room or rights."""
    if rc == EXIT_CANNOT_WRITE or rc == -signal.SIGXFSZ:
        lines = (stderr or "").strip().splitlines()
        raise CannotWrite(f"{what}: {lines[-1] if lines else f'exit {rc}'}")


def die(msg, code=2):
    print(f"experiments: {msg}", file=sys.stderr)
    sys.exit(code)


def write_whole(path, text):
    """Write a file through a temporary + rename: never half a file."""
    tmp = f"{os.path.dirname(path) or '.'}/.{os.path.basename(path)}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and e.filename is None:  # a failed write or flush
            raise OSError(e.errno, e.strerror, path) from None
        raise
