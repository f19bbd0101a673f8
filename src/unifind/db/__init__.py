"""The database leg (DESIGN §7): declared models, QueryDSL, NL → DSL generators, safe SQL.

Entry point: :class:`unifind.db.leg.DBLeg`. Submodules: ``models`` (declarations and
introspection), ``dsl`` (the typed QueryDSL and its validation), ``compile`` (DSL → SQLAlchemy
Core), ``permissions``, ``execute`` (read-only, timeouts, cancellation), ``generate``
(``builtin`` and ``agent:<name>``), ``demo`` (the sample shop database).
"""
