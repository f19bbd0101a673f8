"""Enumerated values ("Engineering", "东区分馆", "no-show") and zero/non-zero flags.

Values come from declarations or from the database (sampled by introspection). A value of one
latin letter ("A", an energy class) is only read right after its column's name ("class A"),
never from an article. A value's Chinese part ("Dr. 陈静" → "陈静") names it too when no other
value shares it.
"""

from __future__ import annotations

import functools
import re

from unifind.db._memo import per_object
from unifind.db.dsl import Where
from unifind.db.generate._negated import negated_before
from unifind.db.generate._scan import (
    Needing,
    Scan,
    is_cjk,
    normalise,
    phrase_pattern,
    phrase_words,
    search,
)
from unifind.db.generate._sense import Sense

NEG = re.compile(
    r"(?:(?<![a-z])(?:not|no|non|without|excluding|except|other than|never|isn't|aren't"
    r"|apart from|besides)"
    r"\s*-?\s*(?:(?:those|ones|the ones|any)\s+)?(?:from\s+|by\s+|made by\s+|in\s+|of\s+)?"
    r"|(?:不是|不要|非|除了|除|没有|无|不含|不))\s*$"
)
#: Negation with one word between ("not working remotely"), for yes/no columns only.
NEG_LOOSE = re.compile(r"(?<![a-z])(?:not|never|isn't|aren't|don't|doesn't)\s+[a-z]+\s+$|不\S?$")
POSITIVE = re.compile(
    r"(?:(?<![a-z])(?:with|has|having|have|that have)\s+(?:a\s+|an\s+|some\s+|any\s+)?|有|带)\s*$"
)
_CJK_RUN = re.compile(r"[\u3400-\u9fff]{2,}")


def _phrases(senses: dict[str, Sense]) -> list[tuple[str, Sense, str]]:
    out: list[tuple[str, Sense, str]] = []
    runs: dict[str, list[tuple[Sense, str]]] = {}
    for sense in senses.values():
        for value, phrases in sense.values.items():
            for p in phrases:
                out.append((p, sense, value))
            if not all(is_cjk(ch) for ch in value):
                for run in _CJK_RUN.findall(value):
                    runs.setdefault(run, []).append((sense, value))
    out += [(run, s, v) for run, owners in runs.items() if len(owners) == 1 for s, v in owners]
    return sorted(out, key=lambda t: -len(t[0]))


def read_values(scan: Scan, senses: dict[str, Sense]) -> list[Where]:
    """Consume named values; several for one column mean any of them; negated ones none.
    A value of several columns binds the one the question names, else any of them."""
    picked: dict[tuple[str, bool], list[str]] = {}
    either: list[Where] = []
    for phrase, sense, value, key, holders in _indexed(senses).present(scan.rest):
        owners: list[tuple[Sense, str]] | None = None
        for m in scan.find(_pattern(phrase)):
            if owners is None:  # only for a phrase the question has (it searches the text)
                owners = _owners(holders, scan.text)
            if len(owners) > 1:
                if len(key) > 1 and not search(NEG, scan.rest[: m.start()]):
                    scan.consume(*m.span())
                    either.append(_any_of(owners))
                continue
            if owners and owners[0][0] is not sense:
                continue  # the column the question names holds it too
            start = m.start()
            if len(key) == 1 and not is_cjk(phrase[0]):
                named = _named_before(scan, start, sense)
                if named is None:
                    continue  # "a" is an article, not energy class A
                start = named
            neg = search(NEG, scan.rest[:start]) or (
                # a related model's value: "no related row holds it" (``_notin``), not !=
                negated_before(scan.rest[:start]) if "." not in sense.column.name else None
            )
            scan.consume(neg.start() if neg else start, m.end())
            bucket = picked.setdefault((sense.column.name, bool(neg)), [])
            if value not in bucket:
                bucket.append(value)
    out = []
    for (name, negated), values in picked.items():
        if len(values) == 1:
            out.append(Where(field=name, op="!=" if negated else "=", value=values[0]))
        else:
            out.append(Where(field=name, op="notin" if negated else "in", value=values))
    return out + either


_Phrase = tuple[str, Sense, str, str, list[tuple[Sense, str]]]


@per_object
def _indexed(senses: dict[str, Sense]) -> Needing[_Phrase]:
    """Each phrase (longest first) with its value, its normalised form and every column
    holding that form, by the word its every match holds. Per phrase it was O(phrases)
    normalisations, and with a few hundred sampled values that was most of a question's
    time (issue #19)."""
    phrases = _phrases(senses)
    holders: dict[str, dict[int, tuple[Sense, str]]] = {}
    for p, s, v in phrases:
        holders.setdefault(normalise(p), {})[id(s)] = (s, v)
    keyed = ((p, s, v, normalise(p)) for p, s, v in phrases)
    return Needing((_need(p), (p, s, v, k, list(holders[k].values()))) for p, s, v, k in keyed if k)


@functools.lru_cache(maxsize=4096)
def _pattern(phrase: str) -> re.Pattern[str]:
    """A code of a few capitals ("UP", "CA") has no plural: "UPS" is not "UP"."""
    if _code(phrase):
        return re.compile(rf"(?<![a-z0-9_-]){re.escape(phrase.lower())}(?![a-z0-9_-])")
    return phrase_pattern(phrase)


def _need(phrase: str) -> str | tuple[str, ...]:
    """Text every match of ``_pattern(phrase)`` holds (of a phrase, each of its words)."""
    return phrase.lower() if _code(phrase) else phrase_words(phrase)


def _code(phrase: str) -> bool:
    return phrase.isupper() and len(phrase) <= 3 and phrase.isalpha()


def _owners(found: list[tuple[Sense, str]], text: str) -> list[tuple[Sense, str]]:
    """Of the columns holding a phrase as a value (``found``), the one the question names
    when exactly one is named ("whose home city is Paris"), else all ("staff in Paris")."""
    if len(found) < 2:
        return found
    named = [(s, v) for s, v in found if _names(s, text)]
    return named if len(named) == 1 else found


def _names(sense: Sense, text: str) -> bool:
    return any(phrase_pattern(w).search(text) for w in sense.words if len(w) > 2)


def _any_of(owners: list[tuple[Sense, str]]) -> Where:
    conds = tuple(
        Where.model_validate({"field": s.column.name, "value": v, "or": i > 0})
        for i, (s, v) in enumerate(owners)
    )
    return Where(wheres=conds)


def _named_before(scan: Scan, start: int, sense: Sense) -> int | None:
    before = scan.rest[max(0, start - 40) : start]
    for word in sense.words:
        m = re.search(rf"(?<![a-z]){re.escape(word)}\s*(?:is|=|:|of)?\s*$", before)
        if m:
            return start - (len(before) - m.start())
    return None


def read_flags(scan: Scan, senses: dict[str, Sense]) -> list[Where]:
    """ "free", "no late fee", "out of stock" → zero; "remote", "with copies available" → set."""
    out: list[Where] = []
    for sense, pattern, kind in _flag_words(senses).present(scan.rest):
        col = sense.column
        for m in scan.find(pattern):
            before = scan.rest[: m.start()]
            neg = search(NEG, before) or (
                search(NEG_LOOSE, before) if col.type == "boolean" else None
            )
            pos = search(POSITIVE, before)
            if kind == "named" and not (neg or pos):
                continue  # a bare column name ("price") states no condition
            if kind == "named" and _number_follows(scan, m.end()):
                continue  # "with a fee over $100": a comparison, read later
            scan.consume((neg or pos or m).start(), m.end())
            zero = (kind == "zero") != bool(neg)
            out.append(zero_where(sense) if zero else nonzero_where(sense))
    return out


@per_object
def _flag_words(senses: dict[str, Sense]) -> Needing[tuple[Sense, re.Pattern[str], str]]:
    """Each number or yes/no column's phrases (longest first in a column), by the word
    their every match holds."""
    out = []
    for sense in senses.values():
        col = sense.column
        if col.type not in ("integer", "number", "boolean"):
            continue
        words = [(w, "zero") for w in sense.zero] + [(w, "set") for w in sense.nonzero]
        if col.type != "boolean":
            words += [(w, "named") for w in sense.words]
        ordered = sorted(words, key=lambda t: -len(t[0]))
        out += [(phrase_words(w), (sense, phrase_pattern(w), kind)) for w, kind in ordered]
    return Needing(out)


def _number_follows(scan: Scan, end: int) -> bool:
    # The original text: the comparison may already be consumed by the number rule.
    return bool(re.match(r"\s*(?:[a-z]+\s+){0,4}?[$€¥£]?\d", scan.text[end:]))


def zero_where(sense: Sense) -> Where:
    col = sense.column
    if col.type == "boolean":
        return Where(field=col.name, op="=", value=False)
    either = Where.model_validate({"field": col.name, "op": "null", "or": True})
    return Where(wheres=(Where(field=col.name, op="=", value=0), either))


def nonzero_where(sense: Sense) -> Where:
    col = sense.column
    if col.type == "boolean":
        return Where(field=col.name, op="=", value=True)
    return Where(field=col.name, op=">", value=0)
