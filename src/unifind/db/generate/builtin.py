"""The builtin generator: rules over the model's own declarations, no model of language.

Rules run in a fixed order, each consuming the words it understood so later rules don't
read them twice: dates → conditions on groups (having) → aggregates → top-N and
superlatives → numbers with units → enumerated values (and their negation) → flags
("free", "without discount", "remote") → negated free words → leftover words. Everything
is derived from the model (names, types, units, descriptions, sampled values: see
``_sense``), so a new schema needs plain declarations, not alias lists.

Leftover words are never a silent hard filter: a word found in the searchable text read at
introspection becomes a LIKE condition; any other word only ranks rows, and the note names
it ("not understood: ..."). With ``strict`` such a word is an error. A question in which
nothing maps to the model is reported as not about it, and no rows are returned.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from unifind.db._memo import per_object
from unifind.db.compile import like_pattern
from unifind.db.dsl import Aggregate, Order, QueryDSL, Where, validate_dsl
from unifind.db.generate._account import TOKEN, Ledger, name_uses
from unifind.db.generate._aggregate import Aggregation, read_aggregation
from unifind.db.generate._caveats import model_as_text, self_link, unreached
from unifind.db.generate._cells import read_cells
from unifind.db.generate._comparative import read_comparatives
from unifind.db.generate._counted import distinct_count
from unifind.db.generate._dates import DateCondition, read_dates
from unifind.db.generate._distinct import Distinct, find_distinct, find_listed
from unifind.db.generate._group import loose_group, read_top_group
from unifind.db.generate._having import read_having
from unifind.db.generate._join import read_with_joins
from unifind.db.generate._negated import negate_cells
from unifind.db.generate._numbers import number_wheres, read_numbers
from unifind.db.generate._order import Ordering, read_order, tied_top
from unifind.db.generate._scan import (
    NUMBER_WORDS,
    Needing,
    Scan,
    is_cjk,
    may_match,
    normalise,
    phrase_pattern,
    phrase_words,
    search,
)
from unifind.db.generate._sense import Sense, learn, model_words
from unifind.db.generate._sort import read_sort
from unifind.db.generate._text import read_text_conditions
from unifind.db.generate._values import read_flags, read_values
from unifind.db.generate._versus import read_versus
from unifind.db.generate.base import Generation, GenerationError
from unifind.db.models import Column, Model

# fmt: off
STOPWORDS = frozenset(
    (
        "a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "at", "by", "with", "from",
        "show", "me", "list", "find", "get", "give", "all", "any", "some", "i", "we", "you",
        "want", "need", "looking", "look", "search", "please", "which", "what", "that", "who",
        "whose", "where", "are", "is", "was", "were", "be", "been", "have", "has", "had", "there",
        "their", "them", "it", "its", "this", "these", "those", "than", "then", "do", "does",
        "did", "can", "could", "would", "should", "will", "my", "our", "your", "how", "many",
        "much", "more", "most", "less", "least", "very", "also", "just", "only", "please", "items",
        "item", "things", "stuff", "ones", "one", "sold", "bought", "placed", "made", "costing",
        "priced", "under", "over", "above", "below", "between", "about", "around",
        # Requests and pointers that ask for the answer and restrict nothing (issue #19:
        # "not understood: return" on right answers told a user nothing).
        "return", "display", "report", "tell", "provide", "retrieve", "output", "print",
        "information", "info", "details", "corresponding", "respectively", "they", "he",
        "she", "us", "whom", "as", "well", "along", "together", "known", "called", "named",
        "cost", "costs",  # the verb before an amount ("that cost under $50"); a column's
        # word "cost" is still read as that column
        "yet", "still", "already", "ever", "currently",
        "every",  # a quantifier like "all" ("list every album's title"); "for every X"
        # is read as a group before
        # A conjunction, and the verb of belonging: "tracks that belong to the Rock genre"
        # says what "have" says the other way round (a relation, which a join reads); as
        # text they were searched for in every joined column (issue #19: wrong, status ok).
        "but", "belong", "belongs", "belonged", "belonging",
    )
)
# fmt: on
_ZH_FILLER = re.compile(
    r"的|和|与|或|在|是|有|我|想|要|找|买|给|看|查|请|一下|哪些|什么|所有|全部|列出|显示|查询|"
    r"查找|搜索|推荐|帮我|一个|一些|吗|呢|吧|了|里|中|被|把|并且|而且|以及|价格|元|块|以外|之外"
)
_NEG_WORD = re.compile(
    r"(?<![a-z])(?:(?:not|without|excluding|except|no)\s+|non-)(?P<w>[a-z0-9][a-z0-9+#.-]*[a-z0-9])"
    r"|(?:不是|不要|除了|不含|没有)(?P<z>[\u4e00-\u9fff]{2,4})"
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+#.-]*[a-z0-9+#]|[a-z0-9]|[\u4e00-\u9fff]+")


class BuiltinGenerator:
    """Rule-based NL → DSL over one model, English and Chinese."""

    name = "builtin"

    def __init__(
        self, *, today: dt.date | None = None, rates: Mapping[str, float] | None = None
    ) -> None:
        self._today = today
        self._rates = {k.upper(): float(v) for k, v in (rates or {}).items()}

    @classmethod
    def from_config(cls, arg: str, config: Mapping[str, Any]) -> BuiltinGenerator:
        today = config.get("today")
        return cls(
            today=dt.date.fromisoformat(str(today)) if today else None,
            rates=config.get("currency_rates") or None,
        )

    #: The leg passes every model: a question may name a related one (joins, ``_join``).
    joins = True

    async def generate(
        self,
        question: str,
        model: Model,
        *,
        strict: bool = False,
        models: Mapping[str, Model] | None = None,
    ) -> Generation:
        return self.generate_sync(question, model, strict=strict, models=models)

    def generate_sync(
        self,
        question: str,
        model: Model,
        *,
        strict: bool = False,
        models: Mapping[str, Model] | None = None,
    ) -> Generation:
        """The DSL for ``question`` (pure CPU, microseconds: no thread needed); with the
        other ``models``, words naming a related model may join it (``_join``)."""
        if models and model.joins:
            gen = read_with_joins(self._read, question, model, models, strict)
            text = Scan(question).text
            return _unreached(distinct_count(gen, text, models), text, models)
        gen = self._read(question, model, strict)
        return _unreached(gen, "", models) if models else gen

    def _read(
        self,
        question: str,
        model: Model,
        strict: bool = False,
        scope: Mapping[str, Model] | None = None,
        blank: tuple[int, int] | None = None,
    ) -> Generation:
        scan = Scan(question)
        if blank is not None:
            scan.consume(*blank)
        senses = learn(model)
        known = model_words(model)
        ledger = Ledger(scan)
        _measure_nouns(scan, senses)
        ledger.mark("column")
        # Dates first: "最近30天" / "last 3 days" are ranges, not "the 30 most recent".
        wheres = self._dates(scan, senses)
        ledger.mark("date")
        versus = read_versus(scan, senses, known)
        wheres += [w for w, _ in versus]
        nested = _nested(scan)
        ledger.mark("nested")
        shape = _read_shape(scan, senses, model, known, self._rates)
        ledger.mark("shape")
        # Values and flags before numbers: "under 900 in stock" must not bind 900 to stock;
        # a column's own values ("out_of_stock") before phrases inferred from its role.
        wheres += read_text_conditions(scan, senses, model.title_column)
        ledger.mark("text")
        values = read_values(scan, senses)
        ledger.mark("value")
        flags = read_flags(scan, senses)
        ledger.mark("flag")
        read_comparatives(scan, senses)
        ledger.mark("comparative")
        refused: list[str] = []  # read, not compared: the answer ignores them (partial)
        numbers, number_notes = read_numbers(scan, senses, self._rates, refused, known)
        ledger.mark("number")
        wheres += number_wheres(scan.text, numbers)
        wheres += values + flags
        wheres += _negated_words(scan, model)
        ledger.mark("negation")
        agg = shape.agg
        if agg and not agg.groups and not agg.havings:
            used = {w.field for w in wheres if w.field}
            used |= {a.field for a in agg.aggregates if a.field}  # avg(X) per X is X itself
            if group := loose_group(scan, senses, used, known) or _per_value(scan, wheres):
                agg = Aggregation(agg.aggregates, (group,))
                if len(agg.aggregates) == 1 and shape.bare:  # the groups came late
                    sorts = [(o.column, o.sort) for o in shape.orders]
                    sorts = _by_aggregate(scan, sorts, shape.bare, agg.aggregates[0].name)
                    shape.orders = [Ordering(c, d) for c, d in sorts]
        ledger.mark("group")
        cells = negate_cells(scan, read_cells(scan, model, senses, _function_or_name(model)))
        wheres += [c.where for c in cells]
        ledger.mark("value")
        if not agg and (top := tied_top(shape.tops, model, wheres, scan.text)):
            wheres.append(top[0])
            reading_notes = [top[1]]
        else:
            reading_notes = []
        reading_notes += [note for _, note in versus]
        distinct = None
        if (not agg and not shape.orders and shape.limit is None
                and (distinct := find_distinct(scan, senses, known))):  # fmt: skip
            scan.consume(*distinct.span)
            ledger.mark("shape")
        elif (not agg and not shape.orders and shape.limit is None and not wheres
              and (distinct := _listed(scan, senses, model, known))):  # fmt: skip
            said = scan.text[distinct.span[0] : distinct.span[1]]
            reading_notes.append(f"{said!r} names a column of {model.name} and nothing else: "
                                 f"its distinct values, each once (name {model.name} for its "
                                 "rows)")  # fmt: skip
            scan.consume(*distinct.span)
            ledger.mark("shape")
        words = _Words.read(scan, senses, model, known)
        ledger.mark("column")
        understood = bool(wheres or shape.orders or agg or shape.limit)
        words.guess(understood, model)
        if refused and strict:
            raise GenerationError(
                f"could not compare {', '.join(repr(r) for r in refused)} in model "
                f"{model.name!r} (strict: no condition is left out)"
            )
        if (words.unknown or words.loose) and strict:
            raise GenerationError(
                f"could not map {', '.join(repr(k) for k in words.unknown + words.loose)} onto "
                f"model {model.name!r} (strict: no word is ignored)"
            )
        off_topic = (
            not understood
            and not refused  # a comparison read and left out names its column
            and not words.keywords
            and bool(words.unknown)
            and not _names_model(scan.text, known)
            and not _names_column(scan.text, model)
        )
        caveats = self_link(scan.text, model, cells)
        nested += [c.note for c in caveats]
        reading_notes += [c.note for c in cells if c.note and not c.doubt]
        nested += [c.note for c in cells if c.note and c.doubt]
        notes = [*nested, *reading_notes, *shape.notes, *number_notes,
                 *words.notes(model, off_topic)]  # fmt: skip
        notes += [_either_note(w) for w in wheres if _either(w)]
        wheres += [_like_any(kw, model.searchable, "like") for kw in words.keywords]
        dsl = QueryDSL(
            model=model.name,
            wheres=tuple(wheres),
            aggregates=agg.aggregates if agg else (),
            groups=agg.groups if agg else (),
            havings=agg.havings if agg else (),
            orders=_orders(_ranked(shape, agg), agg),
            limit=shape.limit,
            select=(distinct.column,) if distinct else None,
            distinct=distinct is not None,
        )
        dsl = validate_dsl(dsl, model, scope)
        unread = _unread_columns(ledger, senses, known, dsl, model)
        if ledger.loose_or(dsl):
            unread["or"] = ()
        if dsl.limit and not dsl.orders and search(_FIRST_N, scan.text):
            unread["first"] = ()  # "the first 5 customers" by what? (see _unread_use)
        if dsl.limit and dsl.groups and not dsl.orders:
            # "the average and oldest age for each sex": the superlative sorts rows, the
            # answer has groups; the limit alone keeps the database's pick of them
            unread.update({f"order by {o.column}": () for o in shape.orders})
        if unread and strict:
            words_ = ", ".join(repr(w) for w in unread)
            raise GenerationError(
                f"could not use {words_} in a query of model {model.name!r} (strict: no word "
                "is ignored)"
            )
        uses = {w: _unread_use(w, c, len(dsl.wheres)) for w, c in unread.items()}
        notes += [f"not understood: {w} ({use})" for w, use in uses.items()]
        uses |= {w: "a comparison left out (see its note)" for w in _content_words(refused)}
        uses |= {w: "read on the wrong rows (see its note)"
                 for w in _content_words([c.word for c in caveats])}  # fmt: skip
        accounted, confidence = ledger.account(
            stopwords=STOPWORDS, names=name_uses(model, senses, known), keywords=words.keywords,
            unused={**words.unused(), **uses}, dsl=dsl,
        )  # fmt: skip
        return Generation(
            dsl,
            keywords=tuple(words.keywords + words.unknown),
            notes=tuple(notes),
            off_topic=off_topic,
            unknown=(*words.unknown, *words.guessed, *words.loose, *nested, *unread, *refused),
            understood=accounted,
            confidence=confidence,
        )

    def _dates(self, scan: Scan, senses: dict[str, Sense]) -> list[Where]:
        rest = scan.rest
        conds = read_dates(scan, self._today or dt.date.today())
        dated = [s for s in senses.values() if s.column.type in ("date", "datetime")]
        years = [s for s in senses.values() if s.role == "year"]
        if not conds or not (dated or years):
            # No column to hold a date: the words stay for the other rules, or are named as
            # not understood (issue #19: "took office after 1961" vanished, answered ok).
            scan.rest = rest
            return []
        named = [s for s in dated if any(phrase_pattern(w).search(scan.text) for w in s.words)]
        named_years = [s for s in years if _named(s, scan.text)]
        out: list[Where] = []
        for d in conds:
            if years and (named_years or not dated) and _whole_years(d):
                out.append(_year_where((named_years or years)[0].column.name, d))
                continue
            if not dated:
                continue
            col = (named or dated)[0].column
            if d.op == "between" and col.type == "date":
                last = d.end - dt.timedelta(days=1)
                out.append(Where(field=col.name, op="between", value=[d.start, last]))
            elif d.op == "between":
                out.append(Where(field=col.name, op=">=", value=d.start))
                out.append(Where(field=col.name, op="<", value=d.end))
            else:
                out.append(Where(field=col.name, op=d.op, value=d.start))  # type: ignore[arg-type]
        return out


@dataclasses.dataclass(slots=True)
class _Shape:
    """What the question asks of the rows as a whole: aggregates, groups, orders, a limit."""

    agg: Aggregation | None
    orders: list[Ordering]
    limit: int | None
    notes: list[str]
    tops: list[tuple[Ordering, str]] = dataclasses.field(default_factory=list)
    """Superlatives read with no number of rows ("the oldest technicians")."""
    bare: list[tuple[str | None, str, tuple[int, int]]] = dataclasses.field(default_factory=list)
    """Directions with no column after them, not yet read over groups (``_by_aggregate``)."""


def _read_shape(
    scan: Scan,
    senses: dict[str, Sense],
    model: Model,
    known: frozenset[str],
    rates: dict[str, float],
) -> _Shape:
    # Explicit sorts before groups: "sorted by department" is no "by department" group.
    bare: list[tuple[str | None, str, tuple[int, int]]] = []
    sorts = read_sort(scan, senses, model.title_column, known, bare)
    having = read_having(scan, senses, known, rates)
    top = None if having else read_top_group(scan, senses, model.title_column,
                                             _numeric_words(senses))  # fmt: skip
    agg: Aggregation | None
    if having:
        agg = Aggregation((having.aggregate,), (having.group,), (having.having,))
    elif top:
        agg = Aggregation((Aggregate(fn="count"),), (top.column,))
    else:
        agg = read_aggregation(scan, senses, known, _keys(model))
    if agg and agg.groups and len(agg.aggregates) == 1 and bare:
        sorts, bare = _by_aggregate(scan, sorts, bare, agg.aggregates[0].name), []
    tops: list[tuple[Ordering, str]] = []
    orders, limit = read_order(scan, senses, known, tops)
    if top:
        orders, limit = [Ordering("count", top.sort), *orders], top.limit
    orders = [*(Ordering(c, d) for c, d in sorts), *orders]
    shape = _Shape(agg, orders, limit, list(having.notes) if having else [])
    shape.tops = [] if top or limit is not None else tops
    shape.bare = bare
    return shape


def _unreached(gen: Generation, text: str, models: Mapping[str, Model]) -> Generation:
    """A related model's column the question names and the answer can't show, another
    model's name searched as text: partial."""
    column = unreached(text, gen.dsl, models) if text else []
    named = model_as_text(gen.dsl, models)
    caveats = column + named
    if not caveats:
        return gen
    said = {w: "not used: a related model's column (see its note)"
            for c in column for w in c.word.split(" ")}  # fmt: skip
    said |= {w: "not used: another model's name, searched as text (see its note)"
             for c in named for w in (c.word, f"{c.word}s")}  # fmt: skip
    understood = tuple((w, said.get(w, said.get(_singular(w), use))) for w, use in gen.understood)
    return dataclasses.replace(
        gen,
        notes=(*gen.notes, *(c.note for c in caveats)),
        unknown=(*gen.unknown, *(c.word for c in caveats)),
        understood=understood,
    )


def _keys(model: Model) -> frozenset[str]:
    """The columns that identify rows: the primary key and each relation's own column."""
    keys = {r.foreign for r in (model.relations or {}).values()}
    return frozenset({*keys, model.primary_key} - {None})  # type: ignore[arg-type]


def _by_aggregate(
    scan: Scan,
    sorts: list[tuple[str, str]],
    bare: list[tuple[str | None, str, tuple[int, int]]],
    aggregate: str,
) -> list[tuple[str, str]]:
    """ "the number of airports per country, ordered from most to least": a direction with
    no column after it, over groups, sorts the groups' aggregate (issue #19: it sorted the
    country named before it, status ok)."""
    out = list(sorts)
    for name, direction, span in bare:
        if name is not None and (name, direction) in out:
            out.remove((name, direction))
        scan.consume(*span)
        out.append((aggregate, direction))
    return out


@dataclasses.dataclass(slots=True)
class _Words:
    """The words no rule read: searched for, named as not understood, or loose operators."""

    keywords: list[str]
    unknown: list[str]
    loose: list[str]
    guessed: list[str] = dataclasses.field(default_factory=list)
    never: frozenset[str] = frozenset()
    """Words never searched as text (``_NEVER_TEXT``, a column asked for by name)."""

    @classmethod
    def read(
        cls, scan: Scan, senses: dict[str, Sense], model: Model, known: frozenset[str]
    ) -> _Words:
        _consume_column_phrases(scan, senses)
        words = _keywords(scan, model)
        never = _NEVER_TEXT | {w for w in _COLUMN_ASKS if _asks_column(w, scan.text)}
        keywords = [w for w in words if _in_vocabulary(w, model) and w not in never]
        unknown = [w for w in words if w not in keywords and w not in known]
        unknown += [w for w in _LETTER.findall(scan.rest) if w not in unknown]
        unknown += [w for w in _quoted_letters(scan.rest) if w not in unknown]
        if scan.search(_THE_US) and "us" not in unknown:
            unknown.append("us")  # "in the US" is a country, not the pronoun "us"
        return cls(keywords, unknown, _loose_operators(scan), never=never)

    def guess(self, understood: bool, model: Model) -> None:
        if not understood and self.unknown and not model.vocabulary_complete and model.searchable:
            # Can't tell from a partial sample: search for them, and say so (issue #19: a
            # filter on words nobody confirmed is a guess, never a silent ok).
            guess = [w for w in self.unknown if w not in self.never]
            self.keywords, self.guessed = self.keywords + guess, guess
            self.unknown = [w for w in self.unknown if w in self.never]

    def unused(self) -> dict[str, str]:
        """Each word no rule could use → what was done with it instead."""
        return {
            **dict.fromkeys(self.unknown, "used for ranking only"),
            **dict.fromkeys(self.loose, "no column or number it applies to; left out"),
            **dict.fromkeys(self.guessed, "searched for as text, not confirmed"),
        }

    def notes(self, model: Model, off_topic: bool) -> list[str]:
        notes = []
        if self.unknown:
            notes.append(f"not understood: {', '.join(self.unknown)} (used for ranking only)")
        if self.loose:
            notes.append(f"not understood: {', '.join(self.loose)} (no column or number it "
                         "applies to was found; left out)")  # fmt: skip
        if self.guessed:
            notes.append(f"not understood: {', '.join(self.guessed)} (searched for as text; "
                         f"not among the words sampled from {model.name})")  # fmt: skip
        if off_topic:
            notes.append(f"the question does not seem to be about {model.name}: nothing in it "
                         "names a column, a value or a word of its text")  # fmt: skip
        return notes


#: Words that negate, ask for each value once or for a group: never a text to search for.
#: Left unread by every rule they are said ("not understood"): "users who do not have any
#: tweet" was answered with the tweets containing "not", "the different music genres" with
#: the genres containing "different", "for each user" with the rows containing "each"
#: (issue #19: wrong answers, status ok).
_NEVER_TEXT = frozenset(("not", "no", "never", "none", "nor", "neither", "nothing",
                         "nobody", "different", "distinct", "unique", "each", "per"))  # fmt: skip

#: Parts of many columns' names that ask for a column when "of" follows them: "the names of
#: the albums" (albums have a title) was answered with the albums whose joined names hold
#: "name", "count the number of courses" with the courses whose title holds "number". Alone
#: ("number") such a word is a text like any other.
_COLUMN_ASKS = ("name", "number", "id")


def _asks_column(word: str, text: str) -> bool:
    return re.search(rf"(?<![a-z]){word}s?\s+of(?![a-z])", text) is not None


#: A letter standing alone ("with D or S in their first name"), not the words "a" and "I"
#: nor an "s" of a possessive: no rule read it, and it is said (issue #19: it vanished).
_LETTER = re.compile(r"(?<![a-z0-9'’.-])([b-hj-z])(?![a-z0-9'’-])")


#: A quoted letter, "a" and "i" too ('who have an "a" in their first name'): a value no rule
#: read, said (issue #19: it vanished and every row came back with status ok).
_QUOTED_LETTER = re.compile(r"[\"'“”‘’`]([a-z])[\"'“”‘’`]")


def _quoted_letters(text: str) -> list[str]:
    return _QUOTED_LETTER.findall(text) if may_match(_QUOTED_LETTER, text) else []


_THE_US = re.compile(r"(?<![a-z])the\s+us(?![a-z])")


def _unread_columns(
    ledger: Ledger,
    senses: dict[str, Sense],
    known: frozenset[str],
    dsl: QueryDSL,
    model: Model,
) -> dict[str, tuple[str, ...]]:
    """Column words the answer ignores: any an aggregate answer does not use; in a row
    answer (which shows every column of its own), those naming only a related model's
    column that has many rows per record (``_join``: "the booking dates of apartments"
    read on apartments can't show the bookings' dates; read on bookings it can)."""
    if dsl.aggregates:
        return ledger.unused_columns(senses, known, dsl)
    many = _many_senses(model) if senses is learn(model) else _many_of(senses, model)
    return ledger.unused_columns(many, known, dsl) if many else {}


@per_object  # one dict per model object: what is built from it is kept too (_account)
def _many_senses(model: Model) -> dict[str, Sense]:
    return _many_of(learn(model), model)


def _many_of(senses: dict[str, Sense], model: Model) -> dict[str, Sense]:
    return {n: s for n, s in senses.items() if _many_rows(n, model)}


def _many_rows(field: str, model: Model) -> bool:
    """A joined field (``relation.column``) whose first relation is a has_many one."""
    head, dot, _ = field.partition(".")
    rel = model.joins.get(head) if dot else None
    return rel is not None and rel.type == "has_many"


def _content_words(phrases: list[str]) -> list[str]:
    """The words of ``phrases`` that are not function words (as the ledger splits them)."""
    words = (m[0] for p in phrases for m in TOKEN.finditer(p.lower()))
    return [w for w in words if w not in STOPWORDS]


def _either(where: Where) -> bool:
    """A value several columns hold, the question naming none: any of them (values, cells)."""
    kids = where.wheres or ()
    return len(kids) > 1 and all(k.op == "=" and k.value == kids[0].value for k in kids) and len(
        {k.field for k in kids}) == len(kids)  # fmt: skip


def _either_note(where: Where) -> str:
    kids = where.wheres or ()
    fields = " or ".join(str(k.field) for k in kids)
    return (f"{kids[0].value!r} is a value of {fields}: rows with it in any of them (name the "
            "column to choose one)")  # fmt: skip


#: "the first 5 customers": an order is meant; with none named, the rows are the
#: database's pick (issue #19: a silent wrong answer).
_FIRST_N = re.compile(r"(?<![a-z])first\s+(?:\d+|" + "|".join(
    w for w in NUMBER_WORDS if w.isascii()) + r")(?![a-z0-9])")  # fmt: skip


def _unread_use(word: str, columns: tuple[str, ...], conditions: int) -> str:
    if word == "first" and not columns:
        return "no order is named: the first rows in the database's order"
    if word.startswith("order by ") and not columns:
        return "it sorts rows, the answer has groups: the ones shown are the database's pick"
    if not columns:  # a loose "or" (Ledger.loose_or)
        return f"the {conditions} conditions are all required: read as AND"
    return f"names {', '.join(columns)}, which the answer does not use"


def _ranked(shape: _Shape, agg: Aggregation | None) -> list[Ordering]:
    """ "the top 5 countries by number of invoices": groups cut to a number are ranked by
    their aggregate; a limit alone would keep 5 arbitrary groups (issue #19: silent wrong)."""
    if shape.limit and not shape.orders and agg and agg.groups and len(agg.aggregates) == 1:
        return [Ordering(agg.aggregates[0].name, "desc")]
    return shape.orders


def _orders(orders: list[Ordering], agg: Aggregation | None) -> tuple[Order, ...]:
    """Sort keys; over groups only the group columns can be sorted (each once)."""
    names = {a.name for a in agg.aggregates} if agg else set()
    keep = [o for o in orders if agg is None or o.column in (*agg.groups, *names)]
    unique = dict.fromkeys((o.column, o.sort) for o in keep)
    seen: set[str] = set()
    out = []
    for column, sort in unique:
        if column not in seen:
            seen.add(column)
            out.append(Order(field=column, sort=sort))  # type: ignore[arg-type]
    return tuple(out)


#: Function words that compare or rank: left unread by every rule, they mean a condition or
#: an order was asked and not made (issue #19: "the least chargeable amount" was answered
#: with every row, silently).
_OPERATORS = re.compile(
    r"(?<![a-z])(?:most|more|less|least|fewest|fewer|under|over|above|below|between|than)"
    r"(?![a-z])"
)


def _loose_operators(scan: Scan) -> list[str]:
    return list(dict.fromkeys(m[0] for m in scan.find(_OPERATORS)))


#: A comparison with an aggregate of the rows themselves ("older than the average").
_NESTED = re.compile(
    r"(?<![a-z])(?:than|as|above|below|over|under|exceeds?|exceeding)\s+(?:the\s+|that\s+)?"
    r"(?:overall\s+|total\s+)?(?:average|mean|avg|maximum|minimum|max|min|highest|lowest"
    r"|largest|smallest)(?![a-z])(?:\s+(?:of\s+)?[a-z]+)?"
)


def _nested(scan: Scan) -> list[str]:
    """Name a comparison with an aggregate (a nested query the DSL can't hold yet) instead
    of answering the aggregate alone (issue #19: it was a silent wrong)."""
    notes = []
    for m in scan.find(_NESTED):
        scan.consume(*m.span())
        notes.append(f"not understood: {m[0]!r} (a comparison with an aggregate of the rows "
                     "is not supported yet; the condition is left out)")  # fmt: skip
    return notes


def _consume_column_phrases(scan: Scan, senses: dict[str, Sense]) -> None:
    """A column's several-word name ("total points") is accounted for: a row answer shows
    that column. Its single words alone are no keywords then."""
    for pattern in _several_words(senses).present(scan.rest):
        for m in scan.find(pattern):
            scan.consume(*m.span())


@per_object
def _several_words(senses: dict[str, Sense]) -> Needing[re.Pattern[str]]:
    """Each several-word column phrase, by its first word (a joined view has hundreds of
    phrases and a few first words: issue #19 latency)."""
    words = [w for s in senses.values() for w in s.words if " " in w]
    return Needing((phrase_words(w), phrase_pattern(w)) for w in words)


def _measure_nouns(scan: Scan, senses: dict[str, Sense]) -> None:
    """ "page count", "performance score": a number column's word followed by a generic
    measure noun names that column; the noun is read here, before "count" can become a
    count of rows ("the highest page count" is max(pages))."""
    if not any(noun in scan.rest for noun in _MEASURE_NOUNS):
        return  # every match holds one (most questions: no pattern is tried)
    for pattern, need in _measure_patterns(senses):
        if need in scan.rest:  # every match holds it; a joined view has hundreds of words
            for m in pattern.finditer(scan.rest):
                scan.consume(*m.span("noun"))


@per_object
def _measure_patterns(senses: dict[str, Sense]) -> list[tuple[re.Pattern[str], str]]:
    """``_counted``/``_numbered`` of each word, with the text each match holds."""
    out = []
    for sense in senses.values():
        numeric = sense.column.type in ("integer", "number")
        if not numeric and sense.column.type != "string":
            continue
        for word in sense.words:
            # "phone number", "room number": a text column's word and "number" name it.
            pattern = _counted(word) if numeric else _numbered(word)
            if pattern is not None:
                stem = word[:-1] if numeric and word.endswith("s") else word
                out.append((pattern, stem))
    return out


#: The nouns of ``_counted`` and ``_numbered``.
_MEASURE_NOUNS = ("count", "number", "score", "value", "figure")


@functools.lru_cache(maxsize=1024)
def _numbered(word: str) -> re.Pattern[str] | None:
    if " " in word or not word.isalpha():
        return None
    return re.compile(rf"(?<![a-z]){re.escape(word)}\s+(?P<noun>numbers?)(?![a-z])")


@functools.lru_cache(maxsize=1024)
def _counted(word: str) -> re.Pattern[str] | None:
    if " " in word or not word.isalpha():
        return None
    stem = re.escape(word[:-1] if word.endswith("s") else word)
    return re.compile(rf"(?<![a-z]){stem}s?\s+(?P<noun>count|number|score|value|figure)(?![a-z])")


@per_object
def _numeric_words(senses: dict[str, Sense]) -> frozenset[str]:
    return frozenset(
        w for s in senses.values() if s.column.type in ("integer", "number") for w in s.words
    )


def _named(sense: Sense, text: str) -> bool:
    return any(phrase_pattern(w).search(text) for w in sense.words)


def _whole_years(d: DateCondition) -> bool:
    return d.start.month == 1 and d.start.day == 1 and (d.op != "between" or (d.end.day == 1
                                                         and d.end.month == 1))  # fmt: skip


def _year_where(name: str, d: DateCondition) -> Where:
    """A date range of whole years on a year-number column ("published before 1900")."""
    if d.op == "between":
        last = d.end.year - 1
        if last == d.start.year:
            return Where(field=name, op="=", value=d.start.year)
        return Where(field=name, op="between", value=[d.start.year, last])
    return Where(field=name, op=d.op, value=d.start.year)  # type: ignore[arg-type]


def _in_vocabulary(word: str, model: Model) -> bool:
    """The word occurs in the searchable text read at introspection (CJK: as a substring)."""
    if not model.vocabulary:
        return False
    if is_cjk(word[0]):
        return any(word in v for v in model.vocabulary if is_cjk(v[0]))
    return word in model.vocabulary or f"{word}s" in model.vocabulary


def _names_model(text: str, known: frozenset[str]) -> bool:
    return any(phrase_pattern(w).search(text) for w in known if w)


#: "how many artists are male and how many are female": one count per value named.
_PER_VALUE = re.compile(r"(?<![a-z])how many\b.*\band how many\b")


def _per_value(scan: Scan, wheres: list[Where]) -> str | None:
    """The column whose values a question counts one by one ("how many are A and how many
    are B"): the one list of values it names; the second "how many" is read."""
    lists = [w.field for w in wheres if w.op == "in" and w.field and not w.wheres]
    m = search(_PER_VALUE, scan.text)
    if m is None or len(lists) != 1 or len(wheres) != 1:
        return None
    second = scan.text.rindex("and how many", m.start(), m.end())
    scan.consume(second, second + len("and how many"))
    return lists[0]


def _listed(
    scan: Scan, senses: dict[str, Sense], model: Model, known: frozenset[str]
) -> Distinct | None:
    """A column named alone (``find_listed``), the model named nowhere else in the question
    ("Show all card type codes" of Customers_Cards names its column, not the cards)."""
    listed = find_listed(scan, senses, STOPWORDS, model.primary_key)
    if listed is None:
        return None
    start, end = listed.span
    if all(w in known or _singular(w) in known for w in scan.text[start:end].split(" ")):
        return None  # "List all customers": the model's own noun, its rows
    rest = scan.text[:start] + " " * (end - start) + scan.text[end:]
    return None if _names_model(rest, known) else listed


def _names_column(text: str, model: Model) -> bool:
    """The question names a column of the model ("the names and ages of the different
    ranks"): a row answer shows it, so the question is about the model even when no rule
    read a condition from it (issue #19: it was called off topic and answered no rows)."""
    return any(
        _is_alias(tok, model)
        for tok in _TOKEN.findall(text)
        if tok not in STOPWORDS and _singular(tok) not in _GENERIC_PARTS
    )


#: Parts of many columns' names ("phone_number", "product_description"): a question using
#: one alone names no model ("the number of addresses in the California district").
_GENERIC_PARTS = frozenset(("id", "number", "name", "code", "type", "date", "count", "total",
                            "description", "detail", "info", "data", "value",
                            "amount"))  # fmt: skip


def _negated_words(scan: Scan, model: Model) -> list[Where]:
    out = []
    quoted = [q.span() for q in _QUOTED.finditer(scan.text)]
    for m in scan.find(_NEG_WORD):
        if any(a <= m.start() < b for a, b in quoted):
            continue  # "outcome code 'No Response'": a value, not a negation
        word = m["w"] or m["z"]
        if word in STOPWORDS or _is_alias(word, model) or not model.searchable:
            continue
        if not _in_vocabulary(_singular(word), model) and model.vocabulary_complete:
            continue  # a word no row contains can't exclude anything: leave it to the note
        scan.consume(*m.span())
        out.append(_like_any(_singular(word), model.searchable, "notlike"))
    return out


#: A quoted stretch of the question (a value as the user wrote it).
_QUOTED = re.compile(r"(?<![a-z0-9])[\"'“‘][^\"'”’]{1,80}[\"'”’](?![a-z0-9])")


def _like_any(word: str, columns: list[Column], op: str) -> Where:
    """LIKE: the word in any searchable column; NOT LIKE: in none of them."""
    conds = tuple(
        Where.model_validate(
            {"field": c.name, "op": op, "value": like_pattern(word), "or": op == "like" and i > 0}
        )
        for i, c in enumerate(columns)
    )
    return conds[0] if len(conds) == 1 else Where(wheres=conds)


def _keywords(scan: Scan, model: Model) -> list[str]:
    out: list[str] = []
    for tok in _TOKEN.findall(scan.rest):
        pieces = [p for p in _ZH_FILLER.split(tok) if len(p) >= 2] if is_cjk(tok[0]) else [tok]
        for p in pieces:
            if p in STOPWORDS or _is_alias(p, model) or (len(p) < 2 and not p.isdigit()):
                continue
            word = p if is_cjk(p[0]) else _singular(p)
            if word not in out:
                out.append(word)
    return out


def _function_or_name(model: Model) -> Callable[[str], bool]:
    """Words that can't begin or end a stored value named in a question."""
    return lambda word: word in STOPWORDS or word in _NO_VALUE or _is_alias(word, model)


#: Words that ask, count or point; never the edge of a value the question names.
_NO_VALUE = frozenset(("each", "every", "number", "total", "count", "average", "name", "names"))


def _is_alias(word: str, model: Model) -> bool:
    names = _names(model)
    return word in names or _singular(word) in names or f"{word}s" in names


@per_object  # asked per word of a question, several rules a read (issue #19 latency)
def _names(model: Model) -> frozenset[str]:
    """Every word that names the model or one of its columns (never a keyword)."""
    words = [model.name, model.table, *model.aliases]
    # Each word of a model's several-word name ("video games" of Video_Games) names it: it
    # is no text to search (issue #19: "how many video games" counted names with "game").
    words += [p for n in (model.name, model.table) for p in n.split("_") if len(p) > 2]
    for col in model.columns.values():
        # Every part of a column's name, generic ones too: "names", "ids", "dates" ask for
        # that column, and a row answer carries every column (issue #19).
        words += [col.name, col.name.replace("_", " "), *col.name.split("_"), *col.aliases]
    for sense in learn(model).values():
        words += [w for w in sense.words if " " not in w]
    return _normalised(tuple(words))


@functools.lru_cache(maxsize=256)
def _normalised(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(normalise(w) for w in words)


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"  # "cities" → "city"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]  # "addresses" → "address", "boxes" → "box", "matches" → "match"
    # Plural -s only: "laptops"→"laptop", "shops"→"shop"; keeps "glass", "bus", "xps".
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def keyword_generation(question: str, model: Model) -> Generation:
    """The fallback: every content word LIKE-matched across searchable columns, nothing else."""
    scan = Scan(question)
    keywords = _keywords(scan, model) if model.searchable else []
    wheres = tuple(_like_any(kw, model.searchable, "like") for kw in keywords)
    dsl = validate_dsl(QueryDSL(model=model.name, wheres=wheres), model)
    return Generation(dsl, keywords=tuple(keywords))
