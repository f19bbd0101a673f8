"""Citations in a streamed answer: never split a ``[ref_001, ref_003]`` across two deltas.

An LLM's deltas cut text anywhere: ``"... window [re"`` then ``"f_001] is"``. The processor
holds back a tail that may still become a citation group (an open ``[``, ``【`` or ``［``
with nothing but citation characters after it) and releases it when the group closes or
proves not to be one. Each released delta comes with the citation tokens it completed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from unifind.cite import extract_citations

_OPEN = "[【［"
#: What may follow an open bracket inside a citation group before it closes.
_GROUP_BODY = re.compile(r"[\^\s\w,;，；、\-–]*", re.I)
_MAX_GROUP = 64  # longer than any citation group: a bracket held this long is text


@dataclass
class CitationStream:
    """Feed deltas in, get safe deltas out; ``cited`` keeps every token seen, in order."""

    cited: list[str] = field(default_factory=list)
    _held: str = ""

    def feed(self, delta: str) -> tuple[str, list[str]]:
        """The text safe to show now, and the citation tokens it completes."""
        text = self._held + delta
        cut = _hold_from(text)
        out, self._held = text[:cut], text[cut:]
        return out, self._note(out)

    def flush(self) -> tuple[str, list[str]]:
        """Whatever is held at the end of the stream."""
        out, self._held = self._held, ""
        return out, self._note(out)

    def _note(self, out: str) -> list[str]:
        new = [t for t in extract_citations(out) if t not in self.cited]
        self.cited.extend(new)
        return new


def _hold_from(text: str) -> int:
    """Where a possibly unfinished citation group starts (``len(text)`` when none)."""
    start = max(text.rfind(c) for c in _OPEN)
    if start < 0 or len(text) - start > _MAX_GROUP:
        return len(text)
    tail = text[start + 1 :]
    if any(c in tail for c in "]】］"):
        return len(text)  # closed: extract_citations sees the whole group
    return start if _GROUP_BODY.fullmatch(tail) else len(text)
