"""Metadata filters → an SQL condition over ``documents d`` (bound parameters only).

``{"k": v}`` is equality, ``{"k": [v1, v2]}`` any-of, ``document_id`` filters by document.
Values are matched through ``json_each`` with their JSON type, so ``True`` never equals
``1`` and ``"1"`` never equals ``1``, and a key may contain any character (a JSON path
would need quoting rules SQLite doesn't document for every character). A key the
metadata doesn't have matches nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from unifind.errors import InputError

_SCALARS = (str, int, float, bool, type(None))
#: Every store compares integers as signed 64-bit (SQLite, PostgreSQL's jsonb casts, the
#: sidecars): a larger one raised OverflowError in each stage (an ``unavailable`` leg).
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1
#: Longer values are no metadata a person filters on (a pasted document?); refused before
#: they reach SQL text limits.
MAX_CHARS = 4096
#: Values per any-of list: SQLite binds each as a parameter (its limit is 32766).
MAX_VALUES = 1000
_FIELD = "sources.kb.filters"  # where the filters are in an HTTP search request


def check_filters(filters: Mapping[str, Any] | None) -> None:
    """Raise ``InputError`` naming the filter whose key or value has the wrong type.

    The KB leg calls it before any stage runs, so a bad filter is bad input (an error),
    not a store failure (an ``unavailable`` result).
    """
    for key, value in (filters or {}).items():
        _values(key, value)


def _values(key: Any, value: Any) -> list[Any]:
    if not isinstance(key, str):
        raise InputError(f"filter keys are metadata names (str), got {key!r}", field=_FIELD)
    values = list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
    if len(values) > MAX_VALUES:
        raise InputError(
            f"filter {key!r}: at most {MAX_VALUES} values in an any-of list, got {len(values)}",
            field=_FIELD,
        )
    for v in values:
        if (problem := _problem(v)) is not None:
            raise InputError(f"filter {key!r}: {problem}", field=_FIELD)
    return values


def _problem(v: Any) -> str | None:
    """Why ``v`` can't be a filter value (no store could compare it), or None."""
    if not isinstance(v, _SCALARS):
        return (
            "values must be str, number, bool or None "
            f"(or a list of them for any-of), got {type(v).__name__}"
        )
    if isinstance(v, int) and not isinstance(v, bool) and not _INT_MIN <= v <= _INT_MAX:
        return f"integers must fit in 64 bits ({_INT_MIN} to {_INT_MAX}), got {v}"
    if isinstance(v, float) and not math.isfinite(v):
        return f"numbers must be finite, got {v}"  # metadata is JSON: it never holds NaN
    if isinstance(v, str) and len(v) > MAX_CHARS:
        return f"strings may have at most {MAX_CHARS} characters, got {len(v)}"
    return None


def filter_sql(filters: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """``(condition, params)``; the condition is ``1`` when there are no filters."""
    clauses: list[str] = []
    params: list[Any] = []
    for key, value in filters.items():
        values = _values(key, value)
        if not values:
            clauses.append("0")  # any-of an empty list matches nothing
        elif key == "document_id":
            clauses.append(f"d.document_id IN ({', '.join('?' * len(values))})")
            params.extend(str(v) for v in values)
        else:
            value_params: list[Any] = []
            alternatives = _alternatives(values, value_params)
            clauses.append(
                "EXISTS (SELECT 1 FROM json_each(d.metadata) AS j "
                f"WHERE j.key = ? AND ({alternatives}))"
            )
            params.append(key)
            params.extend(value_params)
    return (" AND ".join(clauses) or "1"), params


def _alternatives(values: list[Any], params: list[Any]) -> str:
    """One test per JSON type, each type's values in one ``IN`` list: SQLite refuses an
    ``OR`` chain deeper than 1000 ("Expression tree is too large"), an ``IN`` list is flat."""
    # json_each's type column: https://sqlite.org/json1.html#jeach
    tests = [f"j.type = '{t}'" for t, v in (("null", None), ("true", True), ("false", False))
             if any(x is v for x in values)]  # fmt: skip
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    texts = [v for v in values if isinstance(v, str)]
    for types, group in (("'integer', 'real'", numbers), ("'text'", texts)):
        if group:
            tests.append(f"(j.type IN ({types}) AND j.value IN ({', '.join('?' * len(group))}))")
            params.extend(group)
    return " OR ".join(tests)
