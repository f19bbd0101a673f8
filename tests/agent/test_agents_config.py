"""One agents section: legacy ``db.agents`` is read into ``agents`` and said so."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from unifind import ConfigError, load_settings

PROFILE = {"base_url": "http://127.0.0.1:1/v1", "model": "m"}


def test_legacy_db_agents_are_lifted_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = tmp_path / "unifind.yaml"
    cfg.write_text(
        "db:\n  generator: agent:sql\n  agents:\n    sql: {base_url: http://x/v1, model: m}\n"
    )
    with caplog.at_level(logging.WARNING, logger="unifind.config"):
        settings = load_settings(cfg)
    assert settings.agents == {"sql": {"base_url": "http://x/v1", "model": "m"}}
    assert "agents" not in settings.db
    assert settings.db["generator"] == "agent:sql"
    assert "db.agents is deprecated" in caplog.text and "sql" in caplog.text


def test_the_db_leg_sees_top_level_agents() -> None:
    from unifind.db.leg import DBLeg

    settings = load_settings(agents={"sql": PROFILE})
    leg = DBLeg.from_settings(settings)
    assert leg.config["agents"] == {"sql": PROFILE}


def test_same_name_defined_twice_differently_is_refused() -> None:
    other = {**PROFILE, "model": "other"}
    with pytest.raises(ConfigError, match=r"'w' is defined in both agents and db\.agents"):
        load_settings(agents={"w": PROFILE}, db={"agents": {"w": other}})
    same = load_settings(agents={"w": PROFILE}, db={"agents": {"w": PROFILE}})
    assert same.agents == {"w": PROFILE}
