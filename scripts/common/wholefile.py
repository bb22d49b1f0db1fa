# SPDX-License-Identifier: BSD-2-Clause
"""wholefile.py - a file written whole or not at all (standard library only).

The runner's results, claims.csv, READMEs and the paper's generated files are
all written through write_whole, so that an interrupted write never leaves
half a file where a reader (a resumed sweep, the golden test) would take it
for a whole one.
"""

import contextlib
import os


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
        with contextlib.suppress(OSError):
            os.remove(tmp)
        if isinstance(e, OSError) and e.filename is None:  # a failed write or flush
            raise OSError(e.errno, e.strerror, path) from None
        raise
