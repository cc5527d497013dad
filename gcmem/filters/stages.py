"""Registration of the built-in stages under the names settings use."""

from __future__ import annotations

# issue 4: "dominance" (Φ_T over κ) and "verdict-precompute" (its ingest side).
# issue 3: "supersession" (the ledger at ingest and the pre-filter at query time).
# issue 6: "timestamp-rerank" and "multi-factor" (baseline rankers, for comparison).
from gcmem.filters import baselines, dominance, precompute, supersession  # noqa: F401
