"""The LLM generator, ``agent:<name>``: schema + question → DSL JSON, validated, one repair.

The prompt carries the model's schema and the DSL grammar; the reply must be one JSON
object that :func:`~unifind.db.dsl.validate_dsl` accepts. An invalid reply is sent back
once with the validation error ("repair"); invalid twice, or the endpoint failing, ends
in :class:`GenerationError` when ``strict``, otherwise in plain keyword matching (noted).
The LLM only ever produces a DSL: never SQL, never permission predicates.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from typing import Any

from unifind.db.dsl import OPS, QueryDSL, validate_dsl
from unifind.db.generate.base import Generation, GenerationError
from unifind.db.generate.builtin import keyword_generation
from unifind.db.models import Model
from unifind.errors import InputError, SourceError, UnknownName
from unifind.llm import chat

SYSTEM = """You translate a question about one database table into a QueryDSL JSON object.
Reply with ONE JSON object and nothing else. Grammar:
{{"select": [field...]?, "wheres": [{{"field": f, "op": op, "value": v, "or": bool?}} or
{{"wheres": [...], "or": bool?}} ...], "orders": [{{"field": f, "sort": "asc"|"desc"}}],
"limit": n?}}
ops: {ops}. "or": true joins a condition to the previous one with OR (AND binds tighter).
like/notlike values use % wildcards and are case-insensitive. in/notin take a list,
between a [low, high] pair, null/notnull no value. Dates are YYYY-MM-DD; today is {today}.
Use only the fields listed in the schema; use enumerated values exactly as listed.
Schema: {schema}"""

REPAIR = ("That JSON is not valid for this schema: {error}\n"
          "Reply with the corrected JSON object only.")  # fmt: skip

_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$")


class LLMGenerator:
    """Asks an OpenAI-compatible chat endpoint for the DSL."""

    name = "agent"

    def __init__(
        self,
        agent: str,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        today: dt.date | None = None,
    ) -> None:
        self.uses = f"agent:{agent}"
        self.base_url, self.model, self.api_key = base_url, model, api_key
        self.timeout_s = timeout_s
        self._today = today

    @classmethod
    def from_config(cls, arg: str, config: Mapping[str, Any]) -> LLMGenerator:
        agents: Mapping[str, Any] = config.get("agents") or {}
        if arg not in agents:
            raise UnknownName("db agent (db.agents)", arg, agents)
        profile = agents[arg]
        if not profile.get("base_url") or not profile.get("model"):
            raise InputError(f"db agent {arg!r} needs base_url and model; it has {sorted(profile)}")
        today = config.get("today")
        return cls(
            arg,
            base_url=profile["base_url"],
            model=profile["model"],
            api_key=profile.get("api_key"),
            timeout_s=float(profile.get("timeout_s", 30.0)),
            today=dt.date.fromisoformat(str(today)) if today else None,
        )

    async def generate(self, question: str, model: Model, *, strict: bool = False) -> Generation:
        today = (self._today or dt.date.today()).isoformat()
        schema = json.dumps(model.schema_summary(), ensure_ascii=False)
        messages = [
            {"role": "system", "content": SYSTEM.format(ops=", ".join(OPS), today=today,
                                                        schema=schema)},
            {"role": "user", "content": question},
        ]  # fmt: skip
        try:
            first = await self._ask(messages)
            try:
                return Generation(_parse(first, model))
            except InputError as exc:
                messages += [{"role": "assistant", "content": first},
                             {"role": "user", "content": REPAIR.format(error=exc)}]  # fmt: skip
            second = await self._ask(messages)
            try:
                return Generation(_parse(second, model), notes=(f"{self.uses}: repaired once",))
            except InputError as exc:
                raise GenerationError(f"{self.uses} gave invalid DSL twice; last: {exc}") from exc
        except (SourceError, GenerationError) as exc:
            failure = exc if isinstance(exc, GenerationError) else GenerationError(
                f"{self.uses}: {exc}", exc.reason)  # fmt: skip
            if strict:
                raise failure from exc
            fallback = keyword_generation(question, model)
            note = f"{failure}; fell back to keyword matching"
            return Generation(fallback.dsl, fallback.keywords, (note,))

    async def _ask(self, messages: list[dict[str, str]]) -> str:
        return await chat(
            messages,
            model=self.model,
            base_url=self.base_url,
            api_key=self.api_key,
            response_format={"type": "json_object"},
            timeout=self.timeout_s,
        )


def _parse(content: str, model: Model) -> QueryDSL:
    """The reply as a validated DSL; anything else raises InputError (fed to the repair)."""
    text = _FENCE.sub("", content.strip())
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg} at char {exc.pos})") from exc
    if isinstance(data, dict) and data.get("model") in (None, model.name):
        data = {k: v for k, v in data.items() if k != "model"}
    return validate_dsl(data, model)
