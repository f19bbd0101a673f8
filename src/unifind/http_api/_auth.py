"""``Authorization: Bearer <key>`` → the caller's Principal (DESIGN §10, §12).

The principal comes from the key, never from a request field. Without auth (allowed on a
loopback bind only, see ``unifind serve --no-auth``) the caller is ``settings.principal``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from unifind.http_api._errors import Unauthorized
from unifind.types import Principal

_bearer = HTTPBearer(
    auto_error=False,
    description="An API key from `unifind keys create` (shown once when created).",
)


async def caller(
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal | None:
    """The principal of the request's key (401 when the key is missing, unknown or revoked)."""
    state: Any = request.app.state.unifind
    if state.keys is None:
        return None  # auth off: the operation layer falls back to settings.principal
    if creds is None:
        raise Unauthorized("an API key is required: Authorization: Bearer <key>")
    principal: Principal | None = await state.keys.averify(creds.credentials)
    if principal is None:
        raise Unauthorized("the API key is unknown or revoked")
    return principal


#: The caller as a route parameter: ``who: Caller``.
Caller = Annotated[Principal | None, Depends(caller)]
