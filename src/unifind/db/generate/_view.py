"""The joined view of a model (issue #19): its columns plus those of related models.

A question about one model often names another: "orders of customers in Germany", "names of
customers who ordered a laptop". The builtin generator reads it on a *joined view*: the
model's own columns plus the columns of each model one declared (or foreign-key-learned)
relation away, named ``relation.column``, and of each model two relations away along a
link table or a chain of ``belongs_to`` (``relation.relation.column``: "editors on the
committee of journals with sales over 3000" reaches journal through journal_committee;
"employees in departments in Seattle" reaches locations through departments). The DSL
path compiles dotted fields into joins; every joined model's permission conditions apply.

Precision first:

* only along relations (never a guessed key); two relations away only through a link
  table (``has_many`` then ``belongs_to``) or two ``belongs_to``, never back to the model,
  and never to a model one relation away or reached by two paths;
* a joined column is named by the related model's noun with the column's words ("customer
  country"); its bare words ("country") name it only when the model itself has no column
  that they name and no other path offers them;
* a joined column's sampled values name it only when the model's own columns don't have
  that value and no other joined column has it;
* a join through a ``has_many`` relation repeats the model's rows once per related row: row
  answers become distinct rows, a count counts distinct records, and another aggregate
  over such a join is not offered (it would sum repeated rows);
* every joined answer says which models it joined, along which keys (a note).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from unifind.db._memo import per_object
from unifind.db.dsl import Aggregate, QueryDSL, Where
from unifind.db.generate._scan import Needing, normalise, phrase_pattern, phrase_words
from unifind.db.generate._sense import learn
from unifind.db.models import Column, Model
from unifind.db.relations import Relation

_VIEWS: dict[tuple[int, int], tuple[Model, Model, JoinedView]] = {}


@dataclass(frozen=True, slots=True)
class JoinedView:
    """A model seen with its related models' columns (``relation.column``)."""

    model: Model
    """The view: the model's columns plus the joined ones (same name as the model)."""
    relations: dict[str, Relation]
    """Each relation of the model whose columns the view carries, by relation name."""
    paths: dict[str, tuple[Relation, ...]]
    """Each path whose columns the view carries (``relation`` or ``relation.relation``) →
    the relations it follows."""
    far: dict[str, Model]
    """The models the paths reach, by name."""
    near: frozenset[str] = frozenset()
    """The words of the model's text and of the models one relation away."""

    def many(self, path: str) -> bool:
        """The path repeats the model's rows (it follows a has_many relation)."""
        return any(r.type == "has_many" for r in self.paths[path])


def _nouns(model: Model) -> list[str]:
    """Words naming a model: its name, table, aliases, description; plural and singular."""
    return list(_model_nouns(model))


@per_object  # read per relation and per question (issue #19 latency)
def _model_nouns(model: Model) -> list[str]:
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


def _paths(model: Model, models: Mapping[str, Model]) -> dict[str, tuple[Relation, ...]]:
    """Each relation of the model, and each second relation through a link table
    (has_many → belongs_to) or a chain (belongs_to → belongs_to) to a model that is not
    the model itself nor one relation away; a model two paths reach is left out."""
    rels = {
        name: rel
        for name, rel in model.joins.items()
        if rel.model in models and rel.model != model.name and "." not in name
    }
    near = {rel.model for rel in rels.values()} | {model.name}
    far: dict[str, tuple[Relation, Relation]] = {}
    for name, rel in rels.items():
        for hop_name, hop in models[rel.model].joins.items():
            if hop.type != "belongs_to" or hop.model in near or hop.model not in models:
                continue
            if "." not in hop_name:
                far[f"{name}.{hop_name}"] = (rel, hop)
    twice = Counter(hops[1].model for hops in far.values())
    paths: dict[str, tuple[Relation, ...]] = {n: (r,) for n, r in rels.items()}
    paths |= {p: hops for p, hops in far.items() if twice[hops[1].model] == 1}
    return paths


def _build(model: Model, models: Mapping[str, Model]) -> JoinedView | None:
    paths = _paths(model, models)
    if not paths:
        return None
    rels = {p: hops[0] for p, hops in paths.items() if len(hops) == 1}
    own, own_values = _own_words(model), _own_values(model)
    reach = Counter(hops[-1].model for hops in paths.values())
    bare: dict[str, list[str]] = {}  # bare column words → the joined columns they name
    seen_values: Counter[str] = Counter()  # a value two joined columns hold names neither
    candidates: dict[str, tuple[Column, list[str]]] = {}
    for path, hops in paths.items():
        last = hops[-1]
        other = models[last.model]
        # Two relations to one model (borrower, lender): each is named by its own name only.
        named = _nouns(other) if reach[last.model] == 1 else _relation_nouns(path)
        nouns = [n for n in named if n not in own]
        if not nouns:
            continue  # the model's own columns name the related model: ambiguous
        senses = learn(other)
        for col in other.columns.values():
            if col.name == last.key or col.name in other.permissions.columns:
                continue
            words = [w for w in senses[col.name].words if w]
            field = f"{path}.{col.name}"
            phrased = [f"{n} {w}" for n in nouns for w in words if w not in nouns]
            if other.title_column == col.name:
                # "the customer" shows the customer's name, unless the word is part of a
                # phrase naming the model's own column ("customer id")
                phrased += [n for n in nouns if not any(n in w.split() for w in own)]
            candidates[field] = (col, phrased)
            seen_values.update({normalise(v) for v in col.values or ()})
            if reach[last.model] > 1:
                continue  # a bare column word can't tell the two paths apart
            for w in words:
                if w not in own:
                    bare.setdefault(w, []).append(field)
    unique = {p for p, hops in paths.items() if reach[hops[-1].model] == 1}
    columns = dict(model.columns)
    for field, (col, phrased) in candidates.items():
        words = list(phrased)
        words += [w for w, fields in bare.items() if fields == [field]]
        values = None
        if col.values:
            values = {
                v: a
                for v, a in col.values.items()
                if normalise(v) not in own_values
                and seen_values[normalise(v)] == 1
                and len(normalise(v)) > 2  # "ON", "MA": a code read as a word ("on")
            }
        columns[field] = col.model_copy(
            update={
                "name": field,
                "description": "",
                "aliases": tuple(dict.fromkeys(words)),
                "values": values or None,
                "flags": (),
                # text searched through an ambiguous path could be either row's
                "searchable": col.searchable and field.rsplit(".", 1)[0] in unique,
            }
        )
    if len(columns) == len(model.columns):
        return None
    aliases = list(model.aliases)
    vocabulary = set(model.vocabulary)
    complete = model.vocabulary_complete
    for path, hops in paths.items():
        other = models[hops[-1].model]
        if path not in unique:
            aliases += _relation_nouns(path)
            continue
        aliases += _nouns(other)
        # A word only a related model's text holds is searched there (through the join).
        vocabulary |= other.vocabulary
        complete = complete and other.vocabulary_complete
    view = model.model_copy(update={"columns": columns, "aliases": tuple(dict.fromkeys(aliases)),
                                    "vocabulary": frozenset(vocabulary),
                                    "vocabulary_complete": complete,
                                    "cells": _cells(model, models, {
                                        n: r for n, r in rels.items() if n in unique},
                                        columns)})  # fmt: skip
    reached = {hops[-1].model: models[hops[-1].model] for hops in paths.values()}
    near = set(model.vocabulary)
    for rel in rels.values():
        near |= models[rel.model].vocabulary
    return JoinedView(view, rels, paths, reached, frozenset(near))


def _cells(
    model: Model, models: Mapping[str, Model], rels: dict[str, Relation],
    columns: dict[str, Column],
) -> dict[str, tuple[tuple[str, str], ...]]:  # fmt: skip
    """The model's whole stored values, and those of each model one relation away (as
    ``relation.column``): "invoices of the customer Astrid Gruber" binds the customer's
    name. A value the model itself holds stays its own; one that two related models hold
    is either of them (``_cells`` says so in a note). A model two relations reach (borrower,
    lender) gives none: its value could be either one's."""
    cells = dict(model.cells)
    joined: dict[str, list[tuple[str, str]]] = {}
    for name, rel in rels.items():
        for text, pairs in models[rel.model].cells.items():
            if text in cells:
                continue
            for column, stored in pairs:
                if f"{name}.{column}" in columns:
                    joined.setdefault(text, []).append((f"{name}.{column}", stored))
    return cells | {text: tuple(pairs) for text, pairs in joined.items()}


def _relation_nouns(path: str) -> list[str]:
    words = normalise(path.rsplit(".", 1)[-1].replace("_", " ")).removesuffix(" id").strip()
    return [words] if words and words != "id" else []


def joined_relations(dsl: QueryDSL) -> list[str]:
    """The paths of relations a DSL's dotted fields follow, in order of first use."""
    fields = [*(dsl.select or ()), *dsl.groups, *(a.field or "" for a in dsl.aggregates)]
    fields += [o.field for o in dsl.orders]

    def walk(ws: tuple[Where, ...]) -> None:
        for w in ws:
            if w.field:
                fields.append(w.field)
            walk(w.wheres or ())

    walk(dsl.wheres)
    return list(dict.fromkeys(f.rsplit(".", 1)[0] for f in fields if "." in f))


def finish(dsl: QueryDSL, model: Model, view: JoinedView, text: str) -> tuple[QueryDSL, str] | None:
    """The joined DSL made safe over ``model``, and the note naming the joins; None when the
    join would repeat rows under an aggregate that can't take it. A row answer shows the
    joined columns the question names beside the model's own."""
    used = joined_relations(dsl)
    named = shown_columns(dsl, view, text)
    kept = without_far_text(dsl, view, text) if used or named else None
    if kept is None:
        return None
    dsl = kept
    if named:
        dsl = dsl.model_copy(update={"select": (*model.columns, *named)})
        used = joined_relations(dsl)
    many = [r for r in used if view.many(r)]
    if many:
        if dsl.aggregates and _over_related(dsl, many):
            pass  # each related row once: "the average speed of the roller coasters"
        elif dsl.aggregates:
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
    return dsl.model_copy(update={"model": model.name}), join_note(model, view, used)


def shown_columns(dsl: QueryDSL, view: JoinedView, text: str) -> list[str]:
    """The joined columns a row answer shows beside the model's own: those the question
    names, one relation row per record (a belongs_to path). A question may name them only
    to be shown ("the title and publication dates of books" read on publications): the
    join is then made for them alone."""
    if dsl.aggregates or dsl.select is not None:
        return []
    named = {f for f, pattern in _shown_phrases(view).present(text) if pattern.search(text)}
    return [f for f in view.model.columns if f in named]


@per_object
def _shown_phrases(view: JoinedView) -> Needing[tuple[str, re.Pattern[str]]]:
    """The aliases of each joined column one row per record shows, by the word every match
    holds: a view has hundreds, a question names a few (issue #19 latency)."""
    return Needing(
        (phrase_words(w), (f, phrase_pattern(w)))
        for f, col in view.model.columns.items()
        if "." in f and not view.many(f.rsplit(".", 1)[0])  # one row per record
        for w in col.aliases
    )


def without_far_text(dsl: QueryDSL, view: JoinedView, text: str) -> QueryDSL | None:
    """``dsl`` without text searches two relations away in a model the question does not
    name: such a loose match makes a far reading look like a fit ("customers in Brazil who
    have an invoice" read on invoices, "first" found in a track's name). An alternative of
    a group goes; None when a condition would be left with no alternative at all."""

    def far(field: str | None) -> bool:
        path = field.rsplit(".", 1)[0] if field and field.count(".") == 2 else ""
        if path not in view.paths:
            return False
        other = view.far[view.paths[path][-1].model]
        return not any(phrase_pattern(n).search(text) for n in _nouns(other))

    def keep(ws: tuple[Where, ...], top: bool) -> tuple[Where, ...] | None:
        out: list[Where] = []
        for w in ws:
            if w.op == "like" and far(w.field):
                if top:
                    return None  # a whole condition, not one alternative of it
                continue
            if w.wheres is not None:
                inner = keep(w.wheres, False)
                if not inner:
                    return None
                if len(inner) != len(w.wheres):
                    if not _near(inner, view.near):
                        return None  # the word is in no text but the far model's
                    first = inner[0].model_copy(update={"or_": False})
                    w = w.model_copy(update={"wheres": (first, *inner[1:])})
            out.append(w)
        return tuple(out)

    if not any(far(f) for f in _like_fields(dsl.wheres)):
        return dsl
    wheres = keep(dsl.wheres, True)
    return None if wheres is None else dsl.model_copy(update={"wheres": wheres})


def _near(group: tuple[Where, ...], near: frozenset[str]) -> bool:
    """The group's searched word occurs in the text of the model or one relation away."""
    words = {str(w.value).strip("%").lower() for w in group if w.op == "like"}
    return any(w in near or f"{w}s" in near for w in words)


def _like_fields(wheres: tuple[Where, ...]) -> list[str]:
    out: list[str] = []
    for w in wheres:
        if w.field and w.op == "like":
            out.append(w.field)
        out += _like_fields(w.wheres or ())
    return out


def _over_related(dsl: QueryDSL, many: list[str]) -> bool:
    """Every aggregate reads a column of the one has_many path the query follows: the join
    gives each related row once (per record of the model), so sum/avg/min/max over it are
    right, grouped by the model's columns or not."""
    if len(many) != 1:
        return False
    return all(a.field is not None and a.field.rsplit(".", 1)[0] == many[0] for a in dsl.aggregates)


def join_note(model: Model, view: JoinedView, used: list[str]) -> str:
    """ "joined a with b, c (a.x = b.y; b.z = c.w)": every model and key along the paths."""
    joined: list[str] = []
    parts: list[str] = []
    for path in used:
        owner = model.name
        for rel in view.paths[path]:
            joined.append(rel.model)
            parts.append(f"{owner}.{rel.foreign} = {rel.model}.{rel.key}")
            owner = rel.model
    joined, parts = list(dict.fromkeys(joined)), list(dict.fromkeys(parts))
    return f"joined {model.name} with {', '.join(joined)} ({'; '.join(parts)})"
