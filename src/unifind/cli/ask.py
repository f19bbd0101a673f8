"""`unifind ask`: answer a message from the searches it needs, with checked citations.

A thin mapping of :meth:`unifind.Searcher.ask_stream`: the answer streams to stdout, the
citation check and every backend's status follow; ``--plan`` prints what would be searched
and why, without searching.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any

import typer
from rich.markup import escape

from unifind.cli._out import CONFIG_HELP, err_console, friendly_errors, print_json, settings_for
from unifind.errors import InputError


def register(app: typer.Typer) -> None:
    app.command("ask")(ask)


def ask(
    message: Annotated[str, typer.Argument(metavar="MESSAGE", help="The question or request.")],
    plan: Annotated[
        bool,
        typer.Option("--plan", help="Print the plan (legs, keywords, requests, why); no search."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON on stdout.")] = False,
    file: Annotated[
        list[str] | None,
        typer.Option("--file", metavar="PATH", help="Attach a file: searched first (repeatable)."),
    ] = None,
    text: Annotated[
        list[str] | None,
        typer.Option("--text", metavar="WORDS", help="Attach text: searched first (repeatable)."),
    ] = None,
    url: Annotated[
        list[str] | None,
        typer.Option(
            "--url",
            metavar="URL",
            help="Attach a web page (fetched under the web leg's SSRF rules): searched first "
            "(repeatable).",
        ),
    ] = None,
    answer: Annotated[
        str | None,
        typer.Option(
            metavar="USES",
            help="Who answers: agent:<profile> (default: the 'answer' profile), none.",
        ),
    ] = None,
    intent: Annotated[
        str | None,
        typer.Option(
            metavar="USES", help="Intent stage: builtin, none, agent:<p>, mcp:<server>.<tool>."
        ),
    ] = None,
    keywords: Annotated[
        str | None,
        typer.Option(
            metavar="USES", help="Keywords stage: builtin, none, agent:<p>, mcp:<server>.<tool>."
        ),
    ] = None,
    assistant: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Use this assistant's settings (assistants.NAME of the config, layered over "
            "ask:; flags win). See `unifind config show --explain`.",
        ),
    ] = None,
    skip_threshold: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="Skip the other legs when the attachments give this many hits."
        ),
    ] = None,
    deadline: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS",
            help="The whole ask's deadline (default 60): what is still running then is cut "
            "and reported; the answer says so.",
        ),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            min=1,
            max=8,
            help="Ask the LLM N times and keep the answer whose citations check best (with "
            "N > 1 it prints after the check instead of streaming; default: ask.samples, 1).",
        ),
    ] = None,
    support: Annotated[
        str | None,
        typer.Option(
            metavar="MODE", help="Citation support model: lexical, embed (default), cross."
        ),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(
            metavar="en|zh", help="Language of progress lines (default: telemetry.lang, en)."
        ),
    ] = None,
    kb: Annotated[
        list[str] | None,
        typer.Option(
            "--kb",
            metavar="COLLECTION",
            help="Search only this collection (repeatable; '' = every collection). With "
            "--kb, --web or --db only the legs named are searched; without, the intent "
            "stage chooses.",
        ),
    ] = None,
    web: Annotated[bool, typer.Option("--web", help="Search the web (see --kb).")] = False,
    db: Annotated[
        list[str] | None,
        typer.Option(
            "--db",
            metavar="MODEL",
            help="Search this declared database model (repeatable; '' = the models the "
            "question names). See --kb.",
        ),
    ] = None,
    config: Annotated[str | None, typer.Option(metavar="PATH", help=CONFIG_HELP)] = None,
) -> None:
    """Answer a message from the searches it needs, with every citation checked.

    The answer is followed by its references (id, title, where) on stdout; progress, every
    backend's status and the citation check go to stderr. Without an LLM, or when the LLM
    fails, the answer quotes the references' sentences that answer the question and the
    note says why.

    Exit status: 0 when there is an answer (the LLM's, or an extractive one with its note);
    1 when nothing was answered (no references to answer from, and no LLM answer); 2 on
    bad input.
    """
    from unifind.agent.models import Part
    from unifind.engine import Searcher

    parts = [Part(file=f) for f in file or ()] + [Part(text=t) for t in text or ()]
    parts += [Part(url=u) for u in url or ()]
    uses = {"intent": intent, "keywords": keywords}
    with friendly_errors():
        settings = settings_for(config)
        locale = _locale(lang, str(settings.telemetry.lang))
        searcher = Searcher(settings)
        try:
            if plan:
                out = asyncio.run(
                    searcher.plan(message, parts=parts, uses=uses, assistant=assistant)
                )
                if as_json:
                    print_json(out.public())
                else:
                    _print_plan(out.public(), locale)
                return
            kw: dict[str, Any] = {"parts": parts, "uses": uses, "answer_uses": answer,
                                  "deadline_s": deadline, "assistant": assistant,
                                  "samples": samples, "support": support}  # fmt: skip
            kw["locale"] = locale
            kw["hooks"] = _scope(searcher, message, kb, web, db)
            out = asyncio.run(
                _stream(searcher, message, as_json, skip_threshold=skip_threshold, **kw)
            )
        finally:
            searcher.close()
    if out is None or not out.text.strip():
        raise typer.Exit(1)  # nothing answered: the note on stderr (or in --json) says why


def _scope(
    searcher: Any, message: str, kb: list[str] | None, web: bool, db: list[str] | None
) -> list[Any]:
    """A hook searching only the legs --kb/--web/--db name (each collection checked now, so
    an unknown one is an error naming the valid ones); none when no leg is named."""
    from unifind.ops._ask import AskInput, sources_hook
    from unifind.ops.models import DBSource, KBSource, Sources

    if kb is None and not web and db is None:
        return []
    if any(":" in m for m in db or ()):
        raise InputError("--db names a declared model (see `unifind db models`), not a URL: "
                         "ask searches the configured database (db.url)")  # fmt: skip
    cols = [c for c in kb or () if c] or None
    for name in cols or ():
        searcher.kb.collection(name, principal=searcher.settings.principal)
    models = [m for m in db or () if m] or None
    scope = Sources(
        kb=KBSource(collections=cols) if kb is not None else None,
        web={} if web else None,  # type: ignore[arg-type]
        db=DBSource(models=models) if db is not None else None,
    )
    return [sources_hook(AskInput(message=message[:100_000], sources=scope), scope)]


def _locale(lang: str | None, default: str) -> str:
    """``--lang`` checked (an unsupported one is refused, naming the supported), else the
    settings' ``telemetry.lang``."""
    from unifind.errors import InputError
    from unifind.trace import MESSAGES, pick_locale

    if lang is not None and pick_locale(lang) != lang.replace("_", "-").split("-")[0].lower():
        raise InputError(f"--lang {lang!r}: choose one of {', '.join(MESSAGES)}")
    return pick_locale(lang or default)


async def _stream(searcher: Any, message: str, as_json: bool, **kw: Any) -> Any:
    """The ask, printed as it goes; its Answer (None if it never finished)."""
    open_line = False  # the answer's last line, not ended yet
    out = None
    try:
        async for ev in searcher.ask_stream(message, **kw):
            if ev.message and not as_json and ev.kind != "done":
                if open_line:  # on a terminal, progress would continue the answer's line
                    sys.stdout.write("\n")
                    open_line = False
                # Progress on stderr, in --lang's words; the answer alone goes to stdout.
                err_console.print(f"[dim]{escape(ev.message)}[/dim]")
            if ev.kind == "answer.delta" and not as_json:
                sys.stdout.write(ev.data["text"])
                sys.stdout.flush()
                open_line = not ev.data["text"].endswith("\n")
            elif ev.kind == "done":
                out = ev.data["output"]
                if as_json:
                    print_json(out.model_dump(mode="json", exclude_none=True))
                else:
                    _print_after(out, kw.get("locale", "en"))
    finally:
        await searcher.aclose()
    return out


def _print_references(out: Any, lang: str) -> None:
    """The references the answer cites (all of them when it cites none), one line each:
    id, title and where (collection: document, URL, or model#record)."""
    from unifind.cite import extract_citations
    from unifind.trace import label

    refs = out.references
    cited = set(extract_citations(out.text))
    shown = [r for r in refs if r.get("citation_id") in cited] or refs
    if not shown:
        return
    sys.stdout.write(f"{label(lang, 'column', 'references')}:\n")
    for ref in shown:
        title = ref.get("title") or "(untitled)"
        sys.stdout.write(f"[{ref.get('citation_id')}] {title} — {_where(ref)}\n")
    if len(shown) < len(refs):
        sys.stdout.write(f"(+{len(refs) - len(shown)} not cited: --json lists every one)\n")


def _where(ref: dict[str, Any]) -> str:
    if ref.get("url"):
        return str(ref["url"])
    if ref.get("type") == "db":
        record = ref.get("record_id")
        return f"{ref.get('model')}#{record}" if record is not None else str(ref.get("model"))
    doc = ref.get("document_id")
    return f"{ref.get('collection')}: {doc}" if doc else str(ref.get("collection") or ref["type"])


def _print_plan(plan: dict[str, Any], lang: str) -> None:
    from unifind.trace import SEPARATORS, message

    def say(key: str, **values: Any) -> None:
        err_console.print(escape(message(lang, key, **values)), soft_wrap=True)

    if not plan["search"]:
        say("plan_none", why=plan["why"])
        return
    say("plan_legs", legs=plan["legs"], keywords=SEPARATORS[lang].join(plan["keywords"]))
    for req in plan["requests"]:
        say("plan_request", leg=req["type"], source=req["source"], query=req["query"])
    say("plan_why", why=plan["why"])
    layers = plan.get("layers") or {}
    chosen = [f"{k}={v} ({layers.get('uses.' + k, '?')})" for k, v in plan["uses"].items()]
    say("plan_uses", details=", ".join(chosen))
    for note in plan.get("notes") or ():
        say("note", text=note)


def _print_after(out: Any, lang: str) -> None:
    from unifind.trace import message, report_line

    sys.stdout.write("\n")
    _print_references(out, lang)
    if out.note:
        err_console.print(f"[yellow]{escape(out.note)}[/]")
    for note in out.plan.notes:  # fallbacks, unreadable attachments, skipped legs
        err_console.print(escape(message(lang, "note", text=note)))
    for rep in out.reports:  # a KB answers by lexical and vector: report_line says which
        err_console.print(escape("  " + report_line(lang, rep.model_dump(mode="json"))))
    c = out.citations
    ids = f" ({', '.join(c.unknown)})" if c.unknown else ""
    err_console.print(escape(message(
        lang, "ask_citations_line", valid=len(c.valid), unknown=len(c.unknown), ids=ids,
        unsupported=len(c.unsupported), checked=c.checked_sentences,
    )))  # fmt: skip
    if c.verdicts:  # issue #20: each flagged (sentence, id) pair and the source that decided
        _print_verdicts(c.verdicts, lang)
    else:
        for bad in c.unsupported:
            line = message(lang, "ask_unsupported", score=f"{bad.score:.2f}", sentence=bad.sentence)
            err_console.print(escape(line))
    if c.support_note:
        err_console.print(f"[yellow]{escape(c.support_note)}[/]")
    if c.note:  # sentences the deadline left unchecked: neither passed nor failed
        err_console.print(f"[yellow]{escape(c.note)}[/]")
    if out.samples:
        kept = next((i for i, s in enumerate(out.samples, 1) if s.kept), None)
        err_console.print(escape(message(lang, "ask_samples", n=len(out.samples), kept=kept)))


def _print_verdicts(verdicts: Any, lang: str) -> None:
    """Every verdict other than ``supported``, with the source sentence that decided it."""
    from unifind.trace import message

    for v in verdicts:
        if v.verdict == "supported":
            continue
        cite = f" [{v.citation}]" if v.citation else ""
        kind = message(lang, f"verdict_{v.verdict}")
        line = message(lang, "ask_verdict", verdict=kind, cite=cite, sentence=v.sentence,
                       reason=v.reason)  # fmt: skip
        err_console.print(escape(line), soft_wrap=True)
        if v.evidence is not None:
            src = message(lang, "ask_verdict_source", cite=f"[{v.evidence.citation_id}]",
                          source=v.evidence.sentence)  # fmt: skip
            err_console.print(escape(src), soft_wrap=True)
