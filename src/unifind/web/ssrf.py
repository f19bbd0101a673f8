"""Server-side request forgery guard for the local fetcher (OWASP SSRF Prevention Cheat Sheet).

The check runs on what the socket would actually connect to: the host is resolved with
the system resolver (which also reads ``2130706433``, ``0177.0.0.1`` and ``0x7f.1`` as
127.0.0.1, exactly as ``connect`` would), every address is checked, and the caller then
connects to the checked address itself so a second lookup can't answer differently
(DNS rebinding). Redirects are checked hop by hop by the caller.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

from unifind.errors import SourceError
from unifind.types import Reason

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: NAT64 (RFC 6052 §2.1): 64:ff9b::a.b.c.d reaches the IPv4 a.b.c.d through a gateway.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, 6to4, Teredo, NAT64), if any."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def why_blocked(ip: IPAddress) -> str | None:
    """Why connecting to ``ip`` is refused, or None if it is a public address."""
    inner = embedded_ipv4(ip)
    if inner is not None:
        reason = why_blocked(inner)
        return f"{reason} (embedded in {ip})" if reason else None
    for label, test in (
        ("a loopback", ip.is_loopback),
        ("a link-local (cloud metadata)", ip.is_link_local),
        ("a private", ip.is_private),
        ("an unspecified", ip.is_unspecified),
        ("a multicast", ip.is_multicast),
        ("a reserved", ip.is_reserved),
    ):
        if test:
            return f"{ip} is {label} address"
    if not ip.is_global:  # shared address space 100.64/10 (RFC 6598) and the like
        return f"{ip} is not a public address"
    return None


async def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to, through the system resolver."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise SourceError(Reason.UNREACHABLE, f"DNS lookup of {host!r} failed ({exc})") from exc
    out: list[IPAddress] = []
    for info in infos:
        addr = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])  # drop an IPv6 zone id
        if addr not in out:
            out.append(addr)
    if not out:
        raise SourceError(Reason.UNREACHABLE, f"{host!r} resolves to no address")
    return out


async def checked_address(host: str, port: int) -> IPAddress:
    """The address to connect to for ``host``; SourceError(forbidden) if any is non-public."""
    addresses = await resolve(host, port)
    for ip in addresses:
        reason = why_blocked(ip)
        if reason:
            # Any bad address refuses the host: a name resolving to both a public and a
            # private address is the classic rebinding setup.
            raise SourceError(
                Reason.FORBIDDEN,
                f"refusing {host}: {reason}; set web.allow_private: true to allow private targets",
            )
    return addresses[0]
