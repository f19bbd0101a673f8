"""The loopback OpenAI-compatible test server itself."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from unifind.testing.openai_server import OpenAIServer, Reply, chat_completion, embedding_for


@pytest.fixture
def srv() -> Iterator[OpenAIServer]:
    with OpenAIServer() as server:
        yield server


def chat(srv: OpenAIServer, **extra: object) -> httpx.Response:
    body = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}], **extra}
    return httpx.post(srv.base_url + "/chat/completions", json=body, timeout=5)


def test_base_url_is_loopback_v1(srv: OpenAIServer) -> None:
    assert srv.base_url.startswith("http://127.0.0.1:") and srv.base_url.endswith("/v1")


def test_not_running_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        _ = OpenAIServer().base_url


def test_chat_answers_in_script_order(srv: OpenAIServer) -> None:
    srv.script_chat('{"a": 1}', "not json", Reply(502), chat_completion("full", model="x"))
    first = chat(srv).json()
    assert first["object"] == "chat.completion"
    assert first["model"] == "gpt-test"
    assert first["choices"][0]["message"] == {"role": "assistant", "content": '{"a": 1}'}
    assert chat(srv).json()["choices"][0]["message"]["content"] == "not json"
    failed = chat(srv)
    assert failed.status_code == 502 and "error" in failed.json()
    assert chat(srv).json()["model"] == "x"
    empty = chat(srv)  # the script is used up: loud, not a made-up answer
    assert empty.status_code == 500 and "no scripted" in empty.json()["error"]["message"]


def test_chat_streams_server_sent_events(srv: OpenAIServer) -> None:
    srv.script_chat("hello streaming world")
    response = chat(srv, stream=True)
    assert response.headers["content-type"] == "text/event-stream"
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text == "hello streaming world"
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_embeddings_float_and_base64(srv: OpenAIServer) -> None:
    url = srv.base_url + "/embeddings"
    floats = httpx.post(url, json={"model": "e", "input": "hi"}).json()
    assert floats["data"][0]["index"] == 0
    np.testing.assert_allclose(floats["data"][0]["embedding"], embedding_for("hi"), atol=1e-6)
    b64 = httpx.post(url, json={"model": "e", "input": ["hi"], "encoding_format": "base64"}).json()
    raw = np.frombuffer(base64.b64decode(b64["data"][0]["embedding"]), dtype="<f4")
    np.testing.assert_allclose(raw, embedding_for("hi"), atol=1e-6)
    sized = httpx.post(url, json={"model": "e", "input": ["hi"], "dimensions": 8}).json()
    assert len(sized["data"][0]["embedding"]) == 8


def test_embeddings_refuse_what_openai_refuses(srv: OpenAIServer) -> None:
    url = srv.base_url + "/embeddings"
    assert httpx.post(url, json={"model": "e", "input": [""]}).status_code == 400
    assert httpx.post(url, json={"model": "e", "input": [1, 2]}).status_code == 400
    assert httpx.post(url, content=b"{broken").status_code == 400


def test_injected_faults_then_recovery(srv: OpenAIServer) -> None:
    srv.inject(Reply(429, headers={"Retry-After": "1"}), path="/v1/embeddings", times=2)
    srv.inject(Reply(200, body="<html>oops"))  # any path
    url = srv.base_url + "/embeddings"
    first = httpx.post(url, json={"model": "e", "input": ["a"]})
    assert first.status_code == 429 and first.headers["retry-after"] == "1"
    assert httpx.post(url, json={"model": "e", "input": ["a"]}).status_code == 429
    assert httpx.get(srv.base_url + "/models").text == "<html>oops"
    assert httpx.post(url, json={"model": "e", "input": ["a"]}).status_code == 200


def test_delay_triggers_client_timeouts(srv: OpenAIServer) -> None:
    srv.inject(Reply(200, delay=1.0))
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(srv.base_url + "/models", timeout=0.2)


def test_requests_are_recorded(srv: OpenAIServer) -> None:
    httpx.post(srv.base_url + "/embeddings?x=1", json={"model": "e", "input": "a"},
               headers={"X-Test": "yes"})  # fmt: skip
    rec = srv.requests[-1]
    assert (rec.method, rec.path, rec.json["input"]) == ("POST", "/v1/embeddings", "a")
    assert rec.headers["x-test"] == "yes"


def test_api_key_and_models(srv: OpenAIServer) -> None:
    with OpenAIServer(api_key="k") as locked:
        assert httpx.get(locked.base_url + "/models").status_code == 401
        ok = httpx.get(locked.base_url + "/models", headers={"Authorization": "Bearer k"})
        assert [m["id"] for m in ok.json()["data"]] == ["test-model", "test-embed"]
    assert httpx.get(srv.base_url + "/nope").status_code == 404
