"""Open the KB store a setting names: ``sqlite`` (default), a path, or a store URL.

``kb: {store: ...}`` in unifind.yaml (or ``--store`` / ``--to`` on the command line):

* ``sqlite`` → the embedded file under ``home``; ``sqlite:///abs/path.db`` or a plain path
  (``./team.db``, ``/data/kb.sqlite``) → that file;
* ``postgresql://user@host:5432/db`` (``?schema=unifind``) → PostgreSQL + pgvector;
* ``qdrant://./folder`` (local mode) or ``qdrant://host:6333`` (a server);
* ``milvus:///abs/folder`` (Milvus Lite in-process) or ``milvus://host:19530`` (a server);
* any other registered store name → that store, given ``home / "kb.<name>"``.

The configured store is the knowledge base's *catalog*: collections live there unless one
is placed elsewhere (``unifind kb create NAME --store SPEC``, ``kb migrate NAME --to SPEC``);
``unifind.kb.routing`` records where in the configured store and routes each collection's
calls to its store. Names stay one namespace across stores. A password in a URL is kept as
given (the catalog needs it to reconnect) and shown nowhere: :func:`describe` redacts it;
prefer the engine's own variable (``PGPASSWORD``) so that none is stored.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from unifind.errors import InputError
from unifind.kb._remote import SCHEMES, describe, redact
from unifind.kb.base import KBStore
from unifind.registry import registry

__all__ = ["canonical", "describe", "open_store", "redact"]

_NEEDS_URL = {"postgres": "postgresql://user@host/db"}
_FOLDER_NAMES = ("qdrant", "milvus")  # a bare name opens a folder under home


def open_store(spec: str, home: Path) -> KBStore:
    """The store ``spec`` names; servers are connected to lazily (first use)."""
    if "://" not in spec and _is_path(spec):
        spec = f"sqlite://{Path(spec).expanduser()}"
    if "://" not in spec:
        if spec in _NEEDS_URL:
            raise InputError(f"the {spec} KB store needs a URL: kb.store: {_NEEDS_URL[spec]}")
        cls = registry("kb_stores").get(spec)
        if spec in _FOLDER_NAMES:
            return cls(f"{spec}://{home / spec}")  # type: ignore[no-any-return]
        path = home / ("kb.sqlite" if spec == "sqlite" else f"kb.{spec}")
        return cls(path)  # type: ignore[no-any-return]
    parts = urlsplit(spec)
    scheme = parts.scheme.split("+")[0].lower()
    if scheme not in SCHEMES:
        raise InputError(
            f"unknown KB store URL scheme {scheme!r} in {redact(spec)}; valid: "
            + ", ".join(sorted(SCHEMES))
        )
    name = SCHEMES[scheme]
    cls = registry("kb_stores").get(name)
    if name == "sqlite":  # sqlite:///abs.db, or sqlite://./rel.db relative to this folder
        return cls(Path(parts.netloc + parts.path).expanduser())  # type: ignore[no-any-return]
    if name in _FOLDER_NAMES:
        return cls(spec, home=home)  # type: ignore[no-any-return]
    return cls(spec)  # type: ignore[no-any-return]


def canonical(spec: str, home: Path) -> str:
    """The spec as a catalog records it: one spelling per store, local paths absolute.

    A catalog entry is read later from another folder (a server, a cron job), so
    ``qdrant://./q`` must not mean another folder there; and ``sqlite`` and the URL of the
    same file must compare equal.
    """
    if "://" not in spec:
        if _is_path(spec):
            return f"sqlite://{Path(spec).expanduser().resolve()}"
        if spec == "sqlite":
            return f"sqlite://{(home / 'kb.sqlite').resolve()}"
        if spec in _FOLDER_NAMES:
            return f"{spec}://{(home / spec).resolve()}"
        return spec
    parts = urlsplit(spec)
    scheme = parts.scheme.lower()
    local = scheme == "sqlite" or (scheme in _FOLDER_NAMES and ":" not in parts.netloc)
    if not local or "@" in parts.netloc:
        return spec
    folder = Path(parts.netloc + parts.path).expanduser().resolve()
    return f"{scheme}://{folder}" + (f"?{parts.query}" if parts.query else "")


def _is_path(spec: str) -> bool:
    """A plain path rather than a store name: registered names have no slash or suffix."""
    return "/" in spec or spec.startswith((".", "~")) or spec.endswith((".db", ".sqlite"))
