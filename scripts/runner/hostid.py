# SPDX-License-Identifier: BSD-2-Clause
"""hostid.py - which machine measured, and which results folder is this sweep's own.

Two questions, answered apart:

1. **The host key** names a results folder by what the machine *is*:
   ``<host name>-<cpu vendor>-f<family>m<model>-<N>node`` (``-emulated-...``
   appended for runs on emulated nodes), e.g. ``vm-intel-f6m106-1node``. The
   CPU's family and model numbers are in it because under a hypervisor the
   model *name* is often generic ("Intel(R) Xeon(R) Processor") on CPUs of
   different generations: two generations never share a folder.

2. **Ownership**: a folder is this sweep's own only if it holds a marker that
   this working tree wrote when a sweep started there (``.sweep-owner.json``,
   git-ignored, never committed) and whose fingerprint (the machine identity,
   the CPU signature, the host name) is this machine's. Cloud images share
   ``/etc/machine-id``, so the machine-id alone proves nothing: committed results
   carry no marker (it is ignored by git), and a fresh clone therefore never
   resumes them, whatever its machine-id. A folder that holds files and no
   marker of ours is only read, never written; the sweep measures into
   ``<key>-r2`` (``-r3``, ...) instead, one suffix for the real folder and its
   emulated sibling alike.

``NUMARING_CPUINFO`` (a file in /proc/cpuinfo's format) and
``NUMARING_MACHINE_ID`` replace the machine's own for tests.
"""

import datetime
import glob
import hashlib
import json
import os
import re
import socket

from ..common.wholefile import write_whole

MACHINE_ID_FILES = ("/etc/machine-id", "/var/lib/dbus/machine-id")
BOOT_ID_FILE = "/proc/sys/kernel/random/boot_id"
MACHINE_ID_ENV = "NUMARING_MACHINE_ID"
CPUINFO_ENV = "NUMARING_CPUINFO"
CPUINFO = "/proc/cpuinfo"

#: the marker a sweep writes into each folder it claims (git-ignored)
MARKER = ".sweep-owner.json"
#: how many suffixed folders (-r2 .. -rN) a sweep tries before it gives up
MAX_SUFFIX = 99

#: /proc/cpuinfo's vendor_id -> the short name in host keys
VENDORS = {"GenuineIntel": "intel", "AuthenticAMD": "amd", "HygonGenuine": "hygon",
           "CentaurHauls": "centaur", "  Shanghai  ": "zhaoxin"}


class IdentityError(Exception):
    """Bad input that names the machine (a malformed NUMARING_MACHINE_ID)."""


class NoFolder(Exception):
    """Every folder a sweep could use holds another's results."""


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def cpu_signature(path=None):
    """The first CPU of /proc/cpuinfo (or NUMARING_CPUINFO, or ``path``) as a
    dict: vendor (short name), family, model (integers, None where absent),
    model_name. On CPUs without vendor_id (Arm), vendor is 'arm<implementer>'
    and model the part number."""
    text = _read(path or os.environ.get(CPUINFO_ENV) or CPUINFO)
    first = {}
    for line in text.splitlines():
        if not line.strip():
            if first:
                break
            continue
        k, sep, v = line.partition(":")
        if sep:
            first.setdefault(k.strip(), v.strip())

    def num(key):
        v = first.get(key, "")
        try:
            return int(v, 0)
        except ValueError:
            return None
    vendor_id = first.get("vendor_id", "")
    if vendor_id:
        vendor = VENDORS.get(vendor_id) or re.sub(r"[^a-z0-9]+", "", vendor_id.lower()) or "cpu"
        family, model = num("cpu family"), num("model")
    elif "CPU implementer" in first:
        vendor = f"arm{num('CPU implementer') or 0:x}"
        family, model = num("CPU architecture"), num("CPU part")
    else:
        vendor, family, model = "cpu", None, None
    name = first.get("model name") or first.get("Model") or first.get("cpu model") or ""
    return {"vendor": vendor, "family": family, "model": model, "model_name": name}


def cpu_tag(sig):
    """'intel-f6m106' from a cpu_signature(); 'cpu-unknown' where nothing is known."""
    if sig["family"] is None and sig["model"] is None:
        return f"{sig['vendor']}-unknown"
    fam = "" if sig["family"] is None else f"f{sig['family']}"
    mod = "" if sig["model"] is None else f"m{sig['model']}"
    return f"{sig['vendor']}-{fam}{mod}"


def host_name():
    return socket.gethostname().split(".")[0] or "host"


def machine_nodes():
    """The machine's own NUMA node count (sysfs), 1 where it says nothing."""
    return len(glob.glob("/sys/devices/system/node/node[0-9]*")) or 1


def host_key(sig=None, name=None, nodes=None, emulated=None):
    """The results folder's name for this machine: <name>-<vendor>-f<F>m<M>-<N>node,
    with '-emulated-<K>node-<spec>' where emulated = (K, spec) names emulated nodes."""
    sig = sig or cpu_signature()
    name = re.sub(r"[^A-Za-z0-9]+", "-", name or host_name()).strip("-").lower() or "host"
    key = f"{name}-{cpu_tag(sig)}-{nodes or machine_nodes()}node"
    if emulated:
        k, spec = emulated
        spec = re.sub(r"[^0-9A-Za-z]+", "_", spec).strip("_")[:40]
        key += f"-emulated-{k}node-{spec}"
    return key


def machine_identity():
    """(identity, how): 16 hex digits of sha256("numaring-machine:" +
    /etc/machine-id, else /var/lib/dbus/machine-id) and a comment saying how it
    was derived (the id itself is never returned, so never stored).
    NUMARING_MACHINE_ID replaces the id (tests). Where neither file is readable,
    host name + CPU model + boot id stand in (FALLBACK: changes every boot).
    Raises IdentityError for a malformed NUMARING_MACHINE_ID."""
    override = os.environ.get(MACHINE_ID_ENV)
    if override is not None:
        if not re.fullmatch(r"[0-9A-Za-z_-]{1,64}", override):
            raise IdentityError(f"{MACHINE_ID_ENV}={override[:80]!r}: expected 1 to 64 "
                                "characters of 0-9, A-Z, a-z, '_' and '-'")
        text, how = override, f"${MACHINE_ID_ENV}"
    else:
        for path in MACHINE_ID_FILES:
            text = _read(path).strip()
            if text:
                how = path
                break
        else:
            boot = _read(BOOT_ID_FILE).strip()
            text = "\n".join([socket.gethostname(), cpu_signature()["model_name"], boot])
            ident = hashlib.sha256(("numaring-machine:" + text).encode()).hexdigest()[:16]
            return ident, (f"# FALLBACK: neither {' nor '.join(MACHINE_ID_FILES)} could be "
                           "read; first 16 hex digits of sha256(\"numaring-machine:\" + host "
                           f"name + CPU model + {BOOT_ID_FILE if boot else 'no boot id'}), "
                           "which changes at every reboot\n")
    ident = hashlib.sha256(("numaring-machine:" + text).encode()).hexdigest()[:16]
    return ident, (f"# first 16 hex digits of sha256(\"numaring-machine:\" + {how}); "
                   "the id itself is not stored\n")


def fingerprint(ident=None):
    """What a marker must match for a folder to be this sweep's: the machine
    identity, the CPU signature and the host name."""
    sig = cpu_signature()
    return {"machine": ident if ident is not None else machine_identity()[0],
            "host": host_name(), "vendor": sig["vendor"], "family": sig["family"],
            "model": sig["model"], "model_name": sig["model_name"]}


def read_marker(hostdir):
    """The marker's content (a dict), or None where there is none or it is unreadable."""
    try:
        with open(os.path.join(hostdir, MARKER), encoding="utf-8") as f:
            d = json.load(f)
        return d if isinstance(d, dict) else None
    except (OSError, ValueError):
        return None


def owner(hostdir, fp):
    """'free' (no folder, or one without a single file), 'ours' (our marker
    with this fingerprint) or 'other' (files without our marker: committed,
    copied, another machine's or another tree's)."""
    if not os.path.lexists(hostdir):
        return "free"
    m = read_marker(hostdir)
    if m is not None and m.get("fingerprint") == fp:
        return "ours"
    if os.path.isdir(hostdir) and not os.path.islink(hostdir):
        if not any(files for _, _, files in os.walk(hostdir)):
            return "free"
    return "other"


def suffixed(key, suffix):
    """key with the suffix before '-emulated-', so that an emulated sibling
    still reads as '<real folder>-emulated-...'."""
    if not suffix:
        return key
    base, sep, emu = key.partition("-emulated-")
    return f"{base}-{suffix}{sep}{emu}"


def claim(results, keys, fp, write=True):
    """Choose this sweep's folders for ``keys`` (the real host key first, then
    any emulated ones; the real folder's existing emulated siblings are checked
    too): one suffix ('' , 'r2', 'r3', ...) under which every
    folder is free or ours. With write, create them and write the marker into
    each. Returns ({key: folder path}, [folders left alone, with why]).
    Raises NoFolder when no suffix up to MAX_SUFFIX is free."""
    skipped = []
    for n in range(1, MAX_SUFFIX + 1):
        suffix = "" if n == 1 else f"r{n}"
        dirs = {k: os.path.join(results, suffixed(k, suffix)) for k in keys}
        # the real folder and every emulated sibling it has are one unit: a
        # sibling that is not ours rules the suffix out for all of them
        real = suffixed(keys[0], suffix)
        sibs = glob.glob(os.path.join(glob.escape(results), glob.escape(real) + "-emulated-*"))
        check = dict(dirs)
        check.update({("sibling", s): s for s in sibs if s not in dirs.values()})
        states = {k: owner(d, fp) for k, d in check.items()}
        if all(s != "other" for s in states.values()):
            if write:
                for k, d in dirs.items():  # siblings not asked for stay as they are
                    if states[k] != "ours":
                        os.makedirs(d, exist_ok=True)
                        write_marker(d, fp)
            return dirs, skipped
        skipped += [check[k] for k, s in states.items() if s == "other"]
    raise NoFolder(f"{', '.join(sorted(set(skipped))[:3])}, ...: every folder this sweep "
                   f"could use (up to -r{MAX_SUFFIX}) holds results it did not start; "
                   "move them or choose another --results")


def write_marker(hostdir, fp):
    """The marker that makes hostdir this working tree's (written whole)."""
    text = json.dumps({"fingerprint": fp,
                       "started": datetime.datetime.now(datetime.timezone.utc)
                       .strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "why": "written by the sweep that started this folder in this working "
                       "tree; git-ignored, so a clone never resumes these results "
                       "(scripts/runner/hostid.py)"}, indent=1) + "\n"
    write_whole(os.path.join(hostdir, MARKER), text)
