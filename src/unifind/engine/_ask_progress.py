"""The progress line of each ``ask`` event, in the caller's language (``en``, ``zh``).

The same words the MCP server reports as progress (:mod:`unifind.trace`'s ``ask_*``
messages), carried on the events themselves so the HTTP stream and the CLI show them too.
"""

from __future__ import annotations

import dataclasses

from unifind.agent.models import AskEvent
from unifind.trace import clauses, message, pick_locale, report_line


class AskProgress:
    """Puts a localised ``message`` on each event of one ask, in order."""

    def __init__(self, locale: str = "en") -> None:
        self.locale = pick_locale(locale)
        self._legs: list[str] = []
        self._writing = False

    def said(self, ev: AskEvent) -> AskEvent:
        """``ev`` with its progress line (unchanged where none applies: later deltas)."""
        line = self._line(ev)
        return dataclasses.replace(ev, message=line) if line else ev

    def _line(self, ev: AskEvent) -> str:
        lang = self.locale
        if ev.kind == "plan":
            legs = ev.data.get("legs") or []
            return message(lang, "searching", legs=legs) if legs else message(lang, "ask_nothing")
        if ev.kind == "leg":
            self._legs.append(report_line(lang, ev.data))
            return self._legs[-1]
        if ev.kind == "references":
            n = len(ev.data.get("references") or ())
            key = "ask_references_from" if self._legs else "ask_references"
            return message(lang, key, n=n, details=clauses(lang, self._legs))
        if ev.kind == "answer.delta" and not self._writing:
            self._writing = True  # one line for the answer, not one per delta
            return message(lang, "ask_answering")
        if ev.kind == "citations":
            return message(lang, "ask_citations")
        if ev.kind == "done":
            return message(lang, "done")
        return ""
