"""What kind of fact a question asks for, and whether a sentence holds one (issue #20).

The extractive answer (:mod:`unifind.engine._extractive`) answers "what is our refund
window?" with the sentence that holds a duration, not the one most like the question. The
rules are the languages' own question words and the forms facts take (a number with a time
unit, a date, an amount of money, a role or a name, a list of steps), English and Chinese;
each has positive and negative examples in ``tests/agent/test_extractive.py``.
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["duration", "date", "amount", "who", "where", "steps", "yesno", "other"]

# Question words → the kind of answer. Order matters: "how long" before "how", "how many
# days" (a duration) before "how many" (an amount).
_NUM_WORDS = (
    r"\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|ninety|a few|several|a|an"
)
_TIME_UNIT = (
    r"(?:business |working |calendar )?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|"
    r"nights?|weeks?|fortnights?|months?|years?|yrs?)"
)
_ZH_NUM = r"(?:\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千半]+)"
_ZH_TIME_UNIT = r"(?:个)?(?:工作日|自然日|秒钟?|分钟|小时|钟头|天|日|周|星期|个?月|年)"
_KINDS: list[tuple[Kind, re.Pattern[str]]] = [
    (
        "duration",
        re.compile(
            rf"\bhow (?:long|soon|quickly|fast)\b|\bhow many {_TIME_UNIT}\b|\bwithin how\b|"
            r"\b(?:window|deadline|time ?limit|time ?frame|period|cut-?off|turnaround)\b|"
            r"多久|多长时间|多少(?:天|小时|分钟|周|个月|年|个工作日)|几(?:个)?(?:天|小时|分钟|周|"
            r"星期|月|年|工作日)|期限|时限|多快",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(
            r"\bwhen\b|\bwhat (?:time|date|day)\b|\bwhich (?:day|date|month|year)\b|\bby when\b|"
            r"什么时候|何时|哪天|哪一天|几号|几点|哪个月|哪年|几月",
            re.I,
        ),
    ),
    (
        "amount",
        re.compile(
            r"\bhow (?:much|many)\b|\bwhat (?:does|do|will) .{0,40}\bcost\b|"
            r"\b(?:price|cost|fee|fees|charge|rate|amount|limit|percentage)\b|"
            r"多少|价格|费用|运费|收费|金额|几(?:个|件|次|元|块|位|人)",
            re.I,
        ),
    ),
    (
        "who",
        re.compile(
            r"\bwho(?:m|se)?\b|\bwhich (?:team|person|people|department|role|manager|group)\b|"
            r"谁|哪位|哪个部门|什么人|哪些人",
            re.I,
        ),
    ),
    ("where", re.compile(r"\bwhere\b|哪里|哪儿|在哪|什么地方|何处|地址", re.I)),
    (
        "steps",
        re.compile(
            r"\bhow (?:do|can|should|would|to)\b|\bhow (?:i|we|you) (?:can|should)\b|"
            r"\b(?:steps?|procedure|process|instructions?)\b|怎么|怎样|如何|步骤|流程|办理",
            re.I,
        ),
    ),
    (
        "yesno",
        re.compile(
            r"^\s*(?:is|are|was|were|can|could|do|does|did|will|would|should|shall|may|must|"
            r"has|have|had)\b|吗[？?]?\s*$|是否|能否|可否|能不能|可不可以|是不是|有没有|会不会",
            re.I,
        ),
    ),
]

# The forms an answer of each kind takes in a sentence.
_DURATION = re.compile(
    rf"\b(?:{_NUM_WORDS})(?:\s*(?:-|–|to|or|and)\s*(?:{_NUM_WORDS}))?[\s-]*{_TIME_UNIT}\b|"
    rf"{_ZH_NUM}\s*(?:至|到|-|~)?\s*{_ZH_NUM}?\s*{_ZH_TIME_UNIT}|"
    r"\b(?:same|next) (?:business )?day\b|"
    r"\bimmediately\b|\binstant(?:ly)?\b|即时|当天|次日|立即",
    re.I,
)
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DATE = re.compile(
    rf"\b(?:{_MONTHS})\.? \d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?(?: of)? (?:{_MONTHS})\b|"
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{1,2}:\d{2}\b|"
    r"\b\d{1,2}\s?(?:am|pm)\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|"
    r"\bthe \d{1,2}(?:st|nd|rd|th)\b|\b(?:daily|weekly|monthly|yearly|annually|tomorrow|"
    r"today|tonight|midnight|noon)\b|\b(?:in|by|since|until|before|after) \d{4}\b|"
    r"\d{4}\s*年|\d{1,2}\s*月\s*\d{1,2}\s*[日号]|(?:星期|周)[一二三四五六日天]|"
    r"\d{1,2}\s*[点時时]|每(?:天|日|周|月|年)|[上下]午|凌晨|晚上",
    re.I,
)
_AMOUNT = re.compile(
    r"[€$£¥]\s?\d|\d\s?(?:%|percent\b|per ?cent\b)|"
    r"\b\d+(?:[.,]\d+)*\s*(?:euros?|eur|dollars?|usd|pounds?|gbp|yuan|rmb|cny|cents?)\b|"
    r"\d+(?:\.\d+)?\s*(?:元|块|美元|欧元|英镑|%|折)|百分之|免费|\bfree\b|\bno cost\b|"
    r"\b\d+(?:[.,]\d+)*\b",
    re.I,
)
_WHO = re.compile(
    r"(?i:\b(?:team|lead|leads|manager|managers|director|directors|department|finance|"
    r"procurement|support|desk|engineer|engineers|owner|officer|staff|hr|administrator|"
    r"admin|committee|board|head of|customer service|supervisor|agent|colleague|employee|"
    r"employees|approver|reviewer|security)\b)|\bby (?:the |your |a )?[A-Z][a-z]+|"
    r"(?<=[a-z,] )[A-Z][a-z]+ [A-Z][a-z]+|部门?|主管|经理|团队|负责人|专员|客服|财务|总监|委员会|"
    r"由\S{1,12}(?:负责|审核|复核|审批|执行|处理)",
)
_WHERE = re.compile(
    r"\b(?:at|in|from|to|via|through) (?:the |any |your |a )?[A-Z][A-Za-z]+|"
    r"\b(?:warehouse|office|point|store|shop|website|site|app|portal|channel|page|address|"
    r"room|floor|building|counter|desk|city|country)\b|https?://|仓库|网站|地址|门店|办公室|"
    r"中心|页面|渠道|App|APP|[在到从]\S{1,8}(?:省|市|区|仓|店|站|中心)",
)
_STEP = re.compile(r"^\s*(?:\d+[.)、]|[-*+•]|第[一二三四五六七八九十\d]+步)\s*")
# The forms of each kind, the first the one asked for ("when": a date; a duration answers
# too, "within 5 business days", but less directly).
_DETECTORS: dict[Kind, tuple[re.Pattern[str], ...]] = {
    "duration": (_DURATION,),
    "date": (_DATE, _DURATION),  # "when do I get my money?" → "within 5 business days"
    "amount": (_AMOUNT,),
    "who": (_WHO,),
    "where": (_WHERE,),
    "steps": (_STEP,),
}

# A window or deadline is a limit counted from an event: "within 30 days of delivery",
# "up to 48 hours after arrival", "签收后 30 天内".
_WINDOW_CUE = re.compile(
    r"\b(?:window|deadline|time ?limit|cut-?off|how long do (?:i|we|you) have)\b|"
    r"期限|时限|多久内|几天内",
    re.I,
)
_LIMIT = re.compile(
    rf"\b(?:within|up to|no later than|not later than|at (?:the )?(?:most|latest)|before)\b"
    rf"[^.;]{{0,20}}?{_TIME_UNIT}[^.;]{{0,12}}?\b(?:of|after|from|since|following)\b|"
    rf"{_TIME_UNIT} (?:of|after|from|following) (?:the |your |their )?\w+|"
    rf"后\s*{_ZH_NUM}\s*{_ZH_TIME_UNIT}\s*(?:内|之内|以内)",
    re.I,
)


def question_kind(question: str) -> Kind:
    """The kind of fact ``question`` asks for (``other``: none of the known kinds)."""
    for kind, pattern in _KINDS:
        if pattern.search(question):
            return kind
    return "other"


def holds(kind: Kind, sentence: str) -> float:
    """How directly ``sentence`` holds an answer of ``kind``: 1 in the form asked for, 0.5
    in a form that answers less directly, 0 not at all (``yesno``/``other``: any is 1)."""
    forms = _DETECTORS.get(kind)
    if forms is None:
        return 1.0
    return next((1.0 if i == 0 else 0.5 for i, p in enumerate(forms) if p.search(sentence)), 0.0)


def asks_window(question: str) -> bool:
    """A question about a window or deadline ("refund window", "退款期限")."""
    return bool(_WINDOW_CUE.search(question))


def states_limit(sentence: str) -> bool:
    """A sentence stating a limit counted from an event ("within 30 days of delivery")."""
    return bool(_LIMIT.search(sentence))


def is_step(sentence: str) -> bool:
    """A list item (numbered, bulleted, "第一步")."""
    return bool(_STEP.match(sentence))
