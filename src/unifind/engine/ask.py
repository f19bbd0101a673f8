"""``Searcher.ask``: the agent pipeline (DESIGN §9) — plan → searches → references → answer.

Stages, each chosen by a ``uses`` string: intent and keywords (:mod:`unifind.agent.stages`),
attached parts (an ephemeral collection searched first, ``skip_threshold``), hooks
(:mod:`unifind.agent.hooks`), then the answer (:mod:`unifind.agent.answer`) with its
citation check (:mod:`unifind.agent.support`). Failures of a source, an LLM or a hook are
said in the answer, never raised; bad input raises InputError before anything runs.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from unifind.agent.deadline import deadline_at, left, within
from unifind.engine._util import new_request_id, only_report
from unifind.engine.otel import traced_ask
from unifind.engine.sync import SyncFacade
from unifind.errors import InputError
from unifind.types import Principal, Reason, SearchRequest, SearchResult, SearchResults, Status

if TYPE_CHECKING:  # the agent is imported by the methods that run it: a search needs none of it
    from unifind.agent.hooks import Hook, HookSearch
    from unifind.agent.layers import Layer
    from unifind.agent.models import Answer, AskEvent, Part, Plan

MAX_URL_CHARS = 200_000
"""Text kept of one attached URL (the rest is cut and the plan says so)."""
USER_COLLECTION = "_ask_{rid}"
"""The ephemeral collection of a request's attached parts (deleted when the ask ends)."""


def user_collection(rid: str) -> str:
    """:data:`USER_COLLECTION` of request ``rid``, by a digest of it: a request id may hold
    ``:`` or ``__``, which no collection name may (``kb._tenancy.NAME_PATTERN``)."""
    import hashlib

    return USER_COLLECTION.format(rid=hashlib.sha256(rid.encode()).hexdigest()[:16])


class Asking(SyncFacade):
    """The agent pipeline's entry points: :meth:`plan`, :meth:`ask`, :meth:`ask_stream`."""

    async def plan(
        self,
        message: str,
        *,
        parts: Sequence[Part] = (),
        uses: Mapping[str, str | None] | None = None,
        hooks: Sequence[Hook] = (),
        principal: Principal | None = None,
        request_id: str | None = None,
        assistant: str | None = None,
    ) -> Plan:
        """What :meth:`ask` would search, and why — without searching."""
        from unifind.agent.hooks import HookSearch
        from unifind.agent.layers import for_request

        rid = request_id or new_request_id()
        search = HookSearch(self, rid, principal, allowed=False)  # type: ignore[arg-type]
        layers = for_request(self.settings, assistant, uses)
        return await self._plan(message, parts, layers, hooks, search, rid)

    async def _plan(
        self,
        message: str,
        parts: Sequence[Part],
        layers: list[Layer],
        hooks: Sequence[Hook],
        search: HookSearch,
        rid: str,
        deadline: float | None = None,
    ) -> Plan:
        from unifind.agent import hooks as _hooks
        from unifind.agent.hooks import HookContext, run_hooks
        from unifind.agent.intent import Vocabulary, classify
        from unifind.agent.keywords import keywords as builtin_keywords
        from unifind.agent.layers import load_hook, merge, settle
        from unifind.agent.models import MAX_MESSAGE_CHARS, Plan
        from unifind.agent.stages import Terms, run_intent, run_keywords
        from unifind.agent.vocab import vocabulary

        cfg = merge(layers)  # the settings' and the request's; the hooks' come after them
        chosen = cfg.uses
        if not message.strip():
            raise InputError("the message is empty: write a question or a request")
        _check_parts(parts)
        notes: list[str] = []
        if len(message) > MAX_MESSAGE_CHARS:
            notes.append(f"message cut to {MAX_MESSAGE_CHARS:,} of {len(message):,} chars")
            message = message[:MAX_MESSAGE_CHARS]
        vocab, vnotes = Vocabulary(), list[str]()
        if chosen["intent"] == "builtin":
            vocab, vnotes = await vocabulary(self)  # type: ignore[arg-type]
        # An LLM or MCP stage that outlives the ask's deadline gives way to the builtin.
        i_uses, k_uses = chosen["intent"], chosen["keywords"]
        intent, inotes = await within(
            deadline,
            run_intent(i_uses, message, vocab, self.settings),
            _late("intent", i_uses, lambda: classify(message, vocab)),
        )
        terms, knotes = await within(
            deadline,
            run_keywords(k_uses, message, self.settings),
            _late("keywords", k_uses, lambda: Terms(builtin_keywords(message), [])),
        )
        words = terms.keywords
        # The attachments are searched first; the intent's legs after (unless skip_threshold).
        reqs = [_user_request(message, rid)] if parts else []
        reqs += [_auto_request(leg, message, words) for leg in intent.legs]
        # An LLM's rewrites are more KB and web requests, fused with the rest (the DB's
        # generator reads the message itself).
        reqs += [_rewritten(leg, q) for q in terms.queries for leg in intent.legs if leg != "db"]
        why = f"{len(parts)} attached part(s) searched first; {intent.why}" if parts else intent.why
        plan = Plan(
            search=bool(reqs),
            legs=sorted({r.type for r in reqs}, key=("kb", "web", "db").index),
            keywords=words,
            requests=reqs,
            why=why,
            uses=chosen,
            layers=dict(cfg.layers),
            notes=[*notes, *vnotes, *inotes, *knotes],
        )
        # Each hook has its own deadline, and none may outlive the ask's.
        hook_s = _hooks.HOOK_TIMEOUT_S
        if deadline is not None:
            hook_s = min(hook_s, left(deadline))
        ctx = HookContext(message, search)
        hooks = [*map(load_hook, cfg["hooks"]), *hooks]  # the configured ones first
        plan = await run_hooks(hooks, plan, ctx, timeout_s=hook_s)
        return settle(plan, layers, ctx.set_uses)

    async def ask(self, message: str, **kw: Any) -> Answer:
        """Plan, search, answer with citations and check them; see :meth:`ask_stream`."""
        answer: Answer | None = None
        async for ev in self.ask_stream(message, **kw):
            if ev.kind == "done":
                answer = ev.data["output"]
        assert answer is not None
        return answer

    @traced_ask  # an invoke_agent span when OpenTelemetry is on
    async def ask_stream(
        self,
        message: str,
        *,
        parts: Sequence[Part] = (),
        uses: Mapping[str, str | None] | None = None,
        hooks: Sequence[Hook] = (),
        principal: Principal | None = None,
        request_id: str | None = None,
        locale: str = "en",
        answer_uses: str | None = None,
        skip_threshold: int | None = None,
        top_n: int | None = None,
        deadline_s: float | None = None,
        assistant: str | None = None,
        samples: int | None = None,
        support: str | None = None,
    ) -> AsyncIterator[AskEvent]:
        """Events ``plan`` → ``leg`` (each backend report) → ``references`` →
        ``answer.delta``… → ``citations`` → ``done`` (``data["output"]``: the Answer), each
        with its progress line in ``locale``'s words (``en``, ``zh``) as ``message``.

        What is None here comes from the settings' ``ask:`` section, over which the named
        ``assistant``'s own values are layered (:mod:`unifind.agent.layers`).
        ``deadline_s`` (default ``ask.deadline_s``, 60 s) bounds the
        whole ask: searches still running then are cancelled and reported
        ``degraded``/``timeout``, the references gathered so far are kept, and the answer's
        note says the deadline cut it.

        ``samples`` > 1 asks the LLM that many times and keeps the answer whose citations
        check best; it is then streamed as one delta after the check. ``support`` picks the
        citation support model: ``lexical``, ``embed`` (default) or ``cross``."""
        from unifind.agent.hooks import HookSearch
        from unifind.agent.layers import for_request, merge
        from unifind.agent.models import AskEvent
        from unifind.engine._answering import answer_events, check_answer_options
        from unifind.engine._ask_progress import AskProgress

        t0 = time.perf_counter()
        asked = {"answer": answer_uses, **(uses or {})}  # uses["answer"] is the same setting
        layers = for_request(self.settings, assistant, asked, skip_threshold=skip_threshold,
                             top_n=top_n, deadline_s=deadline_s, samples=samples,
                             support=support)  # fmt: skip
        cfg = merge(layers)
        samples, support = cfg["samples"], cfg["support"]
        check_answer_options(samples, support)
        deadline = deadline_at(cfg["deadline_s"], t0)
        rid = request_id or new_request_id()
        search = HookSearch(self, rid, principal, allowed=True)  # type: ignore[arg-type]
        plan = await self._plan(message, parts, layers, hooks, search, rid, deadline)
        progress = AskProgress(locale)
        yield progress.said(AskEvent("plan", {**plan.public(), "request_id": rid}))
        user = user_collection(rid)
        try:
            if parts:
                await self._ingest_parts(user, parts, plan, principal, deadline)
            skip = cfg["skip_threshold"]
            results = await self._run_plan(plan, search, rid, principal, skip, deadline)
            for res in results:
                for rep in res.reports:
                    leg = AskEvent("leg", rep.model_dump(mode="json", exclude_none=True))
                    yield progress.said(leg)
        finally:
            if parts:
                self._drop_parts(user, principal)
        cut = _cut_note(deadline, t0, results)
        answer_uses = plan.uses["answer"]  # a hook may have chosen it
        if cut is not None:  # no time is left for an LLM: the best sentences of what came
            answer_uses = "none"
        async for ev in answer_events(
            self, message, plan, results, rid, answer_uses=answer_uses, top_n=cfg["top_n"], t0=t0,
            deadline=deadline, samples=samples, support_mode=support,
            max_chars=cfg["max_answer_chars"], principal=principal, judge=cfg["judge"],
        ):  # fmt: skip
            if ev.kind == "done" and cut is not None:
                ev.data["output"].note = cut
            yield progress.said(ev)

    async def _run_plan(
        self,
        plan: Plan,
        search: HookSearch,
        rid: str,
        principal: Principal | None,
        skip_threshold: int | None,
        deadline: float | None = None,
    ) -> list[SearchResult]:
        """The plan's requests: the user's first, then the rest unless they answered."""
        user = [r for r in plan.requests if r.source == "user"]
        rest = [r for r in plan.requests if r.source != "user"]
        # The attached parts' own collection is searched once, first: a KB request naming no
        # collection means every *other* collection the caller can see.
        hidden = {c for r in user for c in r.collections or ()}
        if hidden:
            rest = [self._except(r, hidden, principal) for r in rest]
        out: list[SearchResult] = list(search.results)
        kw: dict[str, Any] = {"request_id": rid, "principal": principal}
        if user:
            first = await self.all(user, record=False, **kw, timeout_s=_left(deadline))
            hits = sum(len(r.items) for r in first.results)
            if not hits and hidden:  # "summarise this": the question names nothing in them
                again = await self._parts_as_they_are(user, hidden, plan, kw, _left(deadline))
                first = again or first  # nothing attached was readable: keep the report
                hits = sum(len(r.items) for r in first.results)
            out += first.results
            if skip_threshold is not None and hits >= skip_threshold:
                plan.notes.append(
                    f"attached parts gave {hits} hits (skip_threshold {skip_threshold}): "
                    f"skipped {', '.join(r.type for r in rest) or 'nothing'}"
                )
                return out + [_skipped(r, hits, skip_threshold) for r in rest]
        if rest:
            res = await self.all(rest, **kw, timeout_s=_left(deadline))
            out += res.results
        return out

    async def _parts_as_they_are(
        self,
        user: list[SearchRequest],
        names: set[str],
        plan: Plan,
        kw: dict[str, Any],
        timeout_s: float | None,
    ) -> SearchResults | None:
        """The attached parts searched by their own titles and opening words, so a request
        about them as a whole ("summarise this") still gets them as references; None when
        no part could be read."""
        who = self._who(kw["principal"])
        docs = [d for n in sorted(names) for d in self.kb.documents(n, principal=who)]
        query = " ".join(d.title for d in docs if d.title) or " ".join(d.document_id for d in docs)
        if not query.strip():
            return None
        plan.notes.append("the question matched no words of the attached parts: used them whole")
        again = [r.model_copy(update={"query": query[:2000]}) for r in user]
        return await self.all(again, record=False, timeout_s=timeout_s, **kw)

    def _except(
        self, req: SearchRequest, hidden: set[str], principal: Principal | None
    ) -> SearchRequest:
        if req.type != "kb" or req.collections is not None:
            return req
        names = [c.name for c in self.kb.collections(principal=self._who(principal))]
        others = tuple(n for n in names if n not in hidden)
        return req.model_copy(update={"collections": others or tuple(hidden)})

    async def _ingest_parts(
        self,
        name: str,
        parts: Sequence[Part],
        plan: Plan,
        principal: Principal | None,
        deadline: float | None = None,
    ) -> None:
        """Attached parts into an ephemeral lexical collection; unreadable ones are named."""
        who = self._who(principal)
        self.kb.create(name, embedder=None, exist_ok=True, principal=who)
        pages = await self._fetch_urls([p.url for p in parts if p.url], plan, deadline)
        for i, part in enumerate(parts, start=1):
            try:
                if part.url is not None:
                    if (page := pages.get(part.url)) is not None:
                        title = part.title or page.title or part.url
                        self.kb.ingest_text(name, page.text, document_id=part.url, title=title,
                                            metadata={"url": page.final_url or part.url},
                                            principal=who)  # fmt: skip
                elif part.text is not None:
                    title = part.title or f"part {i}"
                    self.kb.ingest_text(name, part.text, document_id=f"part-{i}", title=title,
                                        principal=who)  # fmt: skip
                elif part.file is not None:
                    report = self.kb.ingest(name, [part.file], principal=who)
                    for bad in report.failures:
                        plan.notes.append(f"attached file not read: {bad.error or bad.path}")
            except Exception as exc:  # one unreadable part must not stop the others
                what = part.url or part.file or f"part {i}"
                plan.notes.append(f"attached {what} not read: {type(exc).__name__}: {exc}")

    async def _fetch_urls(
        self, urls: Sequence[str], plan: Plan, deadline: float | None
    ) -> dict[str, Any]:
        """The attached URLs' pages by the web leg's fetcher (its SSRF rules included);
        each one that can't be fetched is named in the plan's notes."""
        if not urls:
            return {}
        try:
            leg = self.leg("web")
            if leg is None:
                raise LookupError("no web leg in this build")
            got = await leg.fetch_many(
                list(dict.fromkeys(urls)), max_chars=MAX_URL_CHARS, timeout_s=_left(deadline)
            )
        except Exception as exc:  # a broken web config must not stop the other parts
            why = f"{type(exc).__name__}: {exc}"
            plan.notes += [f"attached URL not fetched: {u}: {why}" for u in urls]
            return {}
        pages: dict[str, Any] = {}
        for res in got:
            if res.ok and res.text.strip():
                pages[res.url] = res
                if res.truncated_chars:
                    plan.notes.append(f"attached URL {res.url} cut to {MAX_URL_CHARS:,} chars")
                continue
            why = res.report.error or getattr(res.report.reason, "value", "") or "no text"
            plan.notes.append(f"attached URL not fetched: {res.url}: {why}")
        return pages

    def _drop_parts(self, name: str, principal: Principal | None) -> None:
        with contextlib.suppress(Exception):
            self.kb.delete(name, principal=self._who(principal))


def _check_parts(parts: Sequence[Part]) -> None:
    for i, part in enumerate(parts, start=1):
        given = [k for k in ("text", "file", "url") if getattr(part, k) is not None]
        if len(given) != 1:
            got = ", ".join(given) or "none"
            raise InputError(f"attached part {i}: set exactly one of text, file, url (got {got})")
        if part.url is not None and not part.url.startswith(("http://", "https://")):
            raise InputError(f"attached URL {part.url!r}: write an http:// or https:// URL")


def _late(stage: str, uses: str, builtin: Callable[[], Any]) -> Callable[[], tuple[Any, list[str]]]:
    return lambda: (builtin(), [f"{stage} {uses} cut by the ask's deadline; used builtin"])


def _left(deadline: float | None) -> float | None:
    # 1 ms, not 0: the orchestrator reads 0 as "no deadline" in places; what starts after
    # the deadline is cut at once and reported as timed out.
    return None if deadline is None else max(left(deadline), 0.001)


def _cut_note(deadline: float, t0: float, results: Sequence[SearchResult]) -> str | None:
    """The answer's note when the overall deadline passed before it; None otherwise."""
    # 20 ms of slack: the orchestrator's clock may wake a hair before ours.
    if deadline - time.perf_counter() > 0.02:
        return None
    cut = [f"{r.leg}/{r.backend}" for res in results for r in res.reports
           if r.reason is Reason.TIMEOUT]  # fmt: skip
    what = f"{', '.join(cut)} cut" if cut else "nothing left for an answer"
    return (
        f"the ask's overall deadline of {deadline - t0:g} s passed before the answer ({what}): "
        "extractive answer from the references gathered so far"
    )


def _auto_request(leg: str, message: str, words: Sequence[str]) -> SearchRequest:
    # The web gets the keywords (providers match words); the KB's dense arm and the DB's
    # generator read the whole message better than a bag of words.
    query = " ".join(words) if leg == "web" and words else message
    return SearchRequest(type=leg, query=query, source="auto")  # type: ignore[arg-type]


def _rewritten(leg: str, query: str) -> SearchRequest:
    return SearchRequest(type=leg, query=query, source="auto")  # type: ignore[arg-type]


def _user_request(message: str, rid: str) -> SearchRequest:
    coll = (user_collection(rid),)
    return SearchRequest(type="kb", query=message, source="user", collections=coll)


def _skipped(req: SearchRequest, hits: int, threshold: int) -> SearchResult:
    text = f"skipped: the attached parts gave {hits} hits (skip_threshold {threshold})"
    return only_report(req, Status.SKIPPED, Reason.NOT_REQUESTED, text)
