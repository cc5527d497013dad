"""κ as an LLM judge over an OpenAI-compatible chat-completions endpoint (the original method).

One request per directed pair (chat completions have no batch), sent concurrently. The judge
answers "yes" or "no"; with ``logprobs`` the score is P(yes) / (P(yes) + P(no)) from the first
token's top log-probabilities, otherwise 1.0 / 0.0. Temperature 0, so a verdict is as
repeatable as the server allows, and the verdict log makes it exactly repeatable for gcmem.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import numpy as np

from gcmem.oracle.base import (
    Direction,
    OracleError,
    OracleIdentity,
    Pair,
    apply_direction,
    check_direction,
    check_threshold,
    decide,
)
from gcmem.settings import check_template

DEFAULT_JUDGE_PROMPT = (
    "Two statements were stored in an assistant's memory, the first earlier than the second.\n"
    "Statement 1: {a}\n"
    "Statement 2: {b}\n"
    "Do they contradict each other, so that both cannot be true of the same person or thing "
    "at the same time? Answer with one word: yes or no."
)
_RETRY_STATUS = frozenset([408, 409, 425, 429, 500, 502, 503, 504])


class LLMJudgeOracle:
    kind = "llm-judge"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        prompt: str = DEFAULT_JUDGE_PROMPT,
        direction: Direction = "forward",
        threshold: float = 0.5,
        logprobs: bool = False,
        timeout_s: float = 30.0,
        concurrency: int = 4,
        max_retries: int = 3,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"GCMEM_LLM_JUDGE_URL must be an http(s) URL, got {base_url!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.prompt = check_template(prompt, {"a", "b"}, {"a", "b"}, "GCMEM_LLM_JUDGE_PROMPT")
        self.direction = check_direction(direction)
        self.threshold = check_threshold(threshold)
        self.logprobs = logprobs
        self.concurrency = max(1, concurrency)
        self.max_retries = max(0, max_retries)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=timeout_s,
            headers=headers,
            transport=transport,
            limits=httpx.Limits(max_connections=self.concurrency),
        )
        self.requests_sent = 0
        self._identity = OracleIdentity(
            self.kind,
            {
                # The endpoint URL is not in θ: the same model behind another URL (a replica,
                # a proxy) is the same judge.
                "model": model,
                "prompt": self.prompt,
                "direction": self.direction,
                "decoding": {"temperature": 0, "logprobs": logprobs},
            },
        )

    @property
    def identity(self) -> OracleIdentity:
        return self._identity

    @property
    def symmetric(self) -> bool:
        return self.direction != "forward"

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return decide(scores, self.threshold)

    def score(self, pairs: Sequence[Pair]) -> np.ndarray:
        return apply_direction(self.score_directed, pairs, self.direction)

    def score_directed(self, pairs: Sequence[Pair]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float64)
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return np.fromiter(pool.map(self._judge, pairs), dtype=np.float64, count=len(pairs))

    def close(self) -> None:
        self._client.close()

    # --- one request ---------------------------------------------------------------------
    def _judge(self, pair: Pair) -> float:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": self.prompt.format(a=pair[0], b=pair[1])}],
            "temperature": 0,
            "max_tokens": 3,
        }
        if self.logprobs:
            body.update(logprobs=True, top_logprobs=10)
        return self._parse(self._post(body))

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                self.requests_sent += 1
                response = self._client.post(self.url, json=body)
            except httpx.TransportError as exc:
                if last:
                    raise OracleError(f"LLM judge at {self.url} unreachable: {exc}") from exc
            else:
                if response.status_code == 200:
                    try:
                        data = response.json()
                    except ValueError as exc:
                        raise OracleError(f"LLM judge returned non-JSON: {exc}") from exc
                    if not isinstance(data, dict):
                        raise OracleError("LLM judge returned a non-object JSON body")
                    return data
                if response.status_code not in _RETRY_STATUS or last:
                    raise OracleError(
                        f"LLM judge at {self.url} answered HTTP {response.status_code}: "
                        f"{response.text[:300]}"
                    )
            time.sleep(min(8.0, 0.25 * 2**attempt))
        raise AssertionError("unreachable")

    def _parse(self, data: dict[str, Any]) -> float:
        try:
            choice = data["choices"][0]
            text = str(choice["message"]["content"] or "")
        except (KeyError, IndexError, TypeError) as exc:
            raise OracleError(f"LLM judge response has no choices[0].message: {data!r}") from exc
        if self.logprobs:
            prob = _yes_probability(choice.get("logprobs"))
            if prob is not None:
                return prob
        word = text.strip().strip(".!\"'`*").split()
        answer = word[0].lower().strip(".,!:;") if word else ""
        if answer == "yes":
            return 1.0
        if answer == "no":
            return 0.0
        raise OracleError(f"LLM judge answered {text[:120]!r}, expected 'yes' or 'no'")


def _yes_probability(logprobs: Any) -> float | None:
    """P(yes) / (P(yes) + P(no)) over the first token's alternatives, if both are visible."""
    try:
        first = logprobs["content"][0]
        alternatives = first.get("top_logprobs") or [first]
    except (KeyError, IndexError, TypeError):
        return None
    mass = {"yes": 0.0, "no": 0.0}
    for alt in alternatives:
        token = str(alt.get("token", "")).strip().lower()
        if token in mass:
            mass[token] += math.exp(float(alt["logprob"]))
    total = mass["yes"] + mass["no"]
    return mass["yes"] / total if total > 0 else None
