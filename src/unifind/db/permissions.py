"""Permission predicates from the caller's principal (DESIGN §7, §10). Fail closed.

The predicate is built from :class:`~unifind.types.Principal` only, never from the request,
and the compiler AND-s it outside the generated conditions.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from unifind.db.models import Model
from unifind.types import Principal


class Forbidden(Exception):
    """The model has permission columns the principal can't satisfy; no query runs."""


def permission_clause(
    model: Model, table: sa.TableClause, principal: Principal | None
) -> ColumnElement[bool] | None:
    """``None`` for an unprotected model; raises :class:`Forbidden` rather than guess."""
    perms = model.permissions
    if not perms.columns:
        return None
    if principal is None:
        raise Forbidden(
            f"model {model.name!r} has permission columns ({', '.join(perms.columns)}) "
            "and the request carries no principal: no rows are returned (fail closed)"
        )
    clauses: list[ColumnElement[bool]] = []
    if perms.tenant:
        if not principal.tenant:
            raise Forbidden(
                f"model {model.name!r} is tenant-scoped and the principal has no tenant"
            )
        clauses.append(table.c[perms.tenant] == principal.tenant)
    visible: list[ColumnElement[bool]] = []
    if perms.visibility:
        allowed = [*perms.public_values, *principal.roles]
        visible.append(table.c[perms.visibility].in_(allowed))
    if perms.owner:
        if principal.user:
            visible.append(table.c[perms.owner] == principal.user)
        elif not visible:
            raise Forbidden(f"model {model.name!r} is owner-scoped and the principal has no user")
    if visible:
        clauses.append(sa.or_(*visible).self_group())
    return sa.and_(*clauses)
