"""Why a DB query found nothing: each condition taken out in turn and counted (issue #18).

An empty answer can be right, or a condition can be wrong: the README's example typed in
double quotes, ``"cheapest laptops under $1000"``, reaches us as ``under 000`` (the shell
expanded ``$1``), compiles to ``price < 0`` and matches no row. Reported as a bare ``ok``
with nothing, that is a silent wrong answer. So when a row query comes back empty, the
leg counts again without each top-level condition in turn — ``COUNT(*)`` subqueries of
one statement, the permission predicate always kept — and says which condition left
nothing, and, when that condition matches no row on its own, the column's actual range
(the sign of a mangled or implausible number: ``price < 0`` where every price is positive).

Only AND-ed conditions are probed: taking one term out of an OR would narrow, not widen.
Aggregates are not probed either (a ``count`` of 0 is itself the answer). A query along
relations is probed the same way, each count being the whole joined query with one
condition taken out (``query=``, the leg compiles it, every model's permission kept); a
set operation in ``db._empty_sets``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from unifind.db.compile import compile_wheres
from unifind.db.dsl import FieldRef, SubQuery, Where
from unifind.db.models import Model

#: Most conditions probed one by one (each: the query counted without it, and with it alone).
MAX_PROBES = 6
_RANGE_OPS = (">", ">=", "<", "<=", "=", "between")
#: The derived table of one table's flags is bounded by this LIMIT (never reached: it only
#: keeps the database from inlining it).
MAX_ROWS = 2**62
#: Most alternatives (or columns) of an OR group a note lists; it says how many there are.
SHOWN = 3

#: Runs one SELECT and returns its rows (the leg's executor, with its timeout).
Fetch = Callable[[sa.Select[Any]], Awaitable[list[dict[str, Any]]]]
#: The rows the query keeps under these conditions, as a SELECT (a query along relations:
#: the leg compiles the whole joined query with them, every model's permission kept).
Query = Callable[[Sequence[Where]], sa.Select[Any]]


def and_terms(wheres: Sequence[Where]) -> list[Where] | None:
    """The conditions AND-ed at the top (AND-only groups opened up); None when OR joins them."""
    terms: list[Where] = []
    for w in wheres:
        if w.or_:
            return None
        inner = and_terms(w.wheres) if w.wheres is not None else None
        if inner is not None:
            terms.extend(inner)
        elif w.wheres is None or w.wheres:
            terms.append(w)
    return terms


async def why_empty(
    fetch: Fetch,
    model: Model,
    table: sa.TableClause,
    permission: ColumnElement[bool] | None,
    wheres: Sequence[Where],
    offset: int,
    *,
    query: Query | None = None,
) -> list[str]:
    """Notes saying what left the answer empty; [] when nothing can be said. ``query``
    replaces the one-table SELECT (a query along relations: :data:`Query`).

    Every count the notes may need is one scalar subquery of a single statement: one round
    trip, however many conditions (issue #19: each probe its own statement cost ~1 ms)."""
    terms = and_terms(wheres)
    probe = _Probe(table, permission, query)
    every, total = probe.count(wheres, exists=not offset), probe.count(())
    probed = (terms or [])[:MAX_PROBES]
    without = [probe.count(terms[:i] + terms[i + 1 :]) for i in range(len(probed))] if terms else []
    alone = [probe.count([t], exists=True) for t in probed] if terms and len(terms) > 1 else []
    spans = [_range_field(model, t) for t in probed]
    ranges = {f: probe.range(f) for f in dict.fromkeys(spans) if f is not None}
    got = await probe.run(fetch)
    who = f"{model.name} rows" + (" visible to this caller" if permission is not None else "")
    if got[every]:  # rows after all: past the offset, or written since the query ran
        return (
            [f"{got[every]} {model.name} row(s) match, all before offset {offset:,}"]
            if offset
            else []
        )
    if not got[total]:
        return [f"there are no {who}"]
    if terms is None or not terms:
        return [f"no {model.name} row matches the conditions; without them: {got[total]}"]
    notes: list[str] = []
    for i, term in enumerate(probed):
        rest = got[without[i]]
        if not rest:
            continue
        if alone and got[alone[i]]:
            # Rows have it, just none of those the other conditions keep: say exactly that,
            # not "no products with brand = Sony" when the shop sells Sony.
            notes.append(f"of the {rest} {model.name} row(s) meeting the other conditions, "
                         f"none has {describe(term)}")  # fmt: skip
            continue
        field = spans[i]
        span = _span(term, *(got[k] for k in ranges[field])) if field is not None else ""
        notes.append(f"no {model.name} with {describe(term)}{span}; "
                     f"without that condition: {rest}")  # fmt: skip
    if notes:
        return notes
    cut = "" if len(terms) <= MAX_PROBES else f" (the first {MAX_PROBES} probed)"
    return [f"no {model.name} row meets all {len(terms)} conditions together, and taking out "
            f"any one of them still leaves none{cut}; without any: {got[total]}"]  # fmt: skip


def _range_field(model: Model, term: Where) -> str | None:
    """The field whose actual range tells about ``term`` (a comparison on a number or a
    date of the queried model), else None."""
    if term.field is None or term.op not in _RANGE_OPS:
        return None
    col = model.columns.get(term.field)
    if col is None or col.type not in ("integer", "number", "date", "datetime"):
        return None
    return term.field


def _span(term: Where, low: Any, high: Any) -> str:
    """For a comparison outside the column's actual range (``price < 0`` where every price
    is positive: a mangled or implausible number), that range; else ""."""
    if low is None or high is None:
        return f" (every {term.field} is empty)"
    if not _outside(term, _key(low), _key(high)):
        return ""
    return f" ({term.field} runs from {_show(low)} to {_show(high)})"


def _outside(term: Where, low: Any, high: Any) -> bool:
    """No value in ``[low, high]`` can satisfy ``term``."""
    value = [_key(v) for v in term.value] if term.op == "between" else _key(term.value)
    try:
        match term.op:
            case "<":
                return bool(value <= low)
            case "<=":
                return bool(value < low)
            case ">":
                return bool(value >= high)
            case ">=":
                return bool(value > high)
            case "=":
                return bool(value < low or value > high)
            case "between":
                return bool(value[1] < low or value[0] > high)
    except TypeError:  # a dialect returned another type than the DSL holds: say nothing
        return False
    return False


def _key(value: Any) -> Any:
    # Rows come back with dates as ISO text (execute._plain); compare the DSL's the same way.
    return value.isoformat() if isinstance(value, dt.date | dt.datetime) else value


class _Probe:
    """The counts (and MIN/MAX) the notes may need, gathered in ONE statement, always under
    the permission predicate: :meth:`count` and :meth:`range` name a value, :meth:`run`
    fetches them all. On one table that is one scan that evaluates each condition once per
    row (a 0/1 flag in a derived table; its LIMIT keeps SQLite from inlining the flags back
    into every count) and counts the rows whose flags hold; along relations each value is a
    scalar subquery of the joined query, and a count only tested for rows is an ``EXISTS``,
    which stops at the first row. The same conditions asked twice are one value."""

    def __init__(
        self, table: sa.TableClause, permission: ColumnElement[bool] | None, query: Query | None
    ) -> None:
        self.table, self.permission, self._query = table, permission, query
        self._values: dict[str, Any] = {}  # name -> a column, or flag names / a field (one table)
        self._seen: dict[tuple[int, ...], str] = {}  # conditions (by identity) -> value
        self._flags: dict[tuple[int, ...], tuple[str, ColumnElement[bool]]] = {}

    def _add(self, value: Any) -> str:
        name = f"v{len(self._values)}"
        self._values[name] = value
        return name

    def _sub(self, stmt: sa.Select[Any]) -> ColumnElement[Any]:
        return stmt.correlate(None).scalar_subquery()

    def _flag(self, terms: Sequence[Where]) -> str:
        key = tuple(id(t) for t in terms)
        if key not in self._flags:
            cond = compile_wheres(terms, self.table)
            assert cond is not None
            self._flags[key] = (f"f{len(self._flags)}", cond)
        return self._flags[key][0]

    def count(self, terms: Sequence[Where], *, exists: bool = False) -> str:
        """The name of the rows' count under ``terms``; ``exists``: only whether there are
        any (an ``EXISTS`` along relations)."""
        key = tuple(id(t) for t in terms)
        if key in self._seen:
            return self._seen[key]
        if self._query is None:  # OR at the top: the conditions are one flag
            parts = [[t] for t in terms] if not any(t.or_ for t in terms) else [terms]
            value: Any = ("count", tuple(self._flag(p) for p in parts))
        elif exists:
            value = sa.exists(sa.select(1).select_from(self._query(terms).subquery()))
        else:
            value = self._sub(sa.select(sa.func.count()).select_from(self._query(terms).subquery()))
        self._seen[key] = self._add(value)
        return self._seen[key]

    def range(self, field: str) -> tuple[str, str]:
        """The names of ``field``'s MIN and MAX over the visible rows."""
        if self._query is None:
            return self._add(("min", field)), self._add(("max", field))
        col = self.table.c[field]
        low, high = (self._sub(self._visible(sa.select(fn(col))))
                     for fn in (sa.func.min, sa.func.max))  # fmt: skip
        return self._add(low), self._add(high)

    def _visible(self, stmt: sa.Select[Any]) -> sa.Select[Any]:
        stmt = stmt.select_from(self.table)
        return stmt if self.permission is None else stmt.where(self.permission)

    def _scan(self) -> sa.Select[Any]:
        """One table: the flags per visible row, then one aggregate over them."""
        fields = {v[1] for v in self._values.values() if v[0] in ("min", "max")}
        flags = [sa.case((cond, 1), else_=0).label(name) for name, cond in self._flags.values()]
        kept = [*flags, *(self.table.c[f] for f in fields)] or [sa.literal_column("1").label("one")]
        rows = self._visible(sa.select(*kept))
        r = rows.limit(MAX_ROWS).subquery("r")
        columns: list[Any] = []
        for name, (kind, arg) in self._values.items():
            value: Any
            if kind == "count":
                held = [r.c[f] == 1 for f in arg]
                value = sa.func.count(sa.case((sa.and_(*held), 1))) if held else sa.func.count()
            else:
                value = (sa.func.min if kind == "min" else sa.func.max)(r.c[arg])
            columns.append(value.label(name))
        stmt: sa.Select[Any] = sa.select(*columns).select_from(r)
        return stmt

    async def run(self, fetch: Fetch) -> dict[str, Any]:
        if self._query is None:
            stmt = self._scan()
        else:
            stmt = sa.select(*(v.label(k) for k, v in self._values.items()))
        row = (await fetch(stmt))[0]  # an aggregate, or no FROM: always one row
        counts = set(self._seen.values())
        return {k: int(v) if k in counts else v for k, v in row.items()}


def describe(term: Where) -> str:
    """A condition as a person reads it: ``price < 0``, ``category = laptop``."""
    if term.wheres is not None:
        return _group(term.wheres)
    if term.op in ("null", "notnull"):
        return f"{term.field} {'empty' if term.op == 'null' else 'set'}"
    if term.op == "between":
        low, high = term.value
        return f"{term.field} between {_show(low)} and {_show(high)}"
    if term.op in ("in", "notin"):
        word = "in" if term.op == "in" else "not in"
        if isinstance(term.value, SubQuery):
            return f"{term.field} {word} {_subquery(term.value)}"
        shown = ", ".join(_show(v) for v in term.value)
        return f"{term.field} {word} ({shown})"
    if term.op in ("like", "notlike"):
        text = str(term.value).strip("%")
        return f"{term.field} {'containing' if term.op == 'like' else 'without'} {text!r}"
    if isinstance(term.value, FieldRef):  # a field compared with another field
        return f"{term.field} {term.op} {term.value.field}"
    return f"{term.field} {term.op} {_show(term.value)}"


def _group(wheres: Sequence[Where]) -> str:
    """A group named once, however many alternatives: a text search over many columns is
    ``'x' in any of 11 columns (name, city, country, …)``; another group longer than
    :data:`SHOWN` alternatives gives their count and the first few."""
    runs: list[list[Where]] = []  # OR of AND-runs, as compile_wheres reads them
    for w in wheres:
        if not runs or w.or_:
            runs.append([])
        runs[-1].append(w)
    if not runs:
        return "(no condition)"
    first = runs[0][0]
    if len(runs) > 1 and all(len(r) == 1 and _same_search(r[0], first) for r in runs):
        text = str(first.value).strip("%")
        return f"{text!r} in any of {len(runs)} columns ({_first([r[0].field for r in runs])})"
    # AND binds tighter than OR: a run of several conditions is bracketed.
    shown = [" and ".join(describe(w) for w in r) for r in runs]
    shown = [f"({t})" if len(r) > 1 < len(runs) else t for r, t in zip(runs, shown, strict=True)]
    if len(runs) == 1:
        return f"({shown[0]})"
    if len(runs) <= SHOWN:
        return "a group of alternatives (" + " or ".join(shown) + ")"
    return f"any of {len(runs)} alternatives ({_first(shown)})"


def _same_search(term: Where, first: Where) -> bool:
    return term.field is not None and term.op == "like" == first.op and term.value == first.value


def _first(names: Sequence[str | None]) -> str:
    return ", ".join(map(str, names[:SHOWN])) + (", …" if len(names) > SHOWN else "")


def _subquery(value: SubQuery) -> str:
    """``the author_id values of books rows meeting its conditions``: what a person reads."""
    q = value.query
    shown = ", ".join(q.select) if q.select else "grouped"
    kept = " rows meeting its conditions" if q.wheres or q.havings else ""
    first = f" (its first {q.limit})" if q.limit else ""
    return f"the {shown} values of {q.model or 'the same model'}{kept}{first}"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.10g}" if abs(value) < 1e15 else f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return str(value)
