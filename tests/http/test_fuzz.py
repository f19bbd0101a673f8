"""Schema-driven fuzzing of every endpoint (schemathesis): never a 5xx, every 4xx the one
JSON error shape. Bounded: ``UNIFIND_FUZZ_EXAMPLES`` cases per operation and mode (15)."""

from __future__ import annotations

import os
import socket
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from tests.http.conftest import LiveServer

from unifind import Searcher
from unifind.http_api import create_app
from unifind.store.keys import KeyStore

schemathesis = pytest.importorskip("schemathesis")
EXAMPLES = int(os.environ.get("UNIFIND_FUZZ_EXAMPLES", "15"))
_real_getaddrinfo = socket.getaddrinfo


def _no_dns(host: Any, *args: Any, **kw: Any) -> Any:
    # Fuzzed URLs name random hosts; offline, a real lookup could hang for seconds.
    name = host.decode() if isinstance(host, bytes) else str(host)
    if name in ("127.0.0.1", "localhost", "::1"):
        return _real_getaddrinfo(host, *args, **kw)
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def check(method: str, path: str, status: int, body: Any) -> None:
    assert status < 500, (method, path, status, body)
    if status >= 400:
        assert isinstance(body, dict) and set(body) == {"error"}, (method, path, body)
        assert set(body["error"]) == {"code", "message", "field", "valid"}, body
        assert body["error"]["message"], body


def test_every_endpoint_survives_fuzzing(
    searcher: Searcher,
    keys: KeyStore,
    key_a: str,
    auth: Callable[[str], dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", _no_dns)
    app = create_app(searcher.settings, keys=keys, mcp=False)
    schema = schemathesis.openapi.from_dict(app.openapi())
    modes = (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE)
    seen: set[tuple[str, str]] = set()
    statuses: Counter[int] = Counter()
    with LiveServer(app) as live:
        for result in schema.get_all_operations():
            op = result.ok()
            for mode in modes:

                @given(case=op.as_strategy(generation_mode=mode))
                @settings(
                    max_examples=EXAMPLES,
                    deadline=None,
                    database=None,
                    phases=[Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )
                def run(case: Any) -> None:
                    r = case.call(base_url=live.url, headers=auth(key_a), timeout=10)
                    ctype = (r.headers.get("content-type") or [""])[0]  # header → list of values
                    body = r.json() if ctype.startswith("application/json") else r.text
                    check(case.method, case.path, r.status_code, body)
                    statuses[r.status_code] += 1

                try:
                    run()
                except Unsatisfiable:
                    # Nothing to make invalid: an operation without parameters or body.
                    assert mode is schemathesis.GenerationMode.NEGATIVE, op.label
            seen.add((op.method.upper(), op.path))
    assert len(seen) == 20  # every documented operation was fuzzed (trace route: 20th)
    assert statuses[200] and statuses[422] and statuses[404]  # valid and invalid both ran
