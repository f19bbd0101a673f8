"""OpenAIEmbedder against the loopback OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from unifind.embed.base import Embedder, resolve_embedder
from unifind.embed.openai import OpenAIEmbedder, build_request, parse_response
from unifind.errors import ConfigError, EmbedderMismatch, SourceError
from unifind.testing.embedder import EmbedderConformance
from unifind.testing.fakes import HashEmbedder
from unifind.testing.openai_server import OpenAIServer, Reply

ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "UNIFIND_OPENAI_BASE_URL")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def srv() -> Iterator[OpenAIServer]:
    with OpenAIServer(embed_dim=48) as server:
        yield server


@pytest.fixture
def emb(srv: OpenAIServer) -> Iterator[OpenAIEmbedder]:
    e = OpenAIEmbedder("test-embed", base_url=srv.base_url, batch_size=4, timeout=2)
    yield e
    e.close()


class TestOpenAIConformance(EmbedderConformance):
    @pytest.fixture
    def embedder(self, emb: OpenAIEmbedder) -> Embedder:
        return emb


def test_vectors_are_the_servers(emb: OpenAIEmbedder, srv: OpenAIServer) -> None:
    texts = [f"text {i}" for i in range(10)]
    expected = HashEmbedder(48).embed_documents(texts)
    np.testing.assert_allclose(emb.embed_documents(texts), expected, atol=1e-6)
    posts = [r for r in srv.requests if r.path == "/v1/embeddings"]
    assert [len(r.json["input"]) for r in posts] == [4, 4, 2]  # batched by batch_size
    assert posts[0].json == {
        "model": "test-embed",
        "input": texts[:4],
        "encoding_format": "float",
    }


def test_dim_is_learned_from_the_first_answer(emb: OpenAIEmbedder, srv: OpenAIServer) -> None:
    assert emb.dim == 48
    assert len(srv.requests) == 1
    emb.embed_documents(["x"])
    assert emb.dim == 48 and len(srv.requests) == 2


def test_given_dim_is_checked(srv: OpenAIServer) -> None:
    emb = OpenAIEmbedder("test-embed", base_url=srv.base_url, dim=10)
    assert emb.dim == 10 and not srv.requests
    with pytest.raises(SourceError, match=r"48-d vectors.*expected 10") as info:
        emb.embed_documents(["x"])
    assert info.value.reason.value == "bad_response"


def test_dimensions_sent_only_to_text_embedding_3(srv: OpenAIServer) -> None:
    emb = OpenAIEmbedder("text-embedding-3-small", base_url=srv.base_url, dim=32)
    assert emb.embed_documents(["x"]).shape == (1, 32)
    assert srv.requests[-1].json["dimensions"] == 32
    assert OpenAIEmbedder("text-embedding-3-large", base_url=srv.base_url).dim == 3072


def test_blank_texts_are_not_sent(emb: OpenAIEmbedder, srv: OpenAIServer) -> None:
    rows = emb.embed_documents(["", "hello", "  "])
    assert not rows[0].any() and not rows[2].any()
    assert abs(float(np.linalg.norm(rows[1])) - 1) < 1e-6
    assert srv.requests[-1].json["input"] == ["hello"]


def test_key_is_sent_as_bearer(monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIServer(api_key="sk-test") as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        emb = OpenAIEmbedder("m", base_url=srv.base_url)
        assert emb.embed_query("hi").shape == (64,)
        assert srv.requests[-1].headers["authorization"] == "Bearer sk-test"
        with pytest.raises(SourceError, match=r"401.*Incorrect API key") as info:
            OpenAIEmbedder("m", base_url=srv.base_url, api_key="wrong").embed_query("hi")
        assert info.value.reason.value == "auth"


def test_base_url_from_environment(srv: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("UNIFIND_OPENAI_BASE_URL", srv.base_url)  # ours wins
    emb = resolve_embedder("openai:test-embed")
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.url == srv.base_url + "/embeddings"
    host = srv.base_url.split("/")[2]
    assert emb.spec == f"openai:test-embed@{host}"
    assert resolve_embedder(emb.spec).spec == emb.spec


def test_spec_from_another_host_is_refused(srv: OpenAIServer) -> None:
    with pytest.raises(EmbedderMismatch, match="UNIFIND_OPENAI_BASE_URL"):
        OpenAIEmbedder("test-embed@api.openai.com", base_url=srv.base_url)


def test_missing_key_for_openai_names_the_variable() -> None:
    with pytest.raises(SourceError, match="OPENAI_API_KEY") as info:
        OpenAIEmbedder("text-embedding-3-small")
    assert info.value.reason.value == "no_key"


def test_a_placeholder_key_is_no_key_naming_its_source(
    srv: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue #18: the README's "…" as a key was a UnicodeEncodeError at the first embed.
    monkeypatch.setenv("OPENAI_API_KEY", "…")
    with pytest.raises(SourceError, match=r"^OPENAI_API_KEY contains non-ASCII .*U\+2026") as info:
        OpenAIEmbedder("test-embed", base_url=srv.base_url)
    assert info.value.reason.value == "no_key"
    with pytest.raises(SourceError, match=r"^api_key contains a control character"):
        OpenAIEmbedder("test-embed", base_url=srv.base_url, api_key="sk\n")
    assert srv.requests == []


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigError, match="name the model"):
        OpenAIEmbedder("", base_url="http://127.0.0.1:1/v1")
    with pytest.raises(ConfigError, match="batch_size"):
        OpenAIEmbedder("m", base_url="http://127.0.0.1:1/v1", batch_size=5000)
    with pytest.raises(ConfigError, match="no host"):
        OpenAIEmbedder("m", base_url="not a url")


@pytest.mark.parametrize(
    ("status", "reason"),
    [(401, "auth"), (403, "forbidden"), (429, "rate_limited"), (500, "error"), (503, "unreachable"),
     (404, "error")],
)  # fmt: skip
def test_http_errors_map_to_reasons(
    emb: OpenAIEmbedder, srv: OpenAIServer, status: int, reason: str
) -> None:
    srv.inject(Reply(status), path="/v1/embeddings")
    with pytest.raises(SourceError) as info:
        emb.embed_documents(["x"])
    assert info.value.reason.value == reason
    assert emb.url in str(info.value) and str(status) in str(info.value)


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("not json", "bad answer"),
        ({"data": "nope"}, "no 'data' list"),
        ({"data": []}, "asked for 1 embeddings, got 0"),
        ({"data": [{"index": 3, "embedding": [1.0]}]}, "indexes"),
        ({"data": [{"index": 0, "embedding": ["a"]}]}, "non-numbers"),
        ({"data": [{"index": 0}]}, "integer 'index'"),
    ],
)
def test_malformed_answers_are_bad_response(
    emb: OpenAIEmbedder, srv: OpenAIServer, body: object, match: str
) -> None:
    srv.inject(Reply(200, body), path="/v1/embeddings")
    with pytest.raises(SourceError, match=match) as info:
        emb.embed_documents(["x"])
    assert info.value.reason.value == "bad_response"


def test_timeout(srv: OpenAIServer) -> None:
    emb = OpenAIEmbedder("m", base_url=srv.base_url, timeout=0.2)
    srv.inject(Reply(200, delay=1.0))
    with pytest.raises(SourceError, match="timed out") as info:
        emb.embed_documents(["x"])
    assert info.value.reason.value == "timeout"


def test_unreachable() -> None:
    emb = OpenAIEmbedder("m", base_url="http://127.0.0.1:9/v1", timeout=2)
    with pytest.raises(SourceError, match="unreachable") as info:
        emb.embed_documents(["x"])
    assert info.value.reason.value == "unreachable"


def test_out_of_order_indexes_are_reordered() -> None:
    body = {"data": [{"index": 1, "embedding": [0.0, 2.0]}, {"index": 0, "embedding": [3.0, 0]}]}
    np.testing.assert_array_equal(parse_response(body, 2), [[3.0, 0.0], [0.0, 2.0]])
    assert build_request("m", ["a"], None) == {
        "model": "m",
        "input": ["a"],
        "encoding_format": "float",
    }


def test_injected_client_is_used(srv: OpenAIServer) -> None:
    seen: list[str] = []

    def hook(request: httpx.Request) -> None:
        seen.append(str(request.url))

    client = httpx.Client(event_hooks={"request": [hook]})
    emb = OpenAIEmbedder("m", base_url=srv.base_url, client=client)
    emb.embed_documents(["x"])
    assert seen == [srv.base_url + "/embeddings"]
    client.close()
