"""Tool arguments as an agent sends them → the operation layer's inputs.

Agents send numbers as strings (``"5"``), lists as JSON text (``'["docs"]'``), as
comma-separated text (``"docs,faq"``) or as one bare string; all are accepted. What can't
be understood is refused with :class:`ArgumentError`, which names the argument and what
would be valid, so the model can correct its next call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError

from unifind import InputError
from unifind.ops import FetchInput, SearchInput
from unifind.ops.models import _as_list

LEGS = ("kb", "web", "db")
MODES = ("all", "any", "race")
TIME_RANGES = ("day", "week", "month", "year")
SEARCH_ARGS = (
    "query", "sources", "collections", "models", "mode", "max_results", "domains",
    "exclude_domains", "time_range", "start_date", "end_date", "language", "country", "topic",
    "safe_search", "page", "request_id", "max_chars", "dsl",
)  # fmt: skip
#: Web options passed through as given (the operation's model validates them).
WEB_PASSTHROUGH = ("start_date", "end_date", "language", "country", "topic", "safe_search", "page")
FETCH_ARGS = ("url", "urls", "max_chars", "start")
#: Pages one fetch call may read (``url`` and ``urls`` together).
MAX_FETCH_URLS = 10
_SOURCES_HINT = '["kb", "web", "db"] or {"kb": {"collections": ["docs"]}, "web": {}}'
#: Names agents reach for out of habit, read as the argument they mean.
ALIASES = {"limit": "max_results", "num_results": "max_results", "sites": "domains", "q": "query",
           "exclude_sites": "exclude_domains", "include_domains": "domains"}  # fmt: skip
#: The text budget of a tool result (characters): ~5k tokens, far under the 25k-token cap
#: some clients put on a tool result (Claude Code's MAX_MCP_OUTPUT_TOKENS default).
DEFAULT_MAX_CHARS = 20_000
MAX_CHARS_RANGE = (1_000, 100_000)
FETCH_PAGE_DEFAULT = 10_000
#: Where a search input's field came from, to name the agent's argument in an error.
_FIELD_ARG = {
    "limit": "max_results",
    "sources.kb.collections": "collections",
    "sources.db.models": "models",
    "sources.db.dsl": "dsl",
    "sources.web.sites": "domains",
    "sources.web.time_range": "time_range",
    "sources.web.exclude_sites": "exclude_domains",
    **{f"sources.web.{name}": name for name in WEB_PASSTHROUGH},
}


class ArgumentError(InputError):
    """A tool argument that can't be used; names it and what would be valid."""

    def __init__(self, arg: str, problem: str, valid: str | None = None) -> None:
        self.arg, self.problem, self.valid = arg, problem, valid
        hint = f" Valid: {valid}." if valid else ""
        super().__init__(f"Invalid argument `{arg}`: {problem}.{hint}")


def known(args: Mapping[str, Any] | None, names: Sequence[str]) -> dict[str, Any]:
    """``args`` with aliases resolved; an unknown argument is refused, listing the valid ones."""
    out: dict[str, Any] = {}
    given: dict[str, str] = {}  # argument → the key it came as (itself or an alias)
    for key, value in (args or {}).items():
        name = ALIASES.get(key, key) if ALIASES.get(key) in names else key
        if name not in names:
            raise ArgumentError(key, "no such argument", ", ".join(names))
        if value is None:
            continue
        if name in out and _as_list(out[name]) != _as_list(value):
            # Two names for one argument that disagree: refuse rather than let one win.
            problem = f"`{given[name]}` is given too, with another value; give one of them"
            raise ArgumentError(key, problem, f"`{name}` alone")
        out[name], given[name] = value, key
    return out


def integer(arg: str, value: Any, lo: int, hi: int, *, clamp: bool = False) -> int:
    """A whole number given as a number or as text; out of range is refused (or clamped)."""
    n: int | None = None
    if isinstance(value, bool):
        n = None
    elif isinstance(value, int):
        n = value
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        n = int(value.strip())
    if n is None:
        raise ArgumentError(arg, f"expected a whole number, got {value!r}", f"{lo} to {hi}")
    if clamp:
        return min(max(n, lo), hi)
    if not lo <= n <= hi:
        raise ArgumentError(arg, f"{n} is out of range", f"{lo} to {hi}")
    return n


def strings(arg: str, value: Any) -> list[str]:
    """A list of names from a list, a JSON list, comma-separated text or one string."""
    items = _as_list(value)
    if isinstance(items, str):  # text starting with "[" that isn't JSON
        raise ArgumentError(arg, f"could not read {value!r} as a list", 'a list like ["a", "b"]')
    if not isinstance(items, list) or not all(isinstance(i, str) and i.strip() for i in items):
        raise ArgumentError(arg, f"expected a list of names, got {value!r}", '["a", "b"] or "a,b"')
    return [i.strip() for i in items]


def choice(arg: str, value: Any, valid: Sequence[str]) -> str:
    """One of ``valid``, case-insensitive."""
    text = value.strip().lower() if isinstance(value, str) else ""
    if text not in valid:
        raise ArgumentError(arg, f"{value!r} is not one of them", ", ".join(valid))
    return text


def sources(value: Any) -> dict[str, dict[str, Any]]:
    """Legs to search: ``["kb","web"]``, ``"kb,web"``, or ``{"kb": {...}, "web": true}``."""
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except ValueError:
            raise ArgumentError("sources", "could not read it as JSON", _SOURCES_HINT) from None
    if isinstance(value, Mapping):
        out: dict[str, dict[str, Any]] = {}
        for leg, opts in value.items():
            name = choice("sources", leg, LEGS)
            if opts is False or opts in ("false", "False"):
                continue
            if opts is None or opts is True or opts in ("true", "True"):
                opts = {}
            if not isinstance(opts, Mapping):
                raise ArgumentError(f"sources.{name}", f"expected an options object, got {opts!r}")
            out[name] = dict(opts)
        return out
    return {choice("sources", leg, LEGS): {} for leg in strings("sources", value)}


_M = TypeVar("_M", SearchInput, FetchInput)


def search_input(args: Mapping[str, Any] | None) -> tuple[SearchInput, int]:
    """The search operation's input and the result's size budget, from tool arguments."""
    a = known(args, SEARCH_ARGS)
    query = a.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ArgumentError("query", "say what to search for", "a non-empty string")
    legs = sources(a["sources"]) if "sources" in a else {}
    # Naming a leg's option means searching that leg.
    for arg, leg, field in (
        ("collections", "kb", "collections"),
        ("models", "db", "models"),
        ("domains", "web", "sites"),
        ("exclude_domains", "web", "exclude_sites"),
    ):
        if arg in a:
            legs.setdefault(leg, {})[field] = strings(arg, a[arg])
    if "dsl" in a:  # a database query the agent wrote: run as written (implies db)
        legs.setdefault("db", {})["dsl"] = a["dsl"]
    if "time_range" in a:
        legs.setdefault("web", {})["time_range"] = choice(
            "time_range", a["time_range"], TIME_RANGES
        )
    for name in WEB_PASSTHROUGH:
        if name in a:
            legs.setdefault("web", {})[name] = a[name]
    data: dict[str, Any] = {"query": query}
    if legs:
        data["sources"] = legs
    if "mode" in a:
        data["mode"] = choice("mode", a["mode"], MODES)
    if "max_results" in a:
        data["limit"] = integer("max_results", a["max_results"], 1, 100)
    if "request_id" in a:
        data["request_id"] = str(a["request_id"])
    budget = integer("max_chars", a.get("max_chars", DEFAULT_MAX_CHARS), *MAX_CHARS_RANGE)
    return _validated(SearchInput, data), budget


def fetch_input(args: Mapping[str, Any] | None) -> FetchInput:
    """The fetch operation's input (the first page when several are asked for)."""
    return fetch_inputs(args)[0]


def fetch_inputs(args: Mapping[str, Any] | None) -> list[FetchInput]:
    """One input per page named by ``url`` and ``urls`` (deduplicated, at most
    :data:`MAX_FETCH_URLS`), each paged alike; a page over the budget is clamped to it."""
    a = known(args, FETCH_ARGS)
    if "url" in a and (not isinstance(a["url"], str) or not a["url"].strip()):
        raise ArgumentError("url", "give the address of the page", "an http(s) URL")
    many = a.get("urls", [])
    many = [many] if isinstance(many, str) else many
    if not isinstance(many, list) or not all(isinstance(u, str) and u.strip() for u in many):
        raise ArgumentError("urls", "give a list of page addresses", '["https://a.example/"]')
    urls = list(dict.fromkeys(u.strip() for u in [*([a["url"]] if "url" in a else []), *many]))
    if not urls:
        raise ArgumentError("url", "give the address of the page (or several in `urls`)",
                            "an http(s) URL")  # fmt: skip
    if len(urls) > MAX_FETCH_URLS:
        raise ArgumentError("urls", f"{len(urls)} pages asked for; at most {MAX_FETCH_URLS} "
                            "per call")  # fmt: skip
    page = integer("max_chars", a.get("max_chars", FETCH_PAGE_DEFAULT), 100, 50_000, clamp=True)
    start = integer("start", a.get("start", 0), 0, 10**9)
    return [_validated(FetchInput, {"url": u, "max_chars": page, "start": start}) for u in urls]


def _validated(model: type[_M], data: dict[str, Any]) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0].get("loc", ()))
        arg = _FIELD_ARG.get(where) or ".".join(where.split(".")[:2]) or "arguments"
        why = str(exc.errors()[0].get("msg", "invalid")).removeprefix("Value error, ")
        raise ArgumentError(arg, why) from None
