"""Means with 95 % confidence intervals across seeds (Student's t, no scipy)."""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Two-sided 95 % quantiles t(0.975, df) for df = 1..30; beyond 30 the normal 1.96 is within 4 %.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (df ≥ 1)."""
    return _T975[df - 1] if df <= len(_T975) else 1.96


def mean_ci(values: Sequence[float | None]) -> tuple[float | None, float | None, int]:
    """``(mean, half-width of the 95 % interval, n)`` over the values that are not None or NaN.

    The interval is mean ± t(0.975, n−1)·s/√n with s the sample standard deviation; its half-width is None
    with fewer than two values, and the mean is None with none.
    """
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return None, None, 0
    mean = sum(xs) / n
    if n < 2:
        return mean, None, n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, t975(n - 1) * sd / math.sqrt(n), n
