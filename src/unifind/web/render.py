"""Text for an LLM (DESIGN §5): a numbered ``title — url`` list with the snippet indented and a
footer naming the count and the provider; fetched text with its overflow announced."""

from __future__ import annotations

import textwrap

from unifind.types import LegReport, SearchResult, Status
from unifind.web.model import FetchResult

SNIPPET_WIDTH = 100


def _failure(report: LegReport) -> str:
    reason = report.reason.value if report.reason else report.status.value
    detail = report.error or report.note or ""
    head = f"{report.backend} {report.status.value} ({reason})"
    return f"{head}: {detail}" if detail else head


def render_results(result: SearchResult) -> str:
    """The hits as a numbered list, then a footer: count and provider, or why there are none."""
    lines: list[str] = []
    for i, item in enumerate(result.items, start=1):
        lines.append(f"{i}. {item.title} — {item.url}")
        if item.content:
            lines.append(
                textwrap.fill(
                    item.content, SNIPPET_WIDTH, initial_indent="   ", subsequent_indent="   "
                )
            )
    answered = [r for r in result.reports if r.status is Status.OK]
    failed = [r for r in result.reports if r.status is not Status.OK]
    if lines:
        lines.append("")
    n = len(result.items)
    if answered:
        who = answered[0].backend
        cached = " (cached)" if (answered[0].note or "").startswith("cache hit") else ""
        if n:
            lines.append(f"{n} result{'s' if n != 1 else ''} from {who}{cached}.")
        else:
            lines.append(f"No results from {who}{cached} for {result.query!r}.")
    else:
        lines.append(f"No web results for {result.query!r}: no provider answered.")
    lines += [f"- {_failure(r)}" for r in failed]
    lines += [f"Note: {note}" for note in result.notes]
    return "\n".join(lines)


def render_fetch(fetched: FetchResult) -> str:
    """The page's readable text with its title and source; the cap announced, or the failure."""
    report = fetched.report
    if report.status is not Status.OK:
        earlier = "".join(f"\n- {_failure(r)}" for r in fetched.attempts)
        return f"Could not fetch {fetched.url}: {_failure(report)}{earlier}"
    source = fetched.final_url or fetched.url
    head = [f"# {fetched.title}"] if fetched.title else []
    head.append(f"Source: {source} (via {report.backend})")
    body = fetched.text
    if fetched.truncated_chars:
        more = f"\n… [truncated: {fetched.truncated_chars:,} more characters"
        if fetched.next_start is not None:
            more += f"; continue from start_char={fetched.next_start}"
        body += more + "]"
    return "\n".join(head) + "\n\n" + body
