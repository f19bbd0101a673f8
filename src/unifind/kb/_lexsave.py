"""Derived indexes persisted as sidecars, so a big collection's first query is fast.

``<db>.<collection>.lexical.npz`` holds a freshly built BM25 base (``LexicalIndex.arrays``)
and ``<db>.<collection>.vectors.npz`` the exact vector matrix (``VectorIndex.arrays``),
each with what it was built from: the collection id and the change-log seq. Each is
written atomically (temp file + ``os.replace``) right after a full build, and trusted only
when it belongs to the same collection id and its seq lies within the log the file still
holds (``floor <= seq <= head``); the follower then replays the net changes since that
seq, exactly as it does for an index kept in memory. A stale, foreign, torn or
unreadable sidecar is ignored (rebuilt from the file, the system of record).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from unifind.kb._lexical import LexicalIndex
from unifind.kb._vectors import VectorIndex

log = logging.getLogger(__name__)

_FORMAT = 1
#: Below this many chunks building from the file is as fast as loading: no sidecar.
MIN_CHUNKS = 20_000
KINDS = ("lexical", "vectors")

Arrays = Mapping[str, npt.NDArray[np.generic]]


def sidecar_path(db: Path, collection: str, kind: str = "lexical") -> Path:
    ext = "npz" if kind == "lexical" else "f32"
    return db.with_name(f"{db.name}.{collection}.{kind}.{ext}")


def save(path: Path, index: LexicalIndex | VectorIndex, collection_id: int, seq: int) -> bool:
    """Write the sidecar; False (and nothing written) when the index isn't a clean base."""
    arrays = index.arrays()
    if arrays is None:
        return False
    meta = {"format": _FORMAT, "collection_id": collection_id, "seq": seq, "n": index.live}
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            members = {"meta": np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays}
            np.savez(fh, **members)  # type: ignore[arg-type]
        os.replace(tmp, path)
    except OSError as exc:  # a read-only folder only costs a rebuild next time
        Path(tmp).unlink(missing_ok=True)
        log.warning("could not write the index sidecar %s: %s", path, exc)
        return False
    return True


def _read(
    path: Path, collection_id: int, floor: int, head: int
) -> tuple[dict[str, Any], int] | None:
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as z:  # closed if torn
            meta = json.loads(bytes(z["meta"]).decode())
            if (
                meta.get("format") != _FORMAT
                or meta.get("collection_id") != collection_id
                or not floor <= int(meta.get("seq", -1)) <= head
            ):
                return None
            arrays = {k: z[k] for k in z.files if k != "meta"}
    except FileNotFoundError:
        return None
    except Exception as exc:  # torn or foreign: the file is the system of record
        log.warning("ignoring the index sidecar %s: %s", path, exc)
        return None
    if len(arrays.get("ids", ())) != meta.get("n"):
        return None
    return arrays, int(meta["seq"])


def load(path: Path, collection_id: int, floor: int, head: int) -> tuple[LexicalIndex, int] | None:
    """The lexical sidecar's index and seq when it is usable at this head, else None."""
    got = _read(path, collection_id, floor, head)
    if got is None:
        return None
    a, seq = got
    try:
        n, posts = len(a["ids"]), len(a["post_pos"])
        ok = (
            len(a["lengths"]) == n and len(a["post_tf"]) == posts
            and len(a["starts"]) == len(a["terms"]) + 1 and int(a["starts"][-1]) == posts
            and (not posts or int(a["post_pos"].max()) < n)
        )  # fmt: skip
    except (KeyError, IndexError, ValueError):
        ok = False
    if not ok:
        log.warning("ignoring the lexical sidecar %s: inconsistent arrays", path)
        return None
    return LexicalIndex.restore(a), seq


_MAGIC = b"UNIFVEC1"
_ALIGN = 64


def save_vectors(path: Path, index: VectorIndex, collection_id: int, seq: int) -> bool:
    """The matrix as one raw file (header, ids, float32 rows) that loads by ``mmap``:
    a zipped 300 MB matrix took 1.5 s to read and check, a mapped one is used at once."""
    arrays = index.arrays()
    if arrays is None:
        return False
    ids = np.ascontiguousarray(arrays["ids"], dtype="<i8")
    mat = np.ascontiguousarray(arrays["mat"], dtype="<f4")
    meta = {"format": _FORMAT, "collection_id": collection_id, "seq": seq,
            "n": len(ids), "dim": index.dim}  # fmt: skip
    head = json.dumps(meta).encode()
    start = -(-(len(_MAGIC) + 8 + len(head)) // _ALIGN) * _ALIGN
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + len(head).to_bytes(8, "little") + head)
            fh.write(b"\0" * (start - fh.tell()))
            fh.write(ids.tobytes())
            fh.write(mat.tobytes())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        log.warning("could not write the vector sidecar %s: %s", path, exc)
        return False
    return True


def load_vectors(
    path: Path, collection_id: int, floor: int, head: int, dim: int
) -> tuple[VectorIndex, int] | None:
    """The vector sidecar's matrix (mapped copy-on-write) and seq when usable, else None."""
    try:
        with path.open("rb") as fh:
            if fh.read(len(_MAGIC)) != _MAGIC:
                return None
            meta = json.loads(fh.read(int.from_bytes(fh.read(8), "little")))
            start = -(-fh.tell() // _ALIGN) * _ALIGN
        n, seq = int(meta["n"]), int(meta["seq"])
        if (
            meta.get("format") != _FORMAT or meta.get("collection_id") != collection_id
            or meta.get("dim") != dim or not floor <= seq <= head
            or path.stat().st_size != start + n * 8 + n * dim * 4  # torn or foreign
        ):  # fmt: skip
            return None
        ids = np.fromfile(path, dtype="<i8", count=n, offset=start)
        mat = np.memmap(path, dtype="<f4", mode="c", offset=start + n * 8, shape=(n, dim))
    except FileNotFoundError:
        return None
    except Exception as exc:  # unreadable: the file is the system of record
        log.warning("ignoring the vector sidecar %s: %s", path, exc)
        return None
    return VectorIndex.restore(dim, ids, mat), seq


def remove(db: Path, collection: str) -> None:
    for kind in KINDS:
        sidecar_path(db, collection, kind).unlink(missing_ok=True)
