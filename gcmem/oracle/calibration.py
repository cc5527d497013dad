"""Calibration of κ's scores, fitted on a labelled dev split, and a threshold chosen for a stated
precision target instead of a constant.

Two monotone maps from the raw P(contradiction) p to a calibrated probability:
- ``temperature``: Platt scaling on the logit, sigmoid(a * logit(p) + b) with a > 0 (a = 1/T;
  b shifts the base rate), fitted by Newton's method on the log loss;
- ``isotonic``: the pool-adjacent-violators fit, linearly interpolated between its steps.

Both are non-decreasing in p, so they never reorder pairs: calibration changes which threshold
means "90% precision", not the ranking. A calibration is stored as JSON together with the θ
digest of the oracle it was fitted for; ``CalibratedOracle`` refuses a calibration fitted for
another θ, and its own θ includes the map, so calibrated and raw scores never share a verdict
log. The threshold is not part of θ (as everywhere in the verdict log): it re-decides stored
scores.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from gcmem.oracle.base import (
    ConflictOracle,
    OracleError,
    OracleIdentity,
    Pair,
    WrappedOracle,
    decide,
    score_for,
)

Method = Literal["temperature", "isotonic"]
METHODS: tuple[Method, ...] = ("temperature", "isotonic")
_EPS = 1e-6


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(np.asarray(p, dtype=np.float64), _EPS, 1 - _EPS)
    return np.log(q / (1 - q))


def fit_platt(scores: np.ndarray, labels: np.ndarray, iters: int = 100) -> tuple[float, float]:
    """(a, b) minimising the log loss of sigmoid(a * logit(p) + b); a kept > 0 (monotone)."""
    x = _logit(scores)
    y = np.asarray(labels, dtype=np.float64)
    # Platt's smoothed targets keep the fit finite on separable data.
    n_pos, n_neg = float(y.sum()), float(len(y) - y.sum())
    t = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    a, b = 1.0, 0.0
    for _ in range(iters):
        z = np.clip(a * x + b, -50, 50)
        p = 1 / (1 + np.exp(-z))
        g = np.array([np.sum((p - t) * x), np.sum(p - t)])
        w = p * (1 - p) + 1e-9
        h = np.array([[np.sum(w * x * x), np.sum(w * x)], [np.sum(w * x), np.sum(w)]])
        h += np.eye(2) * 1e-6
        step = np.linalg.solve(h, g)
        a, b = a - float(step[0]), b - float(step[1])
        if np.max(np.abs(step)) < 1e-8:
            break
    return max(a, 1e-3), b


def fit_isotonic(scores: np.ndarray, labels: np.ndarray) -> tuple[list[float], list[float]]:
    """Pool-adjacent-violators: breakpoints (x, y) of a non-decreasing step fit."""
    order = np.argsort(scores, kind="stable")
    xs = np.asarray(scores, dtype=np.float64)[order]
    ys = np.asarray(labels, dtype=np.float64)[order]
    blocks: list[list[float]] = []  # [sum_y, count, x_min, x_max]
    for x, y in zip(xs, ys, strict=True):
        blocks.append([y, 1.0, x, x])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            s, n, lo, _ = blocks.pop(-2)
            blocks[-1] = [blocks[-1][0] + s, blocks[-1][1] + n, lo, blocks[-1][3]]
    bx: list[float] = []
    by: list[float] = []
    for s, n, lo, hi in blocks:
        for x in (lo, hi) if hi > lo else (lo,):
            bx.append(float(x))
            by.append(float(s / n))
    return bx, by


def precision_recall_at(
    scores: np.ndarray, labels: np.ndarray, threshold: float
) -> tuple[float, float, int]:
    flags = np.asarray(scores) >= threshold
    y = np.asarray(labels).astype(bool)
    tp = int(np.sum(flags & y))
    fp = int(np.sum(flags & ~y))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / int(y.sum()) if y.sum() else 0.0
    return precision, recall, tp + fp


def select_threshold(
    scores: np.ndarray, labels: np.ndarray, precision_target: float
) -> tuple[float, bool]:
    """The threshold with the highest recall whose precision reaches the target (on these
    scores); when none reaches it, the one with the highest precision. Returns (t, target met).
    """
    candidates = np.unique(np.asarray(scores, dtype=np.float64))
    best: tuple[float, float] | None = None  # (recall, -threshold)
    best_t = 1.0
    fallback = (-1.0, 1.0)
    for t in candidates:
        p, r, n = precision_recall_at(scores, labels, float(t))
        if n == 0:
            continue
        if p >= precision_target and (best is None or (r, -t) > best):
            best, best_t = (r, -float(t)), float(t)
        if p > fallback[0]:  # ascending thresholds: ties keep the higher-recall one
            fallback = (p, float(t))
    if best is not None:
        return best_t, True
    return fallback[1], False


@dataclass(frozen=True)
class Calibration:
    """A fitted monotone map, the threshold it implies, and what it was fitted on."""

    method: Method
    params: dict[str, Any]
    threshold: float
    precision_target: float
    target_met: bool
    oracle_theta: str  # digest of the oracle identity the map was fitted for
    dev: dict[str, Any] = field(default_factory=dict)  # n, positives, P/R at threshold, source

    def apply(self, scores: np.ndarray | Sequence[float]) -> np.ndarray:
        p = np.asarray(scores, dtype=np.float64)
        if self.method == "temperature":
            z = self.params["a"] * _logit(p) + self.params["b"]
            return np.asarray(1 / (1 + np.exp(-np.clip(z, -50, 50))), dtype=np.float64)
        return np.interp(p, self.params["x"], self.params["y"]).astype(np.float64)

    @property
    def digest(self) -> str:
        blob = json.dumps({"method": self.method, "params": self.params}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=2, sort_keys=True) + "\n")
        return path

    @classmethod
    def load(cls, path: Path) -> Calibration:
        try:
            data = json.loads(Path(path).read_text())
            cal = cls(**data)
        except (OSError, ValueError, TypeError) as exc:
            raise OracleError(f"cannot read the oracle calibration {path}: {exc}") from exc
        if cal.method not in METHODS:
            raise OracleError(f"{path}: unknown calibration method {cal.method!r}")
        return cal


def fit_calibration(
    scores: np.ndarray,
    labels: np.ndarray,
    *,
    method: Method,
    precision_target: float,
    oracle_theta: str,
    source: str = "",
) -> Calibration:
    """Fit the map on (raw score, label) dev pairs and pick the threshold for the target."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels).astype(int)
    if len(scores) == 0 or labels.min() == labels.max():
        raise ValueError("calibration needs dev pairs of both labels")
    if method == "temperature":
        a, b = fit_platt(scores, labels)
        params: dict[str, Any] = {"a": a, "b": b}
    else:
        x, y = fit_isotonic(scores, labels)
        params = {"x": x, "y": y}
    draft = Calibration(method, params, 0.5, precision_target, False, oracle_theta)
    calibrated = draft.apply(scores)
    threshold, met = select_threshold(calibrated, labels, precision_target)
    p, r, n = precision_recall_at(calibrated, labels, threshold)
    dev = {
        "pairs": len(labels),
        "positives": int(labels.sum()),
        "precision": p,
        "recall": r,
        "flagged": n,
        "source": source,
    }
    return Calibration(method, params, threshold, precision_target, met, oracle_theta, dev)


class CalibratedOracle(WrappedOracle):
    """κ with calibrated scores and the calibration's threshold."""

    def __init__(
        self, inner: ConflictOracle, calibration: Calibration, threshold: float | None = None
    ) -> None:
        if calibration.oracle_theta != inner.identity.digest:
            raise OracleError(
                f"the calibration was fitted for oracle θ {calibration.oracle_theta}, but the "
                f"configured oracle is θ {inner.identity.digest} (model, template, direction or "
                "gate changed): refit it with `gcmem oracle calibrate`"
            )
        self.inner = inner
        self.calibration = calibration
        self.threshold = calibration.threshold if threshold is None else threshold
        self._identity = OracleIdentity(
            "calibrated",
            {
                "inner": inner.identity.canonical(),
                "method": calibration.method,
                "calibration": calibration.digest,
            },
        )

    def score(self, pairs: Sequence[Pair]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float64)
        return self.calibration.apply(self.inner.score(pairs))

    def score_with_question(self, pairs: Sequence[Pair], question: str) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float64)
        return self.calibration.apply(score_for(self.inner, pairs, question))

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return decide(scores, self.threshold)
