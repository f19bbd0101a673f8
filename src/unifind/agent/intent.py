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

from unifind.agent._normalise import correct, normalise

LEGS = ("kb", "web", "db")

# -- no search -----------------------------------------------------------------------
#: Whole messages that are social talk (after trimming punctuation), EN and ZH.
_SOCIAL_EN = re.compile(
    r"^(hi|hello|hey|howdy|yo|hiya|greetings|good (morning|afternoon|evening|night|day)|"
    r"how are you|how's it going|what's up|thanks?|thank you|thx|ty|cheers|many thanks|"
    r"appreciate it|much appreciated|never ?mind|no worries|no problem|you're welcome|"
    r"sorry|my bad|well done|good job|sounds good|perfect|talk (to you )?(soon|later)|"
    r"bye|goodbye|see you|see ya|later|ok|okay|k|cool|great|nice|awesome|got it|sure|"
    r"yes|no|yep|nope|lol|haha|who are you|what can you do|what are you)\b",
    re.I,
)
_SOCIAL_ZH = (
    "你好", "您好", "嗨", "哈喽", "早上好", "下午好", "晚上好", "早安", "晚安", "谢谢", "多谢",
    "感谢", "再见", "拜拜", "好的", "明白", "收到", "嗯", "哈哈", "你是谁", "你能做什么",
    "辛苦了", "辛苦啦", "麻烦了", "不客气", "没关系", "没事", "没问题", "抱歉", "不好意思",
    "对不起", "太棒了", "厉害", "明天见", "回头见", "下次见", "好嘞", "好滴",
)  # fmt: skip
#: A question, as opposed to a formula ("good night, talk tomorrow" asks nothing).
_QUESTION = re.compile(
    r"[?？]|\b(what|who|when|where|which|why|how|is|are|do|does|did|can|could|will|should)\b|"
    r"吗|呢|什么|怎么|多少|几|哪|谁|是否",
    re.I,
)
#: Tasks the model does from the message alone: write, translate, rewrite, compute, code.
_TASK_VERBS = (
    "write", "compose", "draft", "translate", "rewrite", "rephrase", "paraphrase", "reword",
    "convert", "fix", "correct", "proofread", "summarise", "summarize", "shorten", "simplify",
    "expand", "outline", "sort", "reorder", "format", "reformat", "edit", "brainstorm",
    "calculate", "compute", "solve", "generate",
)  # fmt: skip
#: Polite and spoken openings before a task verb: "hey, could you kindly help me to …",
#: "um so can you please …", "i'd like you to …".
_POLITE_EN = (
    r"^((please|kindly|just|quickly|hey|hi|hello|um+|uh+|so|ok|okay|also|and)[,!]?\s+)*"
    r"((can|could|would|will) you (please |kindly |just |quickly |maybe |possibly )*"
    r"|(i'd|i would|i) (like|want|need) you to |please |kindly )?"
    r"(help me (to )?|quickly )?"
)
_TASK_EN = re.compile(
    _POLITE_EN + rf"({'|'.join(_TASK_VERBS)}|spell[- ]?check|turn (this|it|these)|"
    r"make (this|it|these|the following)|tell me a (joke|story)|give me a synonym|make up)\b",
    re.I,
)
_TASK_ZH = (
    "翻译", "润色", "改写", "写", "讲个", "计算", "把", "总结一下这段", "缩短", "扩写", "精简",
    "概括", "起个", "取个", "想几个", "想个", "编个", "造句", "改",
)  # fmt: skip
#: Polite openings before a Chinese task verb ("请帮我把…", "麻烦给我写…").
_ZH_POLITE = re.compile(r"^(请|麻烦|帮忙|能不能|可不可以|你能|你可以)*(帮我|给我|帮忙)?")
_TASK_ZH_ANYWHERE = ("等于几", "等于多少", "翻译成", "润色一下", "起个标题", "起个名字")
#: "How do you say … in English": translation, in Chinese.
_ZH_SAY = re.compile(
    r"(英文|英语|中文|汉语|日语|日文|法语|德语|韩语|西班牙语)(怎么说|怎么讲|怎么写)"
)
#: Arithmetic in words: "45 divided by 9", "3的平方加4的平方是多少".
_MATH_EN = re.compile(
    r"^(what('s| is)|how much is)?\s*-?[\d.,]+\s*(plus|minus|times|multiplied by|divided by|"
    r"to the power of|squared|cubed|percent of|% of)\s*[\d.,]*\s*$",
    re.I,
)
_MATH_ZH = re.compile(
    r"^[\d\s.零一二三四五六七八九十百千万两的加减乘除以平立开方根号次等于是多少几()（）]+$"
)
_NUMBER_ZH = re.compile(r"[\d一二三四五六七八九十两]")
_MATH_ZH_OP = re.compile(r"[加减乘除]|平方|立方|开方|次方|根号")
#: A task whose material is inline ("translate: ...", "改写：...") needs no search even if
#: the material itself says "today" or "our".
_INLINE = re.compile(r"[:：\"“”'‘’「」]")
#: How-to and process questions: a handbook answers them, even when they name a DB entity.
_HOWTO = re.compile(
    r"\bhow (do|does|did|should|can|to|is|are)\b|\bhow long (does|do|will|until|is|are)\b|"
    r"\b(process|procedure) (for|to|of)\b|"
    r"怎么|如何|流程|步骤|处理|多久|几天|多长时间",
    re.I,
)
_ARITHMETIC = re.compile(r"^[\s\d.+\-*/×÷^()%=?]*\d\s*[+\-*/×÷^]\s*\d[\s\d.+\-*/×÷^()%=?]*$")

# -- kb: the team's own knowledge ----------------------------------------------------
_KB_EN = (
    "our", "ours", "we", "us", "internal", "internally", "company", "company's", "policy",
    "policies", "handbook", "employee", "employees", "onboarding", "procedure", "procedures",
    "guideline", "guidelines", "wiki", "intranet", "hr", "reimburse", "reimbursement",
    "reimbursements", "expense", "expenses", "on-call", "on call", "our team", "my team",
    "here", "colleague", "colleagues", "new hires", "staff", "office", "badge", "dress code",
    "payroll", "payslip", "salary", "overtime", "vacation", "sick leave", "annual leave",
    "parental leave", "manager", "helpdesk", "help desk", "it support", "work from home",
    "working from home", "remote work", "probation", "timesheet", "benefits",
)  # fmt: skip
_KB_ZH = (
    "我们", "公司", "我司", "本公司", "内部", "政策", "制度", "规定", "流程", "手册", "员工",
    "报销", "年假", "值班", "入职", "条款", "团队", "同事", "规范", "差旅", "策略", "出差",
    "请假", "病假", "加班", "工资", "薪资", "考勤", "打卡", "离职", "培训", "工牌", "门禁",
    "办公室", "着装", "上班", "下班", "主管", "审批", "新人", "新同事", "绩效", "福利",
)  # fmt: skip
#: Words that say the team's own organisation is meant (not merely a topic it covers).
_OWN = frozenset({"our", "ours", "we", "us", "internal", "internally", "company", "company's",
                  "我们", "公司", "我司", "本公司", "内部"})  # fmt: skip
#: "Who do I contact / 找谁": whom to turn to is the team's own knowledge.
_WHO_INTERNAL = re.compile(
    r"\bwho (should|do|can|must|would) (i|we) (contact|ask|call|email|talk to|tell|escalate to|"
    r"report to|go to)\b|\bwho (approves|handles)\b|找谁|联系谁|问谁|谁负责|谁来处理|谁审批|向谁",
    re.I,
)
#: The shop's own catalogue or site: with a product, a column or a filter it names the
#: database's rows ("the price of X in our shop"), not the handbook.
_SHOP = re.compile(
    r"\b(our|your|the|this) (online |web )?(shop|store|webshop|catalog|catalogue|inventory|"
    r"website|site|range|stock)\b|\b(you|we) (sell|stock|carry|have in stock)\b|"
    r"我们店|你们店|咱们店|本店|店里|店内|店铺|网店|你们网站|我们网站|你们家|商城里",
    re.I,
)
#: Words that make a "we"/"us" question about the world, not the team ("can we see Mars").
_KB_WEAK = frozenset({"we", "us", "here"})

# -- web: time-sensitive or public facts ---------------------------------------------
#: Time words: public facts change, but over a DB model they are a date filter.
_WEB_TIME_EN = (
    "latest", "newest", "today", "today's", "tonight", "tomorrow", "yesterday",
    "current", "currently", "now", "this year", "this week", "this month", "recent",
    "recently", "release", "released", "new release", "version", "live",
    "2023", "2024", "2025", "2026", "offers today",
)  # fmt: skip
_WEB_TIME_ZH = (
    "最新", "今天", "今日", "明天", "昨天", "现在", "目前", "当前", "今年", "本周", "最近",
    "近期", "版本", "发布", "现任",
)  # fmt: skip
#: Public topics: only the web has them, whatever else the message names.
_WEB_TOPIC_EN = (
    "news", "weather", "forecast", "stock market", "exchange rate", "release notes",
    "breaking", "score", "law", "laws", "legislation", "regulation", "regulations",
    "tax rules", "election", "reviews",
)  # fmt: skip
_WEB_TOPIC_ZH = (
    "新闻", "天气", "下雨", "汇率", "股价", "股市", "法律", "法规", "劳动法", "新出台",
    "保护法", "评测", "口碑",
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
    if _QUESTION.search(bare):
        return False
    if _SOCIAL_EN.match(bare):
        return len(bare.split()) <= 6
    return _han(bare) and len(bare) <= 12 and any(w in bare for w in _SOCIAL_ZH)


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
    if _SOCIAL_EN.match(bare) and len(words) <= 5:
        return "social talk"
    if _han(bare) and len(bare) <= 8 and any(w in bare for w in _SOCIAL_ZH):
        return "social talk"
    if _social(bare):
        return "social talk"
    return None


def _math(bare: str) -> bool:
    if _ARITHMETIC.match(bare) or re.match(r"^(what('s| is) )?[\d\s.+\-*/×÷^()]+$", bare, re.I):
        return True
    if _MATH_EN.match(bare):
        return True
    return bool(_MATH_ZH.match(bare) and _MATH_ZH_OP.search(bare) and _NUMBER_ZH.search(bare))


def _task(bare: str) -> bool:
    zh = _ZH_POLITE.sub("", bare, count=1)
    return bool(
        _TASK_EN.match(bare)
        or any(zh.startswith(w) for w in _TASK_ZH)
        or any(w in bare for w in _TASK_ZH_ANYWHERE)
        or _ZH_SAY.search(bare)
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
        return [w for w in self.kb if w.lower() not in _KB_WEAK]


def _signals(text: str, low: str, vocab: Vocabulary) -> _Signals:
    entities = _found(text, low, vocab.db)
    filters = _found(text, low, _FILTER_ZH) + [m.group(0) for m in _FILTER_EN.finditer(text)]
    amounts = [m.group(0) for m in _AMOUNT.finditer(text)]
    # A declared DB value is the database's word, not a handbook topic ("已发货" orders).
    kb = [w for w in _found(text, low, [*_KB_EN, *_KB_ZH, *vocab.kb]) if w not in entities]
    if _WHO_INTERNAL.search(text):
        kb.append("who-to-contact")
    # Places and names alone ("the GDP of Germany") are not a question for the database.
    if entities and set(entities) <= vocab.db_weak and not (filters or amounts):
        entities = []
    return _Signals(
        kb=kb,
        own=any(w.lower() in _OWN for w in kb),
        web_time=_found(text, low, [*_WEB_TIME_EN, *_WEB_TIME_ZH]),
        web_topic=_found(text, low, [*_WEB_TOPIC_EN, *_WEB_TOPIC_ZH]),
        entities=entities,
        filters=filters,
        amounts=amounts,
        attrs=_found(text, low, vocab.db_attrs),
        models=[w for w in entities if w in vocab.db_models],
        howto=bool(_HOWTO.search(text)),
        shop=bool(_SHOP.search(text)),
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
    inline_task = task and bool(_INLINE.search(bare))
    # A task names topics it needs no search for ("write a leave request email"), unless it
    # is about the team's own things, a public topic or the database's.
    plain_task = task and not (sig.own or sig.web_topic or sig.entities)
    short_social = bool(_SOCIAL_EN.match(bare)) and len(bare.split()) <= 3
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
    rules = [*_KB_EN, *_WEB_TIME_EN, *_WEB_TOPIC_EN, *_TASK_VERBS]
    words = [*vocab.db, *vocab.kb, *vocab.db_attrs, *vocab.db_models, *rules]
    return frozenset(w.lower() for w in words if w.isascii() and w.isalpha())


def _policy_words(kb: list[str]) -> bool:
    return any(w.lower() not in {"our", "ours", "we", "us", "here", "我们", "公司"} for w in kb)
