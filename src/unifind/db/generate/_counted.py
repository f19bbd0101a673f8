"""A count over joined rows that the question asks of distinct things (issue #19).

"the number of unique orders containing each product", "how many different products
correspond to each order": the count per model is read along a relation to a model of links
(Order_Items), and counted the links; the question counts distinct orders (products), and
two links of one product to one order are one order. *distinct*, *different* or *unique*
before a noun naming a model the links point to is honoured: the count becomes
``count(distinct <links>.<that model's key>)``. When no one relation of the links reaches
that model, the count stays and the answer says so (partial): the word was read and not
honoured (it was a silent wrong answer: the words were counted as read).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from unifind.db.dsl import Aggregate, validate_dsl
from unifind.db.generate._sense import model_words
from unifind.db.generate.base import Generation
from unifind.db.models import Model
from unifind.errors import InputError

_DISTINCT = re.compile(r"(?<![a-z])(distinct|different|unique)\s+(?P<noun>[a-z]+)(?![a-z])")


def distinct_count(gen: Generation, text: str, models: Mapping[str, Model]) -> Generation:
    """``gen`` with its count of joined rows made a count of the distinct rows of the model
    the question names after "distinct/different/unique"; or noted as not honoured."""
    dsl = gen.dsl
    if len(dsl.joins) != 1 or len(dsl.aggregates) != 1 or not dsl.groups:
        return gen
    agg = dsl.aggregates[0]
    if agg.fn != "count" or agg.field or agg.distinct:
        return gen
    base = models.get(dsl.model or "")
    rel = base.joins.get(dsl.joins[0].relation or "") if base is not None else None
    links = models.get(rel.model) if rel is not None else None
    if base is None or rel is None or links is None:
        return gen
    for m in _DISTINCT.finditer(text):
        named = _named(m["noun"], models)
        if named is None or named.name in (links.name, base.name):
            continue  # the links themselves (each row once already) or the groups' model
        said = f"{m[1]} {m['noun']}"
        via = [r for r in links.joins.values() if r.model == named.name and r.type != "has_many"]
        if len(via) == 1 and via[0].foreign in links.columns:
            field = f"{rel.name}.{via[0].foreign}"
            counted = Aggregate.model_validate(
                {"fn": "count", "field": field, "distinct": True, "as": agg.name}
            )
            try:
                new = validate_dsl(dsl.model_copy(update={"aggregates": (counted,)}), base,
                                   models)  # fmt: skip
            except InputError:
                continue
            rows = f": {links.name} rows counted per {base.name}"
            instead = (f": the distinct {field} counted per {base.name}, each {named.name} "
                       f"once ({said!r})")  # fmt: skip
            notes = tuple(n.replace(rows, instead) for n in gen.notes)
            if notes == gen.notes:
                notes = (*notes, instead[2:])
            return dataclasses.replace(gen, dsl=new, notes=notes)
        use = (f"{links.name} rows counted per {base.name}; a {named.name} linked twice "
               "counts twice")  # fmt: skip
        understood = tuple((w, f"not used: {use}" if w == m[1] else u) for w, u in gen.understood)
        return dataclasses.replace(
            gen,
            notes=(*gen.notes, f"not understood: {said!r} ({use})"),
            unknown=(*gen.unknown, m[1]),
            understood=understood,
        )
    return gen


def _named(noun: str, models: Mapping[str, Model]) -> Model | None:
    """The one model ``noun`` (or its singular) names: by its whole name first ("orders"
    is Orders, not Order_Items), else by the words naming it."""
    forms = {noun, noun[:-1] if noun.endswith("s") else noun, f"{noun[:-3]}y"}
    for words in (_whole_names, model_words):
        hits = [m for m in models.values() if forms & words(m)]
        if hits:
            return hits[0] if len(hits) == 1 else None
    return None


def _whole_names(model: Model) -> frozenset[str]:
    names = {model.name.lower(), model.table.lower(), model.description.lower()}
    return frozenset(names | {n[:-1] for n in names if n.endswith("s")})
