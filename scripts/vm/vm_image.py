# SPDX-License-Identifier: BSD-2-Clause
"""vm_image.py - the guest's initramfs: static busybox and its applets, the
files a command needs (with the shared libraries `ldd` says they load, and for
--python the interpreter and the modules a module imports, found with
modulefinder), and the init script that runs the command in /work and powers
the guest off. Written as a gzipped cpio "newc" archive, root-owned, without
needing root."""

import glob
import gzip
import modulefinder
import os
import re
import shlex
import stat
import sys

from . import vm_fetch
from .vm_say import die, run_quiet, usage

GUEST_WORKDIR = "/work"


# cpio "newc", written here: root-owned entries and device nodes without
# needing root or fakeroot


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


def guest_path(path):
    """Where a host file goes in the guest: under /work if relative, else the same path."""
    if os.path.isabs(path):
        return path
    norm = os.path.normpath(path)
    if norm.startswith(".."):
        usage(f"--file {path}: give files under the current directory, or absolute paths")
    return f"{GUEST_WORKDIR}/{norm}"


# Modules modulefinder reaches through imports that the scripts run here never
# execute (interactive, GUI and test code: pydoc, pdb, doctest, tkinter ...);
# left out of the guest, and an import of one there fails loudly.
PYTHON_UNUSED = ["tkinter", "_tkinter", "idlelib", "turtle", "turtledemo", "test", "unittest",
                 "doctest", "pdb", "pydoc", "pydoc_data", "lib2to3", "distutils", "ensurepip",
                 "_testcapi", "_testinternalcapi"]


def python_files(modules):
    """[(host path, guest path)] that `python3 -m MODULE` needs in the guest,
    run in /work, for each MODULE (a dotted name, scripts.runner.experiments): the
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
            usage(f"--python {module}: not a module name (scripts.runner.experiments, not a path)")
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


def build_initramfs(out_path, files, command, env, topo_bench, token, fetch=None):
    """Write the guest's initramfs to out_path: files [(host path, guest path)]
    with their libraries, the init that exports env [(name, value)], runs
    topo_bench --show-topology (if given), then command, then sends /work/fetch
    back (if given), all between marker lines carrying token. Returns the
    libraries it added."""
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
    fetch_sh = vm_fetch.guest_script(fetch) if fetch else ""
    init = (INIT.replace("@WORKDIR@", GUEST_WORKDIR).replace("@ENV@", exports)
            .replace("@TOPO@", topo).replace("@FETCH@", fetch_sh).replace("@TOKEN@", token))
    cp.file("init", init.encode())
    cp.file("numavm/cmd.sh", (command + "\n").encode(), 0o644)
    with open(out_path, "wb") as f:
        f.write(gzip.compress(cp.bytes(), compresslevel=1, mtime=0))
    return sorted(libs)
