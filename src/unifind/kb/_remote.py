"""What the server-backed KB stores share: store URLs, redaction, validation, filters in Python.

A store is chosen by ``kb.store`` in the settings: a registered name (``sqlite``), or a URL
whose scheme names the store (``postgresql://user@host/db``, ``qdrant://path-or-url``,
``milvus://path-or-uri``). URLs may carry passwords, so every message that names one goes
through :func:`redact`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import numpy.typing as npt

from unifind.errors import InputError, SourceError
from unifind.kb import _write
from unifind.kb._filters import _values
from unifind.kb.base import ChunkIn, DocumentIn
from unifind.types import Reason

#: URL scheme → registered store name.
SCHEMES = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "qdrant": "qdrant",
    "milvus": "milvus",
    "sqlite": "sqlite",
}

NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def redact(url: str) -> str:
    """The URL with its password (and any ``password=`` query value) replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable store URL>"
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:***@{host}"
    query = re.sub(r"(?i)((?:password|api_key|token)=)[^&]*", r"\1***", parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def describe(spec: str) -> str:
    """The store spec as it may be shown: a URL without its password."""
    if "://" not in spec:
        return spec
    # Through redact only when there is a secret: it would spell sqlite:///a as sqlite:/a.
    shown = redact(spec)
    return spec if shown.replace(":///", ":/", 1) == spec.replace(":///", ":/", 1) else shown


def scrub(text: str, url: str) -> str:
    """``text`` with the URL's password removed wherever a driver echoed it."""
    secret = urlsplit(url).password
    return text.replace(secret, "***") if secret else text


def unreachable(url: str, exc: BaseException) -> SourceError:
    """The error a store raises when its server can't be reached (a degraded KB leg)."""
    detail = scrub(
        str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__, url
    )
    return SourceError(Reason.UNREACHABLE, f"KB store {describe(url)} is unreachable: {detail}")


def in_use(url: str, folder: Path, engine: str, server: str) -> SourceError:
    """The error of a local engine whose folder another process holds (one at a time)."""
    return SourceError(
        Reason.UNREACHABLE,
        f"KB store {describe(url)}: another process holds its folder {folder} ({engine} lets "
        "one process open it, e.g. `unifind serve`): search through that process (its HTTP "
        f"API or MCP server), or move the collection to a server (`unifind kb migrate NAME "
        f"--to {server}`)",
    )


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise InputError(
            f"invalid collection name {name!r}: use 1-64 letters, digits, '_', '-' or '.'"
        )
    return name


def check_dims(embedder: str | None, dim: int | None) -> None:
    if (embedder is None) != (dim is None) or (dim is not None and dim < 1):
        raise InputError("give both embedder and a positive dim, or neither (lexical only)")


def check_limit(limit: Any) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InputError(f"limit must be a non-negative integer, got {limit!r}")


def prepare(
    collection: str, dim: int | None, doc: DocumentIn, chunks: Sequence[ChunkIn]
) -> tuple[str, list[Any]]:
    """Validate a document before anything is written: ``(metadata JSON, prepared chunks)``.

    The same checks as the SQLite store (``_write``), so every store refuses the same input
    (a dimension mismatch, NaN vectors, bad terms) before writing, and normalises alike.
    """
    if not isinstance(doc.document_id, str) or not doc.document_id:
        raise InputError("document_id must be a non-empty string")
    meta = _write.to_json(doc.metadata, f"metadata of document {doc.document_id!r}")
    return meta, [_write._prepare(c, collection, dim) for c in chunks]


def unit_vector(blob: bytes | None) -> npt.NDArray[np.float32] | None:
    return None if blob is None else np.frombuffer(blob, dtype="<f4").astype(np.float32)


def query_vector(vector: Any, collection: str, dim: int) -> npt.NDArray[np.float32]:
    q = np.asarray(vector, dtype=np.float32)
    if q.shape != (dim,):
        raise InputError(
            f"query vector has shape {q.shape}, but collection {collection!r} has "
            f"{dim}-dimensional vectors: embed the query with the collection's embedder"
        )
    norm = float(np.linalg.norm(q))
    if not np.isfinite(norm):
        raise InputError("query vector has NaN or infinite values")
    return (q / norm if norm > 0 else q).astype(np.float32)


def matches(filters: Mapping[str, Any] | None, document_id: str, meta: Mapping[str, Any]) -> bool:
    """The contract's filter semantics in Python, JSON types kept (``True`` is not ``1``)."""
    for key, value in (filters or {}).items():
        wanted = _values(key, value)
        have: Any = document_id if key == "document_id" else meta.get(key, _MISSING)
        if key == "document_id":
            wanted = [str(v) for v in wanted]
        if have is _MISSING or not any(_same(have, w) for w in wanted):
            return False
    return True


_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    return type(a) is type(b) and bool(a == b)
