# SPDX-License-Identifier: BSD-2-Clause
"""numa_vm.py - boot a Linux guest with real NUMA nodes under QEMU (TCG) and
run a command inside it.

    python3 -m scripts.vm.numa_vm [options] [--] COMMAND...

Everything comes from Debian packages: qemu-system-x86 and busybox-static
(scripts/deps.sh vm), and the kernel package that linux-image-6.12-amd64
depends on, fetched with `apt-get download`, unpacked with `dpkg -x` and
cached under build/vm/kernel/. The initramfs is built fresh for every run:
static busybox and its applets, the files the command needs (those named
with --file, and any word of the command that is a file here) with the
shared libraries `ldd` says they load, and an init script that mounts
/proc, /sys, /dev and /tmp, runs the command in /work (the guest's copy of
the current directory) and powers the guest off.

The command's output comes back through the serial console, between marker
lines that carry a random token; the last one carries its exit status.
Files come back with --fetch DIR: after the command, the guest tars DIR
(under /work) to a virtio serial port that QEMU writes to a file here, and
prints its size and sha256; the host checks both and unpacks the folder into
--fetch-into. --python MODULE puts a Python interpreter in the guest: this
one, with MODULE and the modules it imports (modulefinder), for a command
`python3 -m MODULE` in /work. The
script exits with the command's status, or 1 with a message and the console log when
the guest times out, panics or does not boot, or when --check-topology finds
the guest's topology not the one asked for. Usage errors exit 2.

Topology (nodes are numbered in this order):
  --nodes N --cpus-per-node K --mem-per-node MiB   N nodes with CPUs and memory
  --cpu-only-node       one more node with K CPUs and no memory (repeatable)
  --memory-only-node    one more node with memory and no CPUs (repeatable)
  --distance MATRIX     all nodes' distances, row by row ("10,21,21,10");
                        default 10 local, 21 remote
  --numa ARG            escape hatch: raw `-numa ARG` (repeatable); replaces the
                        generated nodes and distances; give --smp, --memory and
                        the memory backends (--object) yourself.

Run with --help for every option.

The parts, one job each:
  numa_vm      this command line, and the run: boot, retry a flake, check, report
  vm_say       its messages and exit statuses
  vm_kernel    the guest's kernel, fetched from Debian and cached
  vm_image     the initramfs: busybox, the files and libraries, --python, init
  vm_topology  the nodes and distances asked for, and the check of the guest's
  vm_qemu      QEMU's command line; the run that watches the console
  vm_fetch     --fetch: a folder back through a virtio serial port
"""

import argparse
import os
import re
import secrets
import shlex
import shutil
import signal
import sys
import time

from .vm_fetch import fetch_result
from .vm_image import build_initramfs, guest_path, python_files
from .vm_kernel import KERNEL_META, fetch_kernel
from .vm_qemu import kernel_cmdline, qemu_command, run_guest
from .vm_say import PROG, die, say, usage
from .vm_topology import Topology, check_topology, raw_qemu_args


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m scripts.vm.numa_vm",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="Example: python3 -m scripts.vm.numa_vm --nodes 3 --cpus-per-node 1 "
               "--distance 10,16,22,16,10,16,22,16,10 --check-topology build/numaring-bench "
               "-- build/tests/test_placement")
    g = p.add_argument_group("topology")
    g.add_argument("--nodes", type=int, default=2, metavar="N",
                   help="nodes with CPUs and memory (default 2)")
    g.add_argument("--cpus-per-node", type=int, default=2, metavar="K",
                   help="CPUs of each node that has CPUs (default 2)")
    g.add_argument("--mem-per-node", type=int, default=256, metavar="MIB",
                   help="memory of each node that has memory, MiB (default 256)")
    g.add_argument("--cpu-only-node", action="count", default=0,
                   help="add a node with K CPUs and no memory (repeatable)")
    g.add_argument("--memory-only-node", action="count", default=0,
                   help="add a node with memory and no CPUs (repeatable)")
    g.add_argument("--distance", metavar="MATRIX",
                   help='distances of all nodes, row by row: "10,21,21,10" (default 10/21)')
    g.add_argument("--numa", action="append", default=[], metavar="ARG",
                   help="raw QEMU `-numa ARG` (repeatable): replaces the generated topology; "
                        "needs --smp and --memory, and --object for memory backends")
    g.add_argument("--object", action="append", default=[], metavar="ARG",
                   help="raw QEMU `-object ARG` (repeatable, with --numa)")
    g.add_argument("--smp", metavar="SPEC", help="QEMU -smp (with --numa)")
    g.add_argument("--memory", metavar="SIZE", help="QEMU -m, e.g. 1024M (with --numa)")
    g = p.add_argument_group("what runs")
    g.add_argument("--file", action="append", default=[], metavar="PATH",
                   help="copy PATH (relative to here) into the guest's /work, with the "
                        "shared libraries it needs (repeatable); words of the command that "
                        "are files here are copied too")
    g.add_argument("--python", action="append", default=[], metavar="MODULE",
                   help="put /usr/bin/python3 in the guest with MODULE (a dotted name, "
                        "for `python3 -m MODULE` in /work) and the modules it imports "
                        "(this interpreter; modulefinder; repeatable)")
    g.add_argument("--fetch", metavar="DIR",
                   help="after the command (whatever its status), send the guest's folder "
                        "/work/DIR back through a virtio serial port, check its size and "
                        "sha256 and unpack it into --fetch-into; a failed transfer fails the run")
    g.add_argument("--fetch-into", metavar="HOSTDIR",
                   help="where --fetch unpacks the folder (must not exist; default: "
                        "WORKDIR/NAME/fetched)")
    g.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="set an environment variable for the command (repeatable)")
    g.add_argument("--check-topology", metavar="BENCH",
                   help="run BENCH --show-topology first and check it reports this topology "
                        "(real, nodes, CPUs, distances, memory nodes, rseq node_id)")
    g.add_argument("--no-rseq-check", action="store_true",
                   help="with --check-topology: do not require rseq_node_id true")
    g.add_argument("--expect-fail", action="store_true",
                   help="invert: exit 0 only if the command ran to its end in the guest "
                        "and failed (proves a failure comes back); 1 otherwise")
    g = p.add_argument_group("machine")
    g.add_argument("--timeout", type=int, default=300, metavar="S",
                   help="kill QEMU after S seconds (default 300)")
    g.add_argument("--retries", type=int, default=2, metavar="N",
                   help="boot again up to N times when the guest KERNEL fails (oops, panic) "
                        "or QEMU dies of a signal: TCG flakes (default 2); never on a "
                        "command's failure or a timeout")
    g.add_argument("--kernel", metavar="VMLINUZ",
                   help=f"boot this kernel instead of Debian's ({KERNEL_META}'s dependency)")
    g.add_argument("--append", default="", metavar="ARGS", help="more kernel command line")
    g.add_argument("--verbose-kernel", action="store_true",
                   help="do not pass `quiet` (boot messages on the console)")
    g.add_argument("--qemu", default="qemu-system-x86_64", metavar="BIN",
                   help="the QEMU binary (default qemu-system-x86_64)")
    g.add_argument("--qemu-arg", action="append", default=[], metavar="ARG",
                   help="one more QEMU argument (repeatable)")
    g.add_argument("--accel", default="tcg,thread=multi",
                   help="QEMU -accel (default tcg,thread=multi; KVM hangs on the development machines)")
    g.add_argument("--workdir", default="build/vm", metavar="DIR",
                   help="kernel cache, initramfs and logs (default build/vm)")
    g.add_argument("--name", default="vm", help="name of this run's files under DIR (default vm)")
    g.add_argument("--output", metavar="FILE",
                   help="also write the command's output (without the console around it) to FILE")
    g.add_argument("--quiet", action="store_true", help="do not echo the command's output")
    g.add_argument("--fetch-kernel", action="store_true",
                   help="only make sure the kernel is downloaded and cached; print its path")
    g.add_argument("--dry-run", action="store_true",
                   help="build the initramfs and print the QEMU command, do not boot")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="shell command run in the guest, in /work (a copy of the files named)")
    a = p.parse_args(argv)
    if a.command and a.command[0] == "--":
        a.command = a.command[1:]
    if not a.command and not a.fetch_kernel:
        usage("no command given (scripts/vm/numa_vm.py [options] -- COMMAND...)")
    if a.nodes < 0 or a.cpus_per_node < 0 or a.mem_per_node < 1:
        usage("--nodes and --cpus-per-node must be >= 0, --mem-per-node >= 1")
    if (a.cpu_only_node or a.nodes) and a.cpus_per_node < 1:
        usage("--cpus-per-node must be >= 1")
    if a.numa and not (a.smp and a.memory):
        usage("--numa replaces the generated topology: give --smp and --memory too "
              "(and --object memory-backend-ram,... for nodes with memdev)")
    if not a.numa and (a.smp or a.memory or a.object):
        usage("--smp, --memory and --object go with --numa (otherwise the topology options set them)")
    if a.timeout < 1:
        usage("--timeout must be >= 1")
    if a.retries < 0:
        usage("--retries must be >= 0")
    for e in a.env:
        if not re.match(r"[A-Za-z_][A-Za-z0-9_]*=", e):
            usage(f'--env "{e}": expected NAME=VALUE')
    if a.fetch is not None:
        norm = os.path.normpath(a.fetch)
        if os.path.isabs(a.fetch) or norm.startswith("..") or norm == "." or \
                not re.fullmatch(r"[A-Za-z0-9._/-]+", a.fetch):
            usage(f"--fetch {a.fetch}: give a folder under the guest's /work, relative "
                  "(letters, digits, . _ - /)")
        a.fetch = norm
    elif a.fetch_into:
        usage("--fetch-into goes with --fetch")
    if a.fetch_into and os.path.lexists(a.fetch_into):
        usage(f"--fetch-into {a.fetch_into}: exists; remove it first (it is replaced whole)")
    return a


def guest_files(a, command):
    """[(host path, guest path)] of what the guest needs, each guest path once:
    the --file files (which must exist), --python's, the --check-topology
    binary, and every word of the command that is a relative path to a file
    here."""
    files = {}  # guest path: the host path first named for it

    def add_file(path, explicit):
        if not os.path.isfile(path):
            if explicit:
                usage(f"--file {path}: no such file (build it first?)")
            return
        files.setdefault(guest_path(path), path)

    for f in a.file:
        add_file(f, True)
    for host_path, g in python_files(a.python) if a.python else []:
        files.setdefault(g, host_path)
    if a.check_topology:
        add_file(a.check_topology, True)
    for word in re.split(r"[\s;|&()<>=]+", command):
        if word and "/" in word and not word.startswith(("/", "-")):
            add_file(word, False)
    return [(h, g) for g, h in files.items()]


def main(argv):
    a = parse_args(argv)
    if a.fetch_kernel:
        print(a.kernel or fetch_kernel(os.path.join(a.workdir, "kernel")))
        return 0
    command = a.command[0] if len(a.command) == 1 else shlex.join(a.command)

    if not shutil.which(a.qemu):
        die(f"{a.qemu} not found: install qemu-system-x86 (scripts/deps.sh vm)")

    topo = None if a.numa else Topology(a)
    files = guest_files(a, command)

    os.makedirs(a.workdir, exist_ok=True)
    run_dir = os.path.join(a.workdir, a.name)
    os.makedirs(run_dir, exist_ok=True)
    kernel = a.kernel or fetch_kernel(os.path.join(a.workdir, "kernel"))
    if not os.path.isfile(kernel):
        die(f"--kernel {kernel}: no such file")

    token = secrets.token_hex(8)
    initrd = os.path.join(run_dir, "initrd.gz")
    env = [tuple(e.split("=", 1)) for e in a.env]
    topo_bench = guest_path(a.check_topology) if a.check_topology else None
    build_initramfs(initrd, files, command, env, topo_bench, token, a.fetch)

    machine = topo.qemu_args() if topo else raw_qemu_args(a.smp, a.memory, a.object, a.numa)
    fetch_tar = os.path.join(run_dir, "fetch.tar")
    fetch_into = a.fetch_into or os.path.join(run_dir, "fetched")
    qemu = qemu_command(a.qemu, a.accel, machine, kernel, initrd,
                        kernel_cmdline(a.verbose_kernel, a.append),
                        fetch_tar if a.fetch else None, a.qemu_arg)

    log_path = os.path.join(run_dir, "console.log")
    if a.dry_run:
        print(shlex.join(qemu))
        return 0
    what = topo.describe() if topo else "raw -numa " + " ".join(a.numa)
    say(f"[{a.name}] {what}")
    say(f"[{a.name}] running: {command} (timeout {a.timeout} s, console log {log_path})")
    problems = []
    topo_seen = []

    def on_topology(status, js):
        topo_seen.append(status)
        if status != 0:
            problems.append(f"{a.check_topology} --show-topology exited with status {status}")
        else:
            problems.extend(check_topology(js, topo, not a.no_rseq_check))
        if problems:
            for p in problems:
                say(f"[{a.name}] topology check: {p}")
        else:
            say(f"[{a.name}] topology check passed: real, "
                + (f"{len(topo.nodes)} nodes as asked" if topo else "nodes not compared (raw --numa)")
                + (", rseq node_id" if not a.no_rseq_check else ""))

    def dump_log(log, path):
        print(f"----- {PROG}: console log of [{a.name}] ({path}) -----", file=sys.stderr)
        for line in log:
            print(line, file=sys.stderr)
        print(f"----- {PROG}: end of console log -----", file=sys.stderr)

    # A guest KERNEL failure (oops, panic) or QEMU dying of a signal is not
    # something the command can cause from user space; multi-threaded TCG
    # has been seen to oops a guest now and then (an int3 left by the
    # kernel's live text patching). Those attempts are retried, saying so;
    # a command's failure, a timeout or a wrong topology never is.
    for attempt in range(1, a.retries + 2):
        problems.clear()
        topo_seen.clear()
        if os.path.exists(fetch_tar):  # an earlier attempt's, or an earlier run's
            os.remove(fetch_tar)
        t0 = time.monotonic()
        status, reason, kind, log = run_guest(qemu, token, a.timeout, log_path, a.output,
                                              not a.quiet, on_topology)
        took = time.monotonic() - t0
        if status is not None or kind not in ("kernel", "qemu-signal") or attempt > a.retries:
            break
        kept = f"{log_path}.attempt{attempt}"
        os.replace(log_path, kept)
        dump_log(log, kept)
        say(f"[{a.name}] attempt {attempt} failed: {reason}")
        say(f"[{a.name}] retrying ({attempt + 1} of {a.retries + 1}): a guest kernel failure "
            f"or a QEMU crash is not the command's doing (TCG flake); log kept in {kept}")

    if reason and status is None:
        dump_log(log, log_path)
        say(f"[{a.name}] FAILED: {reason}"
            + (f" (attempt {attempt} of {a.retries + 1})" if attempt > 1 else ""))
        say("QEMU command: " + shlex.join(qemu))
        return 1
    if a.check_topology and not topo_seen:
        problems.append("the guest never finished --show-topology")
    if problems:
        dump_log(log, log_path)
        for p in problems:
            say(f"[{a.name}] topology check: {p}")
        say(f"[{a.name}] FAILED: the guest's topology is not the one asked for ({what})")
        return 1
    if a.fetch:
        why = fetch_result(log, token, fetch_tar, fetch_into)
        if why:
            say(f"[{a.name}] FAILED: --fetch {a.fetch}: {why}")
            return status or 1
        say(f"[{a.name}] fetched the guest's /work/{a.fetch} into {fetch_into}")
    if a.expect_fail:
        if status == 0:
            say(f"[{a.name}] FAILED: the command was expected to fail in the guest, but it "
                f"exited 0 ({took:.0f} s)")
            return 1
        say(f"[{a.name}] ok: the command failed in the guest as expected (status {status}, "
            f"{took:.0f} s)")
        return 0
    if status != 0:
        say(f"[{a.name}] FAILED: the command exited with status {status} in the guest "
            f"({took:.0f} s; console log {log_path})")
    else:
        say(f"[{a.name}] passed ({took:.0f} s)")
    return status


if __name__ == "__main__":
    # SIGTERM raises KeyboardInterrupt: run_guest's cleanup stops QEMU (its own session)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        die("interrupted", 130)
