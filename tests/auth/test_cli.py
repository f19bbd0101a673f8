"""`unifind keys` and the kb commands' tenancy, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.cli import app
from unifind.store.keys import KeyStore
from unifind.types import Principal

runner = CliRunner()


@pytest.fixture(autouse=True)
def _fast_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNIFIND_EMBEDDER", "hash")


def run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_keys_create_list_revoke() -> None:
    code, out, err = run("keys", "create", "--tenant", "acme", "--user", "ana",
                         "--role", "support", "--role", "billing", "--name", "laptop")  # fmt: skip
    assert code == 0, err
    key = out.strip()
    assert key.startswith("uf_") and "won't be shown again" in err
    key_id = key.split("_")[1]
    assert key_id in err

    store = KeyStore.from_settings(load_settings())
    principal = store.verify(key)
    assert principal is not None
    assert principal == Principal(tenant="acme", user="ana", roles=("support", "billing"))

    code, out, _ = run("keys", "list")
    assert code == 0 and key_id in out and "live" in out
    assert key.split("_", 2)[2] not in out
    code, out, _ = run("keys", "list", "--json")
    [listed] = json.loads(out)
    assert (listed["key_id"], listed["name"]) == (key_id, "laptop")
    assert listed["roles"] == ["support", "billing"]
    assert key.split("_", 2)[2] not in out

    code, out, _ = run("keys", "revoke", key_id)
    assert code == 0 and f"revoked {key_id}" in out
    assert KeyStore.from_settings(load_settings()).verify(key) is None
    code, out, _ = run("keys", "revoke", key_id)
    assert code == 0 and "already revoked" in out
    code, out, _ = run("keys", "list", "--live-only", "--json")
    assert json.loads(out) == []


def test_keys_create_json_and_bad_input() -> None:
    code, out, _ = run("keys", "create", "--tenant", "acme", "--user", "ana", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["key"].startswith(f"uf_{data['key_id']}_") and data["roles"] == []
    code, _, err = run("keys", "create", "--tenant", " ", "--user", "ana")
    assert code == 2 and "tenant must be a non-empty string" in err
    code, _, err = run("keys", "revoke", "nope")
    assert code == 2 and "unknown API key 'nope'" in err and data["key_id"] in err
    code, _, err = run("keys", "create", "--user", "ana")
    assert code == 2 and "--tenant" in err


def test_kb_create_with_an_owner_and_who_sees_it(tmp_path: Path, unifind_home: Path) -> None:
    code, out, err = run("kb", "create", "acme-docs", "--tenant", "acme", "--role", "support",
                         "--user", "bob")  # fmt: skip
    assert code == 0, err
    assert "owner: acme (roles support; users bob)" in " ".join(out.split())
    assert run("kb", "create", "handbook")[0] == 0
    code, out, _ = run("kb", "list", "--json")
    owners = {c["name"]: c["owner"] for c in json.loads(out)}
    assert owners == {"acme-docs": "acme", "handbook": "shared"}
    code, out, _ = run("kb", "list")
    assert "shared" in out and "acme" in out

    doc = tmp_path / "refunds.md"
    doc.write_text("# Refunds\n\nRefunds are paid within 30 days.\n")
    assert run("kb", "ingest", "acme-docs", str(doc))[0] == 0  # the operator provisions it

    # `search` acts as the configured principal: none configured, nothing of acme's.
    code, _, err = run("search", "refunds", "--kb", "acme-docs")
    assert code == 2 and "unknown collection 'acme-docs'" in err

    config = tmp_path / "unifind.yaml"
    config.write_text("principal: {tenant: acme, user: ana, roles: [support]}\n")
    runner.env = {"UNIFIND_CONFIG": str(config)}
    try:
        code, out, err = run("search", "refunds", "--kb", "acme-docs", "--json")
        assert code == 0, err
        assert json.loads(out)["items"][0]["title"] == "Refunds"
        code, out, _ = run("kb", "list", "--json")  # kb commands act as it too
        assert {c["name"] for c in json.loads(out)} == {"acme-docs", "handbook"}
        code, _, err = run("kb", "create", "globex-docs", "--tenant", "globex")
        assert code == 2 and "can't create a collection owned by 'globex'" in err
    finally:
        runner.env = {}

    # A key made by the CLI reaches the same collection through the library.
    code, key, _ = run("keys", "create", "--tenant", "acme", "--user", "ana", "--role", "support")
    principal = KeyStore.from_settings(load_settings()).verify(key.strip())
    with KnowledgeBase.open(load_settings()) as kb:
        req = SearchRequest(type="kb", query="refunds", mode="text")
        assert {i.collection for i in kb.search_sync(req, principal=principal).items} == {
            "acme-docs"
        }
        assert kb.search_sync(req).items == ()
