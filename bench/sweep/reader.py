"""An optional real reader: an LLM behind an OpenAI-compatible chat endpoint, forced to choose.

For each (instance, condition) it gets the condition's context as dated lines, most relevant
first, the question, and the options (``meta.options``, else the answer, the stale answers and
every state the context asserts, in a fixed per-instance shuffle), and must answer with one
option. Replies are matched to an option (exactly, else the one option the reply contains);
anything else is an abstention, scored wrong. Temperature 0. Replies are cached in a JSONL file
keyed by endpoint, model and prompt, so a rerun or a resumed run asks nothing twice.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.scenarios.model import Scenario
from bench.sweep.store import RecordStore

PROMPT_VERSION = 1
SYSTEM = (
    "You answer questions from an assistant's memory about a user and their world. Each memory "
    "line starts with the date it was recorded. Answer with exactly one of the options, "
    "copied verbatim, and nothing else."
)
DEFAULT_CONDITIONS = (
    "rag|off",
    "rag|on",
    "timestamp|off",
    "supersession|off",
    "gcmem[nli]|off",
    "gcmem[gold]|off",
    "gcmem[gold]|on",
    "bag-of-facts|-",
)


class ReaderError(RuntimeError):
    """The endpoint could not be used (unreachable, bad status, unexpected body)."""


@dataclass(frozen=True)
class ReaderConfig:
    base_url: str
    model: str
    api_key: str | None = None
    conditions: tuple[str, ...] = DEFAULT_CONDITIONS
    timeout_s: float = 60.0
    concurrency: int = 4
    max_tokens: int = 32

    def cache_name(self) -> str:
        ident = json.dumps([self.base_url, self.model, PROMPT_VERSION, SYSTEM, self.max_tokens])
        return f"llm-{hashlib.sha256(ident.encode()).hexdigest()[:12]}.jsonl"


def options_for(scenario: Scenario, context_states: Sequence[str]) -> list[str]:
    meta = scenario.meta.get("options")
    if isinstance(meta, list) and scenario.answer in meta:
        opts = list(dict.fromkeys(meta))
    else:
        opts = list(dict.fromkeys([scenario.answer, *scenario.stale_answers, *context_states]))
    random.Random(f"options:{scenario.id}").shuffle(opts)
    return opts


def build_prompt(question: str, lines: Sequence[tuple[str, str]], options: Sequence[str]) -> str:
    memory = "\n".join(f"[{day}] {text}" for day, text in lines) or "(no memory retrieved)"
    opts = "\n".join(f"- {o}" for o in options)
    return f"Memory:\n{memory}\n\nQuestion: {question}\nOptions:\n{opts}\nAnswer:"


def _norm(text: str) -> str:
    return re.sub(r"[^\w/.:=-]+", " ", text.lower()).strip()


def match_option(reply: str, options: Sequence[str]) -> str | None:
    norm = _norm(reply).strip(" .")
    exact = [o for o in options if _norm(o) == norm]
    if exact:
        return exact[0]
    contained = [o for o in options if re.search(rf"(?<!\w){re.escape(_norm(o))}(?!\w)", norm)]
    return contained[0] if len(contained) == 1 else None


class ChatClient:
    def __init__(self, config: ReaderConfig) -> None:
        self.config = config
        self.url = config.base_url.rstrip("/") + "/chat/completions"

    def ask(self, prompt: str) -> str:
        body = json.dumps(
            {
                "model": self.config.model,
                "messages": [
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": prompt},
                ],
                "temperature": 0,
                "max_tokens": self.config.max_tokens,
            }
        ).encode()
        headers = {"Content-Type": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout_s) as resp:
                data = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            raise ReaderError(f"{self.url}: HTTP {exc.code} {exc.reason}") from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ReaderError(f"{self.url}: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise ReaderError(f"{self.url}: the reply is not JSON") from exc
        try:
            return str(data["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError) as exc:
            raise ReaderError(f"{self.url}: no choices[0].message.content in the reply") from exc


def context_lines(
    cond: str, record: dict[str, Any], evaluation: dict[str, Any], scenario: Scenario
) -> list[tuple[str, str]]:
    """(date, text) of a condition's context, in context order."""
    if cond.startswith("bag-of-facts"):
        turns = {t.id: t for t in scenario.turns}
        return [(turns[t].ts.date().isoformat(), turns[t].text) for t in record["bag"]]
    chunks = {
        c["chunk"]["id"]: c["chunk"]
        for which in ("candidates", "candidates_gc")
        for c in record[which]["candidates"]
    }
    ctx = record["contexts"].get(cond) or evaluation["contexts"][cond]
    return [(chunks[i]["ts"][:10], chunks[i]["text"]) for i in ctx["kept"]]


def run_reader(
    config: ReaderConfig,
    scenarios: dict[str, Scenario],
    retrieval: dict[str, dict[str, Any]],
    evaluation: dict[str, dict[str, Any]],
    work_dir: Path,
    *,
    progress: bool = True,
) -> dict[str, dict[str, str | None]]:
    """Answers per condition per instance (the matched option, None = abstained)."""
    from tqdm.auto import tqdm

    store = RecordStore(work_dir / config.cache_name())
    cached = {r["id"]: r for r in store}
    jobs: list[tuple[str, str, str, list[str]]] = []  # (record id, cond, prompt, options)
    for inst, rec in retrieval.items():
        if inst not in evaluation:
            continue
        scenario = scenarios[inst]
        state_of = {t.text: t.state for t in scenario.turns if t.state is not None}
        available = {*rec["contexts"], *evaluation[inst]["contexts"], "bag-of-facts|-"}
        for cond in config.conditions:
            if cond not in available:
                continue
            lines = context_lines(cond, rec, evaluation[inst], scenario)
            states = [s for _, text in lines if (s := state_of.get(text)) is not None]
            options = options_for(scenario, states)
            prompt = build_prompt(scenario.question, lines, options)
            jobs.append((f"{inst}::{cond}", cond, prompt, options))
    digest = {j[0]: hashlib.sha256(j[2].encode()).hexdigest()[:16] for j in jobs}
    todo = [j for j in jobs if cached.get(j[0], {}).get("prompt") != digest[j[0]]]
    if todo:
        client = ChatClient(config)

        def ask(job: tuple[str, str, str, list[str]]) -> dict[str, Any]:
            reply = client.ask(job[2])
            return {
                "id": job[0],
                "prompt": digest[job[0]],
                "reply": reply,
                "answer": match_option(reply, job[3]),
            }

        with ThreadPoolExecutor(max_workers=config.concurrency) as pool:
            for record in tqdm(
                pool.map(ask, todo), total=len(todo), desc="llm reader", disable=not progress
            ):
                store.append(record)
                cached[record["id"]] = record
    answers: dict[str, dict[str, str | None]] = {}
    for job_id, cond, _, _ in jobs:
        inst = job_id.split("::", 1)[0]
        answers.setdefault(cond, {})[inst] = cached[job_id]["answer"]
    return answers
