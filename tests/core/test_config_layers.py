"""Layered configuration (issue #10): the ``ask`` and ``assistants`` sections, which layer
set each value, and unknown keys refused at every depth."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from unifind import ConfigError, load_settings
from unifind._sections import DBSection, Timeouts
from unifind.agent.layers import hook_layers, merge, request_layer, settings_layers
from unifind.config import Settings
from unifind.errors import InputError, UnknownName

CONFIG = """\
ask:
  uses: {intent: "agent:fast"}
  top_n: 6
assistants:
  support: {uses: {keywords: none}, skip_threshold: 2}
  terse: {top_n: 3}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "unifind.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def models_under(annotation: Any) -> set[type[BaseModel]]:
    """Every pydantic model an annotation can hold (``dict[str, X]``, ``X | None`` ...)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found = {annotation}
        for field in annotation.model_fields.values():
            found |= models_under(field.annotation)
        return found
    return {m for arg in typing.get_args(annotation) for m in models_under(arg)}


def test_every_model_in_the_settings_tree_forbids_unknown_keys() -> None:
    # web:, db: and timeouts: are mappings checked by their own models; the web's extras
    # are plug sections, which WebSection refuses unless they are mappings (tested below).
    tree = models_under(Settings)
    tree |= {DBSection, Timeouts}
    names = {m.__name__ for m in tree}
    assert {"Settings", "KBSettings", "ServerSettings", "AskSection", "AskUses"} <= names
    lax = sorted(m.__name__ for m in tree if m.model_config.get("extra") != "forbid")
    assert lax == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("assistants: {x: {uses: {intnt: builtin}}}", "assistants.x.uses.intnt: unknown key "
         "(did you mean 'intent'?)"),
        ("assistants: {x: {top: 3}}", "assistants.x.top: unknown key (did you mean 'top_n'?)"),
        ("ask: {uses: {answr: none}}", "ask.uses.answr: unknown key (did you mean 'answer'?)"),
        ("ask: {hook: [a.b]}", "did you mean 'hooks'"),
        ("ask: {uses: {intent: smart}}", "intent uses 'smart': write builtin, none"),
        ("assistants: {x: {uses: {answer: 'mcp:s.t'}}}", "answer uses 'mcp:s.t'"),
        ("ask: {top_n: 0}", "ask.top_n: Input should be greater than or equal to 1"),
        ("web: {timeout_s: 3, tavily: 7}", "unknown key 'tavily'"),
    ],
)  # fmt: skip
def test_unknown_keys_and_bad_values_are_refused_at_every_depth(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError, match="invalid configuration") as err:
        load_settings(write(tmp_path, text))
    assert message in str(err.value)


def test_each_value_names_the_layer_that_set_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, CONFIG + "kb: {chunk_chars: 900}\n")
    monkeypatch.setenv("UNIFIND_ASK_USES_ANSWER", "none")
    monkeypatch.setenv("UNIFIND_KB_RRF_K", "30")
    s = load_settings(path, records=False)
    layers = s.layers()
    where = f"file:{path.absolute()}"
    assert layers["kb.chunk_chars"] == layers["ask.top_n"] == layers["ask.uses.intent"] == where
    assert layers["assistants.support.skip_threshold"] == where
    assert layers["ask.uses.answer"] == "env:UNIFIND_ASK_USES_ANSWER"
    assert s.ask.uses.answer == "none"
    assert layers["kb.rrf_k"] == "env:UNIFIND_KB_RRF_K"
    assert layers["records"] == "argument"
    assert layers["kb.store"] == layers["ask.uses.keywords"] == layers["server.port"] == "default"
    # An assistant holds what it sets, nothing more: its defaults would read as choices.
    assert s.model_dump()["assistants"] == {
        "support": {"uses": {"keywords": "none"}, "skip_threshold": 2},
        "terse": {"top_n": 3},
    }


def test_settings_made_in_code_say_so() -> None:
    s = Settings(ask={"top_n": 4})  # type: ignore[arg-type]  # pydantic validates the dict
    assert s.layer_of("ask.top_n") == "settings" and s.layer_of("ask.hooks") == "default"


def test_the_layers_merge_in_order_and_remember_who_set_each_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, CONFIG)
    monkeypatch.setenv("UNIFIND_ASK_DEADLINE_S", "20")
    s = load_settings(path)
    where = f"file:{path.absolute()}"
    base = settings_layers(s, "support")
    hooked, notes = hook_layers(
        {"intent": "none", "answer": "agent:big"},
        {"intent": "app.late", "answer": "app.pick"},
        ran=("intent", "keywords"),
    )
    assert notes == ["hook app.late set uses.intent after that stage ran: ignored"]
    cfg = merge([*base, *hooked, request_layer({"keywords": "builtin"}, top_n=None)])
    assert cfg.uses == {"intent": "agent:fast", "keywords": "builtin", "answer": "agent:big"}
    assert cfg.layers == {
        "uses.intent": where,
        "uses.keywords": "request",  # the assistant said none; the request wins
        "uses.answer": "hook:app.pick",
        "skip_threshold": "assistant:support",
        "top_n": where,  # a None in the request sets nothing
        "hooks": "default",
        "samples": "default",
        "support": "default",
        "deadline_s": "env:UNIFIND_ASK_DEADLINE_S",
        "max_answer_chars": "default",
        "judge": "default",
    }
    assert cfg["deadline_s"] == 20.0 and cfg["skip_threshold"] == 2
    terse = merge(settings_layers(s, "terse"))
    assert terse["top_n"] == 3 and terse.layers["top_n"] == "assistant:terse"
    assert terse["skip_threshold"] is None


def test_an_unknown_assistant_or_stage_is_refused_by_name(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path, CONFIG))
    with pytest.raises(UnknownName, match=r"unknown assistant .*'sales'; valid: support, terse"):
        settings_layers(s, "sales")
    with pytest.raises(InputError, match="unknown stage 'rerank'"):
        request_layer({"rerank": "builtin"})
    with pytest.raises(InputError, match=r"uses\.intent: .*write builtin"):
        request_layer({"intent": "smart"})
    with pytest.raises(InputError, match="top_n"):
        request_layer(top_n=0)
    _, notes = hook_layers({"answer": "mcp:x.y"}, {"answer": "app.bad"}, ran=())
    assert notes and "answer uses 'mcp:x.y'" in notes[0]


def test_hooks_from_the_environment_are_a_comma_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNIFIND_ASK_HOOKS", "app.hooks:one, app.hooks.two")
    assert load_settings().ask.hooks == ["app.hooks:one", "app.hooks.two"]
