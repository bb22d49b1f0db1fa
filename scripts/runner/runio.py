# SPDX-License-Identifier: BSD-2-Clause
"""runio.py - how the runner writes and stops: whole files, a full results folder, one-line exits.

Every module of the runner (scripts/runner/experiments.py and the modules it is
split into) writes through write_whole, so that no file is ever half
written, treats a harness exit of EXIT_CANNOT_WRITE (or SIGXFSZ) as
CannotWrite, which stops the sweep, and exits on bad input with die's one
line. Standard library only.
"""

import errno
import signal
import sys

from ..common.wholefile import write_whole  # noqa: F401 - the runner's writes


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
