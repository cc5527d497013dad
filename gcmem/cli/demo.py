"""The built-in demo: a project's and a person's memory over a few weeks, stale and current.

Every question is answered twice from the same candidate set: standard RAG (no filters) and
the configured filter chain, so the difference is only what the filters did.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gcmem.memory import Memory
from gcmem.models import Decision, RetrievalResult, Turn

_START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# (day offset, role, text). Values change without recency words, as they do in real logs.
TIMELINE: list[tuple[int, str, str]] = [
    (0, "user", "The payments service runs on port 8000."),
    (0, "user", "The project is licensed under Apache-2.0."),
    (
        1,
        "assistant",
        "We pin fastapi at 0.95.2 in requirements.txt. Uvicorn serves it with 4 workers.",
    ),
    (2, "user", "The API base path for the project is /api/v1."),
    (3, "user", "Sam is badly out of shape these days."),
    (3, "user", "Sam lives alone in a studio flat."),
    (4, "user", "The payments service runs on port 8000."),
    (5, "user", "Sam's favourite food is ramen."),
    (6, "assistant", "The staging database is called orders_stage."),
    (7, "user", "My sister Priya works at Deloitte in their audit practice."),
    (9, "user", "The API base path for the project is /api/v2."),
    (12, "user", "The payments service runs on port 8080."),
    (14, "assistant", "We pin fastapi at 0.110.0 in requirements.txt."),
    (16, "user", "Sam is very fit."),
    (18, "user", "Sam shares a house with his wife and two kids."),
    (17, "user", "Maria reports to Dana."),
    (20, "user", "Maria reports to Lee."),
    (21, "user", "Caught up with Priya, she's at Stripe these days and much happier."),
]

QUESTIONS = [
    "Which port does the payments service run on?",
    "What fastapi version do we pin?",
    "What is the API base path?",
    "How fit is Sam?",
    "Who does Sam live with?",
    "What is Sam's favourite food?",
    "Who does Maria report to?",
    "Where does Priya work?",
    "What licence does the project use?",
]


def demo_turns(namespace: str) -> list[Turn]:
    return [
        Turn(
            id=f"demo-{i:02d}",
            namespace=namespace,
            session_id=f"session-{day // 7}",
            role=role,
            text=text,
            ts=_START + timedelta(days=day, minutes=i),
        )
        for i, (day, role, text) in enumerate(TIMELINE)
    ]


def _when(result_ts: datetime) -> str:
    return result_ts.strftime("%Y-%m-%d")


def render_result(
    result: RetrievalResult,
    console: Console,
    title: str | None = None,
    excluded: Sequence[Decision] = (),
) -> None:
    """The kept and dropped chunks with reasons; ``excluded``: the decision records of chunks
    write-time GC kept out of the search (``Memory.explain``), shown as drops at write time."""
    table = Table(title=title or f"{result.query}  [{', '.join(result.filters) or 'no filters'}]")
    table.add_column("", width=4)
    table.add_column("date")
    table.add_column("chunk")
    table.add_column("why", overflow="fold")
    for c in result.kept:
        why = f"relevance {c.score:.2f}"
        for s in c.stale_sentences:  # shown excised; the original statement named here
            why += f"; excised {s.text!r} ({s.stage}: {s.key} is now {s.current_value!r})"
        table.add_row("keep", _when(c.chunk.ts), escape(c.visible_text), escape(why))
    texts = {c.chunk.id: c.chunk.text for c in result.kept}
    texts.update((d.chunk.chunk.id, d.chunk.chunk.text) for d in result.dropped)
    texts.update((d.chunk.chunk.id, d.chunk.chunk.text) for d in excluded)
    rows = [(d, "") for d in result.dropped] + [(d, " (at write time)") for d in excluded]
    for d, when in rows:
        why = f"[{d.stage}] {d.reason}{when}"
        if d.score is not None and f"{d.score:.2f}" not in d.reason:
            why += f" (score {d.score:.2f})"
        if d.dominated_by in texts:
            why += f'; newer: "{texts[d.dominated_by]}"'
        why = escape(why)  # rich would read "[dominance]" (or brackets in memory text) as markup
        table.add_row("[red]drop[/red]", _when(d.chunk.chunk.ts), escape(d.chunk.chunk.text), why)
    console.print(table)
    for conflict in result.conflicts:
        older, newer = conflict.older.chunk, conflict.newer.chunk
        console.print(
            f"[yellow]surfaced[/yellow] {escape(repr(older.text))} ({_when(older.ts)}) may be "
            f"superseded by {escape(repr(newer.text))} ({_when(newer.ts)}): "
            f"{escape(conflict.reason)}"
        )
    timings = ", ".join(f"{k} {v:.1f} ms" for k, v in result.timings_ms.items())
    console.print(f"[dim]{result.candidates} candidates; {timings}[/dim]")


def run_demo(memory: Memory, console: Console) -> None:
    namespace = memory.settings.memory.namespace
    report = memory.ingest(demo_turns(namespace))
    console.print(
        f"ingested {report.turns} turns ({report.chunks} chunks) into namespace "
        f"[bold]{namespace}[/bold] with embedder [bold]{memory.embedder.name}[/bold]"
    )
    chain = ", ".join(f.name for f in memory.filters) or "none (set GCMEM_FILTERS)"
    console.print(f"filter chain: {chain}\n")
    for question in QUESTIONS:
        # standard RAG: the index as stored; gcmem: superseded chunks left out before top-k
        stored = memory.candidates(question, namespace=namespace, k=4, exclude_flagged=False)
        console.rule(question)
        rag = memory.filter(stored, filters=[])
        console.print("[bold]standard RAG context[/bold]: " + " | ".join(rag.texts))
        result = memory.retrieve(question, namespace=namespace, k=4)
        searched = {c.id for c in result.kept} | {d.chunk_id for d in result.dropped}
        excluded = [
            d
            for c in stored.candidates
            if c.id not in searched and (d := memory.explain(c.id, namespace=namespace)) is not None
        ]
        render_result(result, console, title="gcmem", excluded=excluded)
