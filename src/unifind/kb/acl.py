"""Collection ACLs: who may see and change a collection (DESIGN §10; rules in kb.service).

An ACL lives in the collection's metadata under :data:`ACL_KEY`, so every store keeps it
with no schema change. A collection without one is *shared*.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from unifind.errors import InputError
from unifind.kb.base import CollectionInfo
from unifind.types import Principal

ACL_KEY: Final = "acl"


class Operator:
    """The local operator of the store: sees and changes every collection.

    Not a :class:`Principal` on purpose: it can't come from an API key, a config file or
    a request, only from code that holds the store (the ``unifind kb`` CLI when no
    principal is configured).
    """

    def __repr__(self) -> str:
        return "OPERATOR"


OPERATOR: Final = Operator()

Caller = Principal | Operator | None
"""Who acts on the KB: an authenticated principal, the local operator, or nobody."""


@dataclass(frozen=True, slots=True)
class ACL:
    """A collection's owner tenant and, optionally, the roles and users allowed in it."""

    tenant: str | None = None
    """None: shared, visible to every caller."""
    roles: tuple[str, ...] = ()
    users: tuple[str, ...] = ()

    @property
    def owner(self) -> str:
        """The owner tenant, or ``shared``."""
        return self.tenant or "shared"

    def to_json(self) -> dict[str, Any]:
        return {"tenant": self.tenant, "roles": list(self.roles), "users": list(self.users)}


def _names(values: Iterable[str], what: str) -> tuple[str, ...]:
    out = []
    for v in values:
        if not isinstance(v, str) or not v.strip():
            raise InputError(f"{what} must be non-empty strings, got {v!r}")
        out.append(v.strip())
    return tuple(dict.fromkeys(out))


def make_acl(tenant: str | None, roles: Iterable[str] = (), users: Iterable[str] = ()) -> ACL:
    """Validate an ACL to store; roles and users need an owner tenant."""
    if tenant is not None and (not isinstance(tenant, str) or not tenant.strip()):
        raise InputError(f"tenant must be a non-empty string, got {tenant!r}")
    acl = ACL(tenant.strip() if tenant else None, _names(roles, "roles"), _names(users, "users"))
    if acl.tenant is None and (acl.roles or acl.users):
        # A shared collection is visible to everyone; a role list there would be a lie.
        raise InputError("roles and users restrict a tenant's collection: give a tenant too")
    return acl


def acl_of(info: CollectionInfo) -> ACL:
    """The collection's ACL: none stored is shared; a malformed one only the operator sees."""
    raw = info.metadata.get(ACL_KEY) if info.metadata else None
    if raw is None:
        return ACL()
    if not isinstance(raw, Mapping) or not raw.get("tenant"):
        # Someone wrote a broken ACL: fail closed with a tenant nobody has.
        return ACL(tenant="\x00invalid-acl")
    return ACL(
        str(raw["tenant"]),
        tuple(str(r) for r in raw.get("roles") or ()),
        tuple(str(u) for u in raw.get("users") or ()),
    )


def tenant_of(caller: Caller) -> str | None:
    return caller.tenant if isinstance(caller, Principal) else None


def can_see(acl: ACL, caller: Caller) -> bool:
    """The visibility rule (kb.service's docstring states it for people)."""
    if acl.tenant is None or isinstance(caller, Operator):
        return True
    if caller is None or caller.tenant != acl.tenant:
        return False
    if not acl.roles and not acl.users:
        return True
    return caller.user in acl.users or any(r in acl.roles for r in caller.roles)


def can_change(acl: ACL, caller: Caller) -> bool:
    """Visible and, for a shared collection, not a tenant's caller (shared is read-only there)."""
    if isinstance(caller, Operator):
        return True
    if acl.tenant is None:
        return tenant_of(caller) is None
    return can_see(acl, caller)
