"""Joins in the builtin generator (issue #19): words that bind to a related model.

A question about one model often names another: "orders of customers in Germany", "the
staff member who handled the most payments", "ships not involved in any missions". The
question is read on the model's *joined view* (:mod:`._view`: its columns plus those of
related models, ``relation.column``), and that reading is taken only when it accounts for
more words of the question than the plain one; it always says which models it joined.

Three shapes read here before the rest of the rules run on the view:

* "the X with the most Y", "how many Y does each X have", "X with at least N Y", where Y
  names a model reached by ``has_many`` (or the model a link table points to): the count
  of related rows per record (:func:`read_related_count`);
* "X that have no Y" (``._absent``): the records with no related row, an anti-join;
  "X that have no Y of value V" (``._notin``): none with that value.

The count may follow a relative clause's own verb ("employees who serve at most 20
customers", "the city that hosted the most competitions").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from unifind.db.dsl import Aggregate, Order, QueryDSL, Where, validate_dsl
from unifind.db.generate._absent import (
    Absent,
    absent_note,
    absent_where,
    heads,
    nouns_reaching,
    read_absent,
)
from unifind.db.generate._beside import read_beside, restated
from unifind.db.generate._both import both_span, pair, split
from unifind.db.generate._exact import exact_related
from unifind.db.generate._notin import negated
from unifind.db.generate._ranked import ranked_per_record, used_by_groups
from unifind.db.generate._scan import Scan, number, phrase_pattern
from unifind.db.generate._view import (
    JoinedView,
    _nouns,
    finish,
    joined_relations,
    joined_view,
    without_far_text,
)
from unifind.db.generate.base import Generation, GenerationError
from unifind.db.joins import Join
from unifind.db.models import Model
from unifind.errors import InputError

_MOST = re.compile(
    r"(?<![a-z])(?<!at\s)(?:the\s+)?(?P<dir>(?:most|largest|greatest|highest|maximum|biggest|fewest|least"
    r"|smallest|lowest|minimum)\s+(?:number|count|amount)\s+of|most|fewest|least)"
    r"\s+(?P<noun>[a-z][a-z ]{1,40}?)"
    r"(?=$|[?.,!]|\s+(?:and|in|of|for|with|to|at|from|on|by)\b)"
)
#: "the city that has hosted the most ...", "the user who gives the most ...": the verb of
#: the relative clause whose object the count is, right before "the most".
_VERB_BEFORE = re.compile(
    r"(?:(?<![a-z])(?:who|that|which)\s+(?:(?:has|have|had|did|does|do)\s+)?(?:been\s+)?[a-z]+"
    r"|(?<![a-z])(?:has|have|had)\s+(?:been\s+)?[a-z]+(?:ed|en|wn))\s+$"
)
_FEW = re.compile(r"fewest|least|smallest|lowest|minimum")
_EACH = re.compile(
    r"(?<![a-z])(?:how many|number of|count of|the number of)\s+(?P<noun>[a-z][a-z ]{1,40}?)"
    r"\s+(?:does|do|did|has|have|had|is|are|for|of|in|per|by)\s+(?:each|every|all(?: the)?)\s+"
    r"(?P<owner>[a-z]+(?: [a-z]+)?)"
)
#: "how many actors have appeared in each musical": a verb between, the model named after.
_EACH_VERB = re.compile(
    r"(?<![a-z])(?:how many|number of|count of|the number of)\s+(?P<noun>[a-z]+(?: [a-z]+)?)"
    r"\s+(?:[a-z]+\s+){1,3}?(?:each|every)\s+(?P<owner>[a-z]+(?: [a-z]+)?)(?=$|[?.,!]|\s)"
)

#: "with at least 3 albums", "that have more than two orders", "who has exactly 1 loan".
_HAVING = re.compile(
    r"(?<![a-z])(?:have|has|had|having|with|own|owns)\s+(?:[a-z]+(?:ed|en|wn)\s+)?"
    r"(?:(?P<cmp>at least|more than|over|"
    r"fewer than|less than|at most|exactly|no more than|no less than)\s+)?"
    r"(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<more>or more\s+)?"
    r"(?P<noun>[a-z][a-z ]{1,40}?)(?=$|[?.,!]|\s+(?:and|in|of|for|with|to|at|from|on|by|"
    r"that|who|which|order|sorted)\b)"
)
#: "employees who serve at most 20 customers", "architects that built 3 or more bridges",
#: "employees serving 10 or more customers": a relative clause's own verb (or a participle)
#: before the quantity. A comparison or "or more" is required: "who wrote 3 books" may
#: name three books (a condition on the books), not a count of them.
_HAVING_VERB = re.compile(
    r"(?<![a-z])(?:(?:who|that|which)\s+(?:(?:do|does|did|have|has|had)\s+)?(?:been\s+)?"
    r"[a-z]+|[a-z]{3,}ing)\s+"
    r"(?:(?P<cmp>at least|more than|fewer than|less than|at most|no more than|no less than)\s+)?"
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
    own = _nouns(models.get(view.model.name, view.model))
    for pattern, ranked in ((_MOST, True), (_EACH, False), (_EACH_VERB, False)):
        for m in scan.find(pattern):
            if pattern is not _MOST and not any(_starts(m["owner"], n) for n in own):
                continue  # "each <another model>": not a count per record of this one
            hits = nouns_reaching(
                m["noun"].strip(),
                many,
                models,
                view.model.name,
                _nouns,
                last=False,
                text=scan.text,
            )
            if len(hits) != 1:
                continue
            start = m.start()
            verb = _VERB_BEFORE.search(scan.rest[:start]) if pattern is _MOST else None
            if verb and _whole(m["noun"].strip(), many[hits[0]].model, models):
                start = verb.start()  # the verb relates the record to the rows counted
            scan.consume(start, m.end())
            sort = None
            if ranked:
                sort = "asc" if _FEW.match(m["dir"]) else "desc"
            return RelatedCount(hits[0], sort)
    if beside := read_beside(scan, many, models, view.model.name, _nouns):
        return RelatedCount(beside, None)
    for pattern in (_HAVING, _HAVING_VERB):
        for m in scan.find(pattern):
            if pattern is _HAVING_VERB and not (m["cmp"] or m["more"]):
                continue
            hits = nouns_reaching(m["noun"].strip(), many, models, view.model.name, _nouns,
                                  last=False, text=scan.text)  # fmt: skip
            if len(hits) != 1:
                continue
            scan.consume(*m.span())
            op = ">=" if m["more"] else _CMP[m["cmp"]]
            return RelatedCount(hits[0], None, (op, int(number(m["n"]))))
    return None


def _whole(noun: str, related: str, models: Mapping[str, Model]) -> bool:
    """The phrase is a name of the related model (or of one its rows point to) and nothing
    else: "the most competitions", not "the most recent complaint" (an adjective's
    superlative, which the count reading may have misread: its verb stays unread)."""
    near = [models[related]] + [models[r.model] for r in models[related].joins.values()
                                if r.model in models]  # fmt: skip
    names = [n for m in near for n in _nouns(m)]
    names += heads(names, set())
    return any(phrase_pattern(n).fullmatch(noun) for n in names)


def _starts(phrase: str, noun: str) -> bool:
    return phrase == noun or phrase.startswith(f"{noun} ")


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
    complete = plain is not None and not plain.unknown and not plain.off_topic
    view = None if complete and not _names_near(question, model, models) else joined_view(
        model, models)  # fmt: skip
    if view is None:
        return _plain(plain, error)
    scan = Scan(question)
    text = scan.text  # the question normalised, once (``Scan.text`` is never changed)
    count = read_related_count(scan, view, models)
    many = {n: r for n, r in view.relations.items() if r.type == "has_many"}
    absent = None if count else read_absent(scan, many, models, model.name, _nouns)
    blank = _consumed(scan)
    try:
        alt = read(question, view.model, strict, models, blank)
        if (
            count is not None
            and count.sort is None
            and count.having is None
            and restated(alt.dsl, model, Scan(question).text)
        ):
            # "How many employees does each role have? List the role and the number of
            # employees": the second count is the first one said again
            # (its order, "sorted by the count", is kept: ``_counted`` names it "count")
            once = {"aggregates": (), "groups": ()}
            alt = dataclasses.replace(alt, dsl=alt.dsl.model_copy(update=once))
        if count is not None and alt.dsl.aggregates:
            # "the average rating of each movie that received at least 2 ratings": the
            # count reading can't hold another aggregate; read the question without it
            scan, count = Scan(question), None
            absent = read_absent(scan, many, models, model.name, _nouns)
            blank = _consumed(scan)
            alt = read(question, view.model, strict, models, blank)
    except GenerationError:
        return _plain(plain, error)
    if blank is None:
        alt = _per_record(read, question, model, view, alt, strict, models)
        alt = ranked_per_record(read, question, model, view, alt, strict, models) or alt
    kept = without_far_text(alt.dsl, view, text)
    if kept is None:
        return _plain(plain, error)
    alt = dataclasses.replace(alt, dsl=kept)
    if count is not None:
        made = _counted(alt.dsl, model, view, count, models)
    elif absent is not None:
        made = _without(alt.dsl, model, view, absent, models, text)
    else:
        made = finish(alt.dsl, model, view, text)
    neg = None
    if blank is None and count is None and absent is None:
        neg = negated(read, question, model, view, strict, models)
    if neg is not None:
        alt, dsl, note = neg
    elif made is None:
        return _plain(plain, error)
    else:
        dsl, note = made
        if blank is None and (both := _both(read, question, model, view, strict, models, dsl)):
            alt, dsl, note = both
    if plain is not None and count is None and absent is None:
        better = len(alt.unknown) < len(plain.unknown) or (plain.off_topic and not alt.off_topic)
        # As complete, and it shows a related model's column the question names ("the
        # names of climbers and the names of the mountains they climb").
        better = better or (len(alt.unknown) == len(plain.unknown) and _shows(dsl, plain.dsl))
        # As complete, and a word searched in the model's text is a named related model's
        # stored value ("tracks whose genre is Rock": genres.name = 'Rock', not %rock%).
        text = Scan(question).text
        better = better or (len(alt.unknown) == len(plain.unknown)
                            and exact_related(dsl, plain.dsl, view, text))  # fmt: skip
        if not better:
            return plain
    if alt.off_topic:
        return _plain(plain, error)
    out = dataclasses.replace(alt, dsl=dsl, notes=(*alt.notes, note))
    # A count per record shows every column of the model: none is "not used".
    return used_by_groups(out, set(dsl.groups)) if count is not None else out


def _names_near(question: str, model: Model, models: Mapping[str, Model]) -> bool:
    """The question names a model one belongs_to relation away (its columns may be shown
    beside the model's own: "the names of climbers and the heights of their mountains")."""
    text = Scan(question).text
    near = [models[r.model] for r in model.joins.values()
            if r.type == "belongs_to" and r.model in models and r.model != model.name]  # fmt: skip
    return any(phrase_pattern(n).search(text) for other in near for n in _nouns(other))


def _shows(dsl: QueryDSL, plain: QueryDSL) -> bool:
    """The joined reading is the plain one plus related columns shown (same conditions)."""
    shown = [f for f in dsl.select or () if "." in f]
    return bool(shown) and not dsl.aggregates and dsl.wheres == plain.wheres and (
        dsl.orders == plain.orders and dsl.limit == plain.limit)  # fmt: skip


def _both(
    read: Read, question: str, model: Model, view: JoinedView, strict: bool,
    models: Mapping[str, Model], dsl: QueryDSL,
) -> tuple[Generation, QueryDSL, str] | None:  # fmt: skip
    """ "both A and B" of a has_many path's column: the reading again with "both" read, and
    the list of two values split into one subquery each (``_both``); None otherwise."""
    span = both_span(question)
    if span is None or pair(dsl, view) is None:
        return None
    try:
        again = read(question, view.model, strict, models, span)
    except GenerationError:
        return None
    text = Scan(question).text
    made = finish(again.dsl, model, view, text)
    where = pair(made[0], view) if made is not None else None
    if made is None or where is None:
        return None
    out, note = split(made[0], model, view, where)
    try:
        validate_dsl(out, model, models)
    except InputError:
        return None
    if joined_relations(out):
        note = f"{made[1]}; {note}"
    return again, out, note


#: "for each country", "per race", "for different lots": one answer per record of the model.
_PER = re.compile(r"(?<![a-z])(?:for\s+|in\s+)?(?:each|every|per|different)\s+")


def _per_record(
    read: Read, question: str, model: Model, view: JoinedView, alt: Generation,
    strict: bool, models: Mapping[str, Model],
) -> Generation:  # fmt: skip
    """An aggregate over a has_many relation's column ("the average speed of roller
    coasters") asked "for each <the model's noun>": grouped per record of the model (its
    key among the groups), the phrase read. Otherwise ``alt`` as it was."""
    dsl = alt.dsl
    if not _over_one_path(dsl, view) or dsl.groups or model.primary_key not in model.columns:
        return alt
    scan = Scan(question)
    for m in scan.find(_PER):
        after = scan.rest[m.end() :]
        noun = re.match(r"[a-z]+(?: [a-z]+){0,2}", after)
        if noun is None:
            continue
        words = noun[0].split()
        for n in range(len(words), 0, -1):
            phrase = " ".join(words[:n])
            if phrase in _nouns(model):
                try:
                    again = read(question, view.model, strict, models,
                                 (m.start(), m.end() + len(phrase)))  # fmt: skip
                except GenerationError:
                    return alt
                if not _over_one_path(again.dsl, view) or again.dsl.groups:
                    return alt
                grouped = again.dsl.model_copy(update={"groups": tuple(model.columns)})
                return dataclasses.replace(again, dsl=grouped)
    return alt


def _over_one_path(dsl: QueryDSL, view: JoinedView) -> bool:
    """Aggregates only, each over a column of one has_many path."""
    paths = {a.field.rsplit(".", 1)[0] for a in dsl.aggregates if a.field and "." in a.field}
    if not dsl.aggregates or len(paths) != 1 or any(a.field is None for a in dsl.aggregates):
        return False
    path = next(iter(paths))
    return path in view.paths and view.many(path)


def _plain(plain: Generation | None, error: GenerationError | None) -> Generation:
    if plain is None:
        assert error is not None
        raise error
    return plain


def _consumed(scan: Scan) -> tuple[int, int] | None:
    if scan.rest == scan.text:
        return None  # nothing read (most questions)
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
    orders: tuple[Order, ...] = ()
    if count.sort:
        orders = (Order(field="count", sort=count.sort),)  # type: ignore[arg-type]
    else:  # the count said again with its order ("sorted by the number of ...")
        orders = tuple(o for o in dsl.orders if o.field == "count")
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
    if any(view.many(r) for r in others):
        return None  # a filter through another has_many would count its rows too
    note = (f"joined {model.name} with {rel.model} ({model.name}.{rel.foreign} = "
            f"{rel.model}.{rel.key}): {rel.model} rows counted per {model.name}")  # fmt: skip
    return counted, note


def _without(
    dsl: QueryDSL, model: Model, view: JoinedView, absent: Absent, models: Mapping[str, Model],
    text: str,
) -> tuple[QueryDSL, str] | None:  # fmt: skip
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
    made = finish(dsl, model, view, text)
    return None if made is None else (made[0], f"{made[1]}; {note}")
