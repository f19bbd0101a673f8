"""The builtin intent stage: does a message need a search, and which legs (rules, EN + ZH).

Rule-first, as DESIGN §9 asks: each leg has signal words, read as data below; a message
with none of them is a public question (web) unless it is chit-chat or a self-contained
task (none). DB signals come from the declared models themselves (their names, aliases
and column values), so the rules know a shop's "headphones" without a word list of ours.
English matches whole words; Chinese (no spaces) matches substrings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from unifind.agent import _cues as cue
from unifind.agent._normalise import correct, normalise

LEGS = ("kb", "web", "db")


@dataclass(frozen=True)
class Intent:
    """What the intent stage decided, and why."""

    search: bool
    legs: tuple[str, ...]
    why: str
    signals: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per leg, the words that pointed at it."""


@dataclass(frozen=True)
class Vocabulary:
    """Names the sources know: DB model names, aliases and values; KB collection words."""

    db: frozenset[str] = frozenset()
    kb: frozenset[str] = frozenset()
    db_weak: frozenset[str] = frozenset()
    """DB values that alone don't make a DB question (places, people: sampled columns)."""
    db_attrs: frozenset[str] = frozenset()
    """Column aliases ("price", "amount"): a DB question with a filter or an aggregate."""
    db_models: frozenset[str] = frozenset()
    """Model names and aliases ("customers", "订单"): with them a time word is a date filter."""


_HAN = re.compile("[\u4e00-\u9fff]")


def _han(text: str) -> bool:
    return _HAN.search(text) is not None


def _found(text: str, low: str, words: Iterable[str]) -> list[str]:
    """The ``words`` in ``text``: substrings for Chinese, whole words for the rest."""
    hits = []
    for w in words:
        if not w:
            continue
        if _han(w):
            if w in text:
                hits.append(w)
            continue
        lw = w.lower()
        # The substring test first: the regex (one per word, beyond re's cache for a large
        # vocabulary) only runs for the few words that occur at all.
        if lw in low and re.search(rf"(?<![\w'-]){re.escape(lw)}(?![\w'-])", low):
            hits.append(w)
    return hits


def _social(bare: str) -> bool:
    """A greeting, thanks or farewell that asks nothing ("good night, talk tomorrow")."""
    if cue.QUESTION.search(bare):
        return False
    if cue.SOCIAL_EN.match(bare):
        return len(bare.split()) <= 6
    return _han(bare) and len(bare) <= 12 and any(w in bare for w in cue.SOCIAL_ZH)


def _chit_chat(text: str) -> str | None:
    """Why ``text`` needs no search (social talk, a self-contained task), else None."""
    bare = text.strip().strip("!！?？.。,，~～ ")
    words = bare.split()
    if not bare:
        return "empty message"
    if _math(bare):
        return "arithmetic the model can do"
    if _task(bare):
        return "a self-contained task (write, translate, rewrite, compute)"
    if cue.SOCIAL_EN.match(bare) and len(words) <= 5:
        return "social talk"
    if _han(bare) and len(bare) <= 8 and any(w in bare for w in cue.SOCIAL_ZH):
        return "social talk"
    if _social(bare):
        return "social talk"
    return None


def _math(bare: str) -> bool:
    if cue.ARITHMETIC.match(bare) or re.match(r"^(what('s| is) )?[\d\s.+\-*/×÷^()]+$", bare, re.I):
        return True
    if cue.MATH_EN.match(bare):
        return True
    return bool(
        cue.MATH_ZH.match(bare) and cue.MATH_ZH_OP.search(bare) and cue.NUMBER_ZH.search(bare)
    )


def _task(bare: str) -> bool:
    zh = cue.ZH_POLITE.sub("", bare, count=1)
    return bool(
        cue.TASK_EN.match(bare)
        or any(zh.startswith(w) for w in cue.TASK_ZH)
        or any(w in bare for w in cue.TASK_ZH_ANYWHERE)
        or cue.ZH_SAY.search(bare)
    )


@dataclass
class _Signals:
    """The words of a message that point at each leg."""

    kb: list[str]
    own: bool
    web_time: list[str]
    web_topic: list[str]
    entities: list[str]
    filters: list[str]
    amounts: list[str]
    attrs: list[str]
    models: list[str]
    howto: bool
    shop: bool

    @property
    def strong_kb(self) -> list[str]:
        return [w for w in self.kb if w.lower() not in cue.KB_WEAK]


def _signals(text: str, low: str, vocab: Vocabulary) -> _Signals:
    entities = _found(text, low, vocab.db)
    filters = _found(text, low, cue.FILTER_ZH) + [m.group(0) for m in cue.FILTER_EN.finditer(text)]
    amounts = [m.group(0) for m in cue.AMOUNT.finditer(text)]
    # A declared DB value is the database's word, not a handbook topic ("已发货" orders).
    kb = [w for w in _found(text, low, [*cue.KB_EN, *cue.KB_ZH, *vocab.kb]) if w not in entities]
    if cue.WHO_INTERNAL.search(text):
        kb.append("who-to-contact")
    # Places and names alone ("the GDP of Germany") are not a question for the database.
    if entities and set(entities) <= vocab.db_weak and not (filters or amounts):
        entities = []
    return _Signals(
        kb=kb,
        own=any(w.lower() in cue.OWN for w in kb),
        web_time=_found(text, low, [*cue.WEB_TIME_EN, *cue.WEB_TIME_ZH]),
        web_topic=_found(text, low, [*cue.WEB_TOPIC_EN, *cue.WEB_TOPIC_ZH]),
        entities=entities,
        filters=filters,
        amounts=amounts,
        attrs=_found(text, low, vocab.db_attrs),
        models=[w for w in entities if w in vocab.db_models],
        howto=bool(cue.HOWTO.search(text)),
        shop=bool(cue.SHOP.search(text)),
    )


def classify(message: str, vocab: Vocabulary | None = None, *, attached: int = 0) -> Intent:
    """Decide whether ``message`` needs a search and which legs (``kb``, ``web``, ``db``)."""
    vocab = vocab or Vocabulary()
    if attached:
        return Intent(True, ("kb",), f"{attached} attached part(s) to search first")
    # Lower case throughout: every rule matches case-blind, and the typo fixes are lower.
    text = correct(normalise(message.strip()).lower(), _spellings(vocab))
    sig = _signals(text, text, vocab)
    web = sig.web_time + sig.web_topic
    signals = {"kb": tuple(sig.kb), "web": tuple(web),
               "db": tuple(sig.entities + sig.filters + sig.amounts)}  # fmt: skip
    bare = text.strip().strip("!！?？.。,，~～ ")
    task = _task(bare)
    inline_task = task and bool(cue.INLINE.search(bare))
    # A task names topics it needs no search for ("write a leave request email"), unless it
    # is about the team's own things, a public topic or the database's.
    plain_task = task and not (sig.own or sig.web_topic or sig.entities)
    short_social = bool(cue.SOCIAL_EN.match(bare)) and len(bare.split()) <= 3
    if (
        inline_task
        or plain_task
        or short_social
        or _social(bare)
        or not (sig.strong_kb or web or sig.entities)
    ):
        why = _chit_chat(text)
        if why is not None:
            return Intent(False, (), why, signals)
    legs, reasons = _legs(sig)
    ordered = tuple(leg for leg in LEGS if leg in legs)
    return Intent(True, ordered, "; ".join(reasons), signals)


def _legs(sig: _Signals) -> tuple[list[str], list[str]]:
    legs: list[str] = []
    reasons: list[str] = []
    kb, strong_kb, entities = sig.kb, sig.strong_kb, sig.entities
    # A declared entity with a filter or an amount is a DB question, and so is one that is
    # neither a how-to, a policy question nor a public topic ("laptops by Lenovo"); time
    # words over a named model are date filters ("customers who signed up this month"),
    # over a mere value they ask about the world ("the price of gold today").
    ranked = bool(sig.filters or sig.amounts)
    dated = bool(sig.web_time and not sig.models)
    plain = not (strong_kb or sig.web_topic or sig.howto or dated)
    # A column with an aggregate or a filter ("total amount spent by …") asks the DB too.
    counted = bool(sig.attrs and ranked and not (strong_kb or sig.web_topic))
    # "The price of X in our shop": the shop's rows, unless a policy or a process is asked.
    shop = (
        sig.shop
        and bool(entities or sig.attrs or ranked)
        and not (_policy_words(kb) or sig.web_topic or sig.howto)
    )
    if (entities and (ranked or plain)) or (sig.amounts and sig.filters) or counted or shop:
        legs.append("db")
        words = entities + sig.amounts + sig.filters + (sig.attrs if counted else [])
        reasons.append(f"db: {', '.join(dict.fromkeys(words))}")
    # How-to and process questions about the shop's things: the handbook answers them.
    process = bool(entities and sig.howto and not ranked and not sig.web_topic)
    if strong_kb or (kb and not legs) or process:
        legs.append("kb")
        why = ", ".join(dict.fromkeys(kb)) or "a process question about " + ", ".join(entities)
        reasons.append(f"kb: {why} (the team's own knowledge)")
    web = sig.web_time + sig.web_topic
    if sig.web_topic or (sig.web_time and (not legs or "kb" in legs or not entities)):
        legs.append("web")
        reasons.append(f"web: {', '.join(dict.fromkeys(web))} (time-sensitive or public)")
    if not legs:
        legs.append("web")
        reasons.append("web: a public question (no internal or database signal)")
    # "our" + a DB entity is the shop's own data: the DB answers it, not the handbook.
    if "db" in legs and "kb" in legs and not _policy_words(kb) and not process:
        legs.remove("kb")
    return legs, reasons


@functools.lru_cache(maxsize=8)  # the same vocabulary comes with every ask
def _spellings(vocab: Vocabulary) -> frozenset[str]:
    """Words a typo may be corrected to: the sources' words and the rules' own, one ASCII
    token each."""
    rules = [*cue.KB_EN, *cue.WEB_TIME_EN, *cue.WEB_TOPIC_EN, *cue.TASK_VERBS]
    words = [*vocab.db, *vocab.kb, *vocab.db_attrs, *vocab.db_models, *rules]
    return frozenset(w.lower() for w in words if w.isascii() and w.isalpha())


def _policy_words(kb: list[str]) -> bool:
    return any(w.lower() not in {"our", "ours", "we", "us", "here", "我们", "公司"} for w in kb)
