"""What says a message needs no search, read from its text alone: social talk, arithmetic,
a self-contained task (write, translate, rewrite, compute), a statement about the writer.
:mod:`unifind.agent.intent` asks these before it looks for any leg's signal."""

from __future__ import annotations

import re

from unifind.agent import _cues as cue

_HAN = re.compile("[\u4e00-\u9fff]")


def han(text: str) -> bool:
    return _HAN.search(text) is not None


def social(bare: str) -> bool:
    """A greeting, thanks or farewell that asks nothing ("good night, talk tomorrow")."""
    if cue.QUESTION.search(bare):
        return False
    if cue.SOCIAL_EN.match(bare):  # "hi, show me laptops" asks after its greeting
        return len(bare.split()) <= 6 and social_lead(bare)
    return han(bare) and len(bare) <= 12 and any(w in bare for w in cue.SOCIAL_ZH)


def chit_chat(text: str) -> str | None:
    """Why ``text`` needs no search (social talk, a self-contained task), else None."""
    bare = text.strip().strip("!！?？.。,，~～ ")
    words = bare.split()
    if not bare:
        return "empty message"
    if math(bare):
        return "arithmetic the model can do"
    if task(bare):
        return "a self-contained task (write, translate, rewrite, compute)"
    if cue.SOCIAL_EN.match(bare) and len(words) <= 5 and social_lead(bare):
        return "social talk"
    if han(bare) and len(bare) <= 8 and any(w in bare for w in cue.SOCIAL_ZH):
        return "social talk"
    if social(bare):
        return "social talk"
    return None


def social_lead(bare: str) -> bool:
    """Greetings and thanks that open a message asking nothing after them ("thank u sm,
    that helped a ton", "hey!! long time no see, how have you been lately")."""
    rest, led = bare, False
    while m := (
        cue.SOCIAL_EN.match(rest) or cue.ABOUT_YOU.match(rest) or cue.SOCIAL_ZH_LEAD.match(rest)
    ):
        if not m.end():
            break
        rest, led = cue.SOCIAL_JOIN.sub("", rest[m.end() :]), True
    return led and not (rest and cue.REQUEST.search(rest))


def math(bare: str) -> bool:
    if cue.ARITHMETIC.match(bare) or re.match(r"^(what('s| is) )?[\d\s.+\-*/×÷^()]+$", bare, re.I):
        return True
    if cue.MATH_EN.match(bare) or math_words(bare):
        return True
    return bool(
        cue.MATH_ZH.match(bare) and cue.MATH_ZH_OP.search(bare) and cue.NUMBER_ZH.search(bare)
    )


def math_words(bare: str) -> bool:
    """Arithmetic in words: two numbers, an operation, and no other word ("what is an 18%
    tip on 64.50", "what's 20% off 1099")."""
    tokens = cue.MATH_TOKEN.findall(bare.lower())
    numbers = sum(t[0].isdigit() for t in tokens)
    words = [t for t in tokens if t[0].isalpha()]
    ops = any(t in cue.MATH_OPS or not t[0].isalnum() for t in tokens)
    return numbers >= 2 and ops and all(w in cue.MATH_WORDS for w in words)


def task(bare: str) -> bool:
    zh = cue.ZH_POLITE.sub("", bare, count=1)
    return bool(
        cue.TASK_EN.match(bare)
        or any(zh.startswith(w) for w in cue.TASK_ZH)
        or any(w in bare for w in cue.TASK_ZH_ANYWHERE)
        or cue.ZH_SAY.search(bare)
        or cue.SAY_EN.search(bare)
    )


def given_text_task(bare: str) -> str | None:
    """The instruction of a task on material the message itself gives ("make it shorter:
    '…'", "把下面这段话润色一下 …"), else None. The material's words are not a question."""
    if cue.GIVEN_TEXT.search(bare) and cue.TASK_ANYWHERE.search(bare):
        return bare[: cue.GIVEN_TEXT.search(bare).start()]  # type: ignore[union-attr]
    cut = re.search(r"[:：]|(?:^|\s)[\"“'‘「]", bare)
    if cut is None or len(bare) - cut.end() < 2:
        return None
    head = bare[: cut.start()]
    found = cue.TASK_ANYWHERE.search(head) or cue.WRITE_VERBS.match(head) or task(head)
    return head if found else None


def about_self(bare: str) -> bool:
    """How the writer feels or what they did ("i'm so tired today lol", "今天好累"): a
    statement, not a request or a question."""
    if cue.REQUEST.search(bare):
        return False
    if cue.SELF_EN.match(bare) or cue.FEELING_EN.search(bare) or cue.FIRST_PERSON.search(bare):
        return True
    return han(bare) and (bare.startswith("我") or any(w in bare for w in cue.FEELING_ZH))
