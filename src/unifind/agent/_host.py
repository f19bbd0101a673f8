"""The writer's own words out of what an agent host forwards, and cues read from them.

Hosts wrap the user's turn: "[forwarded from Slack] User says: …", "System: … User: …",
quoted earlier answers ("> the refund takes 5 days"), "【转发自微信群】用户说：…", ticket
headers ("Subject: … Body: …"). The preamble and the quotes are the host's or an earlier
turn's words; a topic word in them ("refund", "today") is no question of the writer's.
:func:`own_turn` finds the writer's last turn; the intent rules read only that.

Also here: arithmetic in English number words ("twelve times thirty-five" is 12 times 35),
bill splitting, hypotheticals put to the assistant, and negated topics ("i'm not asking
about refunds"), which say a message needs no search although it names a topic.
"""

from __future__ import annotations

import re

#: A host's tag at the head: "[forwarded from Slack]", "【转发自微信群】", "(via email)".
_TAG = re.compile(r"^\s*[\[【(（][^\]】)）\n]{1,80}[\]】)）]\s*[:：-]?\s*")
#: Who speaks next: "User says:", "User message (via email bridge):", "customer asks:",
#: "用户说：". The writer's turn is after the last one.
_SPEAKER = re.compile(
    r"(?:^|(?<=[\s.。!！?？\]】)）]))(?:the )?(?:end[- ]?)?(?:user|customer|visitor|client|"
    r"human|requester)(?: message| msg)?(?: \([^)]{0,40}\))?"
    r"(?: says| said| wrote| writes| asks| asked| asking)?\s*[:：]\s*"
    r"|(?:用户|客户|用戶|客戶|顾客|顧客|买家|買家)(?:说|說|问|問|反馈|反饋|留言|提问|提問|写道)?[:：]\s*",
    re.I,
)
#: A ticket's body: the writer's words after its header ("Ticket #4411 - Subject: …").
_BODY = re.compile(r"(?:^|[\s.。])(?:body|message|内容|正文|內容)\s*[:：]\s*", re.I)
#: A line the host quotes from an earlier turn ("> previous answer: …").
_QUOTED = re.compile(r"^\s*(>|＞)")
#: Lines: real newlines, and the two characters "\n" that some hosts send escaped.
_LINES = re.compile(r"\r?\n|\\n")


def own_turn(message: str) -> str:
    """The writer's own last turn in ``message``: host tags, speaker labels, ticket headers
    and quoted lines of earlier turns taken away (the message itself when nothing is)."""
    lines = [ln for ln in _LINES.split(message) if ln.strip()]
    own = [ln for ln in lines if not _QUOTED.match(ln)]
    text = " ".join(own or lines)
    while m := _TAG.match(text):
        if m.end() >= len(text):
            break
        text = text[m.end() :]
    speakers = list(_SPEAKER.finditer(text))
    if speakers and speakers[-1].end() < len(text):
        text = text[speakers[-1].end() :]
    body = _BODY.search(text)
    if body and body.end() < len(text) and re.search(r"\bsubject\s*[:：]|主题|主題", text, re.I):
        text = text[body.end() :]
    return text.strip() or message


_UNITS = {
    w: i
    for i, w in enumerate((
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen",
    ))
}  # fmt: skip
_TENS = {
    w: 10 * i
    for i, w in enumerate(
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"), 2
    )
}
_NUMBER = re.compile(
    rf"\b(?:({'|'.join(_TENS)})(?:[- ]({'|'.join(list(_UNITS)[1:10])}))?|({'|'.join(_UNITS)}))"
    r"(?: (hundred|thousand))?\b"
)


def digits(text: str) -> str:
    """``text`` with English number words below a hundred thousand as digits ("twelve
    times thirty-five" → "12 times 35"), for the arithmetic rules."""

    def value(m: re.Match[str]) -> str:
        n = _TENS[m.group(1)] + (_UNITS[m.group(2)] if m.group(2) else 0) if m.group(1) else 0
        n = n or _UNITS.get(m.group(3) or "", 0)
        scale = {"hundred": 100, "thousand": 1000}.get(m.group(4) or "", 1)
        return str(n * scale)

    return _NUMBER.sub(value, re.sub(r"\ba (hundred|thousand)\b", r"one \1", text.lower()))


#: "Split a 96 euro bill between four people", "四个人平分 480": a share each pays.
SPLIT = re.compile(
    r"\b(split|share|divide)\b.{0,60}\b(between|among|by|with)\b.{0,30}\b(\d+|two|three|four|"
    r"five|six|seven|eight|nine|ten|friends|people|of us)\b.{0,40}$"
    r"|\bhow much (does|do|should|would) (each|every) (one |person |of us )?(pay|owe|get|put in)"
    r"|\bwhat does each (one |person |of us )?(pay|owe)"
    r"|(平分|平摊|均摊|分摊|AA|aa).{0,12}(多少|几)|每人.{0,6}(多少|几)钱?|每个人.{0,6}(多少|几)",
    re.I,
)
#: A hypothetical put to the assistant ("what would you do if …", "if you could …",
#: "如果你是…"): opinion talk, not a question for a source.
HYPOTHETICAL = re.compile(
    r"^((so|and|ok|hey|hmm+)[,!]?\s+)*(what|where|who|how|which) would you\b"
    r"(?! (recommend|suggest|advise|pick|buy|choose))"
    r"|^((so|and|ok|hey|hmm+)[,!]?\s+)*(if|imagine|suppose|say) you (could|were|had|won|was|"
    r"can|get|got|lived)\b|^would you rather\b"
    r"|^(如果|假如|要是|假设)(你|您)(是|能|可以|有|中了|会)",
    re.I,
)
#: A topic the writer says they are not asking about ("i'm not asking about refunds",
#: "我不是要查什么"): up to the next clause, it names nothing to search.
NEGATED = re.compile(
    r"\b(i'?m |i am )?(not|no longer) (asking|looking|searching|talking|here)( for| about| to \w+)?"
    r"[^,.;!?]*|\bdon't (need|want) (you )?to (look|search|check|find)[^,.;!?]*"
    r"|(我)?(不是要|不用|不需要|不想|没想)(查|问|搜|找)[^，,。！？!?]*",
    re.I,
)
#: "What now?", "now what": what to do next, not a time word.
WHAT_NOW = re.compile(r"\b(what now|now what|what do i do now|现在怎么办|现在该怎么办)\b", re.I)
#: What is left of such a message: venting or wanting to talk ("just wanted to vent",
#: "就是想聊聊天").
VENT = re.compile(
    r"\b(vent|rant|chat|talk|say (hi|hello|thanks)|let you know|share|cheer me up|"
    r"make me (smile|laugh)|tell me (something|anything) (nice|fun|funny|good|cheerful|"
    r"positive|kind|sweet))\b"
    r"|聊天|聊聊|说说话|吐槽|倾诉|发泄|陪我|说点(开心|好听|有趣)的|逗我",
    re.I,
)
#: A programming task ("用 Python 写一个冒泡排序", "write a bash script that …"): the
#: model writes it; the language names no source.
CODE = re.compile(
    r"^(请|麻烦|帮我|帮忙|给我)*用\s*(python|java|javascript|js|typescript|go|golang|rust|"
    r"c\+\+|c#|c|sql|bash|shell|php|ruby|kotlin|swift|r)\s*(写|实现|编写|做)"
    r"|^(please |can you |could you )*(write|implement|code|give me) (a |an |me a )?(short |small "
    r"|simple )?(python|java|javascript|js|typescript|go|rust|c\+\+|c#|sql|bash|shell|php|ruby|"
    r"regex|regular expression)\b",
    re.I,
)
#: "Just wanted to say …, no action needed": a ticket that asks nothing.
NO_ACTION = re.compile(
    r"\bno (action|reply|response|answer) (needed|required|necessary)\b|\bjust wanted to "
    r"(say|thank|let you know)\b|无需回复|不用回复|不需要回复",
    re.I,
)
#: "苹果公司", "华为公司": a named company, not the team's own ("我们公司", "在公司" are).
OTHER_COMPANY_ZH = re.compile(
    r"(?<!我们)(?<!咱们)(?<!你们)[\u4e00-\u9fff]{2}(?<![们本在去到回的家个我司])公司"
)
#: Past time words: in the writer's own account ("I sent photos yesterday") they date
#: what the writer did, and ask the world nothing.
PAST = frozenset({"yesterday", "now", "昨天", "现在"})
PAST_OWN = re.compile(
    r"\b(i|we) (\w+ed|sent|bought|got|paid|made|wrote|took|gave|put|had|did)\b"
    r"|我(已经|昨天)?(买|寄|发|收到|下单|付)",
    re.I,
)
