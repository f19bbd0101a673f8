"""The builtin generator's pre-checks (issue #19 latency) skip only work that can't find
anything: each is compared here with the plain computation it stands for.

A regex is run only when the text holds one of the literals its syntax requires
(``literals``, ``may_match``); a phrase's pattern begins with its first word (the boundary
checked behind it); an index of phrases asks for every word of a phrase
(``phrase_words``); the ledger reads only the span changed since its last mark; a stored
value is looked for only from a word some value begins with. Each must give exactly what
the unskipped computation gives, or an answer would change.
"""

from __future__ import annotations

import random
import re
import unicodedata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from unifind.db.generate import (
    _absent,
    _account,
    _aggregate,
    _both,
    _caveats,
    _cells,
    _comparative,
    _dates,
    _distinct,
    _group,
    _having,
    _join,
    _notin,
    _numbers,
    _order,
    _scan,
    _sort,
    _text,
    _values,
    builtin,
)
from unifind.db.generate._account import Ledger, _changed
from unifind.db.generate._scan import (
    Needing,
    Scan,
    literals,
    may_match,
    normalise,
    phrase_pattern,
    phrase_words,
    plural,
)

BENCH = Path(__file__).resolve().parents[2] / "bench"

#: Questions that exercise the rules (dates, numbers, sorts, groups, joins, negation, both
#: languages), beside the dev sets' own.
EXTRA = [
    "orders placed in march 2024 or since 2019, in the last 3 days", "2024-02-29",
    "before the year of 1850 and after june", "下个月的订单", "最近30天", "2024年3月5日以来",
    "the 3 most expensive laptops sorted by price in descending order", "价格在500到1000美元之间",
    "how many orders does each customer have", "customers with at least 3 orders",
    "which city has the most competitions", "employees who serve at most 20 customers",
    "products not made by sony or apple", "books with no loans", "both tennis and golf",
    "the average, highest and lowest salary per department", "top 5 countries by revenue",
    "list the names in alphabetical order", "from highest to lowest rating", "‘a’ or \"b\"",
    "the number of different cities", "what's the total amount for each year",
    "1,000,000 non-apple things", "who is older than the average", "the day before yesterday",
    "orders of customers in germany", "e-mails of o'brien's c++ friends", "x-ray and a b",
]  # fmt: skip


def _questions() -> list[str]:
    out = list(EXTRA)
    for name in ("db_devset.yaml", "db_heldout.yaml"):
        spec = yaml.safe_load((BENCH / name).read_text(encoding="utf-8"))
        out += [q["q"] for q in spec["questions"]]
    return out


TEXTS = [normalise(q) for q in _questions()]

MODULES = [_absent, _account, _aggregate, _both, _caveats, _cells, _comparative, _dates,
           _distinct, _group, _having, _join, _notin, _numbers, _order, _sort, _text,
           _values, builtin]  # fmt: skip


def _patterns() -> list[re.Pattern[str]]:
    found: dict[int, re.Pattern[str]] = {}
    for module in MODULES:
        for value in vars(module).values():
            if isinstance(value, re.Pattern):
                found[id(value)] = value
    for pattern, _make in _dates.PATTERNS:
        found[id(pattern)] = pattern
    for _kind, pattern in _numbers.PATTERNS:
        found[id(pattern)] = pattern
    return [p for p in found.values() if isinstance(p.pattern, str)]


PATTERNS = _patterns()


def test_literals_are_what_the_syntax_requires() -> None:
    def lit(p: str, flags: int = 0) -> set[str] | None:
        got = literals(re.compile(p, flags))
        return None if got is None else set(got)

    assert lit(r"(?<![a-z])(?:average|avg|mean)(?![a-z])|平均") == {"average", "avg", "mean",
                                                                    "平均"}  # fmt: skip
    assert lit(r"sum of|sum|total") == {"sum", "total"}  # "sum of" holds "sum"
    assert lit(r"a?b") == {"b"}
    assert lit(r"(?:ab)+c") == {"ab"}  # the longer of two required texts
    assert lit(r"[xy]z*") == {"x", "y"}
    assert lit(r"x*") is None  # nothing required
    assert lit(r"(?:a|)") is None  # an empty alternative requires nothing
    assert lit(r"\d+") is None
    assert lit(r"(?=19|20)(?<=in )(\d{4})") is None  # a look-around holds no match text
    assert lit(r"abc", re.IGNORECASE) is None  # "ABC" matches too
    assert lit(r"(?i:abc)d") == {"d"}


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.pattern[:40])
def test_every_match_holds_one_of_the_literals(pattern: re.Pattern[str]) -> None:
    needs = literals(pattern)
    for text in TEXTS:
        for m in pattern.finditer(text):
            if needs is not None and m.end() > m.start():
                assert any(n in text for n in needs), (pattern.pattern, text, m[0], needs)
            assert may_match(pattern, text), (pattern.pattern, text)


def test_the_literals_are_tried_on_matches() -> None:
    # The property above is not vacuous: most patterns match some question here.
    matched = [p for p in PATTERNS if any(p.search(t) for t in TEXTS)]
    assert len(matched) > len(PATTERNS) // 2
    assert sum(literals(p) is not None for p in matched) > 30


@pytest.mark.parametrize("text", TEXTS[:60])
def test_scan_find_and_search_give_the_regex_matches(text: str) -> None:
    scan = Scan(text)
    scan.consume(0, min(3, len(text)))  # a consumed start is not read
    for pattern in PATTERNS:
        assert [m.span() for m in scan.find(pattern)] == [
            m.span() for m in pattern.finditer(scan.rest)]  # fmt: skip
        want = pattern.search(scan.rest)
        got = scan.search(pattern)
        assert (got and got.span()) == (want and want.span())


def _phrase_pattern_before(phrase: str) -> re.Pattern[str]:
    """``phrase_pattern`` as it was: the look-behind first."""
    phrase = normalise(phrase)
    parts = phrase.split(" ")
    body = r"\s*".join(re.escape(p) for p in parts)
    if phrase and _scan.is_cjk(phrase[0]):
        return re.compile(body)
    if _scan._CONSONANT_Y.search(parts[-1]):
        body = r"\s*".join([*(re.escape(p) for p in parts[:-1]), plural(parts[-1])])
    return re.compile(rf"(?<![a-z0-9_-]){body}(?:e?s)?(?![a-z0-9_-])")


PHRASES = ["party", "city", "country", "day", "customer country", "total points", "e-mail",
           "first name", "box", "销售额", "东区 分馆", "深圳 city", "sony", "x", "a b", "c++",
           ".net", "o'brien", "x-y", "fly", "ies", "s", "Product Type", "non-apple"]  # fmt: skip
PHRASE_TEXTS = [*TEXTS, "parties and cities", "customercountry", "x-ray", "-party",
                "_city", "2city", "深圳city", "c++ and c+++", "o'briens", ".nets",
                "flies"]  # fmt: skip


@pytest.mark.parametrize("phrase", PHRASES)
def test_phrase_pattern_matches_what_the_look_behind_form_matched(phrase: str) -> None:
    new, old = phrase_pattern(phrase), _phrase_pattern_before(phrase)
    assert new.pattern != old.pattern or not re.match(r"[a-z]", normalise(phrase))
    for text in PHRASE_TEXTS:
        assert [m.span() for m in new.finditer(text)] == [m.span() for m in old.finditer(text)]


@pytest.mark.parametrize("phrase", PHRASES)
def test_every_match_holds_each_phrase_word(phrase: str) -> None:
    words = phrase_words(phrase)
    assert words[0] == _scan.phrase_need(phrase)
    for text in PHRASE_TEXTS:
        for m in phrase_pattern(phrase).finditer(text):
            assert all(w in m[0] for w in words), (phrase, text, m[0], words)


def test_needing_asks_for_every_word_of_a_phrase() -> None:
    phrases = ["customer name", "order date", "customer country", "party", "date", "name"]
    index = Needing((phrase_words(p), p) for p in phrases)
    # "customer name": the text has no "name"
    assert index.present("the customers' countries and parties") == ["customer country", "party"]
    assert index.present("customer names by date") == ["customer name", "date", "name"]
    for text in PHRASE_TEXTS:  # never one left out that matches, in their order
        kept = index.present(text)
        assert kept == [p for p in phrases if p in kept]
        assert [p for p in phrases if phrase_pattern(p).search(text)] == [
            p for p in kept if phrase_pattern(p).search(text)]  # fmt: skip
    with pytest.raises(ValueError, match="one word"):
        Needing([(("customer", "first name"), 1)])


def test_changed_is_the_span_that_differs() -> None:
    rng = random.Random(19)
    for _ in range(3000):
        n = rng.randint(1, 60)
        before = "".join(rng.choice("ab c是") for _ in range(n))
        after = list(before)
        for _ in range(rng.randint(0, 3)):
            after[rng.randrange(n)] = rng.choice("ab c")
        differ = [i for i in range(n) if before[i] != after[i]]
        lo, hi = _changed(before, "".join(after))
        # Exactly the differing span; a non-ASCII text may give a wider one.
        assert all(lo <= i < hi for i in differ)
        if before.isascii() and "".join(after).isascii():
            assert (lo, hi) == ((differ[0], differ[-1] + 1) if differ else (0, 0))


class _FullLedger(Ledger):
    """The ledger as it was: every character looked at, at every mark."""

    def mark(self, stage: str) -> None:
        text, rest = self.scan.text, self.scan.rest
        for i, ch in enumerate(rest):
            if self._owner[i] is None and ch != text[i]:
                self._owner[i] = stage


@pytest.mark.parametrize("seed", range(40))
def test_ledger_owners_are_those_of_a_full_scan(seed: int) -> None:
    rng = random.Random(seed)
    text = rng.choice([*TEXTS[:80], "东区分馆的书 and 本月销售额 of sony"])
    runs = []
    for ledger_type in (Ledger, _FullLedger):
        rng = random.Random(seed)
        scan = Scan(text)
        if rng.random() < 0.3:  # a join's phrase read before the ledger starts
            scan.consume(0, min(4, len(scan.text)))
        ledger = ledger_type(scan)
        for step in range(8):
            for _ in range(rng.randint(0, 2)):
                start = rng.randrange(len(scan.text))
                end = min(len(scan.text), start + rng.randint(1, 6))
                if rng.random() < 0.2:
                    scan.rewrite(start, end, "x")
                else:
                    scan.consume(start, end)
            ledger.mark(f"stage{step}")
        runs.append(list(ledger._owner))
    assert runs[0] == runs[1]


def test_sort_column_is_the_first_phrase_whose_plural_is_said() -> None:
    phrases = {"city": "City", "party": "Party", "day": "Day", "box": "Box", "c++": "Lang",
               "name": "Name", "names": "Names", "x-y": "XY", "boxes": "Boxes"}  # fmt: skip
    for said in ["city", "cities", "party", "parties", "days", "box", "boxes", "boxs",
                 "c++", "c++s", "name", "names", "namees", "x-y", "x-ies"]:  # fmt: skip
        first = next(c for p, c in phrases.items() if re.fullmatch(plural(p), said))
        assert _sort._column(phrases, said) == first
    with pytest.raises(KeyError):
        _sort._column(phrases, "town")


def test_a_value_is_looked_for_only_from_a_word_one_begins_with() -> None:
    cells = {"new york": (), "newark": (), "bob": (), "o'neil": (), "a&b co": ()}
    model: Any = SimpleNamespace(cells=cells)
    for word in ["new", "newa", "york", "bob", "bob's", "o'neil", "o'neil's", "a&b", "a",
                 "zed", "ne", "bobs"]:  # fmt: skip
        brute = any(k.startswith(word) for k in cells) or (
            word.endswith("'s") and word[:-2] in cells)  # fmt: skip
        assert _cells._begins_value(word, model) == brute, word


def _normalise_before(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_scan._INVISIBLE).lower()
    return _scan._SPACES.sub(" ", _scan._NON.sub("non ", _scan._THOUSANDS.sub("", text))).strip()


NORMALISE = ["1,000,000 Non-Apple", "ＡＢＣ１２３", "a\u200bb\u202ec", "NON-stop  x\t\ny",
             "İstanbul ß", "\x1c a \x1f b", "a\u00a0b", "１，０００ 元", "non-", " , ",
             ""]  # fmt: skip


@pytest.mark.parametrize("text", NORMALISE)
def test_normalise_of_ascii_skips_what_ascii_never_holds(text: str) -> None:
    assert normalise(text) == _normalise_before(text)


def test_dates_are_looked_for_only_in_a_question_with_one_of_their_words() -> None:
    needs = _dates._ANY_DATE
    assert needs is not None and "-" in needs and "jan" in needs and "今天" in needs
    for pattern, _make in _dates.PATTERNS:
        for text in TEXTS:
            if pattern.search(text):
                assert any(n in text for n in needs), (pattern.pattern, text)
