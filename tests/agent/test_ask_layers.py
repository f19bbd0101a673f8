"""The ask pipeline under layered configuration (issue #10): the settings' ``ask:``, a named
assistant, configured hooks, a hook choosing the answer, and the request, each named in the
plan's ``layers``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind import load_settings
from unifind.agent.models import Plan
from unifind.cli import app
from unifind.engine import Searcher
from unifind.errors import UnknownName

HOOKS = """
def tag(plan, ctx):
    plan.notes.append("configured hook ran")


def big_answer(plan, ctx):
    plan.uses["answer"] = "none"
    plan.uses["intent"] = "none"  # too late: the intent already ran
"""

CONFIG = """\
home: {home}
kb: {{embedder: hash}}
ask:
  top_n: 5
  hooks: ["layer_hooks:tag"]
assistants:
  support: {{uses: {{keywords: none}}, top_n: 1}}
  quiet: {{uses: {{intent: none}}}}
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "layer_hooks.py").write_text(HOOKS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "unifind.yaml"
    path.write_text(CONFIG.format(home=tmp_path / "home"), encoding="utf-8")
    s = Searcher(load_settings(path))
    s.kb.create("handbook", embedder=None)
    s.kb.ingest_text("handbook", "Refunds are issued within 30 days.", document_id="r")
    s.kb.ingest_text("handbook", "Refund requests need a receipt.", document_id="q")
    s.close()
    return path


@pytest.fixture
def searcher(config: Path) -> Iterator[Searcher]:
    s = Searcher(load_settings(config))
    yield s
    s.close()


async def test_the_plan_names_the_layer_of_every_value(searcher: Searcher, config: Path) -> None:
    where = f"file:{config.absolute()}"
    plan = await searcher.plan("what is our refund window?", assistant="support")
    assert plan.uses == {"intent": "builtin", "keywords": "none", "answer": "builtin"}
    assert plan.keywords == []  # the assistant's keywords: none
    assert plan.layers["uses.keywords"] == "assistant:support"
    assert plan.layers["top_n"] == "assistant:support"
    assert plan.layers["hooks"] == where and "configured hook ran" in plan.notes
    assert plan.layers["uses.intent"] == plan.layers["deadline_s"] == "default"
    mine = await searcher.plan("what is our refund window?", uses={"keywords": "builtin"},
                               assistant="support")  # fmt: skip
    assert mine.keywords and mine.layers["uses.keywords"] == "request"
    quiet = await searcher.plan("what is our refund window?", assistant="quiet")
    assert not quiet.search and quiet.layers["uses.intent"] == "assistant:quiet"
    with pytest.raises(UnknownName, match="valid: quiet, support"):
        await searcher.plan("what is our refund window?", assistant="sales")


async def test_an_assistant_sets_top_n_and_a_hook_the_answer(searcher: Searcher) -> None:
    def pick(plan: Plan, ctx: object) -> None:
        plan.uses["answer"] = "agent:nowhere"  # would fail: the request's value must win

    wide = await searcher.ask("what is our refund window?")
    narrow = await searcher.ask("what is our refund window?", assistant="support")
    assert len(wide.references) == 2 and len(narrow.references) == 1

    from layer_hooks import big_answer  # type: ignore[import-not-found]

    out = await searcher.ask("what is our refund window?", hooks=[big_answer])
    assert out.plan.uses["answer"] == "none" and out.llm is None
    assert out.plan.layers["uses.answer"] == "hook:layer_hooks.big_answer"
    assert out.plan.uses["intent"] == "builtin" and out.plan.layers["uses.intent"] == "default"
    assert any("set uses.intent after that stage ran" in n for n in out.plan.notes)
    out = await searcher.ask("what is our refund window?", hooks=[pick], answer_uses="none")
    assert out.plan.layers["uses.answer"] == "request" and out.llm is None
    assert any("the request's 'none' stands" in n for n in out.plan.notes)


def test_cli_plan_json_shows_uses_and_layers(config: Path) -> None:
    res = CliRunner().invoke(
        app,
        ["ask", "what is our refund window?", "--plan", "--json", "--assistant", "support",
         "--intent", "builtin", "--config", str(config)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    plan = json.loads(res.stdout)
    assert plan["uses"]["keywords"] == "none"
    assert plan["layers"]["uses.keywords"] == "assistant:support"
    assert plan["layers"]["uses.intent"] == "request"
    bad = CliRunner().invoke(app, ["ask", "hi", "--plan", "--assistant", "x", "--config",
                                   str(config)])  # fmt: skip
    assert bad.exit_code != 0 and "unknown assistant" in bad.output


async def test_the_ask_operation_takes_an_assistant(config: Path) -> None:
    from unifind.errors import InputError
    from unifind.ops import AskInput
    from unifind.ops.service import Operations

    ops = Operations(Searcher(load_settings(config)))
    try:
        out = await ops.ask(AskInput(message="what is our refund window?", assistant="support"))
        assert len(out.references) == 1 and out.plan.layers["top_n"] == "assistant:support"
        with pytest.raises(InputError, match=r"unknown assistant .*valid: quiet, support"):
            await ops.ask(AskInput(message="what is our refund window?", assistant="sales"))
    finally:
        ops.searcher.close()


async def test_an_assistant_chooses_samples_and_the_support_model(tmp_path: Path) -> None:
    from unifind.testing.openai_server import OpenAIServer

    reply = "Refunds are issued within 30 days [ref_001]."
    with OpenAIServer() as srv:
        settings = load_settings(
            home=tmp_path,
            kb={"embedder": "hash"},
            agents={"answer": {"base_url": srv.base_url, "model": "m"}},
            assistants={"careful": {"samples": 2, "support": "lexical"}},
        )
        s = Searcher(settings)
        s.kb.create("handbook", embedder=None)
        s.kb.ingest_text("handbook", "Refunds are issued within 30 days.", document_id="r")
        srv.script_chat(reply, reply, reply)
        try:
            out = await s.ask("what is our refund window?", assistant="careful")
            once = await s.ask("what is our refund window?", assistant="careful", samples=1)
        finally:
            s.close()
        chats = [r for r in srv.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 3  # two samples, then one the request asked for
    assert len(out.samples) == 2 and out.citations.support == "lexical"
    assert out.plan.layers["samples"] == out.plan.layers["support"] == "assistant:careful"
    assert once.plan.layers["samples"] == "request" and not once.samples
