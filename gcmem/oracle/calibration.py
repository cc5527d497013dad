"""Calibration of κ's scores, fitted on a labelled dev split, and a threshold chosen for a stated
precision target instead of a constant.

Two monotone maps from the raw P(contradiction) p to a calibrated probability:
- ``temperature``: Platt scaling on the logit, sigmoid(a * logit(p) + b) with a > 0 (a = 1/T;
  b shifts the base rate), fitted by Newton's method on the log loss;
- ``isotonic``: the pool-adjacent-violators fit, linearly interpolated between its steps.

Both are non-decreasing in p, so they never reorder pairs: calibration changes which threshold
means "90% precision", not the ranking, and because a monotone map commutes with the direction
policies (max and min of the two orders), one map of one-direction scores serves every policy.

A calibration is stored as JSON with what it was fitted for: the model's weights fingerprint
(``weights_sha256``, with the input template), or for older files the θ digest of the oracle.
``CalibratedOracle`` refuses a calibration fitted for another model, and its own θ includes
the map, so calibrated and raw scores never share a verdict log. The threshold is not part of
θ (as everywhere in the verdict log): it re-decides stored scores.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from gcmem.oracle.base import (
    ConflictOracle,
    Direction,
    OracleError,
    OracleIdentity,
    Pair,
    Redirectable,
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


def fit_map(scores: np.ndarray, labels: np.ndarray, method: Method) -> dict[str, Any]:
    """The parameters of a monotone map of raw scores to calibrated probabilities."""
    if method == "temperature":
        a, b = fit_platt(scores, labels)
        return {"a": a, "b": b}
    x, y = fit_isotonic(scores, labels)
    return {"x": x, "y": y}


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
    oracle_theta: str  # digest of the oracle identity the map was fitted for ("" = by weights)
    dev: dict[str, Any] = field(default_factory=dict)  # n, positives, P/R at threshold, source
    # What the map was fitted for when it is keyed by the model's weights (shipped files):
    # a map of one-direction scores of these weights under this input template.
    model: str = ""
    weights_sha256: str = ""
    template: str = "{text}"
    max_length: int | None = None
    fitted_on: str = ""
    date: str = ""

    def apply(self, scores: np.ndarray | Sequence[float]) -> np.ndarray:
        p = np.asarray(scores, dtype=np.float64)
        if self.method == "temperature":
            z = self.params["a"] * _logit(p) + self.params["b"]
            return np.asarray(1 / (1 + np.exp(-np.clip(z, -50, 50))), dtype=np.float64)
        return np.interp(p, self.params["x"], self.params["y"]).astype(np.float64)

    def scaled(self, raw_threshold: float) -> float:
        """A threshold on raw scores, on the calibrated scale: for a strictly increasing map
        (temperature), raw >= t exactly when calibrated >= scaled(t)."""
        return float(self.apply([raw_threshold])[0])

    def invert(self, threshold: float) -> float:
        """The smallest raw score whose calibrated score reaches ``threshold``."""
        if self.method == "temperature":
            z = (float(_logit(np.array([threshold]))[0]) - self.params["b"]) / self.params["a"]
            return float(1 / (1 + np.exp(-z)))
        xs, ys = self.params["x"], self.params["y"]
        above = [x for x, y in zip(xs, ys, strict=True) if y >= threshold]
        return float(above[0]) if above else 1.0

    def mismatch(self, identity: OracleIdentity) -> str | None:
        """Why this calibration does not fit the bare model oracle ``identity`` (None: it does)."""
        params = identity.params
        if self.weights_sha256:
            return self.mismatch_weights(
                params.get("weights_sha256"),
                str(params.get("template", "")),
                conditioned="question_template" in params,
            )
        if self.oracle_theta != identity.digest:
            return (
                f"it was fitted for oracle θ {self.oracle_theta}, but the configured oracle is "
                f"θ {identity.digest} (model, template, direction or gate changed)"
            )
        return None

    def mismatch_weights(self, weights: object, template: str, *, conditioned: bool) -> str | None:
        """Why this weights-keyed calibration does not fit a model with these weights and input
        template (None: it does)."""
        if weights != self.weights_sha256:
            return (
                f"it was fitted for weights {self.weights_sha256[:16]} ({self.model or '?'}), "
                f"the model has {str(weights or '-')[:16]}"
            )
        if template != self.template or conditioned:
            return f"it was fitted for the input template {self.template!r} alone"
        return None

    def describe(self) -> str:
        """One line for logs and ``gcmem config show``."""
        fitted = f", fitted {self.date}" if self.date else ""
        on = f" on {self.fitted_on}" if self.fitted_on else ""
        return f"{self.method} {self.digest}{fitted}{on}"

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
    params = fit_map(scores, labels, method)
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
    """κ with calibrated scores; the threshold is the calibration's unless one is given (on the
    calibrated scale: ``Calibration.scaled`` turns a raw-score threshold into one)."""

    def __init__(
        self,
        inner: ConflictOracle,
        calibration: Calibration,
        threshold: float | None = None,
        *,
        source: str = "",
    ) -> None:
        why = calibration.mismatch(inner.identity)
        if why is not None:
            raise OracleError(
                f"the calibration {source or ''} does not fit this model: {why}; refit it with "
                "`gcmem oracle calibrate`"
            )
        self.inner = inner
        self.calibration = calibration
        self.source = source  # where it came from: "shipped:<file>" or a user's path
        self.threshold = calibration.threshold if threshold is None else threshold
        self._identity = _calibrated_identity(inner, calibration)

    def with_direction(self, direction: Direction) -> CalibratedOracle:
        """The same calibrated model under another direction policy (the map is one of
        one-direction scores, so it holds for every policy; θ is the view's own)."""
        if not isinstance(self.inner, Redirectable):
            raise OracleError("the calibrated oracle's model cannot change direction")
        view = copy.copy(self)
        view.inner = self.inner.with_direction(direction)
        view._identity = _calibrated_identity(view.inner, self.calibration)
        return view

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


def _calibrated_identity(inner: ConflictOracle, calibration: Calibration) -> OracleIdentity:
    return OracleIdentity(
        "calibrated",
        {
            "inner": inner.identity.canonical(),
            "method": calibration.method,
            "calibration": calibration.digest,
        },
    )


def active_calibration(oracle: object) -> CalibratedOracle | None:
    """The calibrated layer of an oracle chain (gate and band wrap it), if there is one."""
    while oracle is not None:
        if isinstance(oracle, CalibratedOracle):
            return oracle
        oracle = getattr(oracle, "inner", None) or getattr(oracle, "primary", None)
    return None
