"""The answer stage: references + message → an OpenAI-compatible chat endpoint, streamed.

The profile is ``settings.agents[<name>]`` for ``uses="agent:<name>"``; by default the
profile named ``answer`` if there is one. Without any, the answer is extractive (the best
sentence of each top reference, cited) and says that no LLM is configured.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from unifind.cite import References
from unifind.config import Settings
from unifind.errors import InputError
from unifind.llm import stream_chat

SYSTEM = """You answer the user's question from the references below.
{xml}

{prompt}
Cite with the reference ids in square brackets, e.g. [ref_001] or [ref_001, ref_002], right
after the sentence they support. Answer in the language of the question."""

MAX_ANSWER_CHARS = 100_000
"""The longest answer read from an LLM by default (``ask.max_answer_chars``)."""

NO_LLM = "No LLM is configured (settings.agents has no 'answer' profile): extractive answer."


def answer_profile(settings: Settings, uses: str | None) -> str | None:
    """The agent profile that answers, or None for an extractive answer."""
    if uses in (None, "builtin"):
        return "answer" if "answer" in settings.agents else None
    if uses == "none":
        return None
    kind, _, name = uses.partition(":")
    if kind != "agent" or not name:
        raise InputError(f"answer uses {uses!r}: write builtin, none or agent:<profile>")
    return name


def messages(message: str, refs: References) -> list[dict[str, str]]:
    """The chat messages: instructions with the references, then the user's message."""
    system = SYSTEM.format(xml=refs.xml, prompt=refs.prompt)
    return [{"role": "system", "content": system}, {"role": "user", "content": message}]


async def llm_deltas(
    settings: Settings,
    profile_name: str,
    msgs: Sequence[dict[str, str]],
    *,
    temperature: float | None = None,
) -> AsyncIterator[str]:
    """The answer's deltas from the profile's endpoint (SourceError on any failure).

    ``temperature``: the profile's ``temperature`` when None, else 0 (one answer should be
    the model's most likely one; sampled answers pass their own)."""
    from unifind.rerankers.agent import api_key, profile

    prof = profile(settings, profile_name)
    if temperature is None:
        temperature = float(prof.get("temperature", 0.0))
    async for delta in stream_chat(
        msgs,
        model=str(prof["model"]),
        base_url=str(prof["base_url"]),
        api_key=api_key(prof, profile_name),
        timeout=float(prof.get("timeout_s", 60.0)),
        temperature=temperature,
    ):
        yield delta
