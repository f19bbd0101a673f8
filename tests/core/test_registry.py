"""Registries: lazy, loud about unknown names, built-ins like plug-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

from unifind._deps import require
from unifind.config import load_settings
from unifind.errors import ConfigError, MissingDependency, UnknownName
from unifind.registry import Registry, register, registry


def test_unknown_name_lists_valid_ones() -> None:
    reg: Registry[object] = Registry("widgets", {"a": "json:dumps", "b": "json:loads"})
    with pytest.raises(UnknownName, match=r"unknown widget 'c'; valid: a, b"):
        reg.get("c")


def test_lazy_string_targets_load_on_use() -> None:
    import json

    reg: Registry[object] = Registry("widgets", {"dumps": "json:dumps"})
    assert reg.get("dumps") is json.dumps


def test_register_decorator_and_override() -> None:
    @register("test_kind", "mine")
    class Mine:
        pass

    assert registry("test_kind").get("mine") is Mine
    registry("test_kind").unregister("mine")
    assert "mine" not in registry("test_kind")


def test_builtins_are_registered() -> None:
    assert "sqlite" in registry("kb_stores").names()
    assert {"bge-small-en-v1.5", "hash", "openai", "onnx"} <= set(registry("embedders").names())


def test_missing_dependency_names_the_extra() -> None:
    with pytest.raises(MissingDependency, match=r'pip install "unifind\[postgres\]"'):
        require("surely_not_installed_pkg_xyz", "postgres")
    assert require("json").dumps


def test_config_file_mistakes_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "unifind.yaml"
    bad.write_text("kbb:\n  embedder: hash\n")
    with pytest.raises(
        ConfigError, match=r"unifind\.yaml: kbb: unknown key \(did you mean 'kb'\?\)"
    ):
        load_settings(bad)
    bad.write_text("kb:\n  fusion: magic\n")
    with pytest.raises(
        ConfigError, match=r"kb.fusion: Input should be 'adaptive', 'convex' or 'rrf'"
    ):
        load_settings(bad)
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_settings(bad)
    good = tmp_path / "ok.yaml"
    good.write_text("kb:\n  fusion: convex\nagents:\n  judge: {model: m, base_url: http://x}\n")
    settings = load_settings(good)
    assert settings.kb.fusion == "convex" and settings.agents["judge"]["model"] == "m"


def test_a_known_name_resolves_without_reading_entry_points(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Scanning every installed distribution's entry points costs ~10-20 ms a process (#18);
    # an entry point never replaces a known name, so resolving one needs no scan.
    import unifind.registry as reg_module

    scans: list[str] = []

    def entry_points(group: str) -> list[object]:
        scans.append(group)
        return []

    monkeypatch.setattr(reg_module, "entry_points", entry_points)
    reg: Registry[object] = Registry("widgets", {"dumps": "json:dumps"})
    assert reg.get("dumps") and "dumps" in reg and scans == []
    assert "loads" not in reg and scans == ["unifind.widgets"]  # an unknown name scans, once
    assert reg.names() == ["dumps"] and scans == ["unifind.widgets"]


def test_entry_points_keep_their_place_and_never_return_a_removed_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from importlib.metadata import EntryPoint

    import unifind.registry as reg_module

    eps = [
        EntryPoint("dumps", "json:loads", "unifind.widgets"),  # shadowed by the built-in
        EntryPoint("plug", "json:JSONDecoder", "unifind.widgets"),
    ]
    monkeypatch.setattr(reg_module, "entry_points", lambda group: eps)
    reg: Registry[object] = Registry("widgets", {"dumps": "json:dumps"})
    reg.get("dumps")  # no scan needed for this one
    reg.register("late", "json:JSONEncoder")
    assert reg.names() == ["dumps", "plug", "late"]  # as if scanned at the first use

    other: Registry[object] = Registry("widgets", {"dumps": "json:dumps"})
    other.get("dumps")
    other.unregister("dumps")  # the shadowed entry point does not take its place
    with pytest.raises(UnknownName):
        other.get("dumps")
