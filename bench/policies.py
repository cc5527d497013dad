"""``python -m bench policies``: the anomaly matrix of the resolution policies under
concurrent writers on one key, on a real Redis server.

For each policy (latest, evidence, confirm, accumulate) and each number of writers W, ``runs``
times: a fresh namespace, one (subject, relation) key, W threads, each with its own Redis
connection and ledger, released together by a barrier, each recording ``per_writer``
assertions on that key (values from a small pool, so values repeat across writers and
confirmations by a second source happen; distinct event times in a shuffled order; writer w
is source ``s{w % 3}``, trust 1 / 2 / 0.5). Then the key is read back and checked:

- ``lost_updates``: assertions written but not recorded (W x per_writer minus the ledger's
  assertion records);
- ``open_assertions_max``: the most open (current, valid, not held) versions seen on the key
  (1 for single-valued policies; accumulate: every distinct value, reported as
  ``accumulate_missing`` when one is not open);
- ``pending_max``: the most values held pending at once (confirm: at most 1);
- ``audit_missing``: values that lost (a closed or retired claim) without a decision row
  naming them as the loser;
- ``wrong_winner``: the current value differs from what the policy's rule gives on the set of
  assertions (latest: the latest event time; evidence: the most support, ties by time; confirm:
  the first value or the last promoted one; accumulate: every value).

A baseline with no atomic script (each writer reads the key's assertion list, appends, writes
it back: read-committed read-modify-write) runs over the same matrix to show the check finds
lost updates when they happen. Results: ``anomalies.json`` and ``anomalies.md`` in ``--out``.
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import redis
import typer

from bench.cleanup import delete_matching
from gcmem.models import Fact
from gcmem.settings import PolicyName, PolicyRule, load_settings
from gcmem.storage.ledger import SupersessionLedger
from gcmem.storage.ledger.policy import POLICIES, PolicyTable
from gcmem.storage.redis import Keyspace, open_redis

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "policies"
WRITERS = (1, 2, 4, 8, 16)
T0 = datetime(2026, 3, 1, tzinfo=UTC)
TRUST = (("s0", 1.0), ("s1", 2.0), ("s2", 0.5))
SUBJECT, RELATION = "patient", "medication"
POOL = 5  # distinct values per key


@dataclass
class Cell:
    runs: int = 0
    lost_updates: int = 0
    open_assertions_max: int = 0
    pending_max: int = 0
    audit_missing: int = 0
    wrong_winner: int = 0
    accumulate_missing: int = 0
    decisions: list[int] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        writes = len(lat)
        return {
            "runs": self.runs,
            "lost_updates": self.lost_updates,
            "open_assertions_max": self.open_assertions_max,
            "pending_max": self.pending_max,
            "audit_missing": self.audit_missing,
            "wrong_winner": self.wrong_winner,
            "accumulate_missing": self.accumulate_missing,
            "decisions_per_run": round(statistics.fmean(self.decisions), 2)
            if self.decisions
            else 0.0,
            "writes": writes,
            "write_p50_ms": round(lat[writes // 2], 3) if lat else None,
            "write_p99_ms": round(lat[min(writes - 1, int(writes * 0.99))], 3) if lat else None,
            "writes_per_s": round(writes / self.seconds, 1) if self.seconds else None,
        }


def _plan(writers: int, per_writer: int, rng: random.Random) -> list[list[tuple[str, int]]]:
    """Per writer, its (value, event-time offset in minutes) assertions; times distinct."""
    times = list(range(writers * per_writer))
    rng.shuffle(times)
    return [
        [(f"v{rng.randrange(POOL)}", times[w * per_writer + i]) for i in range(per_writer)]
        for w in range(writers)
    ]


def _expected_winner(
    policy: str, plan: list[list[tuple[str, int]]], ledger: SupersessionLedger, ns: str
) -> set[str]:
    stated = [(obj, t, f"s{w % 3}") for w, items in enumerate(plan) for obj, t in items]
    if policy == "accumulate":
        return {obj for obj, _, _ in stated}
    if policy == "latest":
        return {max(stated, key=lambda a: a[1])[0]}
    if policy == "evidence":
        support: dict[str, float] = defaultdict(float)
        latest: dict[str, int] = defaultdict(lambda: -1)
        for obj, t, src in stated:
            support[obj] += dict(TRUST)[src]
            latest[obj] = max(latest[obj], t)
        return {max(support, key=lambda o: (support[o], latest[o], o))}
    # confirm: order-dependent by design; the winner is the first value or the last promoted
    promoted = [
        d.winner.object
        for d in ledger.decisions(ns, SUBJECT, RELATION)
        if d.outcome == "promoted" and d.winner is not None
    ]
    first = ledger.rows(ns, SUBJECT, RELATION)[0].object
    return {promoted[-1] if promoted else first}


def _one_run(
    url: str, prefix: str, policy: PolicyName, writers: int, per_writer: int, rng: random.Random
) -> tuple[dict[str, int], list[float], float]:
    ns = f"bench-{uuid.uuid4().hex[:10]}"
    rules = PolicyTable(
        rules=(PolicyRule(relation=RELATION, policy=policy),),
        trust=TRUST,
    )
    plan = _plan(writers, per_writer, rng)
    barrier = threading.Barrier(writers)
    latencies: list[float] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work(w: int) -> None:
        client = redis.Redis.from_url(url)  # its own connection
        ledger = SupersessionLedger(client, Keyspace(prefix), policies=rules)
        mine = []
        try:
            barrier.wait()
            for i, (obj, minutes) in enumerate(plan[w]):
                t0 = time.perf_counter()
                ledger.assert_fact(
                    ns,
                    Fact(subject=SUBJECT, relation=RELATION, object=obj),
                    ts=T0 + timedelta(minutes=minutes),
                    turn_id=f"w{w}-{i}",
                    chunk_id=f"c-w{w}-{i}",
                    source=f"s{w % 3}",
                )
                mine.append((time.perf_counter() - t0) * 1e3)
        except BaseException as exc:  # surfaced after join
            errors.append(exc)
        finally:
            client.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    if errors:
        raise errors[0]
    reader = SupersessionLedger(redis.Redis.from_url(url), Keyspace(prefix), policies=rules)
    try:
        found = _check(reader, ns, policy, plan)
    finally:
        delete_matching(reader.client, f"{prefix}:{{{ns}}}:*")
    return found, latencies, elapsed


def _check(
    ledger: SupersessionLedger, ns: str, policy: str, plan: list[list[tuple[str, int]]]
) -> dict[str, int]:
    rows = ledger.versions(ns, SUBJECT, RELATION)
    decisions = ledger.decisions(ns, SUBJECT, RELATION)
    expected = sum(len(p) for p in plan)
    recorded = ledger.stats(ns).assertions
    open_values = {r.object for r in rows if r.open}
    held = {r.object for r in rows if r.pending}
    losers = {d.loser.object for d in decisions if d.loser is not None}
    lost_rows = {
        r.object
        for r in rows
        if not r.open and not r.pending and r.object not in open_values | held
    }
    want = _expected_winner(policy, plan, ledger, ns)
    return {
        "lost_updates": expected - recorded,
        "open": sum(r.open for r in rows),
        "pending": len([r for r in rows if r.pending]),
        "audit_missing": len(lost_rows - losers),
        "wrong_winner": int(open_values != want) if policy != "accumulate" else 0,
        "accumulate_missing": len(want - open_values) if policy == "accumulate" else 0,
        "decisions": len(decisions),
    }


def _baseline_run(url: str, prefix: str, writers: int, per_writer: int) -> int:
    """Read-modify-write without a script: returns the lost updates of one run."""
    key = f"{prefix}:bench-rmw:{uuid.uuid4().hex}"
    barrier = threading.Barrier(writers)

    def work(w: int) -> None:
        client = redis.Redis.from_url(url)
        barrier.wait()
        for i in range(per_writer):
            raw = client.get(key)
            items = json.loads(raw) if raw else []
            items.append(f"w{w}-{i}")
            client.set(key, json.dumps(items))
        client.close()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    client = redis.Redis.from_url(url)
    raw = client.get(key)
    client.delete(key)
    client.close()
    return writers * per_writer - len(json.loads(raw) if raw else [])


def run_matrix(
    url: str,
    *,
    writers: tuple[int, ...] = WRITERS,
    runs: int = 30,
    per_writer: int = 4,
    policies: tuple[PolicyName, ...] = POLICIES,
    seed: int = 0,
) -> dict[str, Any]:
    prefix = f"gcmembench-{uuid.uuid4().hex[:8]}"
    rng = random.Random(seed)
    out: dict[str, Any] = {"writers": list(writers), "policies": {}}
    started = time.perf_counter()
    for policy in policies:
        cells: dict[int, Cell] = {}
        for w in writers:
            cell = cells[w] = Cell()
            for _ in range(runs):
                found, lat, elapsed = _one_run(url, prefix, policy, w, per_writer, rng)
                cell.runs += 1
                cell.lost_updates += found["lost_updates"]
                cell.open_assertions_max = max(cell.open_assertions_max, found["open"])
                cell.pending_max = max(cell.pending_max, found["pending"])
                cell.audit_missing += found["audit_missing"]
                cell.wrong_winner += found["wrong_winner"]
                cell.accumulate_missing += found["accumulate_missing"]
                cell.decisions.append(found["decisions"])
                cell.latencies_ms += lat
                cell.seconds += elapsed
        per_cell = {str(w): c.summary() for w, c in cells.items()}
        single = policy != "accumulate"
        out["policies"][policy] = {
            "lost_updates": sum(c.lost_updates for c in cells.values()),
            "open_assertions_max": max(c.open_assertions_max for c in cells.values())
            if single
            else None,
            "open_values_max": max(c.open_assertions_max for c in cells.values()),
            "pending_max": max(c.pending_max for c in cells.values()),
            "audit_missing": sum(c.audit_missing for c in cells.values()),
            "wrong_winner": sum(c.wrong_winner for c in cells.values()),
            "accumulate_missing": sum(c.accumulate_missing for c in cells.values()),
            "cells": per_cell,
        }
    baseline: dict[str, Any] = {}
    for w in writers:
        lost = [_baseline_run(url, prefix, w, per_writer) for _ in range(runs)]
        baseline[str(w)] = {
            "lost_updates": sum(lost),
            "runs_with_a_lost_update": sum(1 for x in lost if x),
            "lost_update_rate": round(sum(1 for x in lost if x) / runs, 3),
        }
    out["baseline_read_modify_write"] = baseline
    out["config"] = {
        "runs": runs,
        "per_writer": per_writer,
        "values_per_key": POOL,
        "trust": dict(TRUST),
        "seed": seed,
        "seconds": round(time.perf_counter() - started, 1),
        "redis": _server_version(url),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return out


def _server_version(url: str) -> str:
    client = redis.Redis.from_url(url)
    try:
        info = client.info("server")
        return str(info.get("redis_version", "?"))
    finally:
        client.close()


def markdown(result: dict[str, Any]) -> str:
    cfg = result["config"]
    lines = [
        "# Resolution policies under concurrent writers (one key, real Redis)",
        "",
        f"{cfg['runs']} runs per cell, {cfg['per_writer']} assertions per writer, "
        f"{cfg['values_per_key']} values per key, Redis {cfg['redis']}, "
        f"{cfg['seconds']} s in all. Counts are totals over the runs; maxima over the runs.",
        "",
        "| policy | writers | lost updates | open max | pending max | audit missing | "
        "wrong winner | decisions/run | p50 ms | p99 ms | writes/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for policy, data in result["policies"].items():
        for w, c in data["cells"].items():
            lines.append(
                f"| {policy} | {w} | {c['lost_updates']} | {c['open_assertions_max']} | "
                f"{c['pending_max']} | {c['audit_missing']} | "
                f"{c['wrong_winner'] + c['accumulate_missing']} | {c['decisions_per_run']} | "
                f"{c['write_p50_ms']} | {c['write_p99_ms']} | {c['writes_per_s']} |"
            )
    lines += [
        "",
        "accumulate's open max is the number of distinct values (all stay current); its "
        "wrong-winner column counts values that are not open.",
        "",
        "Baseline without the atomic script (read, append, write back):",
        "",
        "| writers | lost updates | runs with a lost update | rate |",
        "|---:|---:|---:|---:|",
    ]
    for w, b in result["baseline_read_modify_write"].items():
        lines.append(
            f"| {w} | {b['lost_updates']} | {b['runs_with_a_lost_update']} | "
            f"{b['lost_update_rate']} |"
        )
    return "\n".join(lines) + "\n"


def cli(
    out: Annotated[Path, typer.Option(help="Where anomalies.json/.md go.")] = DEFAULT_OUT,
    writers: Annotated[str, typer.Option(help="Writer counts, comma-separated.")] = "1,2,4,8,16",
    runs: Annotated[int, typer.Option(min=1, help="Runs per (policy, writers) cell.")] = 30,
    per_writer: Annotated[int, typer.Option(min=1, help="Assertions per writer.")] = 4,
    seed: Annotated[int, typer.Option(help="Values and event-time order seed.")] = 0,
    redis_url: Annotated[
        str | None, typer.Option(help="Redis server (default: GCMEM_REDIS_URL).")
    ] = None,
) -> None:
    """Lost updates, open/pending maxima, missing audit rows and wrong winners per policy x
    concurrent writers on one key; writes anomalies.json and anomalies.md."""
    url = redis_url or load_settings().storage.redis_url
    if not url:
        raise typer.BadParameter("needs a real Redis server: --redis-url or GCMEM_REDIS_URL")
    counts = tuple(int(w) for w in writers.split(",") if w.strip())
    if not counts or min(counts) < 1:
        raise typer.BadParameter("writers must be positive integers")
    open_redis(load_settings(redis_url=url).storage).ping()
    result = run_matrix(url, writers=counts, runs=runs, per_writer=per_writer, seed=seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "anomalies.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    table = markdown(result)
    (out / "anomalies.md").write_text(table, encoding="utf-8")
    print(table)
