"""The ``ask`` operation: a question answered from searches, with citations checked.

A thin map onto :meth:`unifind.Searcher.ask_stream` (DESIGN §9): the input names the
message, attached text parts, an optional override of the legs to search, the stages'
``uses`` and the answer's; the output is the :class:`~unifind.agent.models.Answer` with the
overall status of its searches. Bad input raises before anything runs, so a transport can
still answer it as an error rather than as an event of a started stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from unifind._fielddocs import describe_fields
from unifind.agent.answer import answer_profile
from unifind.agent.layers import for_request, merge
from unifind.agent.models import Answer, Part, Plan
from unifind.agent.stages import STAGES, check_uses
from unifind.errors import UnknownName
from unifind.ops.models import ID_PATTERN, Sources
from unifind.ops.stream import OpEvent
from unifind.trace import pick_locale
from unifind.types import Overall, Principal, SearchRequest, overall_status

if TYPE_CHECKING:
    from unifind.agent.hooks import HookContext
    from unifind.ops.service import Operations

MAX_PARTS = 20


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=describe_fields)


class AskPart(_In):
    """Text or a web page the user attached to the message: searched first, as
    ``source=user``. Set ``text`` or ``url``, not both."""

    text: str | None = Field(default=None, min_length=1, max_length=1_000_000)
    url: str | None = Field(default=None, pattern=r"^https?://", max_length=2_000)
    """An http(s) page, fetched by the web leg's fetcher under its SSRF rules (private
    and loopback targets refused unless ``web.allow_private``); one that can't be fetched
    is named in the plan's notes and the ask goes on."""
    title: str = Field(default="", max_length=1_000)

    @model_validator(mode="after")
    def _one_kind(self) -> AskPart:
        if (self.text is None) == (self.url is None):
            raise ValueError("a part sets exactly one of text or url")
        return self


class AskUses(_In):
    """Which implementation runs each stage: ``builtin``, ``none``, ``agent:<profile>``
    (an ``agents`` entry of the settings) or ``mcp:<server>.<tool>``."""

    intent: str | None = Field(default=None, max_length=256)
    """Whether to search and which legs (``builtin``: rules first)."""
    keywords: str | None = Field(default=None, max_length=256)
    """The web query's keywords (``builtin``: frequency-based)."""
    answer: str | None = Field(default=None, max_length=256)
    """Who writes the answer: ``builtin`` (the ``answer`` profile when configured, else an
    extractive answer), ``none`` (extractive) or ``agent:<profile>``."""


class AskInput(_In):
    """A question answered from the knowledge base, the web and databases, with citations."""

    message: str = Field(max_length=100_000)
    """The user's message (a question or a request); longer than 8,000 chars is cut."""
    parts: list[AskPart] = Field(default_factory=list, max_length=MAX_PARTS)
    """Attached texts, searched first in an ephemeral collection deleted afterwards."""
    sources: Sources | None = None
    """Search exactly these legs (with their options) instead of the ones the intent
    stage chooses; attached parts are still searched first."""
    uses: AskUses = Field(default_factory=AskUses)
    request_id: str | None = Field(default=None, pattern=ID_PATTERN)
    """Citation ids continue across every search with the same id; one is made when omitted."""
    limit: int | None = Field(default=None, ge=1, le=50)
    """References given to the answer (default: ``ask.top_n`` of the settings, 8)."""
    assistant: str | None = Field(default=None, max_length=256)
    """A named assistant of the settings (``assistants:``): its ``ask`` values are layered
    over the global ones; this request's own values still win."""
    skip_threshold: int | None = Field(default=None, ge=1, le=1000)
    """Skip the other legs when the attached parts alone give this many hits."""
    deadline_s: float | None = Field(default=None, gt=0, le=600)
    """The whole ask's deadline (default 60 s): searches still running then are reported
    ``degraded``/``timeout``, the references gathered so far are kept and the answer says so."""
    samples: int | None = Field(default=None, ge=1, le=8)
    """Ask the LLM this many times and keep the answer whose citations check best (fewest
    unknown, then unsupported, then highest mean support); with more than one the answer
    arrives as one delta after the check. Default: ``ask.samples`` of the settings (1)."""
    support: Literal["lexical", "embed", "cross"] | None = None
    """The citation support model (default ``embed``: see BENCHMARKS.md)."""

    @field_validator("message")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the message is empty: write a question or a request")
        return v


class AskOutput(Answer):
    """The answer, its plan, references, every backend's report and the citation check."""

    llm: str | None = None
    """``agent:<profile>`` that wrote it; absent for an extractive answer."""
    status: Overall
    """Of the searches: ``ok`` every consulted backend answered · ``partial`` · ``unavailable``."""


def stage_uses(inp: AskInput) -> dict[str, str]:
    """The stages' ``uses`` named by the request (checked; unnamed stages keep defaults)."""
    chosen = {s: v for s in STAGES if (v := getattr(inp.uses, s)) is not None}
    for stage, value in chosen.items():
        check_uses(stage, value)
    return chosen


def check_answer(ops: Operations, uses: str | None) -> None:
    """An answer profile that is not configured is refused, naming the configured ones."""
    name = answer_profile(ops.settings, uses)
    agents = getattr(ops.settings, "agents", None) or {}
    if name is not None and name not in agents:
        raise UnknownName("agent (settings.agents)", name, agents)


def sources_hook(inp: AskInput, sources: Sources) -> Any:
    """A hook putting the caller's legs in place of the intent's (keeping attached parts)."""
    from unifind.ops.service import build_requests

    def override(plan: Plan, ctx: HookContext) -> Plan:
        probe = _probe(inp.message, sources)
        reqs = [r.model_copy(update={"source": "hook"}) for r in build_requests(probe)]
        if plan.keywords:
            reqs = [_web_query(r, plan.keywords) for r in reqs]
        user = [r for r in plan.requests if r.source == "user"]
        plan.requests = [*user, *reqs]
        plan.legs = sorted({r.type for r in plan.requests}, key=("kb", "web", "db").index)
        plan.why = f"the request named the legs: {', '.join(r.type for r in reqs)}"
        return plan

    return override


def _probe(message: str, sources: Sources) -> Any:
    from unifind.ops.models import SearchInput

    return SearchInput(query=message[:100_000], sources=sources, limit=10)


def _web_query(req: SearchRequest, words: list[str]) -> SearchRequest:
    # As the intent's own web request: providers match words, not a whole message.
    return req.model_copy(update={"query": " ".join(words)}) if req.type == "web" else req


def ask_kwargs(
    ops: Operations, inp: AskInput, principal: Principal | None, locale: str | None = None
) -> dict[str, Any]:
    """The engine's keywords for ``inp``, every name checked before anything runs; the
    events' progress lines in ``locale`` (default: the settings' ``telemetry.lang``)."""
    who = ops._principal(principal)
    if inp.sources is not None and inp.sources.kb is not None:
        for name in inp.sources.kb.collections or []:
            ops.kb.collection(name, principal=who)
    # The assistant and the settings may choose the answer too: check the one that will run.
    asked = merge(for_request(ops.settings, inp.assistant, {"answer": inp.uses.answer}))
    check_answer(ops, asked.uses["answer"])
    hooks = [sources_hook(inp, inp.sources)] if inp.sources is not None else []
    return {
        "parts": [Part(text=p.text, url=p.url, title=p.title) for p in inp.parts],
        "uses": stage_uses(inp),
        "hooks": hooks,
        "principal": who,
        "request_id": inp.request_id,
        "locale": pick_locale(locale or str(ops.settings.telemetry.lang)),
        "answer_uses": inp.uses.answer,
        "skip_threshold": inp.skip_threshold,
        "top_n": inp.limit,
        "assistant": inp.assistant,
        "deadline_s": inp.deadline_s,
        "samples": inp.samples,
        "support": inp.support,
    }


async def ask_events(
    ops: Operations, inp: AskInput, kw: dict[str, Any]
) -> AsyncGenerator[OpEvent, None]:
    """The engine's ask events as operation events; ``done`` carries an :class:`AskOutput`.

    Closing this iterator closes the engine's, which cancels what still runs.
    """
    async with aclosing(ops.searcher.ask_stream(inp.message, **kw)) as events:
        async for ev in events:
            if ev.kind == "done":
                yield OpEvent("done", {"output": to_output(ev.data["output"])})
                return
            yield OpEvent(ev.kind, ev.data, ev.message)


def to_output(answer: Answer) -> AskOutput:
    return AskOutput(**dict(answer), status=overall_status(answer.reports))
