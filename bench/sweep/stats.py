"""95% percentile-bootstrap intervals over instances, and paired deltas.

Paired: both conditions are measured on the same instances (the same candidate set), so the
interval of a difference resamples instances once and takes the difference inside each
resample, which is far tighter than comparing two independent intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05


@dataclass(frozen=True)
class Estimate:
    mean: float
    lo: float
    hi: float
    n: int

    def as_dict(self) -> dict[str, float | int | None]:
        """JSON-ready: undefined values (no instances) become None, never NaN."""

        def clean(v: float) -> float | None:
            return None if math.isnan(v) else v

        return {"mean": clean(self.mean), "lo": clean(self.lo), "hi": clean(self.hi), "n": self.n}

    def fmt(self, digits: int = 2) -> str:
        if self.n == 0:
            return "–"
        return f"{self.mean:.{digits}f} [{self.lo:.{digits}f}, {self.hi:.{digits}f}]"


EMPTY = Estimate(float("nan"), float("nan"), float("nan"), 0)


def _resample_means(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(values), size=(resamples, len(values)))
    means: np.ndarray = values[idx].mean(axis=1)
    return means


def bootstrap(values: Sequence[float], resamples: int = 1000, seed: int = 0) -> Estimate:
    """Mean with a 95% percentile-bootstrap interval (None values must be removed first)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return EMPTY
    mean = float(arr.mean())
    if arr.size == 1 or np.all(arr == arr[0]):
        return Estimate(mean, mean, mean, int(arr.size))
    means = _resample_means(arr, resamples, seed)
    lo, hi = np.quantile(means, [ALPHA / 2, 1 - ALPHA / 2])
    return Estimate(mean, float(lo), float(hi), int(arr.size))


def paired_delta(
    treatment: Sequence[float], control: Sequence[float], resamples: int = 1000, seed: int = 0
) -> Estimate:
    """Mean of treatment - control over the same instances, with its bootstrap interval."""
    a = np.asarray(treatment, dtype=np.float64)
    b = np.asarray(control, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("paired samples must have the same length")
    return bootstrap((a - b).tolist(), resamples, seed)
