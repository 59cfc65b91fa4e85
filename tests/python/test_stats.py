"""Confidence intervals across seeds."""

import math

from cclab.stats import mean_ci, t975


def test_mean_ci_matches_the_t_interval_by_hand():
    # 1, 2, 3: mean 2, s = 1, n = 3 → half-width t(0.975, 2) / √3 = 4.303 / 1.732.
    mean, half, n = mean_ci([1.0, 2.0, 3.0])
    assert (mean, n) == (2.0, 3)
    assert math.isclose(half, 4.303 / math.sqrt(3), rel_tol=1e-9)


def test_mean_ci_skips_missing_values_and_needs_two_for_an_interval():
    assert mean_ci([None, float("nan"), 5.0]) == (5.0, None, 1)
    assert mean_ci([]) == (None, None, 0)


def test_t_quantile_tends_to_the_normal_one():
    assert t975(1) > t975(10) > t975(30) > t975(1000) == 1.96
