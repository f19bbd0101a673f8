"""Open the KB store a setting names: ``sqlite`` (default), a path, or a store URL.

``kb: {store: ...}`` in unifind.yaml (or ``--store`` / ``--to`` on the command line):

* ``sqlite`` → the embedded file under ``home``; ``sqlite:///abs/path.db`` → that file;
* ``postgresql://user:pass@host:5432/db`` (``?schema=unifind``) → PostgreSQL + pgvector;
* ``qdrant://./folder`` (local mode) or ``qdrant://host:6333`` (a server);
* ``milvus:///abs/folder`` (Milvus Lite in-process) or ``milvus://host:19530`` (a server);
* any other registered store name → that store, given ``home / "kb.<name>"``.

One store per knowledge base: collection names are one namespace per store and every
collection's ACL lives in that store, so a per-collection store would need a catalog
that is itself a store (not done: move whole knowledge bases with ``kb migrate``).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from unifind.errors import InputError
from unifind.kb._remote import SCHEMES, redact
from unifind.kb.base import KBStore
from unifind.registry import registry

__all__ = ["describe", "open_store", "redact"]

_NEEDS_URL = {"postgres": "postgresql://user@host/db"}


def open_store(spec: str, home: Path) -> KBStore:
    """The store ``spec`` names; servers are connected to lazily (first use)."""
    if "://" not in spec:
        if spec in _NEEDS_URL:
            raise InputError(f"the {spec} KB store needs a URL: kb.store: {_NEEDS_URL[spec]}")
        cls = registry("kb_stores").get(spec)
        if spec in ("qdrant", "milvus"):
            return cls(f"{spec}://{home / spec}")  # type: ignore[no-any-return]
        path = home / ("kb.sqlite" if spec == "sqlite" else f"kb.{spec}")
        return cls(path)  # type: ignore[no-any-return]
    scheme = urlsplit(spec).scheme.split("+")[0].lower()
    if scheme not in SCHEMES:
        raise InputError(
            f"unknown KB store URL scheme {scheme!r} in {redact(spec)}; valid: "
            + ", ".join(sorted(SCHEMES))
        )
    name = SCHEMES[scheme]
    cls = registry("kb_stores").get(name)
    if name == "sqlite":
        return cls(Path(urlsplit(spec).path))  # type: ignore[no-any-return]
    if name in ("qdrant", "milvus"):
        return cls(spec, home=home)  # type: ignore[no-any-return]
    return cls(spec)  # type: ignore[no-any-return]


def describe(spec: str) -> str:
    """The store spec as it may be shown: a URL without its password."""
    return redact(spec) if "://" in spec else spec
