# SPDX-License-Identifier: BSD-2-Clause
"""vm_fetch.py - numa-vm's --fetch: a folder of the guest back to the host
through a virtio serial port. Both ends and the wire between them: the guest's
shell (tar the folder to the port named FETCH_PORT, print its size and
sha256), QEMU's port (written to a file here) and the host's side (check the
tar against what the guest printed, unpack it whole)."""

import hashlib
import os
import re
import shlex
import shutil
import tarfile
import tempfile

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


def guest_script(folder):
    """The guest's shell that sends its /work/FOLDER (relative) to the port;
    @TOKEN@ is left for the init it goes into."""
    return FETCH.replace("@PORT@", FETCH_PORT).replace("@DIR@", shlex.quote(folder))


def qemu_args(tar_path):
    """QEMU's side: a virtio serial port named FETCH_PORT, written to tar_path."""
    return ["-chardev", f"file,id=numavmfetch,path={tar_path}",
            "-device", "virtio-serial-pci",
            "-device", f"virtserialport,chardev=numavmfetch,name={FETCH_PORT}"]


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
