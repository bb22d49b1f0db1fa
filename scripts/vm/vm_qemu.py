# SPDX-License-Identifier: BSD-2-Clause
"""vm_qemu.py - QEMU for numa-vm: the command line that boots the guest (the
kernel's command line, the machine and its NUMA nodes, the initramfs) and the
run that watches it: the console streamed and logged, the marker lines the
guest's init prints, a panic, a timeout or QEMU's death told apart, and QEMU
stopped whatever happens."""

import contextlib
import os
import re
import select
import signal
import subprocess
import time

from . import vm_fetch
from .vm_say import say


def kernel_cmdline(verbose, more):
    """The guest kernel's command line: the serial console, a panic or oops
    that powers off, /init of the initramfs; `quiet` unless verbose; then more."""
    # no_timer_check: a slow (TCG, busy host) guest can fail the boot-time
    # IO-APIC timer check and panic ("IO-APIC + timer doesn't work!").
    append = "console=ttyS0 panic=-1 oops=panic printk.time=1 no_timer_check rdinit=/init"
    if not verbose:
        append += " quiet"
    if more:
        append += " " + more
    return append


def qemu_command(qemu, accel, machine, kernel, initrd, append, fetch_tar=None, extra=()):
    """QEMU's command line: the binary qemu with -accel accel, the console on
    stdio, the machine's arguments (-smp, -m, -object, -numa), --fetch's port
    written to fetch_tar (if given), the kernel, initrd and its command line
    append, then the extra arguments as given."""
    cmd = [qemu, "-nodefaults", "-no-user-config", "-display", "none", "-serial", "stdio",
           "-no-reboot", "-accel", accel, "-cpu", "max"]
    cmd += machine
    if fetch_tar:
        cmd += vm_fetch.qemu_args(fetch_tar)
    return cmd + ["-kernel", kernel, "-initrd", initrd, "-append", append] + list(extra)


ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[c()][0-9A-Za-z]?|\r")
# Kernel lines only (printk.time=1 puts "[    1.234567] " before each), so
# that the command's own output cannot pass for a kernel failure.
PANIC = re.compile(r"^\[\s*\d+\.\d+\] (Kernel panic - not syncing|Oops: |BUG: |"
                   r"general protection fault)")


def run_guest(qemu_cmd, token, timeout, log_path, out_path, echo, on_topology):
    """Boot, stream the console; on_topology(status, json) is called when the
    --show-topology section ends. Returns (status or None, reason, kind, log
    lines); kind says what went wrong: None, "timeout", "kernel" (the guest
    kernel oopsed or panicked), "qemu-signal" (QEMU died of a signal) or "qemu"."""
    log_lines, topo_lines = [], []
    panic_at = None
    section = "boot"  # boot -> topo -> run -> done
    status, reason, kind = None, None, None
    logf = open(log_path, "w", encoding="utf-8")
    outf = open(out_path, "w", encoding="utf-8") if out_path else None
    proc = subprocess.Popen(qemu_cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    start = time.monotonic()
    deadline = start + timeout
    booted_at = None
    buf = b""
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    exit_re = re.compile(rf"@@NUMAVM-EXIT {token} (\d+)@@")
    topo_end_re = re.compile(rf"@@NUMAVM-TOPO-END {token} (\d+)@@")
    try:
        eof = False
        while not eof:
            now = time.monotonic()
            if now >= deadline:
                reason = f"timed out after {timeout} s ({section_name(section)})"
                kind = "timeout"
                break
            if status is not None and now >= done_at + 30:
                break  # the guest did not power off: its status is in, stop it
            if panic_at is not None and now >= panic_at + 5:
                break  # the trace is in; a panicked guest may not reset itself
            r, _, _ = select.select([fd], [], [], min(1.0, deadline - now))
            if not r:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                eof = True
                chunk = b"\n"
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for raw in lines:
                line = ANSI.sub(b"", raw).decode("utf-8", "replace")
                log_lines.append(line)
                logf.write(line + "\n")
                logf.flush()
                if f"@@NUMAVM-BOOTED {token}@@" in line:
                    booted_at = time.monotonic()
                    say(f"guest booted in {booted_at - start:.1f} s")
                    continue
                if f"@@NUMAVM-TOPO-BEGIN {token}@@" in line:
                    section = "topo"
                    continue
                m = topo_end_re.search(line)
                if m:
                    section = "boot"
                    on_topology(int(m.group(1)), "\n".join(topo_lines))
                    continue
                if f"@@NUMAVM-BEGIN {token}@@" in line:
                    section = "run"
                    continue
                m = exit_re.search(line)
                if m:
                    status = int(m.group(1))
                    section = "done"
                    done_at = time.monotonic()
                    continue
                if section == "topo":
                    topo_lines.append(line)
                if section in ("topo", "run") and echo:
                    print(line, flush=True)
                if section == "run" and outf:
                    outf.write(line + "\n")
                    outf.flush()
                if PANIC.search(line) and section != "done" and reason is None:
                    reason = f"the guest kernel failed: {line.strip()}"
                    kind = "kernel"
                    panic_at = time.monotonic()
        if status is None and reason is None:
            try:
                qstatus = proc.wait(5)
            except subprocess.TimeoutExpired:
                qstatus = "none yet"
            kind = "qemu-signal" if isinstance(qstatus, int) and qstatus < 0 else "qemu"
            reason = (f"QEMU exited (status {qstatus}) before the command finished "
                      f"({section_name(section)})")
        elif status is None and reason and "kernel failed" in reason:
            reason += f" ({section_name(section)})"
    finally:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(5)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        logf.close()
        if outf:
            outf.close()
    return status, reason, kind, log_lines


def section_name(s):
    return {"boot": "while booting, before the command started",
            "topo": "during numaring-bench --show-topology",
            "run": "while the command ran",
            "done": "after the command finished"}[s]
