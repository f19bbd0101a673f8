"""Find citations in LLM output and check them against the references given."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from unifind.cite.references import References

# Anchor form (<a href="#ref:ref_001">) and bare #ref:ID, then bracket groups: [ref_001],
# [^3], [3], and the shapes LLMs drift into: lists ("[ref_001, ref_002]", "[1; 3]"),
# ranges ("[1-3]"), stray spaces ("[ref_9 ]"), upper case ("[REF_9]") and CJK brackets
# ("【ref_9】", "［2］"). A group must hold only citation tokens, so "[note]", "[a, b]",
# "[2024-01-05]" and "[x](url)" are not citations, nor is a number glued to a word ("x[0]").
_ANCHOR = re.compile(r"""<a\s[^>]*href\s*=\s*["']#ref:([A-Za-z0-9_\-]+)["'][^>]*>""", re.I)
_HASH = re.compile(r"(?<![\w/])#ref:([A-Za-z0-9_\-]+)", re.I)
_TOKEN = r"\^?\s*(?:ref_\d+|\d+(?:\s*[-–]\s*\d+)?)"
_GROUP = re.compile(rf"[\[【［]\s*({_TOKEN}(?:\s*[,;，；、]\s*{_TOKEN})*)\s*[\]】］]", re.I)
_SEP = re.compile(r"\s*[,;，；、]\s*")
_RANGE = re.compile(r"(\d+)\s*[-–]\s*(\d+)")
_MAX_RANGE = 50  # "[1-3]" is three citations; "[1-5000]" is two typos, not 5,000 ids
# An id outside brackets, "(ref_995)" or a bare "ref_994" (issue #18: invented ones went
# unflagged), is a citation only as a word of its own: not glued to a word ("xref_001abc"),
# nor part of a path, file name, address or query string ("a/ref_001", "ref_001.pdf",
# "?id=ref_001"). Word characters here are ASCII: "天ref_001" is Chinese text then an id.
_BARE = re.compile(
    r"(?<![A-Za-z0-9_\-./\\:#@=&?%~+])ref_\d+(?![A-Za-z0-9_\-@]|[./\\][A-Za-z0-9_])", re.I
)
# Inside a URL nothing is a citation ("https://x.example/docs(ref_001)").
_URL = re.compile(r"(?:[a-z][a-z0-9+.\-]*://|www\.)[^\s<>\"'`]+", re.I)


def extract_citations(text: str) -> list[str]:
    """Citation tokens in order of first appearance: ids (``ref_001``) or indexes (``3``).

    Indexes count only in brackets ("(1)" is a list item); ids count in brackets, in
    parentheses and bare."""
    found: list[tuple[int, str]] = []
    for pattern in (_ANCHOR, _HASH):
        found.extend((m.start(), _normal(m.group(1))) for m in pattern.finditer(text))
    for m in _GROUP.finditer(text):
        # "x[0]" is code, not a citation; "[ref_1]" and the footnote "[^1]" are citations
        # wherever they are glued.
        before = text[m.start() - 1] if m.start() else " "
        plain = "ref_" not in m.group(1).lower() and not m.group(1).startswith("^")
        if plain and before.isascii() and (before.isalnum() or before == "_"):
            continue
        found.extend((m.start(), token) for token in _split(m.group(1)))
    found.extend((at, _normal(token)) for at, token in _bare_ids(text))
    seen: dict[str, None] = {}
    for _, token in sorted(found, key=lambda f: f[0]):
        seen.setdefault(token, None)
    return list(seen)


def _bare_ids(text: str) -> list[tuple[int, str]]:
    """Ids outside brackets, with their offsets, except those inside a URL."""
    urls = [m.span() for m in _URL.finditer(text)]
    starts = [a for a, _ in urls]
    out = []
    for m in _BARE.finditer(text):
        i = bisect.bisect_right(starts, m.start()) - 1  # the last URL starting before it
        if i < 0 or m.start() >= urls[i][1]:
            out.append((m.start(), m.group()))
    return out


def _split(group: str) -> list[str]:
    tokens: list[str] = []
    for part in _SEP.split(group):
        part = part.lstrip("^").strip()
        if m := _RANGE.fullmatch(part):
            a, b = int(m.group(1)), int(m.group(2))
            span = range(a, b + 1) if a <= b <= a + _MAX_RANGE else (a, b)
            tokens.extend(str(i) for i in span)
        else:
            tokens.append(_normal(part))
    return tokens


def _normal(token: str) -> str:
    """``REF_009`` → ``ref_009``, ``３`` → ``3``: ids are lower case ASCII."""
    head, _, digits = token.rpartition("_")
    if digits.isdigit():  # int() reads any Unicode digit; keep the written zero padding
        digits = str(int(digits)).zfill(len(digits))
        return f"{head.lower()}_{digits}" if head else digits
    return token


@dataclass(frozen=True)
class CitationCheck:
    """Which cited ids exist, which were cut by the budget, which are unknown."""

    valid: tuple[str, ...]
    omitted: tuple[str, ...]
    """Ids of real references the LLM never saw (cut by the budget)."""
    unknown: tuple[str, ...]
    """Tokens matching no reference: invented or mistyped."""

    @property
    def ok(self) -> bool:
        return not self.unknown and not self.omitted


def check_citations(text: str, refs: References) -> CitationCheck:
    """Resolve every citation in ``text`` (ids or 1-based indexes) against ``refs``."""
    by_index = {str(i): r.citation_id for i, r in enumerate(refs.references, start=1)}
    shown = {r.citation_id for r in refs.references}
    valid, omitted, unknown = [], [], []
    for token in extract_citations(text):
        cid = by_index.get(token, token) if token.isdigit() else token
        if cid in shown:
            valid.append(cid)
        elif cid in refs.omitted:
            omitted.append(cid)
        else:
            unknown.append(token)
    return CitationCheck(tuple(dict.fromkeys(valid)), tuple(omitted), tuple(unknown))  # type: ignore[arg-type]
