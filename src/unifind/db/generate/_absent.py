"""Records with no related row, in the builtin generator (issue #19): an anti-join.

"ships that are not involved in any missions", "customers who never placed an order",
"courses without prerequisites", "people that are not employed by any company": a negation
(not, n't, never, without, no) whose clause ends with a noun naming a model related by
``has_many`` asks for the records no row of that model points to. The noun names the
related model itself, or the model a link table points to ("company" through
``employment``): the records with no row in the link table. The query is
``key notin (select foreign from related where foreign notnull)`` (a NULL key in the
related rows would otherwise empty a NOT IN), and the related model's permission
conditions apply inside the subquery, as for any DSL.

Precision first: the noun must end the clause (nothing after it but punctuation or a new
clause), at most four plain words stand between the negation and the noun (verbs like
"placed", "involved in"; no number, no comparison word), and exactly one relation fits.
"never ordered product Latte" or "not allergic to soy" name a condition on the related
rows: :mod:`._notin` reads those. A related model may be named by the head noun of its
compound name ("competitions" for ``farm_competition``, :func:`heads`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from unifind.db.dsl import QueryDSL, SubQuery, Where
from unifind.db.generate._scan import Scan, phrase_pattern, plural
from unifind.db.generate._sense import learn
from unifind.db.models import Model
from unifind.db.relations import Relation

_NEGATION = re.compile(
    r"(?<![a-z'])(?:not|never|without|no|(?:do|does|did|have|has|had|is|are|was|were)n't"
    r"|don't|won't|can't)(?![a-z'])"
)
#: Where the negated clause ends: punctuation, the end, or a word that opens a new clause.
_CLAUSE_END = re.compile(
    r"\s*(?:$|[?.,!;:]|(?<![a-z])(?:and|but|or|give|list|show|return|find|sorted|ordered"
    r"|order\s+by|sort\s+by|what|which|who|whose)(?![a-z]))"
)
_WORD = re.compile(r"[a-z][a-z'-]*")
#: Words that make the clause a comparison or a quantity, not plain absence.
# fmt: off
_NOT_PLAIN = frozenset((
    "only", "all", "every", "more", "less", "than", "least", "most", "fewer", "few", "many",
    "much", "enough", "same", "one", "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "once", "twice",
))
# fmt: on


@dataclass(frozen=True, slots=True)
class Absent:
    """The records of the model with no row of ``relation`` (a has_many relation)."""

    relation: str
    named: str
    """The model the question named (the related one, or the one a link table reaches)."""


Nouns = Callable[[Model], list[str]]


def nouns_reaching(
    noun: str, many: Mapping[str, Relation], models: Mapping[str, Model], owner: str,
    nouns: Nouns, *, last: bool = True, text: str = "",
) -> list[str]:  # fmt: skip
    """The has_many relations a noun phrase names (``last``: with its last words): the
    related model itself, else the model a link table (the related model) points to.
    ``text``: the question, whose words may rule out a head-noun reading (:func:`heads`)."""

    own = set(nouns(models[owner])) if owner in models else set()

    def names(other: Model) -> bool:
        return _names(noun, _without_owner(nouns(other), own), last)

    direct = [n for n, r in many.items() if names(models[r.model])]
    if direct:
        return direct
    # "the city that hosted the most competitions" names ``farm_competition``: the last
    # noun of a compound is what it is (farm competitions are competitions).
    by_head = [n for n, r in many.items()
               if _names(noun, heads(nouns(models[r.model]), own, text), last)]  # fmt: skip
    if by_head:
        return by_head
    through = []
    for name, rel in many.items():
        for hop in models[rel.model].joins.values():
            if hop.type != "belongs_to" or hop.model in (owner, rel.model):
                continue
            if hop.model in models and names(models[hop.model]):
                through.append(name)
                break
    return through


def _without_owner(names: list[str], own: set[str]) -> list[str]:
    """A related model named after its owner also goes by the rest of its name: from
    customers, ``customer_orders`` is "orders"."""
    out = list(names)
    for name in names:
        first, _, rest = name.partition(" ")
        if rest and first in own and rest not in out:
            out.append(rest)
    return out


#: Last words of a compound name that say what kind of record, not which ("allergy type",
#: "claim status"): never a name alone.
_GENERIC = frozenset(("type", "types", "status", "statuses", "detail", "details", "info",
                      "data", "list", "lists", "code", "codes", "name", "names", "record",
                      "records", "item", "items", "line", "lines", "view", "views", "history",
                      "histories", "log", "logs", "info", "category", "categories"))  # fmt: skip


def heads(names: list[str], own: set[str], text: str = "") -> list[str]:
    """The head noun (last word) of each compound name: plain, not generic, not the owner's,
    and not when ``text`` names its modifier ("parties that have two or more events": the
    parties' events, not the events some other record of ``party_events`` points to)."""
    out = []
    for name in names:
        words = name.split(" ")
        if len(words) > 1 and text and _named_in(words[:-1], text):
            continue
        if len(words) > 1 and len(words[-1]) > 3 and words[-1].isalpha():
            head = words[-1]
            if head.endswith(("ches", "shes", "xes", "sses")):
                head = head[:-2]  # "matches" → "match" (its pattern takes either)
            if words[-1] not in _GENERIC and words[-1] not in own:
                out.append(head)
    return list(dict.fromkeys(out))


def _named_in(words: list[str], text: str) -> bool:
    """The words stand in ``text``, the last one singular or plural ("party": "parties")."""
    body = r"\s+".join([*(re.escape(w) for w in words[:-1]), plural(words[-1])])
    return re.search(rf"(?<![a-z]){body}(?![a-z])", text) is not None


def _names(noun: str, names: list[str], last: bool) -> bool:
    return any(
        not last or m.end() == len(noun) for n in names for m in phrase_pattern(n).finditer(noun)
    )


def read_absent(
    scan: Scan, many: Mapping[str, Relation], models: Mapping[str, Model], owner: str,
    nouns: Nouns,
) -> Absent | None:  # fmt: skip
    """A negated clause ending with a related model's noun; its span is consumed."""
    for neg in scan.find(_NEGATION):
        rest = scan.rest[neg.end() :]
        end = _CLAUSE_END.search(rest)
        if end is None:
            continue
        clause = rest[: end.start()].strip()
        words = _WORD.findall(clause)
        if not words or len(words) > 7 or any(w in _NOT_PLAIN for w in words):
            continue
        if re.search(r"[^a-z' -]", clause) or "  " in clause:
            continue  # a number, a quoted value or a word another rule read: a condition
        hits = nouns_reaching(clause, many, models, owner, nouns, text=scan.text)
        if len(hits) == 1 and not _conditions(words, many[hits[0]], models, owner, nouns):
            scan.consume(neg.start(), neg.end() + rest.index(clause) + len(clause))
            return Absent(hits[0], clause)
    return None


_FUNCTION = frozenset(("a", "an", "any", "the", "to", "in", "into", "by", "for", "of", "with",
                       "from", "on", "at", "as", "been", "be", "being", "have", "has", "had",
                       "single", "some", "them", "their", "its", "yet", "ever"))  # fmt: skip


def _conditions(
    words: list[str], rel: Relation, models: Mapping[str, Model], owner: str, nouns: Nouns
) -> bool:
    """A word of the clause that is a column word or a stored word of the related model (or
    of a model its rows point to, or of the owner): "without fantasy books" restricts the
    books, so it is no plain absence."""
    near = [models[rel.model], models[owner]] if owner in models else [models[rel.model]]
    near += [models[h.model] for h in models[rel.model].joins.values() if h.model in models]
    named = {w for m in near for n in nouns(m) for w in n.split()}
    for word in words:
        if word in _FUNCTION or word in named:
            continue
        for other in near:
            if _known(word, other):
                return True
    return False


def _known(word: str, model: Model) -> bool:
    forms = {word, word[:-1] if word.endswith("s") else word + "s"}
    if forms & model.vocabulary:
        return True
    return any(w in forms for sense in learn(model).values() for w in sense.words)


def absent_where(rel: Relation) -> Where:
    """``foreign notin (select key from <related> where key notnull)``."""
    query = QueryDSL(
        model=rel.model,
        select=(rel.key,),
        wheres=(Where(field=rel.key, op="notnull"),),
    )
    return Where(field=rel.foreign, op="notin", value=SubQuery(query=query))


def absent_note(model: Model, rel: Relation, absent: Absent) -> str:
    return (f"read as {model.name} with no {rel.model} row ({model.name}.{rel.foreign} not "
            f"in {rel.model}.{rel.key}; from '{absent.named}')")  # fmt: skip
