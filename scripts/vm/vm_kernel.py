# SPDX-License-Identifier: BSD-2-Clause
"""vm_kernel.py - the guest's kernel: the package Debian's linux-image-6.12-amd64
depends on, fetched with `apt-get download`, unpacked with `dpkg -x`, checked
for the options the guest needs built in, and cached under build/vm/kernel/."""

import fcntl
import glob
import os
import re
import shutil
import tempfile

from .vm_say import die, run_quiet, say

KERNEL_META = "linux-image-6.12-amd64"
# Kernel options the guest path needs built in (no modules in the initramfs).
KERNEL_NEEDS = ["CONFIG_NUMA", "CONFIG_ACPI_NUMA", "CONFIG_RSEQ", "CONFIG_BLK_DEV_INITRD",
                "CONFIG_RD_GZIP", "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_DEVTMPFS",
                "CONFIG_TMPFS", "CONFIG_PROC_FS", "CONFIG_SYSFS", "CONFIG_BINFMT_ELF",
                "CONFIG_BINFMT_SCRIPT", "CONFIG_MIGRATION"]


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
