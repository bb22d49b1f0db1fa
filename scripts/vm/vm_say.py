# SPDX-License-Identifier: BSD-2-Clause
"""vm_say.py - how numa-vm (scripts/vm/numa_vm.py and its vm_* modules) speaks to
its caller: messages on stderr under its name, the exit statuses behind them
(die: 1, a failure; usage: 2, a wrong command line), and run_quiet, which
collects a host tool's output as text for those messages."""

import subprocess
import sys

PROG = "numa-vm"


def say(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def die(msg, status=1):
    say(msg)
    sys.exit(status)


def usage(msg):
    die(msg, 2)


def run_quiet(cmd, cwd=None):
    """Run cmd; return (status, stdout + stderr as text)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return 127, f"{cmd[0]}: command not found"
    return p.returncode, p.stdout.decode("utf-8", "replace")
