"""What a file's document is called where callers see it, and which documents a folder holds.

A file's document id is its resolved absolute path: stable across runs, unique across
folders, and what re-ingest, ``--sync`` and ``kb rm /abs/path`` key on (collections built
before this module keep working unchanged). That path says where the server keeps its
files, so callers see a name relative to what was ingested instead — ``handbook/refunds.md``
for the folder ``/home/me/handbook``, ``refunds.md`` for the file named alone — recorded as
the document's ``source`` and shown in its place by :func:`shown_id`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from unifind.errors import InputError
from unifind.kb._files import FileOutcome
from unifind.kb.base import DocumentInfo, KBStore

__all__ = [
    "Located", "find_shown", "locate", "resolve_filters", "shown_id", "shown_metadata", "stale",
    "sync_removed",
]  # fmt: skip

_PAGE = 500  # documents per list_documents call while scanning a collection


def shown_id(document_id: str, source: str) -> str:
    """The id callers see: a file's relative name in place of the server's absolute path.

    Only a file's absolute-path id is replaced: by its recorded relative source, or, for a
    file ingested before sources were relative (source and id the same path), by its file
    name until it is ingested again. URLs, uploads and raw text show their id as it is.
    """
    if not source or not os.path.isabs(document_id):
        return document_id
    if not os.path.isabs(source):
        return source
    return Path(document_id).name if source == document_id else document_id


def shown_metadata(document_id: str, source: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` with its ``source`` and ``path`` shown as :func:`shown_id` shows the id
    (a file ingested before #18 recorded its absolute path in both)."""
    shown = shown_id(document_id, source)
    if shown == document_id:
        return dict(metadata)
    return {k: shown if k in ("source", "path") and v == document_id else v
            for k, v in metadata.items()}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Located:
    """The files to ingest, each with the name callers see, and the folders they came from."""

    files: list[Path]
    names: dict[Path, str] = field(default_factory=dict)
    roots: list[Path] = field(default_factory=list)
    """The folders given, resolved: ``--sync`` removes what they no longer hold."""
    left_out: frozenset[Path] = frozenset()
    """Files inside the folders left out by ``include``/``exclude``."""

    @property
    def excluded(self) -> int:
        return len(self.left_out)


def locate(
    given: Iterable[str | os.PathLike[str]],
    files: Sequence[Path],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> Located:
    """Name each expanded file relative to the folder it was found in (or by its own name
    when it was named alone), keeping only those the globs select inside folders.

    A glob matches a file's name or its path below the folder (``*.md``, ``guides/**``);
    files named alone are kept as named.
    """
    paths = [Path(p).expanduser() for p in given]
    roots = list(dict.fromkeys(p.resolve() for p in paths if p.is_dir()))
    named = {p.resolve() for p in paths if not p.is_dir()}
    kept: list[Path] = []
    names: dict[Path, str] = {}
    left_out: set[Path] = set()
    for f in files:
        root = None if f in named else next((r for r in roots if f.is_relative_to(r)), None)
        if root is None:
            names[f] = f.name
        else:
            rel = f.relative_to(root).as_posix()
            if (include and not _hit(rel, include)) or _hit(rel, exclude):
                left_out.add(f)
                continue
            # A folder at "/" has no name: its files are named by their path below it.
            names[f] = f"{root.name}/{rel}" if root.name else rel
        kept.append(f)
    return Located(kept, names, roots, frozenset(left_out))


def _hit(rel: str, globs: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatchcase(rel, g) or fnmatchcase(name, g) for g in globs)


def _documents(store: KBStore, collection: str) -> Iterator[DocumentInfo]:
    offset = 0
    while True:
        page = store.list_documents(collection, limit=_PAGE, offset=offset)
        yield from page
        if len(page) < _PAGE:
            return
        offset += _PAGE


def stale(
    store: KBStore,
    collection: str,
    located: Located,
    keep_under: Sequence[Path] = (),
) -> list[DocumentInfo]:
    """The documents of files once ingested from inside ``located.roots`` whose file is
    gone, or that the globs now leave out.

    A file's document is known by its absolute-path id and a recorded source; URLs, raw
    text (no source) and uploads never match. A file that is still there but was not
    read this time (hidden, of a type no longer read, once named alone) keeps its
    document, and so does anything under ``keep_under`` (a sub-folder that could not be
    listed: its files were not looked at).
    """
    seen = {str(f) for f in located.files}
    out = []
    for doc in _documents(store, collection):
        if not doc.source or not os.path.isabs(doc.document_id) or doc.document_id in seen:
            continue
        path = Path(doc.document_id)
        inside = any(path.is_relative_to(r) for r in located.roots)
        if not inside or any(path.is_relative_to(k) for k in keep_under):
            continue
        if path in located.left_out or not path.exists():
            out.append(doc)
    return out


def sync_removed(
    store: KBStore, collection: str, located: Located, outcomes: Sequence[FileOutcome]
) -> tuple[str, ...]:
    """Remove the documents the given folders no longer hold; their shown names.

    Every file found this time is kept, a failed one included: its last good version
    stays searchable rather than vanishing because one read went wrong.
    """
    unlisted = [Path(os.path.realpath(o.path)) for o in outcomes if o.reason == "unreadable"]
    gone = stale(store, collection, located, unlisted)
    return tuple(
        shown_id(d.document_id, d.source)
        for d in gone
        if store.delete_document(collection, d.document_id)
    )


def find_shown(store: KBStore, collection: str, name: str) -> str | None:
    """The id of the one document shown as ``name`` (see :func:`shown_id`), or None.

    Raises when two documents are shown under the same name (two folders of one name were
    ingested); their absolute paths are not listed, as callers are never shown them.
    """
    found = [
        d.document_id
        for d in _documents(store, collection)
        if d.document_id != name and shown_id(d.document_id, d.source) == name
    ]
    if len(found) > 1:
        raise InputError(
            f"{len(found)} documents in {collection!r} are shown as {name!r} (folders of "
            "the same name were ingested): remove the one meant by its absolute path"
        )
    return found[0] if found else None


def resolve_filters(
    store: KBStore, collection: str, filters: Mapping[str, Any] | None
) -> Mapping[str, Any] | None:
    """``filters`` whose ``document_id`` values match what callers were shown as well.

    A caller filters by the ``document_id`` a result gave it (``handbook/refunds.md``); the
    store keeps the file's absolute path. Only a value that is no stored id costs a scan
    of the collection's documents, to find the ids shown by that name.
    """
    if not filters or "document_id" not in filters:
        return filters
    raw = filters["document_id"]
    values = list(raw) if isinstance(raw, list | tuple | set | frozenset) else [raw]
    names = {v for v in values if isinstance(v, str) and store.document_hash(collection, v) is None}
    if not names:
        return filters
    extra = [
        d.document_id
        for d in _documents(store, collection)
        if d.document_id not in names and shown_id(d.document_id, d.source) in names
    ]
    return {**filters, "document_id": [*values, *extra]} if extra else filters
