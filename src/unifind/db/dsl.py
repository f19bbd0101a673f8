"""QueryDSL: the typed JSON a question becomes before any SQL exists (DESIGN §7).

The shape follows the seeds' gou QueryDSL (``select``, ``wheres`` with ``field, op, value,
or, wheres``, ``orders`` with ``field, sort``, ``limit``, ``offset``). A list of wheres reads
like SQL without parentheses: ``or: true`` joins a condition to the one before it with OR,
and AND binds tighter, so ``[a, b, {or: c}]`` means ``(a AND b) OR c``. A where with nested
``wheres`` is a parenthesised group. ``notlike`` is our one addition, for negated keywords.

Joins (issue #19, :mod:`unifind.db.joins`): a dotted field ``customers.country`` follows a
relation, a ``joins`` list adds relations or gou-style ``from/key/foreign`` joins. ``distinct``
drops duplicate rows, an aggregate's ``distinct`` counts distinct values, and a where's
value may be an aggregate of a column (:class:`SubAggregate`, with its own ``wheres``):
"older than the average". ``in``/``notin`` take a subquery (:class:`SubQuery`), and
``compound`` is a set operation with one more query (:class:`Compound`); a where's value
``{"field": ...}`` is another field of the query (:class:`FieldRef`: "checking balance
above the savings balance").

:func:`validate_dsl` checks a DSL against a :class:`~unifind.db.models.Model` and coerces
values to the column types; everything it rejects raises InputError naming what is allowed.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from unifind._fielddocs import describe_fields
from unifind.db.joins import MAX_JOINS, Join, Scope
from unifind.db.models import Column, Model
from unifind.errors import InputError

Op = Literal[
    "=", "!=", ">", ">=", "<", "<=", "like", "notlike", "in", "notin", "null", "notnull",
    "between",
]  # fmt: skip
OPS: tuple[str, ...] = get_args(Op)

#: gou's spelled-out operator names, accepted on input and normalised.
OP_ALIASES = {"eq": "=", "ne": "!=", "neq": "!=", "gt": ">", "ge": ">=", "gte": ">=", "lt": "<",
              "le": "<=", "lte": "<=", "match": "like", "<>": "!=", "==": "="}  # fmt: skip

#: Most values an ``in`` list may carry: bound parameters are cheap, unbounded lists are not.
MAX_IN_VALUES = 1000
MAX_NESTING = 8

_NUMERIC = {"integer", "number"}
_ORDERED = _NUMERIC | {"date", "datetime", "string"}


class _DSL(BaseModel):
    # Attribute docstrings become descriptions in the JSON Schema a host LLM reads.
    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, json_schema_extra=describe_fields
    )


class Where(_DSL):
    """One condition, or a parenthesised group of them (``wheres``)."""

    field: str | None = None
    """A column of the model, or ``relation.column`` along a relation."""
    op: Op = "="
    value: Any = None
    """A value of the column's type; a list for in/notin, [low, high] for between; a
    sub-aggregate ``{"agg": "avg", "field": "age"}`` to compare with; or another field of
    the query, ``{"field": "savings.balance"}``."""
    or_: bool = Field(default=False, alias="or")
    """Join to the previous condition with OR instead of AND."""
    wheres: tuple[Where, ...] | None = None


class Order(_DSL):
    """One sort key."""

    field: str
    sort: Literal["asc", "desc"] = "asc"


Fn = Literal["count", "avg", "sum", "min", "max"]


class Aggregate(_DSL):
    """One aggregate column: ``{"fn": "avg", "field": "price"}``; ``count`` may omit ``field``."""

    fn: Fn
    field: str | None = None
    distinct: bool = False
    """Over distinct values only (``count distinct``)."""
    as_: str | None = Field(default=None, alias="as")
    """The result column's name; ``<fn>_<field>`` (or ``count``) when omitted."""

    @property
    def name(self) -> str:
        if self.as_:
            return self.as_
        fn = f"{self.fn}_distinct" if self.distinct else self.fn
        return f"{fn}_{self.field.replace('.', '_')}" if self.field else fn


class SubAggregate(_DSL):
    """A where's value computed from the rows: ``{"agg": "avg", "field": "age"}`` compares
    with the average age of every row the caller may see ("older than the average")."""

    agg: Fn
    field: str | None = None
    """``count`` may omit it; a dotted field aggregates over that model's visible rows."""
    wheres: tuple[Where, ...] = ()
    """Only rows meeting these conditions (fields of the aggregated model): "more than the
    highest salary in Biology"."""


class QueryDSL(_DSL):
    """A read query over one model. No part of it is SQL text."""

    model: str | None = None
    select: tuple[str, ...] | None = None
    """Columns to return; all declared columns when omitted."""
    joins: tuple[Join, ...] = ()
    """Explicit joins (dotted fields join along relations without one)."""
    distinct: bool = False
    """Distinct rows of ``select`` (no record id is added)."""
    wheres: tuple[Where, ...] = ()
    aggregates: tuple[Aggregate, ...] = ()
    """With aggregates the rows are groups: ``groups`` columns, then each aggregate."""
    groups: tuple[str, ...] = ()
    havings: tuple[Where, ...] = ()
    """Conditions on aggregate names (``{"field": "count", "op": ">", "value": 5}``)."""
    orders: tuple[Order, ...] = ()
    limit: int | None = Field(default=None, ge=1)
    offset: int | None = Field(default=None, ge=0)
    compound: tuple[Compound, ...] = ()
    """A set operation with one more query: ``[{"op": "intersect", "query": {...}}]``."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with ``or`` spelled as in the wire format."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)


class Compound(_DSL):
    """``union``, ``intersect`` or ``except`` with another query over any declared model
    ("names of authors from Norway and of members in Oslo"). Both queries return the same
    number of fields (a ``select``, or groups and aggregates) and the result is the set of
    distinct rows; the first query's ``orders``, ``limit`` and ``offset`` apply to it, the
    second takes none. Each reads only rows its model lets the caller see."""

    op: Literal["union", "intersect", "except"]
    query: QueryDSL


QueryDSL.model_rebuild()


class SubQuery(_DSL):
    """A where's value for ``in``/``notin``: the values one field takes in the rows of
    another query, ``{"query": {"model": "books", "select": ["author_id"], "wheres": [...]}}``
    ("authors who wrote a book after 2000"; ``notin``: "... who never did"). The query
    returns one field: ``select`` of one field, or one group with aggregates and havings
    ("customers with more than 2 orders"). It reads only rows its model lets the caller
    see. With ``orders`` and a ``limit`` it is the first rows only ("students of the
    largest major": the major of the group with the highest count, limit 1)."""

    query: QueryDSL


class FieldRef(_DSL):
    """A where's value that is another field of the same query, ``{"field": "t.balance"}``:
    "accounts whose checking balance is above their savings balance". Compared with
    ``=``, ``!=``, ``>``, ``>=``, ``<``, ``<=``; numbers with numbers, text with text."""

    field: str


def dsl_json_schema() -> dict[str, Any]:
    """The QueryDSL's JSON Schema (wire names: ``or``, ``as``, ``from``) for a host LLM."""
    schema = QueryDSL.model_json_schema(by_alias=True)
    if "$ref" in schema:  # recursive through compound: the root itself, not a reference
        defs = schema["$defs"]
        schema = {**defs.pop(schema["$ref"].rsplit("/", 1)[1]), "$defs": defs}
        schema = _root_refs(schema, "#/$defs/QueryDSL")
    defs = schema.setdefault("$defs", {})
    sub = SubAggregate.model_json_schema(by_alias=True)
    sub.pop("$defs", None)  # its Where is the root's
    defs["SubAggregate"] = sub
    defs["SubQuery"] = {
        "type": "object",
        "description": SubQuery.__doc__.split("\n\n")[0].replace("\n", " ") if SubQuery.__doc__
        else "",
        "properties": {"query": {"$ref": "#"}},
        "required": ["query"],
        "additionalProperties": False,
    }  # fmt: skip
    value = defs["Where"]["properties"]["value"]
    ref = FieldRef.model_json_schema(by_alias=True)
    defs["FieldRef"] = ref
    value["anyOf"] = [
        {"type": ["string", "number", "integer", "boolean", "null"]},
        {"type": "array", "maxItems": MAX_IN_VALUES},
        {"$ref": "#/$defs/SubAggregate"},
        {"$ref": "#/$defs/SubQuery"},
        {"$ref": "#/$defs/FieldRef"},
    ]
    return schema


def _root_refs(node: Any, ref: str) -> Any:
    """``node`` with every ``{"$ref": ref}`` pointing at the root (``#``) instead."""
    if isinstance(node, dict):
        return {
            k: ("#" if k == "$ref" and v == ref else _root_refs(v, ref)) for k, v in node.items()
        }
    if isinstance(node, list):
        return [_root_refs(v, ref) for v in node]
    return node


#: Largest magnitude of an integer value: beyond 64 bits no database compares it exactly.
MAX_INT = 2**63 - 1


def parse_dsl(data: dict[str, Any] | QueryDSL) -> QueryDSL:
    """Parse a DSL dict (normalising gou operator names); malformed input raises InputError."""
    if isinstance(data, QueryDSL):
        return data
    if not isinstance(data, dict):
        raise InputError(f"a QueryDSL must be a JSON object, got {type(data).__name__}")
    joins = data.get("joins")
    if isinstance(joins, list | tuple) and len(joins) > MAX_JOINS:
        raise InputError(f"a QueryDSL joins at most {MAX_JOINS} tables; got {len(joins)} joins")
    _check_shape(data, 0, "dsl")
    try:
        return QueryDSL.model_validate(_normalise(data))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'dsl'}: {e['msg']}" for e in exc.errors()
        )
        raise InputError(
            f"malformed QueryDSL: {problems}. Keys: model, select, distinct, joins (relation "
            f"or from, key, foreign; as, left), wheres (field, op, value, or, wheres), "
            f"aggregates (fn, field, distinct, as), groups, havings, orders (field, sort), "
            f"limit, offset, compound (op: union|intersect|except, query); "
            f"ops: {' '.join(OPS)}; fns: {' '.join(get_args(Fn))}"
        ) from exc


def _check_shape(node: Any, depth: int, path: str) -> None:
    """Refuse deep nesting and huge integers before parsing (RecursionError, OverflowError)."""
    if depth > 2 * MAX_NESTING + 4:
        raise InputError(f"QueryDSL nested deeper than {MAX_NESTING} levels of wheres")
    if isinstance(node, dict):
        for k, v in node.items():
            _check_shape(v, depth + 1, f"{path}.{k}")
    elif isinstance(node, list | tuple):
        for i, v in enumerate(node):
            _check_shape(v, depth + 1, f"{path}[{i}]")
    elif isinstance(node, int) and not isinstance(node, bool) and abs(node) > MAX_INT:
        raise InputError(f"{path}: integer {str(node)[:20]}... is out of range: "
                         f"give -{MAX_INT} to {MAX_INT} (64 bits)")  # fmt: skip
    elif isinstance(node, float) and (node != node or abs(node) == float("inf")):
        raise InputError("QueryDSL numbers must be finite")


def _normalise(node: Any) -> Any:
    if isinstance(node, list):
        return [_normalise(n) for n in node]
    if not isinstance(node, dict):
        return node
    nested = ("wheres", "orders", "havings")
    out = {k: _normalise(v) if k in nested else v for k, v in node.items()}
    if isinstance(out.get("op"), str):
        op = out["op"].strip().lower()
        out["op"] = OP_ALIASES.get(op, op)
    if isinstance(out.get("sort"), str):
        out["sort"] = out["sort"].strip().lower()
    return out


def validate_dsl(
    dsl: QueryDSL | dict[str, Any], model: Model, models: Mapping[str, Model] | None = None
) -> QueryDSL:
    """Check every name against ``model`` (and, for joins, the other ``models``) and coerce
    values; raises InputError listing what is allowed."""
    dsl = parse_dsl(dsl)
    if dsl.model is not None and dsl.model != model.name:
        raise InputError(f"this QueryDSL targets model {dsl.model!r}, not {model.name!r}")
    scope = Scope.of(model, models, dsl.joins)
    for name in dsl.select or ():
        scope.resolve(name, "select")
    wheres = tuple(_check_where(w, scope, 1) for w in dsl.wheres)
    names = _check_aggregates(dsl, scope)
    if dsl.compound:
        return _check_compound(dsl, scope, names, wheres)
    for order in dsl.orders:
        if order.field not in names:
            scope.resolve(order.field, "orders")
    return dsl.model_copy(update={"wheres": wheres, "model": model.name})


def _width(dsl: QueryDSL, where: str) -> list[str]:
    """The fields a query of a set operation returns (it must name them)."""
    if dsl.aggregates:
        return [*dsl.groups, *(a.name for a in dsl.aggregates)]
    if not dsl.select:
        raise InputError(f"{where} of a set operation names its fields: give select")
    return list(dsl.select)


def _check_compound(
    dsl: QueryDSL, scope: Scope, names: set[str], wheres: tuple[Where, ...]
) -> QueryDSL:
    if len(dsl.compound) > 1:
        raise InputError("a QueryDSL has at most one set operation (compound)")
    part = dsl.compound[0]
    other = scope.models.get(part.query.model or "")
    if other is None:
        raise InputError(f"the query of a {part.op} names its model; "
                         f"models: {', '.join(scope.models)}")  # fmt: skip
    if part.query.orders or part.query.limit is not None or part.query.offset is not None:
        raise InputError(f"the query of a {part.op} takes no orders, limit or offset: give "
                         "them on the first query")  # fmt: skip
    if part.query.compound:
        raise InputError("set operations do not nest")
    query = validate_dsl(part.query, other, scope.models)
    first, second = _width(dsl, "the first query"), _width(query, f"the query of {part.op}")
    if len(first) != len(second):
        raise InputError(f"both queries of a {part.op} return as many fields: "
                         f"{len(first)} ({', '.join(first)}) and {len(second)}")  # fmt: skip
    for order in dsl.orders:
        if order.field not in first:
            raise InputError(f"a set operation is ordered by its fields: {', '.join(first)}")
    compound = (part.model_copy(update={"query": query}),)
    return dsl.model_copy(update={"wheres": wheres, "model": scope.model.name,
                                  "compound": compound})  # fmt: skip


def _check_aggregates(dsl: QueryDSL, scope: Scope) -> set[str]:
    """Aggregate result names (orders and havings may use them); checks fields and types."""
    if not dsl.aggregates:
        if dsl.groups or dsl.havings:
            raise InputError("groups and havings need at least one aggregate (fn: count...)")
        return set()
    names: set[str] = set(dsl.groups)
    for g in dsl.groups:
        scope.resolve(g, "groups")
    for agg in dsl.aggregates:
        _check_fn(agg.fn, agg.field, scope, "aggregates")
        if agg.distinct and agg.field is None:
            raise InputError("a distinct aggregate needs a field (count distinct <field>)")
        names.add(agg.name)
    for h in dsl.havings:
        if h.field not in names - set(dsl.groups) or h.op not in ("=", "!=", ">", ">=", "<", "<="):
            raise InputError(
                f"a having compares an aggregate ({', '.join(sorted(names - set(dsl.groups)))}) "
                "with =, !=, >, >=, < or <="
            )
        if isinstance(h.value, bool) or not isinstance(h.value, int | float):
            raise InputError(f"having {h.field} needs a number, got {h.value!r}")
    return names


def _check_fn(fn: str, name: str | None, scope: Scope, where: str) -> Column | None:
    """The column an aggregate reads (None for ``count``), checked for its function."""
    if name is None:
        if fn != "count":
            raise InputError(f"aggregate {fn} needs a field")
        return None
    col = scope.resolve(name, where).column
    if fn in ("avg", "sum") and col.type not in _NUMERIC:
        raise InputError(f"{fn} needs a numeric field; {name} is not")
    return col


def _check_where(w: Where, scope: Scope, depth: int) -> Where:
    if depth > MAX_NESTING:
        raise InputError(f"wheres nested deeper than {MAX_NESTING} levels")
    if w.wheres is not None:
        if w.field is not None:
            raise InputError("a where has either a field or nested wheres, not both")
        return w.model_copy(
            update={"wheres": tuple(_check_where(x, scope, depth + 1) for x in w.wheres)}
        )
    if w.field is None:
        raise InputError("a where needs a field (or nested wheres)")
    ref = scope.resolve(w.field, "wheres")
    if isinstance(w.value, FieldRef) or (isinstance(w.value, dict) and set(w.value) == {"field"}):
        return w.model_copy(update={"value": _check_ref(w.op, w.value, ref.column, scope)})
    if w.op in ("in", "notin") and isinstance(w.value, dict | SubQuery):
        return w.model_copy(update={"value": _check_subquery(w.value, ref.column, scope)})
    if isinstance(w.value, dict | SubAggregate):
        return w.model_copy(update={"value": _check_sub(w.op, w.value, ref.column, scope)})
    return w.model_copy(update={"value": _check_value(w.op, w.value, ref.column, ref.model)})


_COMPARE = ("=", "!=", ">", ">=", "<", "<=")


def _check_sub(op: str, value: Any, col: Column, scope: Scope) -> SubAggregate:
    """A comparison with an aggregate of a column: typed, and its field allow-listed."""
    try:
        sub = SubAggregate.model_validate(value)
    except ValidationError as exc:
        raise InputError(
            f'a where\'s object value is an aggregate {{"agg": {"|".join(get_args(Fn))}, '
            f'"field": <field>}}, another field {{"field": <field>}}, or (in/notin) a '
            f'subquery {{"query": {{...}}}}: {describe_errors(exc)}'
        ) from exc
    if op not in _COMPARE:
        raise InputError(f"an aggregate value is compared with {', '.join(_COMPARE)}, not {op}")
    other = _check_fn(sub.agg, sub.field, scope, "wheres value")
    numeric = sub.agg in ("count", "avg", "sum") or (other is not None and other.type in _NUMERIC)
    if numeric != (col.type in _NUMERIC):
        raise InputError(f"{col.name} ({col.type}) cannot be compared with {sub.agg}"
                         f"({sub.field or '*'}): compare numbers with numbers")  # fmt: skip
    if sub.wheres:
        model = scope.resolve(sub.field, "wheres value").model if sub.field else scope.model
        inner = validate_dsl(QueryDSL(model=model.name, wheres=sub.wheres), model, scope.models)
        sub = sub.model_copy(update={"wheres": inner.wheres})
    return sub


def _check_ref(op: str, value: Any, col: Column, scope: Scope) -> FieldRef:
    """A comparison with another field of the query: allow-listed like any field, and of a
    kind the compared column can be compared with."""
    ref = value if isinstance(value, FieldRef) else FieldRef.model_validate(value)
    if op not in _COMPARE:
        raise InputError(f"a field is compared with a field by {', '.join(_COMPARE)}, not {op}")
    other = scope.resolve(ref.field, "wheres value").column
    if _kind(other) != _kind(col) or (op not in ("=", "!=") and _kind(col) == "boolean"):
        raise InputError(f"{col.name} ({col.type}) cannot be compared with {ref.field} "
                         f"({other.type}): compare numbers with numbers, text with text, "
                         "dates with dates")  # fmt: skip
    return ref


def _kind(col: Column) -> str:
    kind = col.type or "string"
    return "number" if kind in _NUMERIC else "date" if kind in ("date", "datetime") else kind


def _check_subquery(value: Any, col: Column, scope: Scope) -> SubQuery:
    """An in/notin subquery: its model declared, every name checked like any DSL's, one
    field out whose kind matches the compared column."""
    if isinstance(value, SubQuery):
        query = value.query
    else:
        if set(value) != {"query"}:
            raise InputError('an in/notin object value is a subquery {"query": {<QueryDSL>}}; '
                             f"got keys {', '.join(sorted(map(str, value)))}")  # fmt: skip
        query = parse_dsl(value["query"])
    other = scope.models.get(query.model or "")
    if other is None:
        raise InputError(f"a subquery names its model; models: {', '.join(scope.models)}")
    if query.offset is not None or bool(query.orders) != (query.limit is not None):
        raise InputError("a subquery takes orders and a limit together (its first rows) and "
                         "no offset; without them it is the set of all its values")  # fmt: skip
    if query.compound:
        raise InputError("a subquery takes no set operation (compound)")
    query = validate_dsl(query, other, scope.models)
    if query.aggregates:
        if len(query.groups) != 1:
            raise InputError("a subquery with aggregates returns its one group field: "
                             "give exactly one groups entry")  # fmt: skip
        out = query.groups[0]
    else:
        if query.select is None or len(query.select) != 1:
            raise InputError("a subquery returns one field: give select with one field")
        out = query.select[0]
    inner = Scope.of(other, scope.models, query.joins).resolve(out, "subquery").column
    if (inner.type in _NUMERIC) != (col.type in _NUMERIC):
        raise InputError(f"{col.name} ({col.type}) cannot be compared with the subquery's "
                         f"{out} ({inner.type}): compare numbers with numbers")  # fmt: skip
    return SubQuery(query=query)


def describe_errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}"
                     for e in exc.errors())  # fmt: skip


def _check_value(op: str, value: Any, col: Column, model: Model) -> Any:
    where = f"{model.name}.{col.name} ({col.type})"
    if op in ("null", "notnull"):
        return None
    if op in ("like", "notlike"):
        if col.type != "string":
            raise InputError(f"{op} needs a text field; {where} is not; use = or a range")
        return _scalar(value, col, where)
    if op in (">", ">=", "<", "<=") and col.type not in _ORDERED:
        raise InputError(f"{op} does not apply to {where}; use = or !=")
    if op in ("in", "notin"):
        if not isinstance(value, list | tuple) or not value or len(value) > MAX_IN_VALUES:
            raise InputError(f"{op} on {where} needs a list of 1 to {MAX_IN_VALUES} values")
        return [_scalar(v, col, where) for v in value]
    if op == "between":
        if not isinstance(value, list | tuple) or len(value) != 2:
            raise InputError(f"between on {where} needs a [low, high] pair")
        return [_scalar(v, col, where) for v in value]
    return _scalar(value, col, where)


def _scalar(value: Any, col: Column, where: str) -> Any:
    if isinstance(value, dict | list | tuple) or value is None:
        raise InputError(f"{where} needs a single value, got {value!r}; use null/notnull for NULL")
    try:
        return _coerce(value, col.type or "string")
    except (TypeError, ValueError) as exc:
        raise InputError(f"{value!r} is not a valid {col.type} for {where}") from exc


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _coerce(value: Any, kind: str) -> Any:
    if kind == "string":
        return str(value)
    if kind == "boolean":
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            return value.lower() in ("true", "1")
        if isinstance(value, bool | int):
            return bool(value)
        raise ValueError(value)
    if kind == "integer":
        if isinstance(value, bool):
            raise ValueError(value)
        if isinstance(value, int):
            if abs(value) > MAX_INT:
                raise ValueError(value)
            return value
        number = float(value)
        if number != number or abs(number) == float("inf"):
            raise ValueError(value)
        return int(number) if number.is_integer() and abs(number) <= MAX_INT else number
    if kind == "number":
        if isinstance(value, bool):
            raise ValueError(value)
        number = float(value)
        if number != number or abs(number) == float("inf"):
            raise ValueError(value)
        return number
    text = str(value)
    if not _DATE.match(text):
        raise ValueError(value)
    if kind == "date":
        return dt.date.fromisoformat(text[:10])
    return dt.datetime.fromisoformat(text)


def combine(preset: QueryDSL | None, generated: QueryDSL) -> QueryDSL:
    """The caller's preset parts AND-ed with the generated ones: combined, never replaced."""
    if preset is None:
        return generated
    groups = [Where(wheres=d.wheres) for d in (preset, generated) if d.wheres]
    seen = {o.field for o in preset.orders}
    limits = [x for x in (preset.limit, generated.limit) if x is not None]
    return QueryDSL(
        model=generated.model or preset.model,
        select=preset.select or generated.select,
        joins=preset.joins + generated.joins,
        distinct=preset.distinct or generated.distinct,
        wheres=tuple(groups),
        orders=preset.orders + tuple(o for o in generated.orders if o.field not in seen),
        aggregates=preset.aggregates or generated.aggregates,
        groups=preset.groups if preset.aggregates else generated.groups,
        havings=preset.havings if preset.aggregates else generated.havings,
        limit=min(limits) if limits else None,
        offset=preset.offset if preset.offset is not None else generated.offset,
        compound=preset.compound or generated.compound,
    )
