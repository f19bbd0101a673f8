"""Superlatives and top-N: "cheapest 5", "3 most expensive", "newest 10", "top 5", "最便宜的5款".

A superlative names a column by meaning (a money, date, weight or rating column) or by
alias ("highest discount", "评分最高"). Without a count, a superlative keeps one row when
the noun is singular ("the cheapest laptop") or Chinese (no plural to tell), and every row
in order when the noun is an English plural ("newest orders"); "the employee with the
highest salary" keeps one row too.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from unifind.db._memo import per_object
from unifind.db.dsl import SubAggregate, Where
from unifind.db.generate._numbers import family
from unifind.db.generate._scan import (
    NUMBER_WORDS,
    Needing,
    Scan,
    number,
    phrase_need,
    phrase_pattern,
)
from unifind.db.generate._sense import Sense
from unifind.db.models import Column, Model

# (phrases, what they sort, direction); "date" means the model's date column.
SUPERLATIVES: list[tuple[str, str, str]] = [
    ("least expensive|lowest[- ]priced|most affordable|cheapest|最便宜|价格最低|最低价",
     "money", "asc"),
    ("most expensive|highest[- ]priced|priciest|dearest|最贵|价格最高|最高价", "money", "desc"),
    ("best[- ]rated|top[- ]rated|highest[- ]rated|best[- ]reviewed"
     "|评分最高|评价最高|好评最多|最好评", "stars", "desc"),
    ("worst[- ]rated|lowest[- ]rated|评分最低|评价最低", "stars", "asc"),
    ("highest[- ]paid|best[- ]paid|top[- ]paid|top[- ]earning|薪资最高|工资最高", "money", "desc"),
    ("lowest[- ]paid|worst[- ]paid|薪资最低|工资最低", "money", "asc"),
    ("most recently|most recent|newest|latest|recently|recent|最新|最近|近期", "date", "desc"),
    ("oldest|earliest|最早|最旧|最老", "date", "asc"),
    ("heaviest|最重", "kg", "desc"),
    ("lightest|最轻", "kg", "asc"),
    ("largest|biggest|最大", "money", "desc"),
    ("smallest|最小", "money", "asc"),
]  # fmt: skip

_N = r"\d+|" + "|".join(NUMBER_WORDS)
_MEASURE = r"(?:个|款|件|台|部|条|名|笔|位|只|副)"
_LEAD = r"(?:(?<=^)|(?<=\bthe )|(?<=\bme )|(?<=\bshow )|(?<=\blist )|(?<=\bfind )|(?<=\bget ))"
_TOP = re.compile(rf"(?<![a-z])(?:top|first)\s+(?P<n>{_N})\b|前\s*(?P<zn>{_N})\s*{_MEASURE}?")
_DESC_WORDS = r"desc|descending|highest first|降序|从高到低"
_ASC_WORDS = r"asc|ascending|lowest first|升序|从低到高"


_SUPERLATIVES = [
    (re.compile(
        rf"(?:{_LEAD}(?P<pre>{_N})\s+|(?P<zpre>{_N})\s*{_MEASURE}\s*)?"
        rf"(?<![a-z])(?:the\s+)?(?:{phrases})(?![a-z])"
        rf"(?:\s*的?\s*(?P<post>{_N})(?![\d.])\s*{_MEASURE}?)?"
    ), target, sort)
    for phrases, target, sort in SUPERLATIVES
]  # fmt: skip

_ANY_SUPERLATIVE = re.compile("|".join(f"(?:{phrases})" for phrases, _, _ in SUPERLATIVES))


@dataclass(frozen=True, slots=True)
class Ordering:
    column: str
    sort: str


_COUNT_LEAD = re.compile(rf"(?:^|(?<=\bthe )|(?<=\bshow )|(?<=\blist ))(?P<n>{_N})\s+(?=[a-z])")


def read_order(
    scan: Scan,
    senses: dict[str, Sense],
    nouns: frozenset[str] = frozenset(),
    superlatives: list[tuple[Ordering, str]] | None = None,
) -> tuple[list[Ordering], int | None]:
    """Consume superlatives, "sort by" phrases and top-N; return the orders and a limit.

    ``nouns`` name the model's rows: "the most invoices" counts them, it sorts no column
    that the word also names (invoice_date). Each ordering read from a superlative (not
    from "by X") is added to ``superlatives`` with the words read."""
    found = superlatives if superlatives is not None else []
    limit: int | None = None
    top = False
    for m in scan.find(_TOP):
        limit = int(number(m["n"] or m["zn"]))
        scan.consume(*m.span())
        top = True
    orders: list[Ordering] = []
    for m, measure, sort in _adjectives(scan, senses):
        n = m["pre"] or m["post"]
        if n:
            limit = int(number(n))
        elif limit is None and not _plural_follows(scan, m.end()):
            limit = 1
        scan.consume(*m.span())
        orders.append(Ordering(measure.name, sort))
        found.append((orders[-1], m[0].strip()))
    targets: dict[str, Column | None] = {}  # of senses and scan.text: once per kind
    # Every superlative's match holds one of their phrases: none here, no pattern can match
    # (nothing is consumed until one does).
    candidates = _SUPERLATIVES if scan.search(_ANY_SUPERLATIVE) else []
    for pattern, target, sort in candidates:
        if target not in targets:
            targets[target] = _target(senses, target, scan)
        col = targets[target]
        if col is None:
            continue
        for m in scan.find(pattern):
            if _inside_a_name(scan.text, m, senses):
                continue  # "the latest logon" names date_of_latest_logon: no superlative
            if _FROM_TO.search(scan.text[: m.start()]):
                continue  # "by year from the most recent to the oldest": a direction
            n = m["pre"] or m["zpre"] or m["post"]
            if n:
                limit = int(number(n))
            elif limit is None and not _plural_follows(scan, m.end()):
                limit = 1
            scan.consume(*m.span())
            orders.append(Ordering(col.name, sort))
            found.append((orders[-1], m[0].strip()))
    by_alias, single = _by_alias(scan, senses, "desc" if top else None, nouns, found)
    orders.extend(by_alias)
    if single and limit is None:
        limit = 1  # "the employee with the highest salary": one row
    if orders and limit is None and (lead := _COUNT_LEAD.search(scan.rest)):
        limit = int(number(lead["n"]))  # "the 2 books with the most pages"
        scan.consume(*lead.span())
    return orders, limit


#: Superlative adjectives that name their measure ("the tallest building": height), read
#: only where the model has a column that the measure's word names (see _comparative).
ADJECTIVES = {
    "oldest": ("age", "desc"), "youngest": ("age", "asc"), "tallest": ("height", "desc"),
    "shortest": ("height", "asc"), "longest": ("length", "desc"),
    "fastest": ("speed", "desc"), "slowest": ("speed", "asc"),
}  # fmt: skip
_ADJECTIVE = re.compile(
    rf"(?:{_LEAD}(?P<pre>{_N})\s+)?(?<![a-z])(?:the\s+)?(?P<adj>{'|'.join(ADJECTIVES)})"
    rf"(?![a-z])(?:\s+(?P<post>{_N})(?![\d.a-z]))?"
)


def _adjectives(scan: Scan, senses: dict[str, Sense]) -> list[tuple[re.Match[str], Column, str]]:
    out = []
    for m in scan.find(_ADJECTIVE):
        word, sort = ADJECTIVES[m["adj"]]
        col = next((s.column for s in senses.values()
                    if s.column.type in ("integer", "number")
                    and any(phrase_pattern(word).fullmatch(w) for w in s.words)), None)  # fmt: skip
        if col is not None:
            out.append((m, col, sort))
    return out


def _inside_a_name(text: str, m: re.Match[str], senses: dict[str, Sense]) -> bool:
    """The superlative and the word after it are two words in a row of a column's name
    ("latest logon" in date_of_latest_logon, "highest point" in highest_point)."""
    said = re.match(r"\s*(?:the\s+)?([a-z]+)\s+([a-z]+)", text[m.start() :])
    if said is None:
        return False
    pair = f"{said[1]} {said[2].removesuffix('s')}"
    for sense in senses.values():
        name = " ".join(sense.column.name.lower().split("_"))
        if re.search(rf"(?<![a-z]){re.escape(pair)}s?(?![a-z])", name):
            return True
    return False


#: "from the most recent to the oldest": the ends of a sort's direction, no superlative.
_FROM_TO = re.compile(r"(?<![a-z])(?:from|to)\s+(?:the\s+)?(?:most\s+)?$")
#: A column whose name says it holds dates, whatever its declared type (text in SQLite).
_DATE_NAME = re.compile(r"(?i)(?:^|_)(?:date|time|datetime|timestamp)(?:_|$)")


def _target(senses: dict[str, Sense], target: str, scan: Scan) -> Column | None:
    if target == "date":
        dated = [s for s in senses.values() if s.column.type in ("date", "datetime")]
        # No date column: a year number is the date ("the most recently opened track" of
        # a track with year_opened), unless a column's name says it holds dates as text.
        if not dated and not any(_DATE_NAME.search(s.column.name) for s in senses.values()):
            dated = [s for s in senses.values() if s.role == "year"]
        named = [s for s in dated if any(phrase_need(w) in scan.text
                                         and phrase_pattern(w).search(scan.text)
                                         for w in s.words)]  # fmt: skip
        return next((s.column for s in named or dated), None)
    return next(
        (s.column for s in senses.values()
         if s.column.type in ("integer", "number") and family(s.column, s) == target),
        None,
    )  # fmt: skip


#: Words that end the noun phrase after a superlative ("the oldest crew members who ...").
_NP_END = frozenset(("of", "with", "in", "who", "whom", "that", "which", "and", "or", "from",
                     "for", "on", "by", "is", "are", "was", "were", "has", "have", "had", "at",
                     "to", "whose", "where", "than", "as"))  # fmt: skip


def _plural_follows(scan: Scan, end: int) -> bool:
    """The noun after a superlative is plural: its head, the last of up to three words
    before a preposition or a new clause ("the oldest crew members")."""
    words = re.match(r"(?:\s*[a-z']+){1,3}", scan.rest[end:])
    head = None
    for w in words[0].split() if words else ():
        if w in _NP_END:
            break
        head = w
    return bool(head and head.endswith("s") and not head.endswith(("ss", "'s")))


#: "the employee with the highest ...": a singular noun holding the superlative.
_SINGLE = re.compile(r"(?<![a-z])(?:the|a|an|of|for)\s+(?:[a-z]+\s+)?[a-z]+(?<!s)\s+"
                     r"(?:with|having|who has|that has|which has|of)"
                     r"\s+the\s+$|(?<![a-z])(?:which|what)\s+[a-z]+(?<!s)\s+(?:has|had|is|was)"
                     r"\s+the\s+$")  # fmt: skip


def _by_alias(
    scan: Scan,
    senses: dict[str, Sense],
    default: str | None,
    nouns: frozenset[str],
    found: list[tuple[Ordering, str]],
) -> tuple[list[Ordering], bool]:
    out: list[Ordering] = []
    single = False
    for col, alias in _aliases(senses).present(scan.rest):
        if alias not in scan.rest:
            continue  # every rule's match holds the alias (a view has hundreds, issue #19)
        for pattern, rule_sort in _alias_rules(alias):
            sort = (default or "asc") if rule_sort == "by" else rule_sort
            for m in scan.find(pattern):
                if m[0].split()[0] in col.name.lower().split("_"):
                    continue  # "max speed" names the column Max_speed: no superlative
                if (rule_sort != "by" and _counts_rows(m[0], nouns)
                        and m[0].split()[-1] != col.name.lower()):  # fmt: skip
                    continue  # "the most invoices": a count of rows, not invoice_date
                if rule_sort != "by" and _inside_a_name(scan.text, m, senses):
                    continue  # "max page size" names max_page_size
                d = m.groupdict().get("dir") or m.groupdict().get("zdir")
                if d:
                    sort = "desc" if re.fullmatch(_DESC_WORDS, d) else "asc"
                single = single or (
                    rule_sort != "by" and bool(_SINGLE.search(scan.text[: m.start()]))
                )
                scan.consume(*m.span())
                out.append(Ordering(col.name, sort))
                if rule_sort != "by":
                    found.append((out[-1], m[0].strip()))
    return out, single


@per_object
def _aliases(senses: dict[str, Sense]) -> Needing[tuple[Column, str]]:
    """Each number or date column's words, in order, by their first word."""
    return Needing(
        (alias.split(" ")[0], (sense.column, alias))
        for sense in senses.values()
        if sense.column.type in ("integer", "number", "date", "datetime")
        for alias in sense.words
    )


def _counts_rows(said: str, nouns: frozenset[str]) -> bool:
    """ "most invoices", "fewest players": a count word before a plural naming the rows."""
    words = said.split()
    last = words[-1]
    return (
        len(words) == 2
        and words[0] in ("most", "least", "fewest")
        and last.endswith("s")
        and (last in nouns or last[:-1] in nouns or last.removesuffix("es") in nouns)
    )


@functools.lru_cache(maxsize=1024)
def _alias_rules(alias: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """ "highest X", "X最高", "sorted by X desc", "按X排序" for one column alias."""
    a = re.escape(alias)
    rules = [
        (rf"(?<![a-z])(?:highest|most|largest|biggest|greatest|max(?:imum)?)\s+{a}s?(?![a-z])"
         rf"|{a}最高|{a}最大|{a}最多|最高{a}|最大{a}|最多{a}", "desc"),
        (rf"(?<![a-z])(?:lowest|least|smallest|fewest|min(?:imum)?)\s+{a}s?(?![a-z])"
         rf"|{a}最低|{a}最小|{a}最少|最低{a}|最小{a}|最少{a}", "asc"),
        (rf"(?<![a-z])(?:(?:sorted|ordered|sort|order|rank(?:ed)?)\s+)?by\s+{a}(?![a-z])"
         rf"(?:\s*(?P<dir>{_DESC_WORDS}|{_ASC_WORDS}))?"
         rf"|按\s*{a}\s*(?:(?P<zdir>{_DESC_WORDS}|{_ASC_WORDS})|排序|排列)?", "by"),
    ]  # fmt: skip
    return tuple((re.compile(p), sort) for p, sort in rules)


_SORTED = re.compile(
    r"(?<![a-z])(?:sorted|ordered|sort|order|rank|ranked|first|descending|ascending)(?![a-z])"
)


def tied_top(
    tops: list[tuple[Ordering, str]], model: Model, wheres: list[Where], text: str = ""
) -> tuple[Where, str] | None:
    """ "the oldest technicians", "which restaurants have the highest rating": a superlative
    with no number of rows keeps the rows holding the top value, ties included (issue #19:
    every row in order was answered, with status ok, where the question asks for the
    oldest). A date keeps the rows in order ("the newest orders" lists them newest first)."""
    if _SORTED.search(text):
        return None  # "sorted by the ones with the highest revenue first": every row, sorted
    for ordering, said in tops:
        column = model.columns.get(ordering.column)
        if column is None or column.type not in ("integer", "number"):
            continue
        fn = "max" if ordering.sort == "desc" else "min"
        sub = SubAggregate(agg=fn, field=column.name, wheres=tuple(wheres))  # type: ignore[arg-type]
        said = said.removeprefix("the ")
        note = (f"{said!r} with no number of rows: the rows with the {fn}imum "
                f"{column.name}, ties included")  # fmt: skip
        return Where(field=column.name, op="=", value=sub), note
    return None
