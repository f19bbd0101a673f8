"""A related model's stored value, named with that model, over a text search (issue #19).

"the tracks whose genre is Rock", "tracks in the Rock genre": read on tracks alone, "rock"
is a word searched in the tracks' own text (names with "Rock" in them: a wrong answer with
a plain ok); read on the joined view it is the whole stored value 'Rock' of the genre's
name. Both readings account for every word, so "more words used" cannot choose; the
joined one is chosen when it differs from the plain one only there: the same conditions,
but one text search of the model's own columns replaced by the equality with a value of a
model one ``belongs_to`` relation away that the question names ("genre"). The value must
hold the searched word, and the rest of the query (aggregates, groups, order, limit) must
be the same.
"""

from __future__ import annotations

from unifind.db.dsl import QueryDSL, Where
from unifind.db.generate._scan import normalise, phrase_pattern
from unifind.db.generate._view import JoinedView, _nouns


def exact_related(alt: QueryDSL, plain: QueryDSL, view: JoinedView, text: str) -> bool:
    """``alt`` is ``plain`` with one text search replaced by a named related model's value."""
    same = ("aggregates", "groups", "havings", "orders", "limit", "distinct", "select")
    if any(getattr(alt, k) != getattr(plain, k) for k in same if k != "distinct"):
        return False
    added = [w for w in alt.wheres if w not in plain.wheres]
    dropped = [w for w in plain.wheres if w not in alt.wheres]
    if len(added) != 1 or len(dropped) != 1:
        return False
    value, words = _related_value(added[0], view, text), _searched(dropped[0])
    if value is None or not words:
        return False
    held = value.split()
    return all(w in held or f"{w}s" in held for w in words)


def _related_value(where: Where, view: JoinedView, text: str) -> str | None:
    """The value of an equality on a column one belongs_to relation away whose model the
    question names, normalised; None otherwise."""
    if where.op != "=" or where.wheres or not where.field or where.field.count(".") != 1:
        return None
    path = where.field.split(".", 1)[0]
    rel = view.relations.get(path)
    if rel is None or rel.type != "belongs_to" or not isinstance(where.value, str):
        return None
    other = view.far.get(rel.model)
    if other is None or not any(phrase_pattern(n).search(text) for n in _nouns(other)):
        return None
    return normalise(where.value)


def _searched(where: Where) -> set[str]:
    """The word a text search (LIKE, alone or in a group of alternatives) looks for."""
    group = where.wheres or (where,)
    if any(w.op != "like" or w.wheres or not isinstance(w.value, str) for w in group):
        return set()
    return {w.value.strip("%").lower() for w in group}
