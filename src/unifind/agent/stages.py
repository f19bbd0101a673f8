"""Each pipeline stage's implementation, chosen by a ``uses`` string (DESIGN §9).

``builtin`` (rules, :mod:`unifind.agent.intent` and :mod:`unifind.agent.keywords`),
``none`` (the stage is off: no automatic search / the message itself is the query),
``agent:<profile>`` (an LLM on an OpenAI-compatible endpoint, ``settings.agents``) and
``mcp:<server>.<tool>`` (a tool on an MCP server, ``settings.mcp_servers``). An LLM or MCP
stage that fails falls back to ``builtin`` and says so in the plan's notes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from unifind.agent.intent import LEGS, Intent, Vocabulary, classify
from unifind.agent.keywords import keywords as builtin_keywords
from unifind.config import Settings
from unifind.errors import InputError, SourceError

STAGES = ("intent", "keywords")
DEFAULT_USES = {"intent": "builtin", "keywords": "builtin"}

INTENT_PROMPT = """Decide whether the user's message needs a search before answering.
Sources: "kb" (the team's own documents and policies), "web" (public or time-sensitive
facts), "db" (filters, amounts and entities of the shop database). Reply with ONE JSON
object: {"search": true|false, "legs": ["kb"|"web"|"db", ...], "why": "..."}."""
KEYWORDS_PROMPT = """Extract search keywords from the user's message, in its language,
and rewrite it into up to 3 standalone search queries (resolve "it"/"this", split a message
that asks several things into one query each). Reply with ONE JSON object:
{"keywords": ["...", ...], "queries": ["...", ...]} (at most 8 keywords, most important
first; queries may be empty when the message is already one clear query)."""
#: Rewritten queries a keywords stage may add: each is one more KB and web request.
MAX_QUERIES = 3


class Terms(NamedTuple):
    """What the keywords stage found: keywords for the web, and rewritten queries."""

    keywords: list[str]
    queries: list[str]


def check_uses(stage: str, uses: str) -> None:
    """Refuse an unknown form before anything runs."""
    kind, _, arg = uses.partition(":")
    if uses in ("builtin", "none") or (kind in ("agent", "mcp") and arg):
        return
    raise InputError(
        f"{stage} uses {uses!r}: write builtin, none, agent:<profile> or mcp:<server>.<tool>"
    )


async def run_intent(
    uses: str, message: str, vocab: Vocabulary, settings: Settings, *, attached: int = 0
) -> tuple[Intent, list[str]]:
    """The intent by ``uses``; notes say when an LLM or MCP stage fell back."""
    if uses == "none":
        return Intent(False, (), "intent: none (automatic search is off)"), []
    builtin = classify(message, vocab, attached=attached)
    if uses == "builtin" or attached:
        return builtin, []
    try:
        data = await _ask(uses, INTENT_PROMPT, message, settings)
        legs = tuple(leg for leg in LEGS if leg in (data.get("legs") or ()))
        search = bool(data.get("search")) and bool(legs)
        return Intent(search, legs if search else (), f"{uses}: {data.get('why', '')}"), []
    except (SourceError, InputError, ValueError, AttributeError) as exc:
        return builtin, [f"intent {uses} failed ({exc}); used builtin"]


async def run_keywords(uses: str, message: str, settings: Settings) -> tuple[Terms, list[str]]:
    """The keywords by ``uses`` (``none`` → the message itself is the query); an LLM or MCP
    stage may also rewrite the message into queries (``builtin`` does not)."""
    if uses == "none":
        return Terms([], []), []
    if uses == "builtin":
        return Terms(builtin_keywords(message), []), []
    try:
        data = await _ask(uses, KEYWORDS_PROMPT, message, settings)
        words = _texts(data.get("keywords"))
        if not words:
            raise ValueError("no keywords in the answer")
        said = {message.strip().casefold()}
        queries = [q for q in _texts(data.get("queries")) if q.casefold() not in said]
        return Terms(words[:8], list(dict.fromkeys(queries))[:MAX_QUERIES]), []
    except (SourceError, InputError, ValueError, AttributeError, TypeError) as exc:
        note = f"keywords {uses} failed ({exc}); used builtin"
        return Terms(builtin_keywords(message), []), [note]


def _texts(value: Any) -> list[str]:
    """Non-empty strings of a JSON list (a lone string is one); anything else is refused."""
    items = [value] if isinstance(value, str) else value or []
    if not isinstance(items, list):
        raise ValueError(f"expected a list of strings, got {type(items).__name__}")
    return [str(v).strip()[:500] for v in items if isinstance(v, str | int) and str(v).strip()]


async def _ask(uses: str, system: str, message: str, settings: Settings) -> Mapping[str, Any]:
    kind, _, arg = uses.partition(":")
    if kind == "agent":
        # Imported here: the LLM client (httpx) is no cost of a plan that asks no agent.
        from unifind.llm import chat
        from unifind.rerankers.agent import api_key, profile

        prof = profile(settings, arg)
        text = await chat(
            [{"role": "system", "content": system}, {"role": "user", "content": message}],
            model=str(prof["model"]),
            base_url=str(prof["base_url"]),
            api_key=api_key(prof, arg),
            response_format={"type": "json_object"},
            timeout=float(prof.get("timeout_s", 30.0)),
        )
        data = json.loads(_unfence(text))
    else:
        from unifind import mcp_client

        server, _, tool = arg.partition(".")
        spec = mcp_client.server_spec(settings, server)
        data = (await mcp_client.call_tool(spec, tool, {"message": message})).payload()
    if not isinstance(data, Mapping):
        raise ValueError(f"{uses} answered {type(data).__name__}, not a JSON object")
    return data


def _unfence(text: str) -> str:
    """The JSON inside a ```json fence, or the text as is."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[-1].rsplit("```", 1)[0]
    return body
