"""A count of related rows listed beside a model's own columns (issue #19).

"Show the names of pilots and the number of records they have", "the country names and the
corresponding number of players", "the names of the tracks, and how many races has each
had": the question lists columns of the model and, joined to them by "and" ("as well as",
"along with"), a number of rows of a model related by ``has_many``. In English the count
then belongs to each listed record, as in "the names of the authors and the number of their
books": one answer row per record, with its count (``_join._counted``).

Precision first: the count is read only when the words before it name the model or a
column that tells its records apart (its key, a name or a title: what is listed is the
model's rows), or the words right after it say per which record ("for each of the clubs");
the counted noun names exactly one ``has_many`` relation (``nouns_reaching``); and "how
many" is read only with a verb of which the record is the subject ("how many races has each
had", "how many orders do they have").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from unifind.db.dsl import QueryDSL
from unifind.db.generate._absent import nouns_reaching
from unifind.db.generate._scan import Scan, phrase_pattern
from unifind.db.generate._sense import learn
from unifind.db.models import Model
from unifind.db.relations import Relation

_AND = r"(?<![a-z])(?:and|as\s+well\s+as|along\s+with|together\s+with)\s+(?:also\s+)?"
_NOUN = r"(?P<noun>[a-z][a-z ]{1,40}?)"
#: "... they have", "... it has", "... each made": the record is the subject of the verb.
_SUBJECT = (r"(?:\s+(?:that\s+|which\s+)?(?:they|it|each(?:\s+one)?)\s+"
            r"(?:have|has|had|made|make|makes|own|owns|got|gets|get)(?![a-z]))")  # fmt: skip
#: "the number of reservations made for each room": a participle of the counted rows.
_PARTICIPLE = r"(?:\s+(?:made|given|held|taken|won|written|done|[a-z]{3,}ed)(?![a-z]))?"
_END = r"(?=$|[?.,!;]|\s+(?:and|in|of|for|with|to|at|from|on|by|per|sorted|ordered|order)\b)"
#: "and the (corresponding) number of players (they have)".
_NUMBER = re.compile(
    _AND + r"(?:(?:the|their|its)\s+)?(?:corresponding\s+|respective\s+|total\s+)?"
    r"(?:number|count)\s+of\s+(?:(?:the|their|its)\s+)?" + f"{_NOUN}{_PARTICIPLE}{_SUBJECT}?{_END}"
)
#: "and how many races has each had", "and how many orders do they have".
_HOW_MANY = re.compile(
    _AND + r"how\s+many\s+" + _NOUN + r"\s+(?:do|does|did|has|have|had)\s+(?:they|it|each"
    r"(?:\s+one)?)(?:\s+(?:have|had|has|made|make|got|get))?" + _END
)


def read_beside(
    scan: Scan, many: Mapping[str, Relation], models: Mapping[str, Model], owner: str,
    nouns: Callable[[Model], list[str]],
) -> str | None:  # fmt: skip
    """The has_many relation whose rows are counted beside the listed columns (the phrase
    is consumed), or None."""
    model = models.get(owner)
    if model is None:
        return None
    for pattern in (_NUMBER, _HOW_MANY):
        for m in scan.find(pattern):
            per = _owner(scan.rest, m.end(), model, nouns)
            if per is None and not _lists_own(scan.text[: m.start()], model, nouns):
                continue
            if any(phrase_pattern(n).search(m["noun"]) for n in nouns(model)):
                continue  # "the number of video games in each type": the model's own rows
            hits = nouns_reaching(m["noun"].strip(), many, models, owner, nouns, last=False,
                                  text=scan.text)  # fmt: skip
            if len(hits) != 1:
                continue
            scan.consume(m.start(), per or m.end())
            return hits[0]
    return None


def _lists_own(before: str, model: Model, nouns: Callable[[Model], list[str]]) -> bool:
    """The words before the count name the model, or a column that tells its records apart
    (its key, a name or title): "the card type codes and the number of transactions" lists
    values of a column, one count per code, not per card."""
    senses = learn(model)
    named = [c for c in senses if c == model.primary_key or _NAMING.search(c.lower())]
    words = [*nouns(model), *(w for c in named for w in senses[c].words)]
    return any(phrase_pattern(w).search(before) for w in words if w)


_NAMING = re.compile(r"name|title")


#: "... for each of the rooms", "... from that county": the record the count is per.
_OWNER = re.compile(
    r"\s+(?:for|of|in|from|per|by)\s+(?:each|every|that|this)(?:\s+one)?(?:\s+of)?"
    r"(?:\s+(?:the|their|its))?\s+(?P<owner>[a-z]+(?: [a-z]+)?)(?![a-z])"
)


def _owner(rest: str, end: int, model: Model, nouns: Callable[[Model], list[str]]) -> int | None:
    """Where the words right after the count that name the record it is per end, if any."""
    m = _OWNER.match(rest, end)
    if m is None:
        return None
    owner = m["owner"]
    for noun in sorted(nouns(model), key=len, reverse=True):
        if owner == noun or owner.startswith(f"{noun} "):
            return m.start("owner") + len(noun)
    return None


#: Words asking for an order: with none read, the count said again may have lost one.
_SORTED = re.compile(r"(?<![a-z])(?:sort|sorted|order|ordered|ascending|descending)(?![a-z])")


def restated(dsl: QueryDSL, model: Model, text: str) -> bool:
    """The reading's only aggregate is a plain count of rows, with no condition on it and
    no order or groups but the model's own columns: the related count said again. Not
    when the question asks for an order the reading does not hold ("sort by the course
    count" read as nothing: the answer would leave the order out)."""
    aggs = dsl.aggregates
    if _SORTED.search(text) and not dsl.orders:
        return False
    return (len(aggs) == 1 and aggs[0].fn == "count" and aggs[0].field is None
            and not dsl.havings and all(g in model.columns for g in dsl.groups)
            and all(o.field == aggs[0].name for o in dsl.orders))  # fmt: skip
