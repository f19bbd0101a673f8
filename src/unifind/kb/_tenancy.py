"""Collection names: which are valid, and each tenant's own namespace (rules in kb.service).

A tenant's caller names its collections as everyone does (``docs``); they are stored as
``docs__<tag>``, the tag a digest of the tenant (every store takes only letters, digits,
``_ . -`` in a name; a tenant id may hold anything). So a tenant can create any valid
name, whatever other tenants hold, and nothing it is told depends on their collections:
one namespace across tenants would answer "taken" for another tenant's name and
"created" for a free one, a probe.

A valid name has no ``__``, so a stored name ending in ``__<tag>`` is the tenant's own;
only its callers are shown it without the suffix. The operator sees stored names (and
each one's owner tenant in its ACL).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from unifind.errors import InputError
from unifind.kb.base import CollectionInfo
from unifind.types import SearchResult

#: 1-64 ASCII letters, digits, ``.``, ``-``, ``_`` (what every store takes), a letter,
#: digit or ``_`` first (no ``.``/``..``, hidden or option-like name), no ``__`` (the
#: tenant separator); so no ``/``, space or control character either.
NAME_PATTERN: Final = r"(?!.*__)[A-Za-z0-9_][A-Za-z0-9_.\-]{0,63}"
_NAME = re.compile(NAME_PATTERN)
SEP: Final = "__"
_TAG_CHARS = 10
#: What a tenant's own names may hold: the stores' 64 less the separator and tag.
MAX_OWN = 64 - len(SEP) - _TAG_CHARS


def check_name(name: object) -> str:
    """``name`` if it is a valid new collection name, else InputError naming the pattern."""
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise InputError(
            f"collection name {name!r} is not valid: use 1-64 letters, digits, '.', '-' or "
            f"'_', not starting with '.' or '-', without '__' (pattern {NAME_PATTERN})",
            field="name",
        )
    return name


def own_name(name: str, tenant: str) -> str:
    """The stored name of tenant ``tenant``'s collection ``name``."""
    return f"{name}{SEP}{_tag(tenant)}"


def new_own_name(name: str, tenant: str) -> str:
    """:func:`own_name` for a collection to create: it must fit the stores' limit."""
    if len(name) > MAX_OWN:
        raise InputError(
            f"collection name {name!r} is too long: a tenant's collection names have at most "
            f"{MAX_OWN} characters",
            field="name",
        )
    return own_name(name, tenant)


def _tag(tenant: str) -> str:
    return hashlib.sha256(tenant.encode()).hexdigest()[:_TAG_CHARS]


def shown_name(stored: str, tenant: str | None) -> str:
    """The name ``tenant``'s callers know ``stored`` by."""
    base, sep, tag = stored.rpartition(SEP)
    return base if sep and base and tenant is not None and tag == _tag(tenant) else stored


def shadowed(infos: Iterable[CollectionInfo], tenant: str | None) -> list[CollectionInfo]:
    """``infos`` less any that a tenant's own collection of the same name hides."""
    infos = list(infos)
    if tenant is None:
        return infos
    stored = {c.name for c in infos}
    return [c for c in infos if SEP in c.name or own_name(c.name, tenant) not in stored]


def relabel(result: SearchResult, tenant: str | None) -> SearchResult:
    """A search's items, reports and graph findings with the names the tenant knows."""
    if tenant is None:
        return result
    seen = {r.backend for r in result.reports} | {i.collection or "" for i in result.items}
    names = {s: shown_name(s, tenant) for s in seen if SEP in s}
    names = {s: n for s, n in names.items() if s != n}
    if not names:
        return result
    text = _texts(names)
    items = tuple(
        i.model_copy(update={
            "collection": names.get(i.collection or "", i.collection),
            "matched": tuple(m.model_copy(update={"backend": text(m.backend)}) for m in i.matched),
        })
        for i in result.items
    )  # fmt: skip
    reports = tuple(
        r.model_copy(update={
            "backend": names.get(r.backend, r.backend),
            "error": _maybe(text, r.error), "note": _maybe(text, r.note),
        })
        for r in result.reports
    )  # fmt: skip
    found = {
        key: tuple({**d, "collection": names.get(d.get("collection", ""), d.get("collection"))}
                   for d in value)
        for key in ("entities", "graph_nodes")
        if (value := getattr(result, key)) is not None
    }  # fmt: skip
    return result.model_copy(update={"items": items, "reports": reports, **found})


def relabel_error(exc: InputError, tenant: str | None, stored: Iterable[str]) -> InputError:
    """``exc`` with the stored names it mentions as the tenant knows them."""
    names = {s: shown_name(s, tenant) for s in stored if SEP in s}
    if tenant is not None and any(s != n for s, n in names.items()):
        exc.args = tuple(_texts(names)(a) if isinstance(a, str) else a for a in exc.args)
    return exc


def _texts(names: dict[str, str]) -> Callable[[str], str]:
    # Longest first: "a@t" must not be replaced inside "a@tx" (another tenant's suffix).
    order = sorted(names, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(s) for s in order) + r"(?![\w.\-])")

    def text(value: str) -> str:
        return pattern.sub(lambda m: names[m.group(0)], value)

    return text


def _maybe(fn: Callable[[str], str], value: Any) -> Any:
    return fn(value) if isinstance(value, str) else value
