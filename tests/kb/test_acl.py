"""Collection ACLs: two tenants x every KnowledgeBase operation, roles/users, fail closed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind import InputError, KnowledgeBase, Searcher, SearchRequest, UnknownName, load_settings
from unifind.embed.base import Embedder, resolve_embedder
from unifind.errors import Forbidden
from unifind.kb._tenancy import MAX_OWN, NAME_PATTERN
from unifind.kb.acl import OPERATOR, acl_of
from unifind.types import Principal

ANA = Principal(tenant="acme", user="ana", roles=("support",))
HANK = Principal(tenant="acme", user="hank", roles=("hr",))
CAROL = Principal(tenant="acme", user="carol")
GUS = Principal(tenant="globex", user="gus", roles=("hr",))
TENANTS = {"acme": ANA, "globex": GUS}

# Every collection holds a "refund" document whose text names its collection.
COLLECTIONS: dict[str, dict[str, Any]] = {
    "shared-handbook": {},
    "acme-docs": {"tenant": "acme"},
    "acme-hr": {"tenant": "acme", "roles": ["hr"], "users": ["carol"]},
    "globex-docs": {"tenant": "globex"},
}


def hash_factory(spec: str) -> Embedder:
    return resolve_embedder(spec if spec.startswith("hash") else "hash")


@pytest.fixture
def kb(unifind_home: Path) -> Iterator[KnowledgeBase]:
    settings = load_settings(kb={"embedder": "hash"})
    with KnowledgeBase.open(settings, embedder_factory=hash_factory) as kb:
        for name, acl in COLLECTIONS.items():
            kb.create(name, principal=OPERATOR, **acl)
            text = f"Refunds in {name} are paid within 30 days. Marker {name}."
            kb.ingest_text(name, text, document_id=f"{name}-refunds", principal=OPERATOR)
        yield kb


def names(infos: Any) -> set[str]:
    return {i.name for i in infos}


def hits(kb: KnowledgeBase, who: Any, **kw: Any) -> set[str | None]:
    req = SearchRequest(type="kb", query="refunds paid", limit=50, **kw)
    return {it.collection for it in kb.search_sync(req, principal=who).items}


@pytest.mark.parametrize(
    ("who", "visible"),
    [
        (None, {"shared-handbook"}),
        (Principal(user="solo"), {"shared-handbook"}),  # a principal without a tenant
        (ANA, {"shared-handbook", "acme-docs"}),
        (HANK, {"shared-handbook", "acme-docs", "acme-hr"}),  # by role
        (CAROL, {"shared-handbook", "acme-docs", "acme-hr"}),  # by user
        (GUS, {"shared-handbook", "globex-docs"}),  # role hr, but of another tenant
        (OPERATOR, set(COLLECTIONS)),
    ],
)
def test_who_sees_what_in_listing_and_search(
    kb: KnowledgeBase, who: Any, visible: set[str]
) -> None:
    assert names(kb.collections(principal=who)) == visible
    assert hits(kb, who) == visible  # no collections named: the visible ones


def _ops(name: str) -> dict[str, Callable[[KnowledgeBase, Any], Any]]:
    """Every KnowledgeBase operation on collection ``name``, as ``principal`` runs it."""
    return {
        "collection": lambda kb, p: kb.collection(name, principal=p),
        "documents": lambda kb, p: kb.documents(name, principal=p),
        "remove": lambda kb, p: kb.remove(name, f"{name}-refunds", principal=p),
        "delete": lambda kb, p: kb.delete(name, principal=p),
        "ingest_text": lambda kb, p: kb.ingest_text(name, "x", document_id="x", principal=p),
        "ingest": lambda kb, p: kb.ingest(name, [Path(__file__)], principal=p),
        "search": lambda kb, p: kb.search_sync(
            SearchRequest(type="kb", query="refunds", collections=(name,)), principal=p
        ),
        "search-among-others": lambda kb, p: kb.search_sync(
            SearchRequest(type="kb", query="refunds", collections=("shared-handbook", name)),
            principal=p,
        ),
    }


@pytest.mark.parametrize("op", sorted(_ops("x")))
@pytest.mark.parametrize(("tenant", "other"), [("acme", "globex"), ("globex", "acme")])
def test_no_data_crosses_tenants(kb: KnowledgeBase, op: str, tenant: str, other: str) -> None:
    who, target = TENANTS[tenant], f"{other}-docs"
    with pytest.raises(UnknownName) as exc:
        _ops(target)[op](kb, who)
    message = str(exc.value)
    assert f"unknown collection {target!r}" in message
    assert other not in message.replace(repr(target), "")  # no other-tenant names listed
    assert set(exc.value.valid) == {"shared-handbook", f"{tenant}-docs"}
    # ... and the other tenant's data is untouched.
    assert [d.document_id for d in kb.documents(target, principal=TENANTS[other])] == [
        f"{target}-refunds"
    ]
    assert hits(kb, TENANTS[other], collections=(target,)) == {target}


@pytest.mark.parametrize("op", sorted(_ops("x")))
def test_no_principal_sees_no_tenant_collection(kb: KnowledgeBase, op: str) -> None:
    with pytest.raises(UnknownName) as exc:
        _ops("acme-docs")[op](kb, None)
    assert exc.value.valid == ["shared-handbook"]


def test_roles_and_users_restrict_within_the_tenant(kb: KnowledgeBase) -> None:
    with pytest.raises(UnknownName):
        kb.documents("acme-hr", principal=ANA)
    assert kb.documents("acme-hr", principal=HANK)[0].document_id == "acme-hr-refunds"
    kb.ingest_text("acme-hr", "Payroll runs monthly.", document_id="pay", principal=CAROL)
    assert hits(kb, ANA, collections=("acme-docs",)) == {"acme-docs"}
    with pytest.raises(UnknownName):
        hits(kb, ANA, collections=("acme-hr",))


def test_shared_collections_are_read_only_for_tenants(kb: KnowledgeBase) -> None:
    assert kb.documents("shared-handbook", principal=ANA)
    for change in (
        lambda: kb.ingest_text("shared-handbook", "spam", document_id="s", principal=ANA),
        lambda: kb.remove("shared-handbook", "shared-handbook-refunds", principal=GUS),
        lambda: kb.delete("shared-handbook", principal=ANA),
    ):
        with pytest.raises(Forbidden, match="read-only for tenant"):
            change()
    assert len(kb.documents("shared-handbook")) == 1
    kb.ingest_text("shared-handbook", "Local notes.", document_id="n")  # no principal: allowed
    assert len(kb.documents("shared-handbook")) == 2


def test_create_owns_by_the_callers_tenant(kb: KnowledgeBase) -> None:
    mine = kb.create("ana-notes", principal=ANA, roles=["support"])
    acl = acl_of(mine)
    assert (acl.tenant, acl.roles, acl.users) == ("acme", ("support",), ())
    assert "ana-notes" in names(kb.collections(principal=ANA))
    assert "ana-notes" not in names(kb.collections(principal=GUS))
    assert "ana-notes" not in names(kb.collections())
    assert acl_of(kb.create("local", principal=None)).tenant is None

    with pytest.raises(Forbidden, match="tenant 'acme'"):
        kb.create("steal", tenant="globex", principal=ANA)
    with pytest.raises(Forbidden, match="needs a principal"):
        kb.create("orphan", tenant="acme")
    assert "steal" not in names(kb.collections(principal=OPERATOR))


def test_a_name_another_tenant_holds_is_the_callers_own_to_create(kb: KnowledgeBase) -> None:
    # #18: "not available" for another tenant's name and "created" for a free one was a
    # probe. Each tenant has its own names now: the answer is the same whatever globex holds.
    for name in ("globex-docs", "free-name"):
        mine = kb.create(name, principal=ANA)
        assert (mine.name, acl_of(mine).tenant, mine.documents) == (name, "acme", 0)
        assert name in names(kb.collections(principal=ANA))
        with pytest.raises(InputError, match="already exists"):
            kb.create(name, principal=ANA)
    kb.ingest_text("globex-docs", "Acme's own marker quokka.", document_id="q", principal=ANA)
    assert hits(kb, ANA, collections=("globex-docs",)) == {"globex-docs"}
    found = kb.search_sync(SearchRequest(type="kb", query="quokka"), principal=ANA).items
    assert ("globex-docs", "q") in [(i.collection, i.document_id) for i in found]
    assert {i.collection for i in found} <= names(kb.collections(principal=ANA))
    assert all("__" not in (r.backend or "") for r in kb.search_sync(
        SearchRequest(type="kb", query="quokka"), principal=ANA).reports)  # fmt: skip
    assert [d.document_id for d in kb.documents("globex-docs", principal=ANA)] == ["q"]
    theirs = kb.collection("globex-docs", principal=GUS)  # globex's own, untouched
    assert (acl_of(theirs).tenant, theirs.documents) == ("globex", 1)
    assert names(kb.collections(principal=GUS)) == {"shared-handbook", "globex-docs"}
    theirs_found = kb.search_sync(SearchRequest(type="kb", query="quokka"), principal=GUS).items
    assert "q" not in {i.document_id for i in theirs_found}
    kb.delete("globex-docs", principal=ANA)  # its own: globex's stays
    assert kb.collection("globex-docs", principal=GUS).documents == 1
    again = kb.create("acme-docs", principal=ANA, exist_ok=True)
    assert again.documents == 1  # its tenant's collection of that plain name: exist_ok as before


def test_names_stay_apart_per_tenant_and_the_operator_sees_stored_names(
    kb: KnowledgeBase,
) -> None:
    kb.create("notes", principal=ANA)
    kb.create("notes", principal=GUS)
    kb.ingest_text("notes", "acme wombat", document_id="a", principal=ANA)
    kb.ingest_text("notes", "globex walrus", document_id="g", principal=GUS)
    assert [d.document_id for d in kb.documents("notes", principal=ANA)] == ["a"]
    assert [d.document_id for d in kb.documents("notes", principal=GUS)] == ["g"]
    stored = sorted(n for n in names(kb.collections(principal=OPERATOR)) if "notes" in n)
    assert len(stored) == 2 and all(n.startswith("notes__") for n in stored)
    owner = {acl_of(kb.collection(n, principal=OPERATOR)).tenant: n for n in stored}
    assert sorted(owner, key=str) == ["acme", "globex"]
    assert kb.collection(owner["acme"], principal=ANA).name == "notes"  # its own, either way
    with pytest.raises(UnknownName) as exc:  # another tenant's stored name: unknown as any
        kb.documents(owner["globex"], principal=ANA)
    assert exc.value.valid == sorted(names(kb.collections(principal=ANA)))


def test_a_name_held_for_other_roles_of_the_same_tenant_is_not_available(
    kb: KnowledgeBase,
) -> None:
    with pytest.raises(InputError, match="'acme-hr' is not available"):
        kb.create("acme-hr", principal=ANA)  # acme's, for hr and carol: ana is neither


@pytest.mark.parametrize(
    "name", ["", ".", "..", "/", "a/b", "../x", "-rf", ".hidden", "__x", "a\x00b", "tab\t",
             "a b", "x" * 65, "a__b", "d@t", "名字"],
)  # fmt: skip
def test_unsafe_or_confusing_names_are_refused_naming_the_pattern(
    kb: KnowledgeBase, name: str
) -> None:
    for who in (OPERATOR, ANA, None):
        with pytest.raises(InputError, match="is not valid: use 1-64 letters") as exc:
            kb.create(name, principal=who)
        assert NAME_PATTERN in str(exc.value)
    assert len(names(kb.collections(principal=OPERATOR))) == len(COLLECTIONS)


def test_a_tenants_own_names_fit_the_stores(kb: KnowledgeBase) -> None:
    assert kb.create("x" * MAX_OWN, principal=ANA).name == "x" * MAX_OWN
    with pytest.raises(InputError, match=f"at most {MAX_OWN} characters"):
        kb.create("y" * (MAX_OWN + 1), principal=ANA)
    assert kb.create("z" * 64, principal=OPERATOR).name == "z" * 64


def test_acl_input_is_validated(kb: KnowledgeBase) -> None:
    with pytest.raises(InputError, match="give a tenant"):
        kb.create("loose", roles=["hr"], principal=OPERATOR)
    with pytest.raises(InputError, match="reserved"):
        kb.create("sneaky", metadata={"acl": {"tenant": "acme"}}, principal=ANA)
    with pytest.raises(InputError, match="non-empty"):
        kb.create("blank", tenant=" ", principal=OPERATOR)


def test_a_malformed_acl_fails_closed(kb: KnowledgeBase) -> None:
    kb.store.create_collection(
        "broken", embedder=None, dim=None, metadata={"acl": "everyone"}
    )  # written behind the service's back
    assert "broken" not in names(kb.collections())
    assert "broken" not in names(kb.collections(principal=ANA))
    assert "broken" in names(kb.collections(principal=OPERATOR))


async def test_the_engine_passes_the_principal_to_the_kb_leg(kb: KnowledgeBase) -> None:
    searcher = Searcher(kb.settings, kb=kb)
    req = SearchRequest(type="kb", query="refunds paid", limit=50)
    got = {i.collection for i in (await searcher.search(req, principal=ANA)).items}
    assert got == {"shared-handbook", "acme-docs"}
    got = {i.collection for i in (await searcher.search(req)).items}
    assert got == {"shared-handbook"}
    res = await searcher.all([req], principal=GUS, request_id="r-gus")
    assert {i.collection for i in res.results[0].items} == {"shared-handbook", "globex-docs"}
    named = SearchRequest(type="kb", query="refunds", collections=("acme-docs",))
    with pytest.raises(UnknownName):
        await searcher.search(named, principal=GUS)
    # The record is the tenant's too.
    assert searcher.get_searches("r-gus", principal=GUS)
    assert searcher.get_searches("r-gus", principal=ANA) == []
    assert searcher.get_searches("r-gus") == []


async def test_searcher_acts_as_the_configured_principal(kb: KnowledgeBase) -> None:
    settings = kb.settings.model_copy(update={"principal": CAROL})
    searcher = Searcher(settings, kb=kb)
    req = SearchRequest(type="kb", query="refunds paid", limit=50)
    got = {i.collection for i in (await searcher.search(req)).items}
    assert got == {"shared-handbook", "acme-docs", "acme-hr"}
    got = {i.collection for i in (await searcher.search(req, principal=GUS)).items}
    assert got == {"shared-handbook", "globex-docs"}  # an explicit principal wins
