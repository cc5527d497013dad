"""Deterministic memory-like sentences and their cached MiniLM embeddings, for index benchmarks.

Sentence ``i`` is a pure function of ``(GENERATOR_VERSION, i)``, so a corpus of n chunks is the
prefix of every larger one and embeddings cached for one size serve all smaller sizes.

Embedding on the shared 2-core machine runs at roughly 90 sentences/s, so the first
``real_base`` chunks get real embeddings (computed once, cached under ``.bench-cache/``) and
chunks beyond it get *derived* vectors: later versions / rephrasings of a real chunk, made by
rotating the real vector toward a direction that lies in the data (the difference of two other
real embeddings) by a cosine drawn from U(0.75, 0.92). That is the band in which real memory
keeps versions of one fact (DESIGN.md: rephrasings 0.800, contradictions 0.812 on average),
so the index sees the near-duplicate clusters it meets in use. Query vectors are always real.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from gcmem.embedding import Embedder

GENERATOR_VERSION = 1
# Embedding cache blocks: an interrupted cache build keeps every finished block.
BLOCK = 4096
DERIVED_COS_RANGE = (0.75, 0.92)


def _words(text: str) -> tuple[str, ...]:
    """A vocabulary written as one "; "-separated string (compact, easy to extend)."""
    return tuple(w.strip() for w in text.split(";") if w.strip())


_PEOPLE = _words(
    "Alice; Ana; Ben; Bruno; Carla; Chen; Dana; Dmitri; Elena; Emeka; Farah; Felix; Grace; "
    "Gustavo; Hana; Hugo; Ines; Ivan; Jamal; Julia; Kenji; Kofi; Lara; Liam; Maya; Mateo; "
    "Nadia; Noah; Olga; Omar; Priya; Pablo; Quinn; Rosa; Ravi; Sara; Sven; Tariq; Tessa; Uma;"
    " Victor; Wen; Yara; Yusuf; Zoe"
)
_CITIES = _words(
    "Lisbon; Berlin; Toronto; Nairobi; Osaka; Lyon; Austin; Denver; Oslo; Seoul; Porto; "
    "Dublin; Bogota; Accra; Krakow; Zurich; Madrid; Hanoi; Perth; Quito; Tallinn; Leeds; "
    "Munich; Boston; Chennai; Cairo; Vienna; Turin"
)
_SERVICES = _words(
    "billing API; auth service; search cluster; payments gateway; metrics pipeline; "
    "notification worker; staging database; image resizer; feature flag service; export job; "
    "web frontend; ledger service; cache layer; ingest queue; report generator; "
    "recommendation engine"
)
_ENVS = _words("production; staging; dev; the EU region; the US region; the test cluster")
_TOOLS = _words(
    "Postgres; MySQL; Redis; Kafka; RabbitMQ; Terraform; Ansible; Docker; Kubernetes; Nginx; "
    "Envoy; Grafana; Prometheus; Sentry; Airflow; Spark; DuckDB; SQLite; FastAPI; Django; "
    "Flask; React; Vue; Svelte; pytest; Poetry; uv; Ruff; mypy; Celery"
)
_PACKAGES = _words(
    "numpy; pandas; requests; pydantic; torch; transformers; fastapi; sqlalchemy; boto3; "
    "httpx; celery; redis-py; django; flask; uvicorn; pytest; scipy; polars"
)
_FOODS = _words(
    "vegetarian food; spicy curries; oat milk; green tea; black coffee; sushi; gluten-free "
    "pasta; dark chocolate; sparkling water; lentil soup; falafel; ramen"
)
_HOBBIES = _words(
    "bouldering; chess; long-distance running; pottery; sailing; birdwatching; jazz piano; "
    "woodworking; trail cycling; watercolour painting; baking sourdough; learning Japanese"
)
_ROLES = _words(
    "tech lead; product manager; on-call engineer; data scientist; release manager; designer;"
    " security reviewer; team manager; SRE; QA lead"
)
_TEAMS = _words(
    "platform; payments; growth; search; infra; mobile; data; security; support; research"
)
_MONTHS = _words(
    "January; February; March; April; May; June; July; August; September; October; November; "
    "December"
)
_DAYS = _words("Monday; Tuesday; Wednesday; Thursday; Friday; Saturday; Sunday")
_COLOURS = _words("blue; green; teal; orange; purple; grey; red; yellow")
_PETS = _words("a cat; a dog; two cats; a parrot; a rabbit; no pets; a hamster; an old greyhound")


def _version(r: random.Random) -> str:
    return f"{r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 20)}"


def _fact(r: random.Random) -> str:
    p, q = r.choice(_PEOPLE), r.choice(_PEOPLE)
    svc, env = r.choice(_SERVICES), r.choice(_ENVS)
    kind = r.randrange(16)
    if kind == 0:
        return f"{p} moved to {r.choice(_CITIES)} in {r.choice(_MONTHS)} {r.randint(2015, 2025)}."
    if kind == 1:
        return f"The {svc} in {env} now listens on port {r.randint(1024, 65000)}."
    if kind == 2:
        return f"{p} is the {r.choice(_ROLES)} for the {r.choice(_TEAMS)} team."
    if kind == 3:
        return f"We pinned {r.choice(_PACKAGES)} to version {_version(r)} in the {svc} repo."
    if kind == 4:
        return f"{p} prefers {r.choice(_FOODS)} and avoids {r.choice(_FOODS)}."
    if kind == 5:
        return (
            f"The {svc} timeout was changed to {r.choice((5, 10, 15, 30, 45, 60, 90, 120))} "
            f"seconds after the incident on {r.choice(_DAYS)}."
        )
    if kind == 6:
        return f"{p} started {r.choice(_HOBBIES)} and goes every {r.choice(_DAYS)}."
    if kind == 7:
        return f"The team decided to use {r.choice(_TOOLS)} instead of {r.choice(_TOOLS)}."
    if kind == 8:
        return f"{p}'s favourite colour is {r.choice(_COLOURS)} and they have {r.choice(_PETS)}."
    if kind == 9:
        return (
            f"Reminder: the {svc} migration is due on {r.choice(_DAYS)}, "
            f"{r.randint(1, 28)} {r.choice(_MONTHS)}."
        )
    if kind == 10:
        return f"{p} reports to {q} since the reorganisation in {r.choice(_MONTHS)}."
    if kind == 11:
        return (
            f"The {svc} runs {r.randint(1, 48)} replicas in {env} with "
            f"{r.choice((256, 512, 1024, 2048, 4096))} MB of memory each."
        )
    if kind == 12:
        return (
            f"{p} lives in {r.choice(_CITIES)} and works remotely for the {r.choice(_TEAMS)} team."
        )
    if kind == 13:
        return (
            f"The API key for the {svc} rotates every {r.randint(7, 90)} days; "
            f"{q} owns the rotation."
        )
    if kind == 14:
        thing = r.choice(("laptop", "phone", "car", "bike"))
        return f"User said their {thing} is now {r.choice(_COLOURS)}."
    return (
        f"{p} and {q} agreed to move the {r.choice(_TEAMS)} standup to "
        f"{r.randint(8, 17)}:{r.choice(('00', '15', '30', '45'))} on {r.choice(_DAYS)}."
    )


def memory_sentence(i: int) -> str:
    """Chunk ``i``: one or two memory-like statements (terse agent-memory facts)."""
    r = random.Random(f"gcmem-mtm-{GENERATOR_VERSION}-chunk-{i}")
    text = _fact(r)
    if r.random() < 0.35:
        text = f"{text} {_fact(r)}"
    return text


def query_sentence(i: int) -> str:
    """Query ``i``: a question of the kind an agent asks its memory."""
    r = random.Random(f"gcmem-mtm-{GENERATOR_VERSION}-query-{i}")
    p, svc = r.choice(_PEOPLE), r.choice(_SERVICES)
    return r.choice(
        (
            f"Where does {p} live now?",
            f"Which port does the {svc} use in {r.choice(_ENVS)}?",
            f"Who is the {r.choice(_ROLES)} of the {r.choice(_TEAMS)} team?",
            f"What version of {r.choice(_PACKAGES)} do we pin?",
            f"What food does {p} like?",
            f"What is the current timeout of the {svc}?",
            f"What hobby did {p} pick up?",
            f"Which tool did we choose over {r.choice(_TOOLS)}?",
            f"When is the {svc} migration due?",
            f"Who does {p} report to?",
            f"How many replicas does the {svc} run?",
            f"When is the {r.choice(_TEAMS)} standup?",
            f"What colour is the user's {r.choice(('laptop', 'phone', 'car', 'bike'))}?",
            f"Does {p} have any pets?",
        )
    )


class EmbeddingCache:
    """Real embeddings of ``memory_sentence(0..n-1)`` (and of queries), cached in blocks."""

    def __init__(self, root: Path, embedder: Embedder) -> None:
        name = embedder.name.replace("/", "_")
        self.dir = root / f"{name}-gen{GENERATOR_VERSION}"
        self.embedder = embedder

    def chunk_vectors(self, n: int) -> np.ndarray:
        """Real embeddings of chunks 0..n-1, computing (and caching) missing blocks."""
        if n < BLOCK:  # small runs (the smoke test) cache just their own prefix
            return self._cached(f"head-{n}.npy", [memory_sentence(i) for i in range(n)])
        blocks = []
        nblocks = -(-n // BLOCK)
        for b in tqdm(range(nblocks), desc="chunk embeddings (cached blocks)", unit="block"):
            texts = [memory_sentence(i) for i in range(b * BLOCK, (b + 1) * BLOCK)]
            blocks.append(self._cached(f"chunks-{b:05d}.npy", texts))
        return np.concatenate(blocks)[:n]

    def query_vectors(self, n: int) -> np.ndarray:
        return self._cached(f"queries-{n}.npy", [query_sentence(i) for i in range(n)])

    def _cached(self, name: str, texts: list[str]) -> np.ndarray:
        path = self.dir / name
        if path.is_file():
            vectors = np.load(path)
            if vectors.shape == (len(texts), self.embedder.dim):
                return vectors
        vectors = self.embedder.embed(texts)
        self._save(path, vectors)
        return vectors

    def _save(self, path: Path, vectors: np.ndarray) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        meta = self.dir / "meta.json"
        if not meta.is_file():
            meta.write_text(
                json.dumps({"embedder": self.embedder.name, "generator": GENERATOR_VERSION})
            )
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors.astype(np.float32))
        tmp.replace(path)  # atomic: a killed build never leaves a half-written block


def derive_vectors(real: np.ndarray, n: int, *, seed: int = 0) -> np.ndarray:
    """``n`` vectors: the real ones first, then derived versions of real ones (module doc)."""
    if n <= len(real):
        return real[:n].copy()
    rng = np.random.default_rng([seed, GENERATOR_VERSION])
    extra = n - len(real)
    base = real[np.arange(extra) % len(real)]
    ia = rng.integers(0, len(real), extra)
    ib = (ia + rng.integers(1, len(real), extra)) % len(real)  # never ia: a zero direction
    direction = real[ia] - real[ib]
    direction -= (direction * base).sum(1, keepdims=True) * base  # orthogonal to the base
    norms = np.linalg.norm(direction, axis=1, keepdims=True)
    direction /= np.where(norms > 1e-6, norms, 1.0)
    cos = rng.uniform(*DERIVED_COS_RANGE, size=(extra, 1))
    derived = cos * base + np.sqrt(1.0 - cos**2) * direction
    derived /= np.linalg.norm(derived, axis=1, keepdims=True)
    return np.concatenate([real, derived.astype(np.float32)])
