"""Web tests are offline: any connection or lookup beyond loopback fails loudly.

Numeric hosts (``2130706433``, ``0177.0.0.1``) and ``localhost`` still resolve through the
real resolver, which needs no network for them; names under ``.invalid`` fail as a real
resolver must (RFC 6761 §6.4), without asking one.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest

_real_getaddrinfo = socket.getaddrinfo
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _numeric(host: str) -> bool:
    try:
        socket.inet_aton(host)  # accepts the legacy forms 2130706433, 0177.0.0.1, 0x7f.1
        return True
    except OSError:
        pass
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def _guarded_getaddrinfo(host: Any, *args: Any, **kw: Any) -> Any:
    name = host.decode() if isinstance(host, bytes) else str(host)
    if name.endswith(".invalid") or name.endswith(".invalid."):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    if name == "localhost" or _numeric(name):
        return _real_getaddrinfo(host, *args, **kw)
    raise RuntimeError(f"network blocked in tests: DNS lookup of {name!r}")


def _loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        try:
            return ipaddress.ip_address(str(address[0]).split("%")[0]).is_loopback
        except ValueError:
            return False
    return isinstance(address, (str, bytes))  # AF_UNIX


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if not _loopback(address):
        raise RuntimeError(f"network blocked in tests: connect to {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if not _loopback(address):
        raise RuntimeError(f"network blocked in tests: connect to {address!r}")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True)
def _block_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    yield


@pytest.fixture(autouse=True)
def _no_web_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys and pins from the developer's shell must not change what the tests resolve."""
    import os

    for name in list(os.environ):
        if name.endswith("_API_KEY") or (name.startswith("UNIFIND_") and name != "UNIFIND_HOME"):
            monkeypatch.delenv(name, raising=False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Live tests run only when asked for by marker (``-m network``), never by default."""
    if "network" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="live network test: run with -m network")
    for item in items:
        if "network" in item.keywords:
            item.add_marker(skip)
