"""The BM25 index persisted as a derived sidecar, so a big collection's first query is fast.

``<db>.<collection>.lexical.npz`` holds a freshly built base's arrays (``LexicalIndex.arrays``)
and what it was built from: the collection id and the change-log seq. It is written
atomically (temp file + ``os.replace``) right after a full build, and trusted only when
it belongs to the same collection id and its seq lies within the log the file still
holds (``floor <= seq <= head``); the follower then replays the net changes since that
seq, exactly as it does for an index kept in memory. A stale, foreign, torn or
unreadable sidecar is ignored (rebuilt from the file, the system of record).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

import numpy as np

from unifind.kb._lexical import LexicalIndex

log = logging.getLogger(__name__)

_FORMAT = 1
#: Below this many chunks building from the file is as fast as loading: no sidecar.
MIN_CHUNKS = 20_000


def sidecar_path(db: Path, collection: str) -> Path:
    return db.with_name(f"{db.name}.{collection}.lexical.npz")


def save(path: Path, index: LexicalIndex, collection_id: int, seq: int) -> bool:
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
        log.warning("could not write the lexical sidecar %s: %s", path, exc)
        return False
    return True


def load(path: Path, collection_id: int, floor: int, head: int) -> tuple[LexicalIndex, int] | None:
    """The sidecar's index and seq when it is usable at this head, else None."""
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as z:  # closed if torn
            meta = json.loads(bytes(z["meta"]).decode())
            if (
                meta.get("format") != _FORMAT
                or meta.get("collection_id") != collection_id
                or not floor <= int(meta.get("seq", -1)) <= head
            ):
                return None
            arrays = {k: z[k] for k in ("ids", "lengths", "post_pos", "post_tf", "terms", "starts")}
    except FileNotFoundError:
        return None
    except Exception as exc:  # torn or foreign: the file is the system of record
        log.warning("ignoring the lexical sidecar %s: %s", path, exc)
        return None
    n, posts = len(arrays["ids"]), len(arrays["post_pos"])
    if (
        n != meta.get("n") or len(arrays["lengths"]) != n or len(arrays["post_tf"]) != posts
        or len(arrays["starts"]) != len(arrays["terms"]) + 1 or int(arrays["starts"][-1]) != posts
        or (posts and int(arrays["post_pos"].max()) >= n)
    ):  # fmt: skip
        log.warning("ignoring the lexical sidecar %s: inconsistent arrays", path)
        return None
    return LexicalIndex.restore(arrays), int(meta["seq"])


def remove(db: Path, collection: str) -> None:
    sidecar_path(db, collection).unlink(missing_ok=True)
