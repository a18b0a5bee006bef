"""95% intervals for the rates the evaluation reports (Wilson score interval).

A rate measured on a few hundred questions moves by several points between question sets; the
interval says how far. Pure functions, no I/O.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson(successes: float, n: float, z: float = Z95) -> list[float] | None:
    """The Wilson score interval [low, high] of ``successes`` out of ``n``; None when n is 0."""
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n, got {successes} of {n}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return [max(0.0, centre - half), min(1.0, centre + half)]
