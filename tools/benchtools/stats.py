"""The confidence intervals of medians and of their ratios (docs/precision.md).

The interval of a median is distribution-free: with n independent samples, the
number of them below the true median is Binomial(n, 1/2), so the order statistics
x_(j) <= x_(k) cover it with probability P(j <= B < k). cuda_bench picks its
ranks by the rule in median_ranks(); the Python side uses the same rule when it
has the raw samples (sample_times), so a test can check one against the other.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Optional, Sequence, Tuple

TAIL = 0.025            # each side of a 95% interval
Z95 = 1.959963984540054  # the normal quantile that a 95% interval spans (±1.96 sigma)
VERDICTS = ("faster", "slower", "no difference at this precision")


@lru_cache(maxsize=None)
def median_ranks(n: int, tail: float = TAIL) -> Optional[Tuple[int, int]]:
    """1-based ranks (j, k), j < k, of the order statistics bounding the median's
    interval: j the largest with P(Binomial(n, 1/2) < j) <= tail, k = n + 1 - j (the
    smallest with P(B >= k) <= tail, by symmetry). None when even (1, n) is too
    narrow a bracket (n < 6 for 95%): the samples cannot give the interval."""
    if n < 1:
        return None
    log_half_n = n * math.log(0.5)
    cdf, j = 0.0, 0               # cdf = P(B < j + 1) once pmf(j) is added
    while j < n:
        pmf = math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + log_half_n)
        if cdf + pmf > tail:      # P(B < j + 1) would exceed the tail: j is the last rank that keeps it
            break
        cdf += pmf
        j += 1
    return (j, n + 1 - j) if 1 <= j < n + 1 - j else None


def median(samples: Sequence[float]) -> float:
    xs = sorted(samples)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def median_interval(samples: Sequence[float]) -> Optional[Tuple[float, float, float]]:
    """(median, low, high) of the samples, the interval by median_ranks(); None when
    there are too few samples for one."""
    ranks = median_ranks(len(samples))
    if ranks is None:
        return None
    xs = sorted(samples)
    return median(xs), xs[ranks[0] - 1], xs[ranks[1] - 1]


def reading_step(values: Sequence[float]) -> float:
    """The timer's reading step as a set of readings shows it: the smallest positive
    gap between two of them (CUDA events on Hopper: 32 ns); 0 when all are equal."""
    xs = sorted(set(values))
    return min((b - a for a, b in zip(xs, xs[1:])), default=0.0)


def at_least_one_step(interval: Tuple[float, float, float], step: float) -> Tuple[float, float, float]:
    """(median, low, high) widened to one reading step on each side where narrower:
    readings that come in steps place a median no closer than that, however many
    agree (an interval collapsed onto one reading would otherwise make a ratio exact)."""
    m, low, high = interval
    return m, (min(low, m - step) if m - step > 0 else low), max(high, m + step)


def log_half_widths(m: float, low: float, high: float) -> Tuple[float, float]:
    """(lower, upper) half-widths of a median's interval in log space: ln(m/low), ln(high/m)."""
    return math.log(m / low), math.log(high / m)


def ratio_interval(variant: Tuple[float, float, float], chosen: Tuple[float, float, float]
                   ) -> Tuple[float, float, float]:
    """(R, low, high) for R = m_v / m_c from two (median, low, high) triples of
    independent samples. Each interval's log half-widths span ±1.96 sigma of that
    log median; the log ratio's sigmas add in quadrature, the upper side from the
    variant's upper and the chosen one's lower, and the other way round."""
    m_v, m_c = variant[0], chosen[0]
    l_v, u_v = log_half_widths(*variant)
    l_c, u_c = log_half_widths(*chosen)
    r = m_v / m_c
    return r, r * math.exp(-math.hypot(l_v, u_c)), r * math.exp(math.hypot(u_v, l_c))


def rounds_interval(ratios: Sequence[float]) -> Optional[Tuple[float, float, float]]:
    """(R, low, high) from K >= 2 independent ratios of the same two things, each
    measured in its own round (tools/run-ab: a burst of each side, each burst its own
    process): the geometric mean and its 95% Student t interval over the K log
    ratios. What differs between rounds (where a process's allocations land, a clock)
    widens it; within a round both sides share it. None for fewer than 2 ratios or any
    ratio that is not a positive finite number."""
    if len(ratios) < 2 or not all(math.isfinite(r) and r > 0 for r in ratios):
        return None
    from scipy.stats import t   # scipy is a requirement of the tools; imported where used
    logs = [math.log(r) for r in ratios]
    k = len(logs)
    mean = sum(logs) / k
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (k - 1))
    half = float(t.ppf(1 - TAIL, k - 1)) * sd / math.sqrt(k)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def repetitions_interval(ratios: Sequence[Tuple[float, float, float]]) -> Optional[Tuple[float, float, float]]:
    """(R, low, high) from K >= 2 ratios of the same two things, each (ratio, low, high)
    from one repetition (the two sampled in the same round of one process): in log
    space, the estimates weighted by their inverse variances (each interval's width
    spans ±1.96 sigma) and the 95% interval of that mean, widened to the repetitions'
    own t interval (rounds_interval) where that is wider, as tools/run-ab widens its
    pooled interval to its rounds'. None for fewer than 2 or any ratio or bound that is
    not a positive finite number."""
    if len(ratios) < 2 or not all(math.isfinite(x) and x > 0 for t in ratios for x in t):
        return None
    z = 2 * 1.959963984540054
    logs = [math.log(r) for r, _, _ in ratios]
    sigmas = [max(math.log(high / low) / z, 1e-12) for _, low, high in ratios]
    weights = [1 / (s * s) for s in sigmas]
    mean = sum(w * x for w, x in zip(weights, logs)) / sum(weights)
    half = z / 2 / math.sqrt(sum(weights))
    low, high = math.exp(mean - half), math.exp(mean + half)
    rounds = rounds_interval([r for r, _, _ in ratios])
    if rounds is not None:
        low, high = min(low, rounds[1]), max(high, rounds[2])
    return math.exp(mean), low, high


def verdict(low: float, high: float) -> str:
    """"faster" when the whole interval of variant/chosen time is below 1, "slower"
    when above, else "no difference at this precision"."""
    return VERDICTS[0] if high < 1 else VERDICTS[1] if low > 1 else VERDICTS[2]
