"""The ask pipeline's settings, merged by layer (DESIGN §9, issue #10).

``default`` < global (the file's ``ask:``, its ``UNIFIND_ASK_*`` overrides) < assistant
(``assistants.<name>``, only what it sets) < hook (``ctx.uses``) < request. Values are
dotted keys of :class:`~unifind._sections.AskSection` (``uses.intent``, ``top_n``); each
effective value keeps the name of the layer that set it: ``default``, ``file:<path>``,
``env:<VAR>``, ``argument``, ``settings`` (set in code), ``assistant:<name>``,
``hook:<module.function>`` or ``request``. Pure: no I/O but importing configured hooks.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from unifind._sections import AskSection
from unifind.agent.models import Plan
from unifind.config import Settings, flatten
from unifind.errors import ConfigError, InputError, UnknownName, describe
from unifind.registry import registry

STAGES = ("intent", "keywords", "answer")
"""The stages a ``uses`` string chooses, in the order they run."""

Layer = tuple[str, Mapping[str, Any]]
"""A layer's name and the dotted keys it sets."""


@dataclass(frozen=True)
class AskConfig:
    """The effective ask settings and, per dotted key, the layer that set each."""

    values: Mapping[str, Any]
    layers: Mapping[str, str]

    @property
    def uses(self) -> dict[str, str]:
        return {stage: str(self.values[f"uses.{stage}"]) for stage in STAGES}

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


def merge(layers: Iterable[Layer]) -> AskConfig:
    """The layers in order, a later one's value winning key by key."""
    values: dict[str, Any] = {}
    named: dict[str, str] = {}
    for name, layer in layers:
        for key, value in layer.items():
            values[key], named[key] = value, name
    return AskConfig(values, named)


def settings_layers(settings: Settings, assistant: str | None = None) -> list[Layer]:
    """``default``, the global ``ask:`` split by where each value came from, then the
    assistant's own values; an unknown assistant is refused naming the configured ones."""
    out: list[Layer] = [("default", flatten(AskSection().model_dump(mode="json")))]
    where = settings.layers("ask")
    grouped: dict[str, dict[str, Any]] = {}
    for key, value in flatten(settings.ask.model_dump(mode="json")).items():
        layer = where.get(f"ask.{key}", "default")
        if layer != "default":
            grouped.setdefault(layer, {})[key] = value
    out += grouped.items()
    if assistant is not None:
        if assistant not in settings.assistants:
            raise UnknownName("assistant (settings.assistants)", assistant, settings.assistants)
        own = settings.assistants[assistant].model_dump(mode="json", exclude_unset=True)
        out.append((f"assistant:{assistant}", flatten(own)))
    return out


def for_request(
    settings: Settings,
    assistant: str | None,
    uses: Mapping[str, str | None] | None = None,
    **values: Any,
) -> list[Layer]:
    """Every layer of one request but its hooks': default, global, assistant, request."""
    return [*settings_layers(settings, assistant), request_layer(uses, **values)]


def settle(plan: Plan, layers: list[Layer], set_uses: Mapping[str, str]) -> Plan:
    """The plan's ``uses`` and ``layers`` once its hooks ran: what a hook set (``set_uses``:
    stage → hook) sits above the assistant and below the request, whose layer is last."""
    hooked, notes = hook_layers(plan.uses, set_uses, ran=("intent", "keywords"))
    cfg = merge([*layers[:-1], *hooked, layers[-1]])
    for key, value in layers[-1][1].items():
        if any(key in layer for _, layer in hooked):
            notes.append(f"a hook set {key}; the request's {value!r} stands")
    plan.uses, plan.layers = cfg.uses, dict(cfg.layers)
    plan.notes += notes
    return plan


def request_layer(uses: Mapping[str, str | None] | None = None, **values: Any) -> Layer:
    """The request's own values (None: not set), checked as the config's are."""
    for stage in uses or {}:
        if stage not in STAGES:
            raise InputError(f"unknown stage {stage!r} in uses; stages: {', '.join(STAGES)}")
    data = {f"uses.{s}": v for s, v in (uses or {}).items() if v is not None}
    data.update({k: v for k, v in values.items() if v is not None})
    return "request", checked(data)


def checked(data: Mapping[str, Any]) -> dict[str, Any]:
    """Dotted ask values validated by :class:`AskSection` (InputError naming the key)."""
    nested: dict[str, Any] = {}
    for key, value in data.items():
        head, _, tail = key.partition(".")
        if tail:
            nested.setdefault(head, {})[tail] = value
        else:
            nested[key] = value
    try:
        section = AskSection.model_validate(nested)
    except ValidationError as exc:
        raise InputError(describe(exc)) from exc
    return flatten(section.model_dump(mode="json", exclude_unset=True))


def hook_layers(
    uses: Mapping[str, str], set_by: Mapping[str, str], ran: Iterable[str]
) -> tuple[list[Layer], list[str]]:
    """What hooks set in ``ctx.uses``, as layers; a stage that already ran or a value of
    the wrong form is not taken, and the notes say so."""
    layers: list[Layer] = []
    notes: list[str] = []
    done = set(ran)
    for stage, hook in set_by.items():
        value = uses.get(stage)
        if stage not in STAGES or value is None:
            notes.append(f"hook {hook} set uses.{stage}: stages are {', '.join(STAGES)}; ignored")
            continue
        if stage in done:
            notes.append(f"hook {hook} set uses.{stage} after that stage ran: ignored")
            continue
        try:
            layers.append((f"hook:{hook}", checked({f"uses.{stage}": value})))
        except InputError as exc:
            notes.append(f"hook {hook} set {exc}: ignored")
    return layers, notes


def load_hook(path: str) -> Any:
    """The callable at an import path, ``pkg.mod:fn`` or ``pkg.mod.fn``, or registered under
    a plain name (an entry point in the ``unifind.hooks`` group, or
    ``registry("hooks").register``) (``ask.hooks``)."""
    if "." not in path and ":" not in path:
        try:
            hook = registry("hooks").get(path)
        except UnknownName as exc:
            raise ConfigError(f"ask.hooks: {exc}; or write an import path, mypkg.hooks:fn") from exc
        if not callable(hook):
            raise ConfigError(f"ask.hooks: {path!r} is not callable")
        return hook
    module, sep, attr = path.partition(":")
    if not sep:
        module, _, attr = path.rpartition(".")
    try:
        hook = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(
            f"ask.hooks: cannot load {path!r} ({type(exc).__name__}: {exc}); write "
            "an importable module and function, e.g. mypkg.hooks:add_faq"
        ) from exc
    if not callable(hook):
        raise ConfigError(f"ask.hooks: {path!r} is not callable")
    return hook
