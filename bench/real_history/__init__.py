"""The stale-fact benchmark on real git history (``python -m bench.real_history``).

``criteria`` states the atomic-transition rules, ``mine`` applies them to git history,
``instances`` turns a mined transition into dated memories and a question, ``run`` measures the
conditions on identical candidate sets, ``report`` writes the table and the plot. See README.md.
"""

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"
TRANSITIONS_JSONL = DATA_DIR / "transitions.jsonl"
MINING_JSON = DATA_DIR / "mining.json"
TWINS_DIR = DATA_DIR / "twins"
