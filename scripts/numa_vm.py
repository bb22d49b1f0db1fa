# SPDX-License-Identifier: BSD-2-Clause
"""numa_vm.py - boot a Linux guest with real NUMA nodes under QEMU (TCG) and
run a command inside it.

    python3 -m scripts.numa_vm [options] [--] COMMAND...

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
"""

import argparse
import fcntl
import glob
import gzip
import hashlib
import json
import modulefinder
import os
import re
import secrets
import select
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import tempfile
import time

PROG = "numa-vm"
KERNEL_META = "linux-image-6.12-amd64"
GUEST_WORKDIR = "/work"
# Kernel options the guest path needs built in (no modules in the initramfs).
KERNEL_NEEDS = ["CONFIG_NUMA", "CONFIG_ACPI_NUMA", "CONFIG_RSEQ", "CONFIG_BLK_DEV_INITRD",
                "CONFIG_RD_GZIP", "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_DEVTMPFS",
                "CONFIG_TMPFS", "CONFIG_PROC_FS", "CONFIG_SYSFS", "CONFIG_BINFMT_ELF",
                "CONFIG_BINFMT_SCRIPT", "CONFIG_MIGRATION"]


def say(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def die(msg, status=1):
    say(msg)
    sys.exit(status)


# ---------------------------------------------------------------------------
# the kernel


def run_quiet(cmd, cwd=None):
    """Run cmd; return (status, stdout + stderr as text)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return 127, f"{cmd[0]}: command not found"
    return p.returncode, p.stdout.decode("utf-8", "replace")


def resolve_kernel_package():
    """The package linux-image-6.12-amd64 depends on, e.g. linux-image-6.12.117+deb12-amd64."""
    rc, out = run_quiet(["apt-cache", "depends", KERNEL_META])
    if rc != 0:
        return None, f"`apt-cache depends {KERNEL_META}` failed: {out.strip()}"
    for line in out.splitlines():
        m = re.match(r"\s*Depends:\s*(linux-image-\S+)", line)
        if m and m.group(1) != KERNEL_META:
            return m.group(1), None
    return None, (f"`apt-cache depends {KERNEL_META}` names no linux-image package "
                  f"(is the package list current? run apt-get update)")


def check_kernel_config(config_path):
    have = {}
    with open(config_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"(CONFIG_\w+)=(\S+)", line)
            if m:
                have[m.group(1)] = m.group(2)
    missing = [k for k in KERNEL_NEEDS if have.get(k) != "y"]
    if missing:
        die(f"the kernel ({config_path}) lacks, built in: {' '.join(missing)}")


def fetch_kernel(cache):
    """Path of a vmlinuz from Debian's package, downloaded and cached on first use."""
    os.makedirs(cache, exist_ok=True)
    pkg, err = resolve_kernel_package()
    if pkg is None:
        cached = sorted(glob.glob(os.path.join(cache, "linux-image-*", "vmlinuz")))
        if cached:
            say(f"{err}; using the cached {cached[-1]}")
            return cached[-1]
        die(f"cannot find the kernel package: {err}")
    dest = os.path.join(cache, pkg)
    vmlinuz = os.path.join(dest, "vmlinuz")
    with open(os.path.join(cache, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs at once download it once
        if os.path.isfile(vmlinuz):
            return vmlinuz
        rc, out = run_quiet(["apt-cache", "show", "--no-all-versions", pkg])
        ver = re.search(r"^Version:\s*(\S+)", out, re.M)
        say(f"fetching the kernel: apt-get download {pkg}"
            f"{' (' + ver.group(1) + ')' if ver else ''}")
        tmp = tempfile.mkdtemp(prefix="fetch-", dir=cache)
        try:
            cmd = ["apt-get", "download", "-q"]
            if os.geteuid() == 0:  # apt's _apt user may not write into our tree
                cmd += ["-o", "APT::Sandbox::User=root"]
            rc, out = run_quiet(cmd + [pkg], cwd=tmp)
            debs = glob.glob(os.path.join(tmp, "*.deb"))
            if rc != 0 or len(debs) != 1:
                die(f"`apt-get download {pkg}` failed (status {rc}):\n{out.strip()}")
            rc, out = run_quiet(["dpkg", "-x", debs[0], os.path.join(tmp, "root")])
            if rc != 0:
                die(f"`dpkg -x {debs[0]}` failed:\n{out.strip()}")
            images = glob.glob(os.path.join(tmp, "root", "boot", "vmlinuz-*"))
            configs = glob.glob(os.path.join(tmp, "root", "boot", "config-*"))
            if len(images) != 1 or len(configs) != 1:
                die(f"{os.path.basename(debs[0])} holds no single boot/vmlinuz-* and boot/config-*")
            check_kernel_config(configs[0])
            staged = os.path.join(tmp, "out")
            os.makedirs(staged)
            shutil.copy2(images[0], os.path.join(staged, "vmlinuz"))
            shutil.copy2(configs[0], os.path.join(staged, "config"))
            with open(os.path.join(staged, "package"), "w") as f:
                f.write(f"{os.path.basename(debs[0])}\n")
            shutil.rmtree(dest, ignore_errors=True)
            os.rename(staged, dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return vmlinuz


# ---------------------------------------------------------------------------
# the initramfs (cpio "newc", written here: root-owned entries and device
# nodes without needing root or fakeroot)


class Cpio:
    def __init__(self):
        self.chunks = []
        self.ino = 1
        self.names = set()

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        name = name.lstrip("/")
        if name in self.names:
            return
        self.names.add(name)
        nb = name.encode() + b"\0"
        hdr = "070701" + "".join(f"{v:08x}" for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(nb), 0))
        self.ino += 1
        self.chunks.append(hdr.encode() + nb)
        self.chunks.append(b"\0" * ((4 - (110 + len(nb)) % 4) % 4))
        self.chunks.append(data)
        self.chunks.append(b"\0" * ((4 - len(data) % 4) % 4))

    def dirs_of(self, path):
        parts = path.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            self.dir("/".join(parts[:i]))

    def dir(self, name, perm=0o755):
        self._entry(name, stat.S_IFDIR | perm)

    def file(self, name, data, perm=0o755):
        self.dirs_of(name)
        self._entry(name, stat.S_IFREG | perm, data)

    def symlink(self, name, target):
        self.dirs_of(name)
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor, perm=0o600):
        self.dirs_of(name)
        self._entry(name, stat.S_IFCHR | perm, rdev=(major, minor))

    def bytes(self):
        self.ino = 0
        self._entry("TRAILER!!!", 0)
        return b"".join(self.chunks)


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def libraries_of(path):
    """Absolute paths of the shared libraries (and the loader) path needs."""
    rc, out = run_quiet(["ldd", path])
    if "not a dynamic executable" in out or "statically linked" in out:
        return []
    if rc != 0:
        die(f"`ldd {path}` failed:\n{out.strip()}")
    libs = []
    for line in out.splitlines():
        line = line.strip()
        if "not found" in line:
            die(f"{path} needs a library that is not installed here: {line}")
        m = re.match(r"\S+ => (/\S+)", line) or re.match(r"(/\S+)", line)
        if m:
            libs.append(m.group(1))
    return libs


def find_busybox():
    for p in ("/bin/busybox", "/usr/bin/busybox"):
        if os.path.isfile(p) and is_elf(p) and not libraries_of(p):
            return p
    die("no static busybox here (/bin/busybox): install busybox-static "
        "(scripts/deps.sh vm)")


# Modules modulefinder reaches through imports that the scripts run here never
# execute (interactive, GUI and test code: pydoc, pdb, doctest, tkinter ...);
# left out of the guest, and an import of one there fails loudly.
PYTHON_UNUSED = ["tkinter", "_tkinter", "idlelib", "turtle", "turtledemo", "test", "unittest",
                 "doctest", "pdb", "pydoc", "pydoc_data", "lib2to3", "distutils", "ensurepip",
                 "_testcapi", "_testinternalcapi"]


def python_files(modules):
    """[(host path, guest path)] that `python3 -m MODULE` needs in the guest,
    run in /work, for each MODULE (a dotted name, scripts.experiments): the
    interpreter running this (its modules are the ones found; in the guest at
    /usr/bin/python3) and MODULE with every module it imports, directly or
    not, with modulefinder (each import statement, also those inside
    functions; a package's __init__.py with each of its modules), from the
    current directory (sys.path[0] of `python3 -m`) and this interpreter's
    sys.path; plus what the interpreter loads before any module (site,
    encodings and every codec) and runpy, which runs it. Files under the current directory go to the guest's /work
    as --file does; the standard library keeps its path, so that the
    interpreter finds its prefix (lib/python3.X/os.py) as here. Extension
    modules are ELF files: their libraries come along like any --file's."""
    exe = os.path.realpath(sys.executable)
    found = set()
    for module in modules:
        if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", module):
            usage(f"--python {module}: not a module name (scripts.experiments, not a path)")
        mf = modulefinder.ModuleFinder(path=[os.getcwd()] + sys.path[1:],
                                       excludes=PYTHON_UNUSED)
        try:
            mf.import_hook(module)
        except ImportError as e:
            usage(f"--python {module}: no such module here ({e})")
        except (SyntaxError, OSError) as e:
            die(f"--python {module}: cannot follow its imports: {e}")
        try:
            for m in ("site", "encodings", "runpy"):
                mf.import_hook(m)
        except (SyntaxError, ImportError, OSError) as e:
            die(f"--python {module}: cannot follow its imports: {e}")
        found.update(m.__file__ for m in mf.modules.values() if m.__file__)
        enc = os.path.dirname(mf.modules["encodings"].__file__)
        found.update(glob.glob(os.path.join(enc, "*.py")))
    out = [(exe, "/usr/bin/python3")]
    here = os.getcwd() + os.sep
    for f in sorted(found):
        f = os.path.abspath(f)
        out.append((os.path.relpath(f) if f.startswith(here) else f,
                    guest_path(os.path.relpath(f)) if f.startswith(here) else f))
    return out


INIT = r"""#!/bin/sh
# init of the numa-vm guest: mount, run the command, report its status, power off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
# console output: no echo, no CR/LF translation games beyond the default
stty -echo 2>/dev/null
cd @WORKDIR@
@ENV@
echo "@@NUMAVM-BOOTED @TOKEN@@@"
@TOPO@
echo "@@NUMAVM-BEGIN @TOKEN@@@"
/bin/sh /numavm/cmd.sh
rc=$?
@FETCH@
echo "@@NUMAVM-EXIT @TOKEN@ $rc@@"
sync
poweroff -f
sleep 5
echo o > /proc/sysrq-trigger
while :; do sleep 60; done
"""


# --fetch: the guest's side. The port is found by its name (its device
# number depends on the order the kernel probes devices in); the tar is
# written whole to /tmp first so that its size and checksum can be printed
# for the host to check. A write to a virtio port returns once the host has
# taken the buffer, so nothing is in flight at power-off.
FETCH = r"""fetch_dev=""
for p in /sys/class/virtio-ports/*; do
	[ "$(cat "$p/name" 2>/dev/null)" = @PORT@ ] && fetch_dev=/dev/${p##*/}
done
if [ -z "$fetch_dev" ]; then
	echo "@@NUMAVM-FETCH @TOKEN@ error no virtio port @PORT@ in the guest@@"
elif [ ! -d @DIR@ ]; then
	echo "@@NUMAVM-FETCH @TOKEN@ error @DIR@ is not a folder in the guest@@"
elif tar -cf /tmp/numavm-fetch.tar @DIR@ && cat /tmp/numavm-fetch.tar > "$fetch_dev"; then
	set -- $(wc -c < /tmp/numavm-fetch.tar) $(sha256sum /tmp/numavm-fetch.tar)
	echo "@@NUMAVM-FETCH @TOKEN@ ok $1 $2@@"
else
	echo "@@NUMAVM-FETCH @TOKEN@ error tar or the write to $fetch_dev failed@@"
fi
rm -f /tmp/numavm-fetch.tar
"""
FETCH_PORT = "numavm.fetch"


def build_initramfs(out_path, files, command, env, topo_bench, token, fetch=None):
    cp = Cpio()
    for d in ("bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc", "sys", "tmp",
              "etc", "root", "numavm", GUEST_WORKDIR):
        cp.dir(d, 0o1777 if d == "tmp" else 0o755)
    cp.chardev("dev/console", 5, 1)
    cp.chardev("dev/null", 1, 3, 0o666)
    busybox = find_busybox()
    with open(busybox, "rb") as f:
        cp.file("bin/busybox", f.read())
    rc, out = run_quiet([busybox, "--list-full"])
    if rc != 0:
        die(f"`{busybox} --list-full` failed")
    for applet in out.split():
        if applet != "bin/busybox" and applet.count("/") in (1, 2):
            cp.symlink(applet, "/bin/busybox")
    cp.file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n", 0o644)
    cp.file("etc/group", b"root:x:0:\n", 0o644)

    libs = set()
    for host_path, guest_path in files:
        with open(host_path, "rb") as f:
            data = f.read()
        cp.file(guest_path, data, stat.S_IMODE(os.stat(host_path).st_mode) | 0o400)
        if is_elf(host_path):
            libs.update(libraries_of(host_path))
    here = os.getcwd()
    for lib in sorted(libs):
        # a library of this tree (build/libnumaring.so.0, found through the
        # binary's $ORIGIN rpath) goes where $ORIGIN points in the guest: the
        # guest's copy of this tree; the system's keep their paths
        rel = os.path.relpath(lib, here)
        guest = lib if rel.startswith("..") else f"{GUEST_WORKDIR}/{rel}"
        with open(lib, "rb") as f:  # follows symlinks: the file under the name ldd used
            cp.file(guest, f.read())

    exports = "\n".join(f"export {k}={shlex.quote(v)}" for k, v in env)
    topo = ""
    if topo_bench:
        topo = (f'echo "@@NUMAVM-TOPO-BEGIN {token}@@"\n'
                f"{shlex.quote(topo_bench)} --show-topology\n"
                f'echo "@@NUMAVM-TOPO-END {token} $?@@"')
    fetch_sh = (FETCH.replace("@PORT@", FETCH_PORT).replace("@DIR@", shlex.quote(fetch))
                if fetch else "")
    init = (INIT.replace("@WORKDIR@", GUEST_WORKDIR).replace("@ENV@", exports)
            .replace("@TOPO@", topo).replace("@FETCH@", fetch_sh).replace("@TOKEN@", token))
    cp.file("init", init.encode())
    cp.file("numavm/cmd.sh", (command + "\n").encode(), 0o644)
    with open(out_path, "wb") as f:
        f.write(gzip.compress(cp.bytes(), compresslevel=1, mtime=0))
    return sorted(libs)


# ---------------------------------------------------------------------------
# the topology


class Topology:
    """Nodes (cpus: list of CPU numbers, mem: MiB) and the distance matrix."""

    def __init__(self, a):
        self.nodes = []
        cpu = 0
        kinds = ["both"] * a.nodes + ["cpu"] * a.cpu_only_node + ["mem"] * a.memory_only_node
        for kind in kinds:
            cpus = list(range(cpu, cpu + a.cpus_per_node)) if kind != "mem" else []
            cpu += len(cpus)
            self.nodes.append({"cpus": cpus, "mem": a.mem_per_node if kind != "cpu" else 0})
        n = len(self.nodes)
        if n == 0:
            usage("no nodes: give --nodes N (N >= 1) or --cpu-only-node / --memory-only-node")
        if n > 64:
            usage(f"{n} nodes: at most 64")
        if self.ncpus() == 0:
            usage("no node has CPUs: give --nodes N or --cpu-only-node with --cpus-per-node >= 1")
        if self.ncpus() > 64:
            usage(f"{self.ncpus()} CPUs in all: keep it to 64 or fewer (TCG is slow anyway)")
        if not any(nd["mem"] for nd in self.nodes):
            usage("no node has memory: give --nodes N or --memory-only-node")
        if a.distance:
            try:
                vals = [int(v) for v in a.distance.replace(";", ",").split(",")]
            except ValueError:
                usage(f'--distance "{a.distance}": expected comma-separated integers')
            if len(vals) != n * n:
                usage(f'--distance has {len(vals)} values; {n} nodes need {n * n} '
                      f'(the full matrix, row by row, node order: {self.describe()})')
            self.dist = [vals[i * n:(i + 1) * n] for i in range(n)]
        else:
            self.dist = [[10 if i == j else 21 for j in range(n)] for i in range(n)]
        for i in range(n):
            for j in range(n):
                d = self.dist[i][j]
                if i == j and d != 10:
                    usage(f"--distance: node {i} to itself must be 10, not {d}")
                if i != j and not 10 < d <= 255:
                    usage(f"--distance: node {i} to node {j} must be 11..255, not {d} "
                          f"(Linux ignores a table with a remote distance <= 10)")

    def ncpus(self):
        return sum(len(nd["cpus"]) for nd in self.nodes)

    def describe(self):
        out = []
        for i, nd in enumerate(self.nodes):
            c = f"cpus {cpulist(nd['cpus'])}" if nd["cpus"] else "no CPUs"
            m = f"{nd['mem']} MiB" if nd["mem"] else "no memory"
            out.append(f"node {i}: {c}, {m}")
        return "; ".join(out)

    def qemu_args(self):
        cpu_nodes = [nd for nd in self.nodes if nd["cpus"]]
        per = {len(nd["cpus"]) for nd in cpu_nodes}
        if len(per) == 1:  # one socket per node with CPUs: no socket split across nodes
            smp = f"{self.ncpus()},sockets={len(cpu_nodes)},cores={per.pop()},threads=1"
        else:
            smp = str(self.ncpus())
        args = ["-smp", smp, "-m", f"{sum(nd['mem'] for nd in self.nodes)}M"]
        for i, nd in enumerate(self.nodes):
            spec = f"node,nodeid={i}"
            if nd["cpus"]:
                spec += f",cpus={nd['cpus'][0]}-{nd['cpus'][-1]}"
            if nd["mem"]:
                args += ["-object", f"memory-backend-ram,size={nd['mem']}M,id=m{i}"]
                spec += f",memdev=m{i}"
            args += ["-numa", spec]
        n = len(self.nodes)
        for i in range(n):
            for j in range(n):
                if i != j:
                    args += ["-numa", f"dist,src={i},dst={j},val={self.dist[i][j]}"]
        return args

    def expected_memory_nodes(self, i):
        """The nodes the ring of node i may be placed on (its own, else the nearest with memory)."""
        if self.nodes[i]["mem"]:
            return {i}
        mems = [m for m, nd in enumerate(self.nodes) if nd["mem"]]
        best = min(self.dist[i][m] for m in mems)
        return {m for m in mems if self.dist[i][m] == best}


def cpulist(cpus):
    out, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def check_topology(js, topo, rseq_expected):
    """Compare numaring-bench --show-topology's JSON with the topology asked for.
    Returns a list of problems (empty: all good)."""
    try:
        t = json.loads(js)
    except ValueError as e:
        return [f"--show-topology did not print JSON ({e})"]
    bad = []

    def want(what, got, exp):
        if got != exp:
            bad.append(f"{what}: guest says {got!r}, expected {exp!r}")

    want("topology", t.get("topology"), "real")
    want("numa_available", t.get("numa_available"), True)
    if rseq_expected:
        want("rseq_node_id", t.get("rseq_node_id"), True)
    if topo is None:  # raw --numa: only the generic facts
        return bad
    n = len(topo.nodes)
    want("allowed_cpus", t.get("allowed_cpus"), cpulist(range(topo.ncpus())))
    nodes = t.get("nodes", [])
    want("number of queue nodes", len(nodes), n)
    for i, (got, nd) in enumerate(zip(nodes, topo.nodes)):
        want(f"node {i} os_node", got.get("os_node"), i)
        want(f"node {i} cpus", got.get("cpus"), cpulist(nd["cpus"]))
        want(f"node {i} ncpus", got.get("ncpus"), len(nd["cpus"]))
        want(f"node {i} memory_only", got.get("memory_only"), not nd["cpus"])
        mem_ok = topo.expected_memory_nodes(i)
        if got.get("memory_node") not in mem_ok:
            bad.append(f"node {i} memory_node: guest says {got.get('memory_node')!r}, expected "
                       f"{' or '.join(map(str, sorted(mem_ok)))} (own node, else the nearest with memory)")
    want("distances", t.get("distances"), topo.dist)
    machine = {m.get("os_node"): m for m in t.get("machine_nodes", [])}  # any order
    want("machine nodes", sorted(machine, key=lambda k: (k is None, k)), list(range(n)))
    for i, nd in enumerate(topo.nodes):
        got = machine.get(i)
        if got is None:
            continue
        want(f"machine node {i} cpus_total", got.get("cpus_total"), len(nd["cpus"]))
        if (got.get("memory_bytes", 0) > 0) != (nd["mem"] > 0):
            bad.append(f"machine node {i} memory_bytes: guest says {got.get('memory_bytes')}, "
                       f"expected {'> 0' if nd['mem'] else '0'}")
    return bad


# ---------------------------------------------------------------------------
# running the guest

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
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
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


# ---------------------------------------------------------------------------
# --fetch: the host's side


def fetch_result(log, token, tar_path, dest):
    """Check the tar the guest wrote to the port (tar_path) against the size
    and sha256 it printed, and unpack the folder it holds into dest (which
    must not exist yet), whole: into a temporary folder beside dest, renamed
    at the end. Only plain files and folders under one top folder, with
    relative names, are taken; the top folder's name is dropped (dest is it).
    Returns None, or why it failed."""
    mark = re.compile(rf"@@NUMAVM-FETCH {token} (.*)@@")
    said = [m.group(1) for m in map(mark.search, log) if m]
    if not said:
        return "the guest printed no --fetch report (did the command end the guest?)"
    words = said[-1].split()
    if words[0] != "ok" or len(words) < 3:
        return "the guest could not send it: " + said[-1].removeprefix("error ")
    size, sha = int(words[1]), words[2]
    try:
        with open(tar_path, "rb") as f:
            data = f.read()
    except OSError as e:
        return f"{tar_path}: {e.strerror}"
    if len(data) != size or hashlib.sha256(data).hexdigest() != sha:
        return (f"{tar_path}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}..., "
                f"but the guest sent {size} bytes, sha256 {sha[:16]}...")
    parent = os.path.dirname(os.path.abspath(dest))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".fetch-", dir=parent)
    try:
        with tarfile.open(tar_path) as tf:
            members = tf.getmembers()
            tops = {m.name.split("/", 1)[0] for m in members}
            for m in members:
                parts = m.name.split("/")
                if (m.name.startswith("/") or ".." in parts or not (m.isfile() or m.isdir())
                        or len(tops) != 1):
                    return f"{tar_path}: refusing member {m.name!r} (not a plain file or " \
                           "folder under one relative top folder)"
            for m in members:
                rel = m.name.split("/", 1)[1] if "/" in m.name else ""
                if not rel:
                    continue
                target = os.path.join(tmp, rel)
                if m.isdir():
                    os.makedirs(target, exist_ok=True)
                    continue
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with tf.extractfile(m) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
                os.chmod(target, 0o644 | (m.mode & 0o111))
        os.rename(tmp, dest)
        tmp = None
    except (tarfile.TarError, OSError) as e:
        return f"{tar_path}: cannot unpack into {dest}: {e}"
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return None


# ---------------------------------------------------------------------------


def usage(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m scripts.numa_vm",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="Example: python3 -m scripts.numa_vm --nodes 3 --cpus-per-node 1 "
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
        usage("no command given (scripts/numa_vm.py [options] -- COMMAND...)")
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


def guest_path(path):
    """Where a host file goes in the guest: under /work if relative, else the same path."""
    if os.path.isabs(path):
        return path
    norm = os.path.normpath(path)
    if norm.startswith(".."):
        usage(f"--file {path}: give files under the current directory, or absolute paths")
    return f"{GUEST_WORKDIR}/{norm}"


def main(argv):
    a = parse_args(argv)
    if a.fetch_kernel:
        print(a.kernel or fetch_kernel(os.path.join(a.workdir, "kernel")))
        return 0
    command = a.command[0] if len(a.command) == 1 else shlex.join(a.command)

    for tool in (a.qemu,):
        if not shutil.which(tool):
            die(f"{tool} not found: install qemu-system-x86 (scripts/deps.sh vm)")

    topo = None if a.numa else Topology(a)

    files, seen = [], set()

    def add_file(path, explicit):
        if not os.path.isfile(path):
            if explicit:
                usage(f"--file {path}: no such file (build it first?)")
            return
        g = guest_path(path)
        if g not in seen:
            seen.add(g)
            files.append((path, g))

    for f in a.file:
        add_file(f, True)
    for host_path, g in python_files(a.python) if a.python else []:
        if g not in seen:
            seen.add(g)
            files.append((host_path, g))
    if a.check_topology:
        add_file(a.check_topology, True)
    for word in re.split(r"[\s;|&()<>=]+", command):
        if word and "/" in word and not word.startswith(("/", "-")):
            add_file(word, False)

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

    # no_timer_check: a slow (TCG, busy host) guest can fail the boot-time
    # IO-APIC timer check and panic ("IO-APIC + timer doesn't work!").
    append = "console=ttyS0 panic=-1 oops=panic printk.time=1 no_timer_check rdinit=/init"
    if not a.verbose_kernel:
        append += " quiet"
    if a.append:
        append += " " + a.append
    qemu = [a.qemu, "-nodefaults", "-no-user-config", "-display", "none", "-serial", "stdio",
            "-no-reboot", "-accel", a.accel, "-cpu", "max"]
    if topo:
        qemu += topo.qemu_args()
    else:
        qemu += ["-smp", a.smp, "-m", a.memory]
        for o in a.object:
            qemu += ["-object", o]
        for n in a.numa:
            qemu += ["-numa", n]
    fetch_tar = os.path.join(run_dir, "fetch.tar")
    fetch_into = a.fetch_into or os.path.join(run_dir, "fetched")
    if a.fetch:
        qemu += ["-chardev", f"file,id=numavmfetch,path={fetch_tar}",
                 "-device", "virtio-serial-pci",
                 "-device", f"virtserialport,chardev=numavmfetch,name={FETCH_PORT}"]
    qemu += ["-kernel", kernel, "-initrd", initrd, "-append", append] + a.qemu_arg

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


def on_term(signum, frame):
    raise KeyboardInterrupt  # run_guest's cleanup stops QEMU (its own session)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_term)
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        die("interrupted", 130)
