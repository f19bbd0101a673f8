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

from unifind.agent import _chat, _host, _match, _sections, _terms
from unifind.agent import _cues as cue
from unifind.agent._normalise import correct, normalise
from unifind.agent._sections import Section

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
    db_rows: frozenset[str] = frozenset()
    """ASCII words of the rows' searchable text: two side by side, one with a digit, name a
    row ("iphone 15"), even when neither alone does."""
    people_zh: frozenset[str] = frozenset()
    """Chinese surnames of the people the DB names in Latin letters ("陈" for "Chen Wei")."""
    kb_sections: tuple[Section, ...] = ()
    """The KB's sections: (key words, content words) each (:mod:`._sections`)."""
    kb_terms: frozenset[str] = frozenset()
    """Words frequent in one KB document and absent from the others (:mod:`._terms`)."""
    kb_rare: frozenset[str] = frozenset()
    """Specific words of one KB document only, used even once ("sms", "婚假"): :mod:`._terms`."""
    kb_everyday: tuple[frozenset[str], ...] = ()
    """Per KB document, its everyday words no other has ("dispatch", "pole"): two of the same
    document name the handbook (:mod:`._terms`)."""


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
    compare: bool
    text: str
    terms: list[str] = field(default_factory=list)
    """The KB's salient terms the message names (:mod:`._terms`): the handbook's, when
    nothing else is signalled."""
    rare: list[str] = field(default_factory=list)
    """Words of one KB document only, a specific one or two everyday ones (:mod:`._terms`)."""
    outside: list[str] = field(default_factory=list)
    """Words of a comparison's outside side ("official", "国家"): the world's figure."""

    @property
    def strong_kb(self) -> list[str]:
        return [w for w in self.kb if w.lower() not in cue.KB_WEAK]


def _signals(text: str, low: str, vocab: Vocabulary) -> _Signals:
    buyers = _buyer(text, vocab)
    # The message's words and Chinese 2-4 character runs, once: the KB's terms are sets.
    toks = _terms.tokens(low) if vocab.kb_terms or vocab.kb_rare or vocab.kb_everyday else set()
    entities = _match.found(text, low, vocab.db) + _match.row_pairs(low, vocab.db_rows) + buyers
    filters = _match.found(text, low, cue.FILTER_ZH) + [
        m.group(0) for m in cue.FILTER_EN.finditer(text)
    ]
    amounts = [m.group(0) for m in cue.AMOUNT.finditer(text)]
    compare = bool(cue.COMPARE.search(text))
    web_topic = _match.found(text, low, [*cue.WEB_TOPIC_EN, *cue.WEB_TOPIC_ZH]) + [
        m.group(0) for m in cue.DEFINITION.finditer(text)
    ]
    # "Our meal limit vs the official per diem": the other side of a comparison is the world's.
    outside = [m.group(0) for m in cue.OUTSIDE.finditer(text)] if compare else []
    outside += [m.group(0) for m in cue.RETAILER.finditer(text)]
    # A declared DB value is the database's word, not a handbook topic ("已发货" orders),
    # and a word of a public topic is the world's ("exchange" in "exchange rate").
    public = {w for t in web_topic + outside for w in t.split()}
    kb = [
        w
        for w in _match.found(text, low, [*cue.KB_EN, *cue.KB_ZH, *vocab.kb])
        + _sections.named(low, vocab.kb_sections)
        if w not in entities and w not in public
    ]
    if cue.THE_US.search(text):  # "in the US this year": a country, not the team
        kb = [w for w in kb if w != "us"]
    if cue.ANY_COMPANY.search(text):  # "is Apple a good company": not the team's own
        kb = [w for w in kb if not w.startswith("compan")]
    if _host.OTHER_COMPANY_ZH.search(text):  # "苹果公司的市值": that company, not ours
        kb = [w for w in kb if w != "公司"]
    if cue.WHO_INTERNAL.search(text):
        kb.append("who-to-contact")
    if cue.COVERED.search(text):
        kb.append("covered-or-returned")
    if cue.PROBLEM.search(text) and not (filters or amounts):
        kb.append(_PROBLEM)
    # Places and names alone ("the GDP of Germany", "how many days off in our Shanghai
    # office") are not a question for the database; with an amount, or a column and a
    # filter ("who spent the most in Paris"), they are.
    attrs = _match.found(text, low, vocab.db_attrs)
    if entities and set(entities) <= vocab.db_weak and not (amounts or (filters and attrs)):
        entities = []
    # "Our hotel allowance vs the average hotel price in Paris": a place beside the team's
    # own policy in a comparison is the world's side, not the rows.
    policy = [w for w in kb if w not in cue.OWN and w not in cue.KB_WEAK]
    if entities and set(entities) <= vocab.db_weak and compare and policy:
        entities = []
    # "周日发货吗": a DB value that is also a handbook topic, with no model, filter or
    # amount, asks the handbook's rule ("shipped" orders name the model).
    if entities and set(entities) <= vocab.kb and not (amounts or filters):
        entities, kb = [], kb + entities
    return _Signals(
        kb=kb,
        own=any(w.lower() in cue.OWN for w in kb),
        web_time=_match.found(text, low, [*cue.WEB_TIME_EN, *cue.WEB_TIME_ZH]),
        web_topic=web_topic,
        entities=entities,
        filters=filters,
        amounts=amounts,
        attrs=attrs,
        # A customer is the rows, like a model: a time word with one is a date filter.
        models=[w for w in entities if w in vocab.db_models] + buyers,
        howto=bool(cue.HOWTO.search(text) or cue.SHIPS.search(text)),
        shop=bool(cue.SHOP.search(text) or (entities and cue.HERE.search(text)))
        or bool(entities and cue.SHOP_ZH_SELL.search(text)),
        outside=outside,
        terms=sorted(toks & vocab.kb_terms),
        rare=_rare(low, toks, vocab),
        compare=compare,
        text=text,
    )


def _rare(low: str, toks: set[str], vocab: Vocabulary) -> list[str]:
    """The handbook's own words a message names: two of one document, or one asked as a
    rule ("mfa requirements", "婚假有几天"); one named otherwise is as often the world's
    thing ("what is phishing", "best kayak for beginners")."""
    words = sorted(toks & vocab.kb_rare) + _terms.named_pair(toks, vocab.kb_everyday)
    if len(set(words) | (toks & vocab.kb_terms)) > 1 or cue.RULE.search(low):
        return words
    return []


def _buyer(text: str, vocab: Vocabulary) -> list[str]:
    """A Chinese name whose surname a DB customer has, right before a buying word ("陈伟下过
    几次单" for "Chen Wei"): the DB spells its people in Latin letters, the writer in
    characters."""
    if not vocab.people_zh:
        return []
    return [m.group(1) for m in _match.buyer_pattern(vocab.people_zh).finditer(text)]


def classify(message: str, vocab: Vocabulary | None = None, *, attached: int = 0) -> Intent:
    """Decide whether ``message`` needs a search and which legs (``kb``, ``web``, ``db``)."""
    vocab = vocab or Vocabulary()
    if attached:
        return Intent(True, ("kb",), f"{attached} attached part(s) to search first")
    # Lower case throughout: every rule matches case-blind, and the typo fixes are lower.
    # The writer's own last turn: a host's preamble and quoted turns ask nothing (_host).
    text = correct(normalise(_host.own_turn(message).strip()).lower(), _spellings(vocab))
    # "I'm not asking about refunds": a topic the writer rules out names nothing to search.
    text = _host.NEGATED.sub(",", text)
    text = _host.WHAT_NOW.sub(",", text)  # "arrived damaged, what now": no time word
    bare = text.strip().strip("!！?？.。,，~～ ")
    sig = _signals(text, text, vocab)
    chat = bool(cue.ABOUT_YOU.match(bare))
    if chat or _chat.about_self(bare):  # "so tired today": the writer's day, not the world's
        sig.web_time = []
    if _host.PAST_OWN.search(bare) and set(sig.web_time) <= _host.PAST:
        sig.web_time = []  # "I sent photos yesterday": the writer's own past, not news
    web = sig.web_time + sig.web_topic
    signals = {"kb": tuple(sig.kb), "web": tuple(web),
               "db": tuple(sig.entities + sig.filters + sig.amounts)}  # fmt: skip
    why = _no_search(text, bare, sig, vocab, chat=chat) or _talk(bare, sig)
    if why is not None:
        return Intent(False, (), why, signals)
    legs, reasons = _legs(sig)
    for clause_legs, clause_reasons in _clause_legs(bare, sig, vocab):
        new = [leg for leg in clause_legs if leg not in legs]
        legs += new
        reasons += [r for r in clause_reasons if r.split(":")[0] in new]
    ordered = tuple(leg for leg in LEGS if leg in legs)
    return Intent(True, ordered, "; ".join(reasons), signals)


def _no_search(text: str, bare: str, sig: _Signals, vocab: Vocabulary, *, chat: bool) -> str | None:
    """Why the message needs no search (a task, social talk, a statement), else None."""
    if _PROBLEM in sig.kb and cue.PROBLEM.search(bare):  # "订单还没收到" is no "收到"
        return None
    head = _chat.given_text_task(bare)
    if head is not None:
        hsig = _signals(head, head, vocab)
        if not (hsig.own or hsig.web_topic):
            return "a task on text the message gives"
    task = _chat.task(bare)
    inline_task = task and bool(cue.INLINE.search(bare))
    # A task names topics it needs no search for ("write a leave request email"), unless it
    # is about the team's own things, a public topic or the database's; a writing task at
    # the head ("write a haiku about headphones") even names the database's things, unless
    # it asks for their facts (a column, a filter, an amount, the shop).
    facts = sig.filters or sig.amounts or sig.attrs or sig.shop
    say = cue.SAY_EN.search(bare) or cue.ZH_SAY.search(bare)  # "缺货 in English": a word
    written = bool(say) or (bool(cue.WRITE_VERBS.match(bare)) and not (sig.entities and facts))
    plain_task = task and not (sig.own or sig.web_topic or (sig.entities and not written))
    if written and not (sig.own or sig.web_topic):
        return "a writing or language task"
    own_kb = sig.strong_kb
    if _chat.about_self(bare):  # "left my charger at the office": the writer's day, not a topic
        own_kb = [w for w in own_kb if w.lower() not in cue.KB_SETTING]
    signalled = bool(own_kb or sig.web_time or sig.web_topic or sig.entities)
    # "My tent pole snapped …, will you replace it?": the handbook's own words, asked.
    signalled |= bool((sig.terms or sig.rare) and cue.QUESTION.search(bare))
    if not (own_kb or sig.web_topic or sig.entities) and _chat.social_lead(bare):
        return "social talk"
    short_social = bool(cue.SOCIAL_EN.match(bare)) and len(bare.split()) <= 3
    if not (inline_task or plain_task or short_social or _chat.social(bare) or not signalled):
        return None
    why = _chat.chit_chat(text)
    if why is None and not signalled:
        if chat:
            why = "small talk with the assistant"
        elif _chat.about_self(bare):
            why = "a statement about the writer (a time word in it dates their own day)"
    return why


def _talk(bare: str, sig: _Signals) -> str | None:
    """Why a message with a topic word still needs no search: a hypothetical put to the
    assistant, a programming task, a bill split, a ticket that asks nothing, or venting once
    the writer ruled a topic out ("not asking about refunds, just wanted to vent")."""
    facts = bool(sig.own or sig.web_topic or sig.filters or sig.amounts)
    if _host.CODE.search(bare):
        return "a programming task"
    if _host.HYPOTHETICAL.search(bare) and not (facts or sig.entities):
        return "a hypothetical put to the assistant"
    if _host.SPLIT.search(bare) and re.search(r"\d", _host.digits(bare)) and not sig.web_topic:
        return "arithmetic the model can do (a share each pays)"
    if _chat.math(_host.digits(bare)):
        return "arithmetic in words the model can do"
    if _host.NO_ACTION.search(bare) and not cue.QUESTION.search(bare):
        return "a message that asks nothing"
    # Venting once a topic is ruled out, or with no source's word ("就是想聊聊天").
    quiet = not (sig.strong_kb or sig.entities or sig.web_topic or cue.QUESTION.search(bare))
    if quiet and _host.VENT.search(bare):
        return "the writer wants to talk, not to search"
    return None


def _legs(sig: _Signals) -> tuple[list[str], list[str]]:
    legs: list[str] = []
    reasons: list[str] = []
    kb, strong_kb, entities = sig.kb, sig.strong_kb, sig.entities
    # A declared entity with a filter or an amount is a DB question, and so is one that is
    # neither a how-to, a policy question nor a public topic ("laptops by Lenovo"); time
    # words over a named model are date filters ("customers who signed up this month"),
    # over a mere value they ask about the world ("the price of gold today").
    ranked = bool(sig.filters or sig.amounts)
    dated = bool(sig.web_time and not sig.models and not (sig.compare and sig.outside))
    # "Who founded Xiaomi": a maker's story, not the rows (a model word makes it rows).
    world = bool(cue.WORLD_WH.search(sig.text)) and not (sig.models or ranked or sig.attrs)
    # "Our gold customers": "our" alone is the shop's own rows; a policy word is the handbook.
    policy = bool(strong_kb) and _policy_words(kb)
    plain = not (policy or sig.web_topic or sig.howto or dated or world)
    # A column with an aggregate or a filter ("total amount spent by …") asks the DB too.
    # A column's own word is no filter ("价格" is both): "现在黄金价格" asks the world.
    ranks = sig.amounts or set(sig.filters) - set(sig.attrs)
    counted = bool(sig.attrs and ranks and not (strong_kb or sig.web_topic))
    # "The price of X in our shop": the shop's rows, unless a policy or a process is asked.
    shop = (
        sig.shop
        and bool(entities or sig.attrs or ranked)
        and not (_policy_words(kb) or sig.web_topic or sig.howto)
    )
    # "The newest iPhone's price (official site)": another seller's price, not the rows.
    elsewhere = bool(cue.RETAILER.search(sig.text)) and not (sig.shop or sig.own)
    rows = (entities and (ranked or plain)) or (sig.amounts and sig.filters) or counted or shop
    if rows and not elsewhere:
        legs.append("db")
        words = entities + sig.amounts + sig.filters + (sig.attrs if counted else [])
        reasons.append(f"db: {', '.join(dict.fromkeys(words))}")
    # How-to and process questions about the shop's things: the handbook answers them.
    process = bool(entities and sig.howto and not ranked and not sig.web_topic)
    if strong_kb or (kb and not legs) or process:
        legs.append("kb")
        why = ", ".join(dict.fromkeys(kb)) or "a process question about " + ", ".join(entities)
        reasons.append(f"kb: {why} (the team's own knowledge)")
    web = sig.web_time + sig.web_topic + sig.outside
    # "The current company rules": a time word over the team's own policy dates the team's
    # documents; the world is asked only with a public topic ("… vs the statutory minimum").
    team = sig.own or any(w in _TEAM for w in kb)
    own_dated = team and _policy_words(kb) and not sig.compare
    # "X here vs on amazon today": the time word is the other side's, the world's.
    outside = sig.compare and not sig.models
    # "现在卖多少": now dates the shop's own price, unless another seller is named.
    shop_now = ranked and bool(entities) and set(sig.web_time) <= cue.NOW and not sig.outside
    timely = (
        sig.web_time
        and not (own_dated or shop_now)
        and (not legs or "kb" in legs or not entities or outside)
    )
    if sig.web_topic or timely or sig.outside:
        legs.append("web")
        reasons.append(f"web: {', '.join(dict.fromkeys(web))} (time-sensitive or public)")
    own_words = sorted(set(sig.terms + sig.rare))
    # "下午四点付款今天能发出吗": a time word over two of the handbook's own words dates the
    # writer's case, not the world's news.
    handbook_day = legs == ["web"] and not (sig.web_topic or sig.outside or entities)
    if own_words and (not legs or (handbook_day and len(own_words) > 1)):
        legs, reasons = ["kb"], []
        reasons.append(f"kb: {', '.join(own_words)} (words of one handbook document)")
    if not legs:
        legs.append("web")
        reasons.append("web: a public question (no internal or database signal)")
    # "our" + a DB entity is the shop's own data: the DB answers it, not the handbook.
    if "db" in legs and "kb" in legs and not _policy_words(kb) and not process:
        legs.remove("kb")
    return legs, reasons


def _clause_legs(
    bare: str, whole: _Signals, vocab: Vocabulary
) -> Iterable[tuple[list[str], list[str]]]:
    """The legs of each clause of a message that asks several things ("our warranty on X
    and how much does it cost"): each clause with a signal of its own adds its legs. A
    clause that names no entity ("how much does it cost") speaks of the message's."""
    clauses = [c for c in cue.CLAUSE.split(bare) if c and c.strip()]
    clauses = [c for c in clauses if not cue.REFERENCE.match(c)]
    if len(clauses) < 2:
        return
    for clause in clauses:
        sig = _signals(clause, clause, vocab)
        if _chat.about_self(clause):
            sig.web_time = []
        if not sig.entities and (sig.attrs or sig.filters):
            sig.entities, sig.models = whole.entities, whole.models
        if sig.strong_kb or sig.web_time or sig.web_topic or sig.entities:
            yield _legs(sig)


@functools.lru_cache(maxsize=8)  # the same vocabulary comes with every ask
def _spellings(vocab: Vocabulary) -> frozenset[str]:
    """Words a typo may be corrected to: the sources' words and the rules' own, one ASCII
    token each."""
    rules = [*cue.KB_EN, *cue.WEB_TIME_EN, *cue.WEB_TOPIC_EN, *cue.TASK_VERBS]
    words = [*vocab.db, *vocab.kb, *vocab.db_attrs, *vocab.db_models, *rules]
    return frozenset(w.lower() for w in words if w.isascii() and w.isalpha())


#: The team's own subjects ("expense", "报销"): words of the rules, not of a KB's titles
#: ("shipping" is also the world's).
_TEAM = frozenset(cue.KB_EN + cue.KB_ZH) - cue.KB_WEAK


#: The cue word of a problem with the writer's parcel or item (``cue.PROBLEM``).
_PROBLEM = "a-problem-with-an-order"


def _policy_words(kb: list[str]) -> bool:
    return any(w.lower() not in {"our", "ours", "we", "us", "here", "我们", "公司"} for w in kb)
