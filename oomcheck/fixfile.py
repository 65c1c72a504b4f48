"""Writing the corrected config for `--fix`: never through a symbolic link, never over a pipe or a
device, atomically, with the original file's permissions.

A config sits in a folder others may write to (a shared dataset drive, a cloned repository): a link
planted at `job.fixed.yaml` or in place of `job.yaml` must not turn `--fix` into a write to a file the
user never named. And a write that fails halfway (a full disk) must leave the original as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile

# A file system without hard links (FAT, some network shares) says so with one of these.
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV})


def in_place_refusal(raw: str) -> str | None:
    """The catalogue key saying why `raw` cannot be overwritten in place, or None when it can. Checked
    before the file is read: reading a FIFO or a terminal waits for a writer that may never come."""
    if raw == "-":
        return "cli.in_place_stdin"
    try:
        st = os.stat(raw)
    except OSError:
        return None  # reading it says why, in its own words
    # A pipe first: `<(cat job.yaml)` and /dev/stdin are links to one, and it is the pipe that matters.
    if not stat.S_ISREG(st.st_mode):
        return "cli.in_place_not_file"
    return "cli.symlink" if os.path.islink(raw) else None


def default_mode() -> int:
    """What `open(path, "w")` would give a new file: 0o666 less the umask (read by setting it back)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(target: str, text: str, *, mode: int, replace: bool) -> None:
    """Write `text` to `target` through a temporary file in the same folder, synced to disk before it
    takes the name. `replace`: an existing `target` is replaced (the link itself, if it is one,
    never the file it points to); otherwise an existing name of any kind raises FileExistsError.
    On any failure the temporary file is removed and `target` is untouched."""
    folder = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        # newline="": the corrected text keeps the config's own line breaks
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if replace:
            os.replace(tmp, target)
        else:
            _link_new(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(folder)


def _link_new(tmp: str, target: str) -> None:
    # A hard link takes a name only if nothing (not even a dangling link) has it: no window between a
    # check and the write for someone to plant a link in.
    try:
        os.link(tmp, target)
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target) from exc
        os.replace(tmp, target)
        return
    os.unlink(tmp)


def _sync_folder(folder: str) -> None:
    # The new name is durable once the folder's entry is on disk; not every system can open a folder.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
