"""The builtin intent stage: does a message need a search, and which legs (rules, EN + ZH).

Rule-first, as DESIGN §9 asks: each leg has signal words, read as data below; a message
with none of them is a public question (web) unless it is chit-chat or a self-contained
task (none). DB signals come from the declared models themselves (their names, aliases
and column values), so the rules know a shop's "headphones" without a word list of ours.
English matches whole words; Chinese (no spaces) matches substrings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

LEGS = ("kb", "web", "db")

# -- no search -----------------------------------------------------------------------
#: Whole messages that are social talk (after trimming punctuation), EN and ZH.
_SOCIAL_EN = re.compile(
    r"^(hi|hello|hey|howdy|yo|hiya|greetings|good (morning|afternoon|evening|night)|"
    r"how are you|how's it going|what's up|thanks?|thank you|thx|ty|cheers|many thanks|"
    r"bye|goodbye|see you|see ya|later|ok|okay|k|cool|great|nice|awesome|got it|sure|"
    r"yes|no|yep|nope|lol|haha|who are you|what can you do|what are you)\b",
    re.I,
)
_SOCIAL_ZH = (
    "你好", "您好", "嗨", "哈喽", "早上好", "下午好", "晚上好", "早安", "晚安", "谢谢", "多谢",
    "感谢", "再见", "拜拜", "好的", "明白", "收到", "嗯", "哈哈", "你是谁", "你能做什么",
)  # fmt: skip
#: Tasks the model does from the message alone: write, translate, rewrite, compute, code.
_TASK_EN = re.compile(
    r"^(please )?(can you |could you )?(help me )?(write|compose|draft|translate|rewrite|"
    r"rephrase|paraphrase|convert|fix|correct|proofread|summari[sz]e|shorten|tell me a "
    r"(joke|story)|give me a synonym|brainstorm|calculate|compute|solve|generate|make up)\b",
    re.I,
)
_TASK_ZH = (
    "翻译", "润色", "改写", "写", "讲个", "给我讲", "给我写", "计算", "帮我写", "帮我翻译",
    "帮我润色", "帮我改", "把", "总结一下这段", "请翻译", "请写",
)  # fmt: skip
_TASK_ZH_ANYWHERE = ("等于几", "等于多少", "翻译成", "润色一下")
#: A task whose material is inline ("translate: ...", "改写：...") needs no search even if
#: the material itself says "today" or "our".
_INLINE = re.compile(r"[:：\"“”'‘’「」]")
#: How-to and process questions: a handbook answers them, even when they name a DB entity.
_HOWTO = re.compile(r"\bhow (do|does|did|should|can|to|is|are)\b|怎么|如何|流程|步骤|处理", re.I)
_ARITHMETIC = re.compile(r"^[\s\d.+\-*/×÷^()%=?]*\d\s*[+\-*/×÷^]\s*\d[\s\d.+\-*/×÷^()%=?]*$")

# -- kb: the team's own knowledge ----------------------------------------------------
_KB_EN = (
    "our", "ours", "we", "us", "internal", "internally", "company", "company's", "policy",
    "policies", "handbook", "employee", "employees", "onboarding", "procedure", "procedures",
    "guideline", "guidelines", "wiki", "intranet", "hr", "reimburse", "reimbursement",
    "reimbursements", "expense", "expenses", "on-call", "on call", "our team", "my team",
    "here", "colleague", "colleagues", "new hires", "staff",
)  # fmt: skip
_KB_ZH = (
    "我们", "公司", "我司", "本公司", "内部", "政策", "制度", "规定", "流程", "手册", "员工",
    "报销", "年假", "值班", "入职", "条款", "团队", "同事", "规范", "差旅", "策略",
)  # fmt: skip
#: Words that make a "we"/"us" question about the world, not the team ("can we see Mars").
_KB_WEAK = frozenset({"we", "us", "here"})

# -- web: time-sensitive or public facts ---------------------------------------------
_WEB_TIME_EN = (
    "latest", "newest", "today", "today's", "tonight", "tomorrow", "yesterday", "news",
    "current", "currently", "now", "this year", "this week", "this month", "recent",
    "recently", "weather", "forecast", "stock market", "exchange rate", "release",
    "released", "release notes", "new release", "version", "breaking", "live", "score",
    "2023", "2024", "2025", "2026", "law", "laws", "legislation", "regulation", "tax rules",
    "offers today", "election",
)  # fmt: skip
_WEB_TIME_ZH = (
    "最新", "今天", "今日", "明天", "昨天", "新闻", "现在", "目前", "当前", "今年", "本周",
    "最近", "近期", "天气", "下雨", "汇率", "股价", "股市", "版本", "发布", "现任", "法律",
    "法规", "劳动法", "新出台", "保护法",
)  # fmt: skip

# -- db: filters, amounts, ranking over declared models -----------------------------
_AMOUNT = re.compile(
    r"([$€£¥]\s?\d|\d+(\.\d+)?\s?(dollars?|usd|eur|euros?|rmb|yuan|kg|g|gb|tb|%|stars?)\b|"
    r"\d+(\.\d+)?\s?(美元|元|块|公斤|千克|克|星|折))",
    re.I,
)
_FILTER_EN = re.compile(
    r"\b(under|below|over|above|less than|more than|cheaper than|at least|at most|between|"
    r"within|cheapest|most expensive|highest|lowest|top \d+|sorted by|order by|rated|"
    r"in stock|out of stock|on sale|discounted|how many|average|total|count|list)\b",
    re.I,
)
_FILTER_ZH = (
    "以下", "以上", "以内", "低于", "高于", "不超过", "超过", "至少", "最多", "最便宜", "最贵",
    "最高", "最低", "评分", "有货", "缺货", "打折", "多少钱", "有多少", "平均", "总共", "哪些",
    "哪款", "排序", "价格",
)  # fmt: skip


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


def _han(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _found(text: str, low: str, words: Iterable[str]) -> list[str]:
    """The ``words`` in ``text``: substrings for Chinese, whole words for the rest."""
    hits = []
    for w in words:
        if not w:
            continue
        if _han(w):
            if w in text:
                hits.append(w)
        elif re.search(rf"(?<![\w'-]){re.escape(w.lower())}(?![\w'-])", low):
            hits.append(w)
    return hits


def _chit_chat(text: str) -> str | None:
    """Why ``text`` needs no search (social talk, a self-contained task), else None."""
    bare = text.strip().strip("!！?？.。,，~～ ")
    words = bare.split()
    if not bare:
        return "empty message"
    if _ARITHMETIC.match(bare) or re.match(r"^(what('s| is) )?[\d\s.+\-*/×÷^()]+$", bare, re.I):
        return "arithmetic the model can do"
    if _task(bare):
        return "a self-contained task (write, translate, rewrite, compute)"
    if _SOCIAL_EN.match(bare) and len(words) <= 5:
        return "social talk"
    if _han(bare) and len(bare) <= 8 and any(w in bare for w in _SOCIAL_ZH):
        return "social talk"
    return None


def _task(bare: str) -> bool:
    return bool(
        _TASK_EN.match(bare)
        or any(bare.startswith(w) for w in _TASK_ZH)
        or any(w in bare for w in _TASK_ZH_ANYWHERE)
    )


def classify(message: str, vocab: Vocabulary | None = None, *, attached: int = 0) -> Intent:
    """Decide whether ``message`` needs a search and which legs (``kb``, ``web``, ``db``)."""
    vocab = vocab or Vocabulary()
    text = message.strip()
    low = text.lower()
    if attached:
        return Intent(True, ("kb",), f"{attached} attached part(s) to search first")
    kb = _found(text, low, [*_KB_EN, *_KB_ZH, *vocab.kb])
    strong_kb = [w for w in kb if w.lower() not in _KB_WEAK]
    web = _found(text, low, [*_WEB_TIME_EN, *_WEB_TIME_ZH])
    entities = _found(text, low, vocab.db)
    filters = _found(text, low, _FILTER_ZH) + [m.group(0) for m in _FILTER_EN.finditer(text)]
    amounts = [m.group(0) for m in _AMOUNT.finditer(text)]
    signals = {"kb": tuple(kb), "web": tuple(web), "db": tuple(entities + filters + amounts)}
    bare = text.strip().strip("!！?？.。,，~～ ")
    inline_task = _task(bare) and bool(_INLINE.search(bare))
    short_social = bool(_SOCIAL_EN.match(bare)) and len(bare.split()) <= 3
    if inline_task or short_social or not (strong_kb or web or entities):
        why = _chit_chat(text)
        if why is not None:
            return Intent(False, (), why, signals)
    legs: list[str] = []
    reasons: list[str] = []
    # A declared entity with a filter or an amount is a DB question, and so is one that is
    # neither a how-to, a policy question nor a time-sensitive one ("laptops by Lenovo").
    ranked = bool(filters or amounts)
    plain = not (strong_kb or web or _HOWTO.search(text))
    if (entities and (ranked or plain)) or (amounts and filters):
        legs.append("db")
        reasons.append(f"db: {', '.join(dict.fromkeys(entities + amounts + filters))}")
    if strong_kb or (kb and not legs):
        legs.append("kb")
        reasons.append(f"kb: {', '.join(dict.fromkeys(kb))} (the team's own knowledge)")
    if web and (not legs or "kb" in legs or not entities):
        legs.append("web")
        reasons.append(f"web: {', '.join(dict.fromkeys(web))} (time-sensitive or public)")
    if not legs:
        legs.append("web")
        reasons.append("web: a public question (no internal or database signal)")
    # "our" + a DB entity is the shop's own data: the DB answers it, not the handbook.
    if "db" in legs and "kb" in legs and not _policy_words(kb):
        legs.remove("kb")
    ordered = tuple(leg for leg in LEGS if leg in legs)
    return Intent(True, ordered, "; ".join(reasons), signals)


def _policy_words(kb: list[str]) -> bool:
    return any(w.lower() not in {"our", "ours", "we", "us", "here", "我们", "公司"} for w in kb)
