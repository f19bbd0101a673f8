"""A real embedded KB for the framework adapters: a small handbook, the offline bge model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind import Searcher, load_settings

# Haystack reads this once, when first imported: no usage statistics from the tests (and no
# background thread trying the blocked network).
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

HANDBOOK = {
    "refunds": (
        "Refunds",
        "Refunds are paid within 30 days of the return. A refund goes back to the card "
        "used for the order; store credit is offered for gifts.",
        {"lang": "en", "team": "billing"},
    ),
    "refund-exceptions": (
        "Refund exceptions",
        "Digital goods are not refunded once downloaded. Damaged goods are refunded in "
        "full when reported within a week.",
        {"lang": "en", "team": "billing"},
    ),
    "refund-status": (
        "Refund status",
        "Customers can follow the status of a refund on the orders page; a refund shows "
        "as pending until the bank confirms it.",
        {"lang": "en", "team": "support"},
    ),
    "shipping": (
        "Shipping",
        "Orders ship within two business days. Delivery to Europe takes five to seven days.",
        {"lang": "en", "team": "logistics"},
    ),
    "passwords": (
        "Passwords",
        "Reset a password from the sign-in page; the reset link expires after one hour.",
        {"lang": "en", "team": "support"},
    ),
    "rueckerstattung": (
        "Rückerstattung",
        "Rückerstattungen werden innerhalb von 30 Tagen ausgezahlt (refund policy, German).",
        {"lang": "de", "team": "billing"},
    ),
}


def build_kb(home: Path) -> Searcher:
    """A Searcher on its own home with collection ``handbook`` ingested."""
    searcher = Searcher(load_settings(home=str(home)))
    searcher.kb.create("handbook")  # the default embedder: bge-small-en-v1.5, offline
    for doc_id, (title, text, meta) in HANDBOOK.items():
        searcher.kb.ingest_text("handbook", text, document_id=doc_id, title=title, metadata=meta)
    return searcher


@pytest.fixture(scope="module")
def kb_searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    """One ingested KB per test module (loading the model once), closed after it."""
    searcher = build_kb(tmp_path_factory.mktemp("integrations-home"))
    yield searcher
    searcher.close()
