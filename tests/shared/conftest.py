"""Redis for the shared-state tests: a real server (``UNIFIND_TEST_REDIS_URL``, default
``redis://127.0.0.1:6379/0``), a unique key prefix per test, every key removed after."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from unifind._redis import close_links
from unifind.config import Settings, load_settings

REDIS_URL = os.environ.get("UNIFIND_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@dataclass
class Shared:
    """One test's Redis: the URL, its private prefix and a sync client for assertions."""

    url: str
    prefix: str
    client: Any

    def settings(self, home: Path, **overrides: Any) -> Settings:
        return load_settings(
            home=home, redis_url=self.url, redis_prefix=self.prefix, records=False, **overrides
        )


@pytest.fixture(scope="session")
def _redis_client() -> Iterator[Any]:
    redis = pytest.importorskip("redis", reason='needs the redis extra: pip install -e ".[redis]"')
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=2)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        client.close()
        pytest.skip(f"no Redis at {REDIS_URL} ({exc}); set UNIFIND_TEST_REDIS_URL")
    yield client
    client.close()


@pytest.fixture
def shared(_redis_client: Any) -> Iterator[Shared]:
    prefix = f"unifind-test:{uuid.uuid4().hex}:"
    yield Shared(REDIS_URL, prefix, _redis_client)
    close_links()
    keys = list(_redis_client.scan_iter(match=f"{prefix}*", count=1000))
    if keys:
        _redis_client.delete(*keys)
