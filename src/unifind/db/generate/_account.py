"""Every content word of a question, accounted for (issue #19, DESIGN §7: precision first).

The rules of the builtin generator consume the spans they read from a :class:`Scan`. The
:class:`Ledger` watches them: after each rule runs, the characters it consumed are that
rule's. At the end every content word (not a function word) has one use — the rule that read
it, the model or column it names, a text search — or is one the generator could not use.
The share of content words used is the answer's confidence (1.0: every word used).

Nothing here changes the query; it only says what the query was made of.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from unifind.db._memo import per_object
from unifind.db.dsl import QueryDSL, Where
from unifind.db.generate._scan import (
    Needing,
    Scan,
    finditer,
    normalise,
    phrase_pattern,
    phrase_words,
)
from unifind.db.generate._sense import Sense
from unifind.db.models import Model

TOKEN = re.compile(r"[a-z0-9][a-z0-9+#.'-]*[a-z0-9+#]|[a-z0-9]|[\u4e00-\u9fff]+")

_OR = re.compile(r"(?<![a-z])or(?![a-z])|或者|或")

#: What each rule's consumed words are used for (``Ledger.mark``'s stage names).
USES = {
    "date": "date condition",
    "nested": "not used: a comparison with an aggregate (left out)",
    "shape": "aggregate, grouping or order",
    "text": "text condition",
    "value": "value",
    "flag": "flag",
    "comparative": "comparison",
    "number": "number condition",
    "negation": "excluded word",
    "group": "grouping",
    "column": "column",
}


class Ledger:
    """Which rule consumed which characters of ``scan.text``."""

    def __init__(self, scan: Scan) -> None:
        self.scan = scan
        self._owner: list[str | None] = [None] * len(scan.text)
        #: Characters read before the ledger started (a join's phrase, ``_join``).
        self._read = (
            [False] * len(scan.text)
            if scan.rest == scan.text
            else [a != b for a, b in zip(scan.text, scan.rest, strict=True)]
        )
        #: ``scan.rest`` at the last mark (before the first, the text: every character that
        #: differs from it is a rule's).
        self._marked = scan.text

    def mark(self, stage: str) -> None:
        """Characters consumed since the last mark belong to ``stage``."""
        text, rest, last = self.scan.text, self.scan.rest, self._marked
        if rest is last:
            return  # nothing consumed since: every changed character has its owner
        self._marked = rest
        # A character the same as at the last mark has its owner already, or none to get
        # (the last mark gave one to each that differed from the text): only the span
        # that changed since is read (a mark a rule, ~13 a reading; issue #19 latency).
        lo, hi = _changed(last, rest)
        owner = self._owner
        for i in range(lo, hi):
            if owner[i] is None and rest[i] != text[i]:
                owner[i] = stage

    def unused_columns(
        self, senses: dict[str, Sense], known: frozenset[str], dsl: QueryDSL
    ) -> dict[str, tuple[str, ...]]:
        """Words that name only columns the query does not use → those columns.

        An aggregate answer has no row to show a column in: "show all majors and the number
        of students" answered with one total ignores "majors" (issue #19: the largest class
        of silent wrong answers). A word read by a rule, or one that names the model, or a
        column the query uses (in a condition, aggregate, group or order), is used."""
        used = used_fields(dsl)
        named: dict[tuple[int, int], set[str]] = {}
        text = self.scan.text
        for col, pattern in _column_phrases(senses).present(text):
            for m in pattern.finditer(text):
                for t in TOKEN.finditer(text, m.start(), m.end()):
                    named.setdefault(t.span(), set()).add(col)
        out: dict[str, tuple[str, ...]] = {}
        for (start, end), cols in sorted(named.items()):
            word = self.scan.text[start:end]
            if self._owner[start] not in (None, "column") or self._read[start] or cols & used:
                continue
            if any(f in known for f in (*_forms(word), word.rstrip("s"))):
                continue  # it names the model too: a count of rows uses it
            out.setdefault(word, tuple(sorted(cols)))
        return out

    def loose_or(self, dsl: QueryDSL) -> bool:
        """An "or" the query did not read: it stands between words of two conditions, and
        the query requires both ("height over 5000 or prominence over 1000" answered with
        AND is a silent wrong answer; issue #19). An "or" inside a list of values ("sony or
        apple" → brand in [...]) is read."""
        if len(dsl.wheres) < 2 or any(w.or_ for w in dsl.wheres):
            return False
        listed = any(w.op in ("in", "notin") for w in dsl.wheres)
        for m in finditer(_OR, self.scan.rest):
            left, right = self._neighbour(m.start(), -1), self._neighbour(m.end(), 1)
            if left is None or right is None:
                continue
            if not (listed and left == right and left in ("value", "text", "flag")):
                return True
        return False

    def _neighbour(self, i: int, step: int) -> str | None:
        """The stage that consumed the nearest consumed character before/after ``i``."""
        i = i - 1 if step < 0 else i
        while 0 <= i < len(self._owner):
            if self._owner[i] is not None:
                return self._owner[i]
            i += step
        return None

    def account(
        self,
        *,
        stopwords: frozenset[str],
        names: dict[str, str],
        keywords: Sequence[str],
        unused: dict[str, str],
        dsl: QueryDSL,
    ) -> tuple[tuple[tuple[str, str], ...], float]:
        """(word → use, confidence). ``names`` maps a word to the model or column it names;
        ``unused`` maps a word the generator could not use to what was done instead."""
        out: dict[str, str] = {}
        for m in TOKEN.finditer(self.scan.text):
            word = m[0]
            stage = self._owner[m.start()]
            if word in out:
                continue
            if word in unused:
                out[word] = f"not used: {unused[word]}"
            elif word in stopwords:
                continue
            elif stage is not None:
                out[word] = _describe(stage, word, dsl)
            elif (hit := _lookup(word, unused)) is not None:
                out[word] = f"not used: {hit}"
            elif (hit := _lookup(word, names)) is not None:
                out[word] = hit
            elif _lookup(word, dict.fromkeys(keywords, "")) is not None:
                out[word] = "text search"
        used = sum(not use.startswith("not used") for use in out.values())
        confidence = round(used / len(out), 2) if out else 1.0
        return tuple(out.items()), confidence


def _changed(before: str, after: str) -> tuple[int, int]:
    """The span outside which two texts of one length are the same (it may be empty)."""
    if before == after:
        return 0, 0
    if not (before.isascii() and after.isascii()):
        return 0, len(after)
    # One byte a character: the first and last differing bytes of the two, as numbers.
    diff = int.from_bytes(before.encode(), "big") ^ int.from_bytes(after.encode(), "big")
    first = len(after) - (diff.bit_length() + 7) // 8
    last = len(after) - ((diff & -diff).bit_length() - 1) // 8
    return first, last


@per_object
def _column_phrases(senses: dict[str, Sense]) -> Needing[tuple[str, re.Pattern[str]]]:
    """Each phrase naming a column, by the word its every match holds."""
    return Needing(
        (phrase_words(p), (sense.column.name, phrase_pattern(p)))
        for sense in senses.values()
        for p in _with_plurals({*sense.words, sense.column.name.lower().replace("_", " ")})
    )


def _with_plurals(phrases: set[str]) -> set[str]:
    """``phrase_pattern`` reads "-s"/"-es" plurals; "country" → "countries" is added here."""
    return phrases | {
        p[:-1] + "ies" for p in phrases if p.endswith("y") and p[-2:-1] not in "aeiou"
    }


def used_fields(dsl: QueryDSL) -> set[str]:
    """Every column the query reads: conditions, aggregates, groups and orders."""
    fields = {w.field for w in _leaves(dsl.wheres) if w.field}
    fields |= {a.field for a in dsl.aggregates if a.field}
    fields |= set(dsl.groups) | {o.field for o in dsl.orders}
    return fields


def _lookup(word: str, table: dict[str, str]) -> str | None:
    """``word`` or a plural/singular of it ("laptops" for "laptop") in ``table``."""
    for w in _forms(word):
        if w in table:
            return table[w]
    return None


def _forms(word: str) -> tuple[str, ...]:
    """The word and its singular ("laptops" → "laptop", "cities" → "city")."""
    if word.endswith("ies") and len(word) > 4:
        return word, word[:-3] + "y"
    if word.endswith("s") and len(word) > 3:
        return word, word[:-1]
    return word, f"{word}s"


def _describe(stage: str, word: str, dsl: QueryDSL) -> str:
    use = USES.get(stage, stage)
    if stage in ("value", "number", "text", "date", "flag", "negation", "comparative"):
        fields = sorted({w.field for w in _leaves(dsl.wheres) if w.field and _holds(w, word)})
        if fields:
            return f"{use} of {', '.join(fields)}"
    return use


def _holds(where: Where, word: str) -> bool:
    values = where.value if isinstance(where.value, list) else [where.value]
    return any(f in str(v).lower() for v in values for f in _forms(word)) or where.field == word


def _leaves(wheres: Iterable[Where]) -> Iterable[Where]:
    for w in wheres:
        if w.wheres is not None:
            yield from _leaves(w.wheres)
        else:
            yield w


#: name_uses per model object (and its known words): it normalised every word of every
#: column at each read, several reads a join question (issue #19 latency).
_NAMES: dict[int, tuple[Model, frozenset[str], dict[str, str]]] = {}


def name_uses(model: Model, senses: dict[str, Sense], known: Iterable[str]) -> dict[str, str]:
    """Every single word that names the model or a column → "model X" / "column Y"
    (``senses`` are ``learn(model)``'s)."""
    words = frozenset(known)
    hit = _NAMES.get(id(model))
    if hit is not None and hit[0] is model and hit[1] == words:
        return dict(hit[2])
    out = _name_uses(model, senses, words)
    if len(_NAMES) > 256:
        _NAMES.clear()
    _NAMES[id(model)] = (model, words, out)
    return dict(out)


def _name_uses(model: Model, senses: dict[str, Sense], known: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for sense in senses.values():
        for w in (*sense.words, sense.column.name, *sense.column.aliases):
            for part in normalise(w.replace("_", " ")).split(" "):
                out.setdefault(part, f"column {sense.column.name}")
    for w in (model.name, model.table, *model.aliases, *known):
        for part in normalise(w.replace("_", " ")).split(" "):
            out[part] = f"model {model.name}"
    return out
