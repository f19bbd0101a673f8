"""One model per answer (issue #19): when the leg chose the models itself, the one that fits
the question best answers, and the result says which; rows of several models are merged
only when they fit equally, and then the result says so.

"Fits best": fewest words of the question it could not account for, then named earliest in
the question ("heads of the departments" is about heads), then no join (a model answering
from its own rows), then declaration order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from unifind.db.generate._scan import normalise, phrase_pattern
from unifind.db.models import Model
from unifind.types import Item, LegReport, Reason, Status


class Run(Protocol):
    model: str
    items: list[Item]
    report: LegReport | None
    dsl: dict[str, Any] | None
    notes: list[str]
    unknown: int
    off_topic: bool


def pick_one(runs: Sequence[Run], models: dict[str, Model], question: str) -> list[str]:
    """Keep the best-fitting run's rows; the others are passed over (reports say so).
    Returns the note that says what was done (none when one model answered anyway)."""
    answering = [r for r in runs if _answers(r)]
    if len(answering) < 2:
        return []
    text = normalise(question)
    keys = {r.model: (r.unknown, _position(models[r.model], text), _joined(r.dsl))
            for r in answering}  # fmt: skip
    best = min(keys.values())
    winners = [r for r in answering if keys[r.model] == best]
    if len(winners) > 1:
        names = ", ".join(r.model for r in winners)
        return [f"rows of models {names} merged: the question fits each of them equally"]
    winner = winners[0]
    for r in answering:
        if r is not winner:
            why = f"passed over: {winner.model} fits the question better"
            r.items, r.notes, r.dsl = [], [], None
            r.report = LegReport(leg="db", backend=r.model, status=Status.SKIPPED,
                                 reason=Reason.NOT_REQUESTED, note=why)  # fmt: skip
    others = ", ".join(r.model for r in answering if r is not winner)
    return [f"answered from model {winner.model}, the one that fits the question best "
            f"(also searched: {others})"]  # fmt: skip


def _joined(dsl: Any) -> int:
    """How many relations the query follows at most (0: none): between equal fits, the
    model that answers from its own rows, then the one fewer relations away, is the plainer
    reading (a join table seen through its relation reads like the model it points to)."""
    if not isinstance(dsl, dict):
        return 0
    if dsl.get("joins"):
        return 1
    names: list[Any] = [*dsl.get("select", ()), *dsl.get("groups", ())]
    names += [a.get("field") for a in dsl.get("aggregates", ())]
    names += [o.get("field") for o in dsl.get("orders", ())]

    def walk(ws: Any) -> None:
        for w in ws or ():
            names.append(w.get("field"))
            walk(w.get("wheres"))

    walk(dsl.get("wheres"))
    return max((n.count(".") for n in names if isinstance(n, str)), default=0)


def unused_models(runs: Sequence[Run], models: dict[str, Model], question: str) -> list[str]:
    """A note when the question names a model whose rows are in no answer (issue #19: "the
    names of tracks in the Rock genre" answered from tracks alone, with no word of warning,
    while genres holds "Rock"). A model an answering query reaches (a join, a dotted field)
    is used."""
    answering = [r for r in runs if _answers(r)]
    if not answering:
        return []
    text = normalise(question)
    reached = " ".join(json.dumps(r.dsl) for r in answering)
    answered = {r.model for r in answering}
    named = [
        name
        for name, model in models.items()
        if name not in answered
        and _position(model, text) < len(text)
        and not re.search(rf"\b{re.escape(name)}\b", reached)
    ]
    if not named:
        return []
    return [f"the question also names {', '.join(named)}: no rows of "
            f"{'it' if len(named) == 1 else 'them'} are in this answer"]  # fmt: skip


def _answers(run: Run) -> bool:
    return (
        run.report is not None
        and run.report.status is Status.OK
        and not run.off_topic
        and run.dsl is not None
    )


def _position(model: Model, text: str) -> int:
    """Where the question first names the model (len(text) when it does not)."""
    hits = [
        m.start()
        for w in {*spelt(model), *model.aliases}
        if normalise(w)
        for m in [phrase_pattern(w).search(text)]
        if m
    ]
    return min(hits, default=len(text))


def spelt(model: Model) -> set[str]:
    """The model's name and table as written, with spaces for underscores ("body_builder"
    is "body builder" in a question), and in the singular ("which customer")."""
    names = {model.name, model.table}
    names |= {n.replace("_", " ") for n in names}
    return names | {f for n in names for f in _forms(n.lower())}


def head_named(model: Model, models: Mapping[str, Model], text: str) -> bool:
    """A compound name whose modifier is a related model's noun is named by its head noun
    alone: "bookings" names ``apartment_bookings`` when it belongs to ``apartments`` (in
    English the last noun of a compound is what it is: apartment bookings are bookings).
    A generic last word ("type", "status", "id") names nothing alone: see ``_GENERIC``."""
    words = normalise(model.name.replace("_", " ")).split(" ")
    if len(words) < 2 or words[-1] in _GENERIC or len(words[-1]) < 4:
        return False
    modifier = " ".join(words[:-1])
    related = [models[r.model] for r in model.joins.values() if r.model in models]
    if not any(modifier in _forms(normalise(m.name.replace("_", " "))) for m in related):
        return False
    return any(phrase_pattern(w).search(text) for w in _forms(words[-1]))


#: Last words of a compound name that say what kind of record, not which: "allergy type",
#: "unit status", "product details" are not named by "type", "status", "details".
_GENERIC = frozenset(("type", "types", "status", "statuses", "detail", "details", "info",
                      "data", "list", "lists", "code", "codes", "name", "names", "record",
                      "records", "item", "items", "line", "lines", "view", "views"))  # fmt: skip


def _forms(noun: str) -> tuple[str, ...]:
    """A noun and its singular ("policies" → "policy", "bookings" → "booking")."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun, noun[:-3] + "y"
    if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3:
        return noun, noun[:-1]
    return (noun,)
