"""The LLM-judge oracle against a local OpenAI-compatible fake server started by the test."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gcmem.oracle.base import OracleError
from gcmem.oracle.factory import build_oracle
from gcmem.oracle.llm_judge import LLMJudgeOracle
from gcmem.oracle.verdicts import VerdictLog
from gcmem.settings import JudgeSettings, Settings
from gcmem.storage.redis import Keyspace, open_redis
from tests.test_oracle_verdicts import NS, chunk


@dataclass
class FakeJudge:
    """Answers "yes" when the prompt's two statements are about the same port with different
    numbers; can fail the next N requests or answer garbage, and records every request."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    fail_next: int = 0
    answer_override: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append(body)
            if self.fail_next:
                self.fail_next -= 1
                return 503, {"error": "overloaded"}
        prompt = body["messages"][0]["content"]
        first = prompt.split("Statement 1: ")[1].split("\n")[0]
        second = prompt.split("Statement 2: ")[1].split("\n")[0]
        flip = "port" in first and "port" in second and first != second
        answer = self.answer_override or ("Yes." if flip else "no")
        choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": answer}}
        if body.get("logprobs"):
            p_yes = 0.8 if flip else 0.1
            choice["logprobs"] = {
                "content": [
                    {
                        "token": answer,
                        "logprob": 0.0,
                        "top_logprobs": [
                            {"token": "Yes", "logprob": math.log(p_yes)},
                            {"token": "No", "logprob": math.log(1 - p_yes)},
                        ],
                    }
                ]
            }
        return 200, {"id": "x", "object": "chat.completion", "choices": [choice]}


@pytest.fixture
def judge() -> Iterator[tuple[FakeJudge, str]]:
    state = FakeJudge()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path != "/v1/chat/completions":
                self.send_error(404)
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.headers.append(dict(self.headers))
            status, payload = state.reply(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


PAIRS = [
    ("The service runs on port 8000.", "The service runs on port 8080."),
    ("Alice likes tea.", "The build uses Python 3.11."),
]


def test_judge_scores_pairs_and_sends_a_well_formed_request(judge: tuple[FakeJudge, str]) -> None:
    state, url = judge
    oracle = LLMJudgeOracle(url, "judge-1", api_key="sk-test", concurrency=2)
    assert list(oracle.score(PAIRS)) == [1.0, 0.0]
    assert list(oracle.decide(oracle.score(PAIRS))) == [True, False]
    body = state.requests[0]
    assert body["model"] == "judge-1" and body["temperature"] == 0
    assert (
        "port 8000" in body["messages"][0]["content"] or "Alice" in body["messages"][0]["content"]
    )
    assert state.headers[0]["Authorization"] == "Bearer sk-test"
    oracle.close()


def test_max_direction_asks_both_orders(judge: tuple[FakeJudge, str]) -> None:
    state, url = judge
    oracle = LLMJudgeOracle(url, "judge-1", direction="max")
    assert oracle.symmetric
    oracle.score(PAIRS)
    assert len(state.requests) == 4


def test_logprobs_give_graded_scores(judge: tuple[FakeJudge, str]) -> None:
    _, url = judge
    oracle = LLMJudgeOracle(url, "judge-1", logprobs=True, threshold=0.5)
    scores = oracle.score(PAIRS)
    assert scores[0] == pytest.approx(0.8) and scores[1] == pytest.approx(0.1)


def test_transient_errors_are_retried(judge: tuple[FakeJudge, str]) -> None:
    state, url = judge
    state.fail_next = 2
    oracle = LLMJudgeOracle(url, "judge-1", concurrency=1, max_retries=3)
    assert list(oracle.score(PAIRS[:1])) == [1.0]
    assert oracle.requests_sent == 3


def test_bad_answers_and_dead_endpoints_are_clear_errors(judge: tuple[FakeJudge, str]) -> None:
    state, url = judge
    state.answer_override = "Perhaps, it depends."
    with pytest.raises(OracleError, match="expected 'yes' or 'no'"):
        LLMJudgeOracle(url, "judge-1").score(PAIRS[:1])
    state.answer_override = None
    state.fail_next = 10
    with pytest.raises(OracleError, match="HTTP 503"):
        LLMJudgeOracle(url, "judge-1", max_retries=1).score(PAIRS[:1])
    with pytest.raises(OracleError, match="HTTP 404"):
        LLMJudgeOracle(url.removesuffix("/v1") + "/nope", "judge-1").score(PAIRS[:1])
    with pytest.raises(OracleError, match="unreachable"):
        LLMJudgeOracle("http://127.0.0.1:9", "j", max_retries=0).score(PAIRS[:1])
    with pytest.raises(ValueError, match="http"):
        LLMJudgeOracle("ftp://x", "judge-1")
    with pytest.raises(ValueError, match="LLM_JUDGE_PROMPT"):
        LLMJudgeOracle(url, "judge-1", prompt="Compare {a} with {c}")


def test_judge_behind_the_verdict_log_and_settings(
    judge: tuple[FakeJudge, str], redis_settings: Settings, tmp_path: Path
) -> None:
    state, url = judge
    s = redis_settings.replace(oracle="llm-judge", llm_judge_url=url, llm_judge_model="judge-1")
    oracle = build_oracle(s.oracle, s.judge)
    assert isinstance(oracle, LLMJudgeOracle) and oracle.identity.kind == "llm-judge"
    log = VerdictLog(open_redis(s.storage), Keyspace(s.storage.key_prefix), oracle)
    a, b = chunk("The service runs on port 8000."), chunk("The service runs on port 8080.")
    assert list(log.decide(log.scores(NS, [(a, b)]).scores)) == [True]
    sent = len(state.requests)
    assert list(log.decide(log.scores(NS, [(a, b)]).scores)) == [True]
    assert len(state.requests) == sent  # second time from the log
    with pytest.raises(ValueError, match="LLM_JUDGE_URL"):
        build_oracle(s.oracle, JudgeSettings())
