"""Hooks: application code that sees the plan and may add, change or skip requests.

A hook is a callable ``hook(plan, ctx)`` (sync or async) that edits ``plan.requests`` in
place or returns a new :class:`~unifind.agent.models.Plan`. Through ``ctx.search`` it may
search now (``web``/``kb``/``db``/``all``/``any``/``race``, as ``source=hook``); those
results join the answer's references, numbered in the same request. A hook that raises or
outlives ``timeout_s`` is reported in the plan's notes and the pipeline goes on.

A hook may also choose a later stage's implementation: ``plan.uses["answer"] =
"agent:big"``. That is the ``hook`` layer of the ask settings (above the assistant's,
below the request's, :mod:`unifind.agent.layers`); ``ctx.set_uses`` records which hook set
each stage, and a stage that already ran (intent, keywords) is not chosen again.

A hook works on a copy of the plan, adopted only when it returns in time: one cut by its
deadline leaves no half-made edits behind. A sync hook runs on its own daemon thread, so
its deadline can cut the wait for it; Python cannot stop a thread, so a sync hook that
never returns keeps that thread busy until the process exits (it does not delay the exit,
and the ask goes on without it). An async hook is cancelled at its deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from unifind.agent.models import Plan
from unifind.errors import InputError
from unifind.types import Principal, SearchRequest, SearchResult, SearchResults

if TYPE_CHECKING:
    from unifind.engine import Searcher

Hook = Callable[[Plan, "HookContext"], "Plan | Awaitable[Plan | None] | None"]
HOOK_TIMEOUT_S = 5.0


class HookSearch:
    """``ctx.search``: searches a hook runs now, in the ask's request."""

    def __init__(self, searcher: Searcher, request_id: str, principal: Principal | None,
                 *, allowed: bool) -> None:  # fmt: skip
        self._s, self._rid, self._who, self._allowed = searcher, request_id, principal, allowed
        self.results: list[SearchResult] = []

    async def _one(self, leg: str, query: str, **kw: Any) -> SearchResult:
        req = SearchRequest(type=leg, query=query, source="hook", **kw)  # type: ignore[arg-type]
        return (await self._many("all", [req])).results[0]

    async def _many(self, mode: str, reqs: Iterable[SearchRequest]) -> SearchResults:
        if not self._allowed:
            raise InputError("hooks cannot search while only planning (--plan)")
        run = getattr(self._s, mode)
        res: SearchResults = await run(reqs, request_id=self._rid, principal=self._who,
                                       record=False)  # fmt: skip
        self.results.extend(res.results)
        return res

    async def web(self, query: str, **kw: Any) -> SearchResult:
        return await self._one("web", query, **kw)

    async def kb(self, query: str, **kw: Any) -> SearchResult:
        return await self._one("kb", query, **kw)

    async def db(self, query: str, **kw: Any) -> SearchResult:
        return await self._one("db", query, **kw)

    async def all(self, reqs: Iterable[SearchRequest]) -> SearchResults:
        return await self._many("all", reqs)

    async def any(self, reqs: Iterable[SearchRequest]) -> SearchResults:
        return await self._many("any", reqs)

    async def race(self, reqs: Iterable[SearchRequest]) -> SearchResults:
        return await self._many("race", reqs)

    def references(self) -> Any:
        """The references of what the hooks found so far, numbered in this request."""
        return self._s.references(self.results, request_id=self._rid, principal=self._who)


class HookContext:
    """What a hook receives besides the plan."""

    def __init__(self, message: str, search: HookSearch) -> None:
        self.message = message
        self.search = search
        self.set_uses: dict[str, str] = {}
        """Stage → the hook (``module.function``) that last changed ``plan.uses[stage]``."""


async def run_hooks(
    hooks: Iterable[Hook], plan: Plan, ctx: HookContext, *, timeout_s: float | None = None
) -> Plan:
    """Run each hook in turn under its deadline (``HOOK_TIMEOUT_S`` unless given); failures
    become notes."""
    limit = HOOK_TIMEOUT_S if timeout_s is None else timeout_s
    for hook in hooks:
        name = getattr(hook, "__qualname__", repr(hook))
        before = dict(plan.uses)
        draft = plan.model_copy(deep=True)
        try:
            async with asyncio.timeout(max(limit, 0.0)):
                if inspect.iscoroutinefunction(hook):
                    out = await hook(draft, ctx)
                else:
                    out = await _on_daemon_thread(hook, draft, ctx)
                    if inspect.isawaitable(out):
                        out = await out
        except TimeoutError:
            plan.notes.append(f"hook {name} cut after {limit:g} s (its edits were dropped)")
            continue
        except Exception as exc:  # a hook's bug is reported, the ask goes on (issue #10)
            plan.notes.append(f"hook {name} failed: {type(exc).__name__}: {exc}")
            continue
        plan = out if isinstance(out, Plan) else draft
        who = f"{getattr(hook, '__module__', '')}.{name}".lstrip(".")
        ctx.set_uses.update({k: who for k, v in plan.uses.items() if before.get(k) != v})
    plan.search = bool(plan.requests)
    return plan


def _on_daemon_thread(fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """``fn(*args)`` on a daemon thread of its own. Unlike ``asyncio.to_thread`` (the loop's
    executor, joined when ``asyncio.run`` ends), a call that never returns cannot hold up
    the loop's shutdown or the interpreter's exit."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not fut.done():  # cut by its deadline already: nobody waits for it
            fut.set_result(value) if ok else fut.set_exception(value)

    def work() -> None:
        try:
            value, ok = fn(*args), True
        except BaseException as exc:  # handed to the waiting hook runner, which notes it
            value, ok = exc, False
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(settle, ok, value)

    threading.Thread(target=work, name="unifind-hook", daemon=True).start()
    return fut
