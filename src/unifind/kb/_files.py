"""Ingest outcomes, and which files an ingest reads: regular files only, capped, in folders.

A folder's entries that are not taken are reported as ``skipped`` with a reason; a path the
caller named that can't be read is ``failed``. Nothing here opens a file for reading except
:func:`read_regular`, which refuses what is not a regular file before a byte is read: a FIFO
would block ``open()`` forever and ``/dev/zero`` never ends.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Container, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from unifind.errors import InputError

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "FileOutcome",
    "IngestReport",
    "expand_paths",
    "read_regular",
]

#: The default per-file cap (``kb.max_file_bytes``); a 50 MB PDF is a book of scans.
DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024

Status = Literal["added", "replaced", "unchanged", "failed", "skipped"]
SkipReason = Literal["unsupported", "special", "outside", "link", "unreadable"]


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What happened to one file (or one raw text)."""

    path: str
    """The path as found (or given, when missing); the document id for raw text."""
    document_id: str | None
    """None when the file failed or was skipped before an id was assigned."""
    status: Status
    chunks: int = 0
    """Chunks written; 0 for unchanged, failed and skipped documents."""
    error: str | None = None
    """Why it failed or was skipped, naming the file; None otherwise."""
    reason: SkipReason | None = None
    """Why a folder entry was skipped: ``unsupported`` type, ``special`` (not a regular file:
    FIFO, socket, device), ``outside`` (a link leading out of the folder), ``link`` (broken or
    looping), ``unreadable`` (a sub-folder that can't be listed); None unless skipped."""


@dataclass(frozen=True, slots=True)
class IngestReport:
    """Every file's outcome: missing and skipped paths first, then files in path order."""

    outcomes: tuple[FileOutcome, ...]
    stopped: str | None = None
    """Why the batch stopped before its end (the disk is full); None when it ran through."""
    not_tried: tuple[str, ...] = ()
    """The files never tried because the batch stopped."""
    excluded: int = 0
    """Files inside the folders left out by the ``include``/``exclude`` globs."""
    removed: tuple[str, ...] = ()
    """With ``sync``: the documents removed because their folder no longer holds their
    file (or the globs now leave it out), by the names callers see."""

    def _count(self, status: Status) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def added(self) -> int:
        return self._count("added")

    @property
    def replaced(self) -> int:
        return self._count("replaced")

    @property
    def unchanged(self) -> int:
        return self._count("unchanged")

    @property
    def failed(self) -> int:
        return self._count("failed")

    @property
    def skipped(self) -> int:
        return self._count("skipped")

    @property
    def unsupported(self) -> int:
        """Folder entries skipped for their type (counted, not listed, by the CLI)."""
        return sum(1 for o in self.outcomes if o.reason == "unsupported")

    @property
    def failures(self) -> tuple[FileOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status == "failed")


def expand_paths(
    paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    supported: Container[str] | None = None,
) -> tuple[list[Path], list[FileOutcome]]:
    """(files, outcomes): folders walked recursively, skipping hidden entries inside them.

    Files come back resolved, sorted and deduplicated. A named path that doesn't exist or
    isn't a regular file is a failed outcome; a folder entry not taken is a skipped one.
    ``supported`` (suffixes like ``.md``) skips other types inside folders; a file without
    a suffix is taken. A hidden file or folder named explicitly is taken.
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    files: set[Path] = set()
    outcomes: list[FileOutcome] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            _walk(path, supported, files, outcomes)
            continue
        try:
            mode = path.stat().st_mode
        except (OSError, RuntimeError) as exc:
            why = _link_problem(exc) if path.is_symlink() else "no such file or directory"
            outcomes.append(FileOutcome(str(raw), None, "failed", error=f"{raw}: {why}"))
            continue
        if stat.S_ISREG(mode):
            files.add(path.resolve())
        else:
            error = f"{raw}: not a regular file ({_kind(mode)}): only regular files are read"
            outcomes.append(FileOutcome(str(raw), None, "failed", error=error))
    return sorted(files), outcomes


def _walk(
    top: Path, supported: Container[str] | None, files: set[Path], out: list[FileOutcome]
) -> None:
    real_top = top.resolve()

    def skip(entry: Path, reason: SkipReason, why: str) -> None:
        out.append(FileOutcome(str(entry), None, "skipped", error=f"{entry}: {why}", reason=reason))

    def unreadable(exc: OSError) -> None:
        skip(Path(exc.filename), "unreadable", f"cannot list it ({exc.strerror or exc})")

    # followlinks=False: a linked folder is never descended, so a link loop can't recurse;
    # one that leads out of the folder is reported, one that stays inside is walked anyway.
    for root, dirs, names in os.walk(top, onerror=unreadable):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        linked = [d for d in dirs if Path(root, d).is_symlink()]
        dirs[:] = [d for d in dirs if d not in linked]
        for name in [*linked, *(n for n in names if not n.startswith("."))]:
            entry = Path(root, name)
            try:
                target = entry.resolve(strict=True)
                mode = target.stat().st_mode
            except (OSError, RuntimeError) as exc:
                skip(entry, "link", f"{_link_problem(exc)}: not followed")
                continue
            if not target.is_relative_to(real_top):
                skip(entry, "outside", f"a link to {target}, outside {top}: not followed")
            elif stat.S_ISDIR(mode):
                continue  # a link to a folder inside: that folder is walked itself
            elif not stat.S_ISREG(mode):
                skip(entry, "special", f"not a regular file ({_kind(mode)}): not read")
            elif supported is not None and entry.suffix and entry.suffix.lower() not in supported:
                skip(entry, "unsupported", f"unsupported file type {entry.suffix!r}")
            else:
                files.add(target)


def _link_problem(exc: BaseException) -> str:
    # Python 3.11's resolve() raises RuntimeError on a loop; 3.13 raises OSError(ELOOP).
    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "a symbolic link loop"
    return "a broken symbolic link"


def _kind(mode: int) -> str:
    kinds = [
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
    ]
    return next((name for test, name in kinds if test(mode)), "not a plain file")


def read_regular(path: Path, limit: int) -> bytes:
    """A regular file's bytes, refused by name when it is something else or over ``limit``."""
    # O_NONBLOCK: opening a FIFO swapped in after the walk returns at once instead of
    # waiting for a writer; fstat then refuses it. It changes nothing for a regular file.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    with open(os.open(path, flags), "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file ({_kind(st.st_mode)}): not read")
        if st.st_size > limit:
            raise InputError(_too_large(path, st.st_size, limit))
        data = f.read(limit + 1)  # the file may have grown since fstat
    if len(data) > limit:
        raise InputError(_too_large(path, len(data), limit))
    return data


def _too_large(path: Path, size: int, limit: int) -> str:
    return (
        f"{path}: too large to ingest ({size / 1e6:,.1f} MB, the limit is {limit / 1e6:,.1f} MB):"
        " split it or raise kb.max_file_bytes"
    )
