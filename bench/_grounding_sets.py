"""The flip rules of set (b) and the scripted demo answers of set (c) for bench/grounding.py
(the rules are written out in that module's docstring)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import unifind
from unifind.cite import References, build_references
from unifind.types import Item

# direction flips: word → opposite (inflections listed; the first found in the claim flips)
FLIPS = {
    "increase": "decrease", "increases": "decreases", "increased": "decreased",
    "increasing": "decreasing", "higher": "lower", "more": "less", "greater": "smaller",
    "reduces": "increases", "reduced": "increased", "reduce": "increase",
    "reduction": "increase", "promotes": "inhibits", "promote": "inhibit",
    "inhibits": "promotes", "inhibit": "promote", "activates": "inhibits",
    "before": "after", "after": "before", "positive": "negative", "negative": "positive",
    "positively": "negatively", "negatively": "positively", "lower": "higher",
    "decreases": "increases", "decreased": "increased", "decrease": "increase",
    "less": "more", "elevated": "reduced", "enhances": "reduces", "improves": "worsens",
    "upregulates": "downregulates", "downregulates": "upregulates", "induces": "inhibits",
}  # fmt: skip
_AUX = re.compile(
    r"\b(is|are|was|were|can|could|will|may|might|should|has|have|had|does|do|did)\b", re.I
)
_UNIT_STEPS = {
    "seconds": "minutes", "minutes": "hours", "hours": "days", "days": "weeks",
    "weeks": "months", "months": "years", "years": "days", "mg": "g", "g": "kg", "kg": "mg",
}  # fmt: skip
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.]*\d)")
_NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9\-]*\b")


def flip(claim: str, abstract: str, others: list[str], seed: int) -> list[tuple[str, str]]:
    """(kind, flipped claim) for each rule that applies to ``claim``."""
    out = []
    if m := _NUMBER.search(claim):
        n = m.group(1)
        value = float(n) * 3 if float(n) else 5.0
        new = f"{value:.{len(n.split('.')[1])}f}" if "." in n else str(int(value))
        out.append(("number", claim[: m.start(1)] + new + claim[m.end(1) :]))
    unit = re.search(r"(?<=\d )(" + "|".join(_UNIT_STEPS) + r")\b", claim)
    if unit:
        new_unit = _UNIT_STEPS[unit.group(1)]
        out.append(("unit", claim[: unit.start()] + new_unit + claim[unit.end() :]))
    if negated := _negate(claim):
        out.append(("negation", negated))
    for word in re.findall(r"[A-Za-z]+", claim):
        if word.lower() in FLIPS:
            opposite = FLIPS[word.lower()]
            text = re.sub(rf"\b{word}\b", opposite, claim, count=1)
            out.append(("direction", text))
            break
    if swapped := _swap_name(claim, abstract, others, seed):
        out.append(("entity", swapped))
    return out


def _negate(claim: str) -> str | None:
    """Put "not" after the first auxiliary; an auxiliary already negated ("does not affect")
    loses its negator instead ("does affect": adding one made "does not not affect", no
    flip). An all-capitals word is an acronym ("IS" for immunosuppressive), not a verb."""
    for aux in _AUX.finditer(claim):
        if aux.group(0).isupper():
            continue
        if neg := _NEGATED.match(claim, aux.end()):
            return claim[: aux.end()] + claim[neg.end() :]
        return claim[: aux.end()] + " not" + claim[aux.end() :]
    return None


_NEGATED = re.compile(r"\s+(?:not|no|never)\b", re.I)


def _names(text: str) -> list[str]:
    words = _NAME.findall(text)
    return [w for i, w in enumerate(words)
            if (i > 0 and w[0].isupper()) or any(c.isupper() for c in w[1:])
            or (w[0].isalpha() and any(c.isdigit() for c in w))]  # fmt: skip


def _swap_name(claim: str, abstract: str, others: list[str], seed: int) -> str | None:
    mine = _names(claim)
    if not mine:
        return None
    rng = random.Random(f"{seed}:{claim}")
    lower = abstract.lower()
    for _ in range(20):
        candidates = _names(rng.choice(others))
        fresh = [c for c in candidates if c.lower() not in lower and len(c) > 2]
        if fresh:
            return re.sub(rf"\b{re.escape(mine[0])}\b", fresh[0], claim, count=1)
    return None


# -- (c) scripted answers over the demo handbook ---------------------------------------

CORPUS = Path(unifind.__file__).parent / "demo" / "corpus"

#: (file, words of the section, right claim, [(kind, flipped claim)]) — facts the handbook
#: holds, each with flips by the rules above (number ×3 or another stated value, negation,
#: direction word).
FACTS = [
    ("refunds-and-returns.md", "accepts returns",
     "Unused items can be returned within 30 days of delivery",
     [("number", "Unused items can be returned within 90 days of delivery")]),
    ("refunds-and-returns.md", "Report damaged",
     "Damaged items must be reported within 48 hours of delivery",
     [("number", "Damaged items must be reported within 12 hours of delivery")]),
    ("refunds-and-returns.md", "How to start",
     "Returns from the Netherlands, Belgium and Germany are free",
     [("negation", "Returns from the Netherlands, Belgium and Germany are not free")]),
    ("refunds-and-returns.md", "inspects returned",
     "The refund is issued within 5 business days once a return is approved",
     [("number", "The refund is issued within 15 business days once a return is approved")]),
    ("refunds-and-returns.md", "Final Sale",
     "Refund requests above 1,000 euros are reviewed by a team lead",
     [("number", "Refund requests above 3,000 euros are reviewed by a team lead"),
      ("direction", "Refund requests below 1,000 euros are reviewed by a team lead")]),
    ("expense-policy.md", "Claims must be submitted",
     "Expense claims older than 90 days are rejected",
     [("number", "Expense claims older than 30 days are rejected"),
      ("direction", "Expense claims older than 90 days are accepted")]),
    ("expense-policy.md", "Claims up to 500",
     "Claims above 500 euros also need approval from Finance",
     [("number", "Claims above 1,500 euros also need approval from Finance"),
      ("direction", "Claims below 500 euros also need approval from Finance")]),
    ("expense-policy.md", "Category",
     "Meals while travelling are reimbursed up to 45 euros per day",
     [("number", "Meals while travelling are reimbursed up to 135 euros per day")]),
    ("expense-policy.md", "Alcohol",
     "Alcohol is not reimbursed except at approved client dinners",
     [("negation", "Alcohol is reimbursed at all dinners")]),
    ("expense-policy.md", "Mileage",
     "Business use of a private car is reimbursed at 0.23 euros per kilometre",
     [("number", "Business use of a private car is reimbursed at 0.69 euros per kilometre")]),
    ("warranty.md", "carries a",
     "Every product carries a 2-year warranty from the delivery date",
     [("number", "Every product carries a 6-year warranty from the delivery date")]),
    ("warranty.md", "Making a claim",
     "Support answers every warranty claim within 3 business days",
     [("number", "Support answers every warranty claim within 9 business days")]),
    ("warranty.md", "Repair partners",
     "Repairs made by a partner under warranty are free",
     [("negation", "Repairs made by a partner under warranty are not free")]),
    ("on-call.md", "Rotation",
     "Each on-call rotation lasts one week, starting Monday at 10:00 CET",
     [("number", "Each on-call rotation lasts three weeks, starting Monday at 10:00 CET")]),
    ("on-call.md", "Compensation",
     "On-call engineers receive 300 euros per week of rotation",
     [("number", "On-call engineers receive 900 euros per week of rotation")]),
    ("on-call.md", "After an incident",
     "Every SEV1 and SEV2 incident gets a blameless post-mortem within 5 business days",
     [("number",
       "Every SEV1 and SEV2 incident gets a blameless post-mortem within 15 business days")]),
]  # fmt: skip
_LAYOUTS = ("{s} [{ids}].", "- {s} [{ids}]", "1. {s} [{ids}]", "| fact | {s} [{ids}] |")


def _sections() -> list[Item]:
    items = []
    for path in sorted(CORPUS.glob("*.md")):
        if path.name.startswith("zh-"):
            continue
        for i, part in enumerate(re.split(r"\n(?=## )", path.read_text(encoding="utf-8"))):
            items.append(Item(type="kb", title=f"{path.stem} §{i}", content=part.strip(),
                              collection="handbook", chunk_id=f"{path.name}#{i}"))  # fmt: skip
    return [item.model_copy(update={"citation_id": f"ref_{n:03d}"})
            for n, item in enumerate(items, start=1)]  # fmt: skip


def demo_cases() -> tuple[References, list[tuple[str, list[tuple[tuple[str, str | None], str]]]]]:
    """The references (one per handbook section) and the scripted answers, each with what
    every (sentence needle, cited id) must get: a verdict, or ``flagged``."""
    items = _sections()
    refs = build_references(items, budget_chars=200_000)

    def section(name: str, words: str) -> str:
        found = [i for i in items if (i.chunk_id or "").startswith(name) and words in i.content]
        return str(found[0].citation_id)

    answers = []
    for n, (name, words, right, flips) in enumerate(FACTS):
        rid = section(name, words)
        wrong = section(*next((f, w) for f, w, *_ in FACTS[n + 1 :] + FACTS[:n] if f != name))
        layout = _LAYOUTS[n % len(_LAYOUTS)]
        sep = " " if layout.startswith("{s}") else "\n"
        lines = [layout.format(s=right, ids=rid), layout.format(s=right, ids=f"{rid}, {wrong}")]
        want: list[tuple[tuple[str, str | None], str]] = [
            ((right, rid), "supported"),
            ((right, wrong), "flagged"),
        ]
        for _, flipped in flips:
            lines.append(layout.format(s=flipped, ids=rid))
            want.append(((flipped, rid), "contradicted"))
        lines.append(layout.format(s=right, ids="").replace(" []", "").replace(" [ ]", ""))
        want.append(((right, None), "uncited_claim"))
        answers.append((sep.join(lines), want))
    return refs, answers
