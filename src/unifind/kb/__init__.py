"""The knowledge-base leg (L3): stores, ingest, hybrid search. Contract in ``base.py``."""
