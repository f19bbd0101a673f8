"""Metadata filters → an SQL condition over ``documents d`` (bound parameters only).

``{"k": v}`` is equality, ``{"k": [v1, v2]}`` any-of, ``document_id`` filters by document.
Values are matched through ``json_each`` with their JSON type, so ``True`` never equals
``1`` and ``"1"`` never equals ``1``, and a key may contain any character (a JSON path
would need quoting rules SQLite doesn't document for every character). A key the
metadata doesn't have matches nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unifind.errors import InputError

_SCALARS = (str, int, float, bool, type(None))


def check_filters(filters: Mapping[str, Any] | None) -> None:
    """Raise ``InputError`` naming the filter whose key or value has the wrong type.

    The KB leg calls it before any stage runs, so a bad filter is bad input (an error),
    not a store failure (an ``unavailable`` result).
    """
    for key, value in (filters or {}).items():
        _values(key, value)


def _values(key: Any, value: Any) -> list[Any]:
    if not isinstance(key, str):
        raise InputError(f"filter keys are metadata names (str), got {key!r}")
    values = list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
    for v in values:
        if not isinstance(v, _SCALARS):
            raise InputError(
                f"filter {key!r}: values must be str, number, bool or None "
                f"(or a list of them for any-of), got {type(v).__name__}"
            )
    return values


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
            alternatives = " OR ".join(_match_value(v, value_params) for v in values)
            clauses.append(
                "EXISTS (SELECT 1 FROM json_each(d.metadata) AS j "
                f"WHERE j.key = ? AND ({alternatives}))"
            )
            params.append(key)
            params.extend(value_params)
    return (" AND ".join(clauses) or "1"), params


def _match_value(value: Any, params: list[Any]) -> str:
    # json_each's type column: https://sqlite.org/json1.html#jeach
    if value is None:
        return "j.type = 'null'"
    if isinstance(value, bool):
        return "j.type = 'true'" if value else "j.type = 'false'"
    if isinstance(value, int | float):
        params.append(value)
        return "(j.type IN ('integer', 'real') AND j.value = ?)"
    params.append(value)
    return "(j.type = 'text' AND j.value = ?)"
