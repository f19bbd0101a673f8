"""Pure ranking (L2): fusion, dedupe, the rerank contract."""
