"""Joins in the builtin generator (issue #19): words that bind to a related model.

A question about one model often names another: "orders of customers in Germany", "names of
customers who ordered a laptop", "the staff member who handled the most payments". The
generator reads such a question on a *joined view* of the model: the model's own columns
plus the columns of each model one declared (or foreign-key-learned) relation away, named
``relation.column`` (:func:`joined_view`). Every rule of the builtin generator then binds
words to those columns as to its own (values, numbers, comparatives, groups), and the DSL
carries dotted fields that the DSL path compiles into joins along the relation — and the
permission conditions of every joined model apply, as for any DSL.

Precision first:

* only one relation away, only along relations (never a guessed key);
* a joined column is named by the related model's noun with the column's words ("customer
  country"); its bare words ("country") name it only when the model itself has no column
  that they name and no other relation offers them (otherwise the path is ambiguous and
  the bare words stay unbound);
* a joined column's sampled values name it only when the model's own columns don't have
  that value;
* the joined reading is taken only when it accounts for more words of the question than
  the plain one, and it always says which models it joined (a note);
* a join through a ``has_many`` relation repeats the model's rows once per related row: row
  answers become distinct rows, a count counts distinct records, and another aggregate
  over such a join is not offered (it would sum repeated rows).

"The X with the most Y" where Y names a related model reached by ``has_many`` ("the staff
member who handled the most payments", "how many tracks does each genre have") is read by
:func:`read_related_count`: the count of related rows per record of the model.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from unifind.db.dsl import Aggregate, Order, QueryDSL, Where, validate_dsl
from unifind.db.generate._absent import (
    Absent,
    absent_note,
    absent_where,
    nouns_reaching,
    read_absent,
)
from unifind.db.generate._scan import Scan, normalise, number, phrase_pattern
from unifind.db.generate._sense import learn
from unifind.db.generate.base import Generation, GenerationError
from unifind.db.joins import Join
from unifind.db.models import Column, Model
from unifind.db.relations import Relation
from unifind.errors import InputError

_VIEWS: dict[tuple[int, int], tuple[Model, Model, JoinedView]] = {}


@dataclass(frozen=True, slots=True)
class JoinedView:
    """A model seen with its related models' columns (``relation.column``)."""

    model: Model
    """The view: the model's columns plus the joined ones (same name as the model)."""
    relations: dict[str, Relation]
    """Each relation whose columns the view carries, by relation name."""


def _nouns(model: Model) -> list[str]:
    """Words naming a model: its name, table, aliases, description; plural and singular."""
    words = [model.name, model.table, *model.aliases]
    if re.fullmatch(r"[A-Za-z]+(?: [A-Za-z]+){0,2}", model.description.strip()):
        words.append(model.description.strip())
    out: list[str] = []
    for w in words:
        w = normalise(w.replace("_", " "))
        if not w:
            continue
        out.append(w)
        if w.endswith("ies") and len(w) > 4:
            out.append(w[:-3] + "y")
        elif w.endswith("s") and not w.endswith("ss") and len(w) > 3:
            out.append(w[:-1])
        else:
            out.append(w + ("es" if w.endswith(("s", "x", "ch", "sh")) else "s"))
    return list(dict.fromkeys(out))


def _own_words(model: Model) -> set[str]:
    words: set[str] = set()
    for sense in learn(model).values():
        words.update(sense.words)
    return words


def _own_values(model: Model) -> set[str]:
    return {normalise(v) for s in learn(model).values() for v in s.values}


def joined_view(model: Model, models: Mapping[str, Model]) -> JoinedView | None:
    """The model plus each related model's columns; None when it has no usable relation."""
    key = (id(model), id(models))
    cached = _VIEWS.get(key)
    if cached is not None and cached[0] is model and cached[1] is models.get(model.name):
        return cached[2]
    view = _build(model, models)
    if len(_VIEWS) > 512:
        _VIEWS.clear()
    if view is not None:
        _VIEWS[key] = (model, models.get(model.name, model), view)
    return view


def _build(model: Model, models: Mapping[str, Model]) -> JoinedView | None:
    rels = {
        name: rel
        for name, rel in model.joins.items()
        if rel.model in models and rel.model != model.name and "." not in name
    }
    if not rels:
        return None
    own, own_values = _own_words(model), _own_values(model)
    reach = Counter(rel.model for rel in rels.values())
    bare: dict[str, list[str]] = {}  # bare column words → the joined columns they name
    seen_values: Counter[str] = Counter()  # a value two joined columns hold names neither
    candidates: dict[str, tuple[Column, list[str]]] = {}
    for name, rel in rels.items():
        other = models[rel.model]
        # Two relations to one model (borrower, lender): each is named by its own name only.
        named = _nouns(other) if reach[rel.model] == 1 else _relation_nouns(name)
        nouns = [n for n in named if n not in own]
        if not nouns:
            continue  # the model's own columns name the related model: ambiguous
        senses = learn(other)
        for col in other.columns.values():
            if col.name == rel.key or col.name in other.permissions.columns:
                continue
            words = [w for w in senses[col.name].words if w]
            field = f"{name}.{col.name}"
            phrased = [f"{n} {w}" for n in nouns for w in words if w not in nouns]
            if other.title_column == col.name:
                # "the customer" shows the customer's name, unless the word is part of a
                # phrase naming the model's own column ("customer id")
                phrased += [n for n in nouns if not any(n in w.split() for w in own)]
            candidates[field] = (col, phrased)
            seen_values.update({normalise(v) for v in col.values or ()})
            if reach[rel.model] > 1:
                continue  # a bare column word can't tell the two paths apart
            for w in words:
                if w not in own:
                    bare.setdefault(w, []).append(field)
    unique = {n for n, rel in rels.items() if reach[rel.model] == 1}
    columns = dict(model.columns)
    for field, (col, phrased) in candidates.items():
        words = list(phrased)
        words += [w for w, fields in bare.items() if fields == [field]]
        values = None
        if col.values:
            values = {
                v: a
                for v, a in col.values.items()
                if normalise(v) not in own_values and seen_values[normalise(v)] == 1
            }
        columns[field] = col.model_copy(
            update={
                "name": field,
                "description": "",
                "aliases": tuple(dict.fromkeys(words)),
                "values": values or None,
                "flags": (),
                # text searched through an ambiguous path could be either row's
                "searchable": col.searchable and field.split(".")[0] in unique,
            }
        )
    if len(columns) == len(model.columns):
        return None
    aliases = list(model.aliases)
    vocabulary = set(model.vocabulary)
    complete = model.vocabulary_complete
    for name, rel in rels.items():
        other = models[rel.model]
        if name not in unique:
            aliases += _relation_nouns(name)
            continue
        aliases += _nouns(other)
        # A word only a related model's text holds is searched there (through the join).
        vocabulary |= other.vocabulary
        complete = complete and other.vocabulary_complete
    view = model.model_copy(update={"columns": columns, "aliases": tuple(dict.fromkeys(aliases)),
                                    "vocabulary": frozenset(vocabulary),
                                    "vocabulary_complete": complete})  # fmt: skip
    return JoinedView(view, rels)


def _relation_nouns(name: str) -> list[str]:
    words = normalise(name.replace("_", " ")).removesuffix(" id").strip()
    return [words] if words and words != "id" else []


def joined_relations(dsl: QueryDSL) -> list[str]:
    """The relations a DSL's dotted fields follow, in order of first use."""
    fields = [*(dsl.select or ()), *dsl.groups, *(a.field or "" for a in dsl.aggregates)]
    fields += [o.field for o in dsl.orders]

    def walk(ws: tuple[Where, ...]) -> None:
        for w in ws:
            if w.field:
                fields.append(w.field)
            walk(w.wheres or ())

    walk(dsl.wheres)
    return list(dict.fromkeys(f.split(".", 1)[0] for f in fields if "." in f))


def finish(dsl: QueryDSL, model: Model, view: JoinedView, text: str) -> tuple[QueryDSL, str] | None:
    """The joined DSL made safe over ``model``, and the note naming the joins; None when the
    join would repeat rows under an aggregate that can't take it. A row answer shows the
    joined columns the question names beside the model's own."""
    used = joined_relations(dsl)
    if not used:
        return None
    if not dsl.aggregates and dsl.select is None:
        named = [
            f
            for f, col in view.model.columns.items()
            if "." in f
            and view.relations[f.split(".")[0]].type != "has_many"  # one row per record
            and any(phrase_pattern(w).search(text) for w in col.aliases)
        ]
        if named:
            dsl = dsl.model_copy(update={"select": (*model.columns, *named)})
            used = joined_relations(dsl)
    many = [r for r in used if view.relations[r].type == "has_many"]
    if many:
        if dsl.aggregates:
            if any(a.fn != "count" or a.field is not None for a in dsl.aggregates):
                return None  # sum/avg/min/max over repeated rows: not offered
            if model.primary_key is None or dsl.groups:
                return None
            aggs = (
                Aggregate.model_validate(
                    {"fn": "count", "field": model.primary_key, "distinct": True, "as": "count"}
                ),
            )
            dsl = dsl.model_copy(update={"aggregates": aggs})
        else:
            dsl = dsl.model_copy(update={"distinct": True})
    parts = []
    for r in used:
        rel = view.relations[r]
        parts.append(f"{model.name}.{rel.foreign} = {rel.model}.{rel.key}")
    note = (f"joined {model.name} with {', '.join(view.relations[r].model for r in used)} "
            f"({'; '.join(parts)})")  # fmt: skip
    return dsl.model_copy(update={"model": model.name}), note


_MOST = re.compile(
    r"(?<![a-z])(?:the\s+)?(?P<dir>(?:most|largest|greatest|highest|maximum|biggest|fewest|least"
    r"|smallest|lowest|minimum)\s+(?:number|count|amount)\s+of|most|fewest|least)"
    r"\s+(?P<noun>[a-z][a-z ]{1,40}?)"
    r"(?=$|[?.,!]|\s+(?:and|in|of|for|with|to|at|from|on|by)\b)"
)
_FEW = re.compile(r"fewest|least|smallest|lowest|minimum")
_EACH = re.compile(
    r"(?<![a-z])(?:how many|number of|count of|the number of)\s+(?P<noun>[a-z][a-z ]{1,40}?)"
    r"\s+(?:does|do|did|has|have|had|is|are|for|of|in|per|by)\s+(?:each|every|all(?: the)?)\s+"
)

#: "with at least 3 albums", "that have more than two orders", "who has exactly 1 loan".
_HAVING = re.compile(
    r"(?<![a-z])(?:have|has|had|having|with|own|owns)\s+(?:(?P<cmp>at least|more than|over|"
    r"fewer than|less than|at most|exactly|no more than|no less than)\s+)?"
    r"(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<more>or more\s+)?"
    r"(?P<noun>[a-z][a-z ]{1,40}?)(?=$|[?.,!]|\s+(?:and|in|of|for|with|to|at|from|on|by|"
    r"that|who|which|order|sorted)\b)"
)
_CMP = {None: "=", "at least": ">=", "more than": ">", "over": ">", "fewer than": "<",
        "less than": "<", "at most": "<=", "exactly": "=", "no more than": "<=",
        "no less than": ">="}  # fmt: skip


@dataclass(frozen=True, slots=True)
class RelatedCount:
    relation: str
    sort: str | None
    """``desc`` (most), ``asc`` (fewest) or None (per record, no ranking)."""
    having: tuple[str, int] | None = None
    """A condition on the count ("at least 3 albums" → (">=", 3))."""


def read_related_count(scan: Scan, view: JoinedView, models: Mapping[str, Model]
                       ) -> RelatedCount | None:  # fmt: skip
    """ "the most <related nouns>" / "how many <related nouns> does each X have": count of
    related rows (a has_many relation) per record of the model."""
    many = {n: r for n, r in view.relations.items() if r.type == "has_many"}
    if not many:
        return None
    for pattern, ranked in ((_MOST, True), (_EACH, False)):
        for m in scan.find(pattern):
            hits = nouns_reaching(
                m["noun"].strip(), many, models, view.model.name, _nouns, last=False
            )
            if len(hits) != 1:
                continue
            scan.consume(*m.span())
            sort = None
            if ranked:
                sort = "asc" if _FEW.match(m["dir"]) else "desc"
            return RelatedCount(hits[0], sort)
    for m in scan.find(_HAVING):
        hits = nouns_reaching(m["noun"].strip(), many, models, view.model.name, _nouns, last=False)
        if len(hits) != 1:
            continue
        scan.consume(*m.span())
        op = ">=" if m["more"] else _CMP[m["cmp"]]
        return RelatedCount(hits[0], None, (op, int(number(m["n"]))))
    return None


class Read(Protocol):
    def __call__(self, question: str, model: Model, strict: bool = False,
                 scope: Mapping[str, Model] | None = None,
                 blank: tuple[int, int] | None = None) -> Generation: ...  # fmt: skip


def read_with_joins(
    read: Read, question: str, model: Model, models: Mapping[str, Model], strict: bool
) -> Generation:
    """The plain reading, or the joined one when it accounts for more of the question."""
    error: GenerationError | None = None
    plain: Generation | None = None
    try:
        plain = read(question, model, strict)
    except GenerationError as exc:
        error = exc
    if plain is not None and not plain.unknown and not plain.off_topic:
        return plain
    view = joined_view(model, models)
    if view is None:
        return _plain(plain, error)
    scan = Scan(question)
    count = read_related_count(scan, view, models)
    many = {n: r for n, r in view.relations.items() if r.type == "has_many"}
    absent = None if count else read_absent(scan, many, models, model.name, _nouns)
    blank = _consumed(scan)
    try:
        alt = read(question, view.model, strict, models, blank)
    except GenerationError:
        return _plain(plain, error)
    if count is not None:
        made = _counted(alt.dsl, model, view, count, models)
    elif absent is not None:
        made = _without(alt.dsl, model, view, absent, models)
    else:
        made = finish(alt.dsl, model, view, Scan(question).text)
    if made is None:
        return _plain(plain, error)
    dsl, note = made
    if plain is not None and count is None and absent is None:
        better = len(alt.unknown) < len(plain.unknown) or (plain.off_topic and not alt.off_topic)
        if not better:
            return plain
    if alt.off_topic:
        return _plain(plain, error)
    return dataclasses.replace(alt, dsl=dsl, notes=(*alt.notes, note))


def _plain(plain: Generation | None, error: GenerationError | None) -> Generation:
    if plain is None:
        assert error is not None
        raise error
    return plain


def _consumed(scan: Scan) -> tuple[int, int] | None:
    spans = [i for i, (a, b) in enumerate(zip(scan.text, scan.rest, strict=True)) if a != b]
    return (spans[0], spans[-1] + 1) if spans else None


def _counted(
    dsl: QueryDSL, model: Model, view: JoinedView, count: RelatedCount,
    models: Mapping[str, Model],
) -> tuple[QueryDSL, str] | None:  # fmt: skip
    """Count of related rows per record: groups are the model's columns (its key among them)."""
    if dsl.aggregates or model.primary_key not in model.columns:
        return None
    rel = view.relations[count.relation]
    orders = (Order(field="count", sort=count.sort),) if count.sort else ()  # type: ignore[arg-type]
    limit = dsl.limit if dsl.limit is not None else (1 if count.sort else None)
    counted = dsl.model_copy(update={
        "model": model.name,
        "joins": (*dsl.joins, Join(relation=count.relation)),
        "aggregates": (Aggregate.model_validate({"fn": "count", "as": "count"}),),
        "havings": (Where.model_validate({"field": "count", "op": count.having[0],
                                          "value": count.having[1]}),)
        if count.having else (),
        "groups": tuple(model.columns),
        "orders": orders,
        "limit": limit,
        "select": None,
        "distinct": False,
    })  # fmt: skip
    others = [r for r in joined_relations(dsl) if r != count.relation]
    if any(view.relations[r].type == "has_many" for r in others):
        return None  # a filter through another has_many would count its rows too
    note = (f"joined {model.name} with {rel.model} ({model.name}.{rel.foreign} = "
            f"{rel.model}.{rel.key}): {rel.model} rows counted per {model.name}")  # fmt: skip
    return counted, note


def _without(
    dsl: QueryDSL, model: Model, view: JoinedView, absent: Absent, models: Mapping[str, Model]
) -> tuple[QueryDSL, str] | None:
    """The reading with "no related row" added; joined fields it uses are made safe too.
    None when the keys can't be compared (a number key against a text one)."""
    rel = view.relations[absent.relation]
    where = absent_where(rel)
    try:
        validate_dsl(QueryDSL(model=model.name, wheres=(where,)), model, models)
    except InputError:
        return None
    note = absent_note(model, rel, absent)
    dsl = dsl.model_copy(update={"model": model.name, "wheres": (*dsl.wheres, where)})
    if not joined_relations(dsl):
        return dsl, note
    made = finish(dsl, model, view, "")
    return None if made is None else (made[0], f"{made[1]}; {note}")
