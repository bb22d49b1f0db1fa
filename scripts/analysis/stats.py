# SPDX-License-Identifier: BSD-2-Clause
"""stats.py - the one estimator behind every ratio, and its interval.

Every comparison between two configurations is a paired ratio: rep k of both
ran in the same round of a sweep (close in time), so the ratio of rep k's two
runs cancels most of what drifts on a shared machine; the estimate is the
median of those n ratios.  Its interval is the distribution-free
order-statistic interval for a median: with the ratios sorted x(1) <= ... <=
x(n), [x(j), x(n+1-j)] covers the true median with probability

    coverage(n, j) = 1 - 2 * P(B <= j - 1),   B ~ Binomial(n, 1/2)

whatever the distribution (continuous, independent repetitions).  interval()
takes the largest j whose coverage is at least the level asked (95%); where
no j reaches it (n <= 5: at n = 5 the widest, min..max, covers 93.75%), it
takes j = 1 and says so: the coverage printed is the true one at the n used,
and the word "95%" is written only where the coverage is 95% or more.

Figures, READMEs, the claims report and the paper call this module and
nothing else for an interval (design.md 6b: one estimator).
"""

import functools
import math
import statistics
from fractions import Fraction

from scipy.special import bdtr

from ..common import regime
from ..common.looks import LOOKS, look_alpha

#: the coverage asked of every interval
LEVEL = 0.95

#: the least coverage at which an interval may decide a claim (holds / does not
#: hold); a narrower one leaves the claim inconclusive: n <= 5 pairs never
#: decide (the widest interval at n = 5 covers 93.75%), n = 1 has no interval
MIN_DECISIVE = 0.95

#: a ratio whose interval spans more than this factor, or whose values fall into
#: groups this far apart (modes), has no value worth printing: "undetermined"
UNDETERMINED_SPAN = 100.0
MODE_GAP = 10.0


def modes(values, gap=MODE_GAP):
    """The positive ratios values split where two neighbours (sorted) are more
    than gap apart: [(median, count)] per group, one group where they are not
    (nor for values that are not all positive: changes in %, say)."""
    v = sorted(float(x) for x in values)
    if len(v) < 2 or v[0] <= 0:
        return [(statistics.median(v), len(v))] if v else []
    groups, cur = [], [v[0]]
    for x in v[1:]:
        if x / cur[-1] > gap:
            groups.append(cur)
            cur = []
        cur.append(x)
    groups.append(cur)
    return [(statistics.median(g), len(g)) for g in groups]


def undetermined(values, lo=None, hi=None):
    """Why a paired ratio has no value (issue 47): its runs fall into separate
    modes (the groups and their counts), or its interval [lo, hi] spans more
    than UNDETERMINED_SPAN; None where the value stands."""
    ms = modes(values or ())
    if len(ms) > 1:
        return ("undetermined: the pairs fall into " + str(len(ms)) + " modes, "
                + ", ".join(f"about {m:.3g} ({k} pair{'s' if k != 1 else ''})" for m, k in ms))
    if lo is not None and hi is not None and lo > 0 and hi / lo > UNDETERMINED_SPAN:
        return (f"undetermined: its interval spans {hi / lo:.0f}x "
                f"(more than {UNDETERMINED_SPAN:.0f}x)")
    return None


class Interval(tuple):
    """(estimate, low, high, n, coverage): the median of n values and its
    order-statistic interval; coverage is its exact probability of covering
    the true median (None for n = 1: no interval).  ``values`` are the n
    values, sorted (empty where the interval was rebuilt from its bounds), so
    that a claim can take its decision interval (decision_interval) from the
    same values."""

    def __new__(cls, est, lo, hi, n, cov, values=()):
        self = super().__new__(cls, (est, lo, hi, n, cov))
        self.values = tuple(values)
        self.near = None   # the values without far-apart runs, where there were any
        return self

    est = property(lambda s: s[0])
    lo = property(lambda s: s[1])
    hi = property(lambda s: s[2])
    n = property(lambda s: s[3])
    coverage = property(lambda s: s[4])


def coverage(n, j):
    """The probability that [x(j), x(n+1-j)] of n independent draws of a
    continuous distribution covers its median: 1 - 2 P(B <= j-1), P from
    SciPy's binomial CDF (scipy.special.bdtr: scipy.stats' import alone costs
    every analysis command half a second). It gives the exact value's double
    at every j order_rank picks for n <= 56 (checked against the integer sum;
    off by an ulp at some larger n, which order_rank's exact test absorbs)."""
    if n < 2 or not 1 <= j <= n // 2:
        raise ValueError(f"no order-statistic interval with j = {j} at n = {n}")
    return 1.0 - 2.0 * float(bdtr(j - 1, n, 0.5))


def order_rank(n, level=LEVEL):
    """(j, coverage): the largest j whose interval covers at least ``level``,
    else j = 1 (the widest there is) with its smaller coverage; None for n < 2.
    Whether a j reaches the level is decided in exact integers (math.comb), not
    on coverage()'s float: the rank, and with it every "95%" printed, must not
    flip on a last bit (at large n a coverage lies nearer 0.95 than a double
    resolves)."""
    if n < 2:
        return None
    j = 1
    while j < n // 2 and 1 - _tail2(n, j + 1) >= Fraction(str(level)):
        j += 1
    return j, coverage(n, j)


def interval(values, level=LEVEL):
    """Interval of the median of ``values`` (numbers); None for none.  One value
    gives (v, v, v, 1, None): an estimate without an interval."""
    vals = sorted(float(v) for v in values)
    if not vals:
        return None
    if len(vals) == 1:
        return Interval(vals[0], vals[0], vals[0], 1, None, vals)
    return _around_median(vals, *order_rank(len(vals), level))


def _around_median(vals, j, cov):
    """The Interval [x(j), x(n+1-j)] of sorted vals, of coverage cov."""
    n = len(vals)
    return Interval(statistics.median(vals), vals[j - 1], vals[n - j], n, cov, vals)


# ---- the decision rule and the stopping rule ------------------------------------------

def _tail2(n, j):
    """2 P(B <= j - 1), B ~ Binomial(n, 1/2), exactly: the chance that [x(j),
    x(n+1-j)] misses the median."""
    return Fraction(2 * sum(math.comb(n, i) for i in range(j)), 2 ** n)


@functools.lru_cache(maxsize=None)
def decision_rank(n):
    """(j, coverage) of the interval a claim of n pairs decides on: the
    largest j whose chance of missing the median is within look_alpha(n);
    None where n is below the first look or no j qualifies."""
    a = look_alpha(n)
    if a is None or _tail2(n, 1) > a:
        return None
    j = 1
    while j < n // 2 and _tail2(n, j + 1) <= a:
        j += 1
    return j, coverage(n, j)


def decision_interval(values):
    """The Interval a claim decides on (decision_rank's, never below
    MIN_DECISIVE coverage); None for fewer pairs than the first look."""
    vals = sorted(float(v) for v in values)
    r = decision_rank(len(vals))
    return None if r is None else _around_median(vals, *r)


def sequential_verdict(values, decide, budget):
    """The stopping rule on one sequence of paired values: look at the first
    k values for every look k <= budget (LOOKS only: a count between looks
    would spend a look's error twice); stop at the first look whose decision
    interval decides (decide(lo, hi) -> 'holds', 'does not hold' or
    'inconclusive').  Returns (status, pairs used): the last look's count and
    'inconclusive' where no look decided.  The runner follows the same rule,
    a round at a time (budget_rounds)."""
    looks = [k for k in LOOKS if k <= budget]
    for k in looks:
        if k > len(values):
            break
        iv = decision_interval(values[:k])
        if iv is not None:
            status = decide(iv.lo, iv.hi)
            if status != "inconclusive":
                return status, k
    return "inconclusive", max([k for k in looks if k <= len(values)], default=len(values))


def paired(a_rows, b_rows, key="throughput_ops_per_s", fn=None):
    """The paired ratio of two groups of tidy rows: fn(a_k, b_k) (default
    a_k / b_k) for every repetition k both ran, its median and interval; None
    where no repetition pairs up."""
    from . import nrdata
    iv = interval(nrdata.paired_ratios(a_rows, b_rows, key, fn))
    if iv is not None and any(str(r.get("placement_far") or "") == "1"
                              for r in list(a_rows) + list(b_rows)):
        # pairs of which a run's CPUs stayed further apart than the probe
        # found them after the runner's re-runs (common/placement.py): the
        # values without them, for the claim's placement check
        iv.near = tuple(nrdata.paired_ratios(nrdata.near_rows(a_rows),
                                             nrdata.near_rows(b_rows), key, fn))
    return iv


def label(cov):
    """How an interval of coverage ``cov`` is named in text: "95% interval"
    only where cov >= 0.95 (then the level met, rounded down), else its
    exact coverage ("93.8% interval")."""
    if cov is None:
        return "no interval (one repetition)"
    if cov >= LEVEL:
        return f"{int(LEVEL * 100)}% interval"
    return f"{cov_text(cov)} interval"


def cov_text(cov):
    """Short coverage for a bracket: '93.75%', '87.5%', '95%+' ('' where there
    is none); truncated, never rounded up to 95."""
    if cov is None:
        return ""
    if cov >= LEVEL:
        return f"{int(LEVEL * 100)}%+"
    return f"{math.floor(cov * 10000 + 1e-9) / 100:.2f}".rstrip("0").rstrip(".") + "%"


def fmt(iv, f="{:.2f}", show_coverage=True):
    """'X.XX [lo..hi, 93.75%]' for an Interval ('X.XX (n = 1)' without one; 'n/a'
    for None); show_coverage=False drops it where a caption states it once."""
    if iv is None:
        return "n/a"
    if iv.n < 2 or iv.coverage is None:
        return f"{f.format(iv.est)} (n = {iv.n})"
    tail = f", {cov_text(iv.coverage)}" if show_coverage else ""
    return f"{f.format(iv.est)} [{f.format(iv.lo)}..{f.format(iv.hi)}{tail}]"


def method_sentence(n):
    """One sentence on the interval used at n repetitions, for captions, READMEs
    and the paper."""
    r = order_rank(n)
    if r is None:
        return f"With {n} repetition there is no interval."
    j, cov = r
    which = "the smallest and largest" if j == 1 else \
        f"the {j}th smallest and {j}th largest"
    return (f"Intervals are distribution-free order-statistic intervals for the median: "
            f"at n = {n} paired repetitions, {which} of the n ratios, "
            f"covering the median with probability {cov * 100:.2f}%"
            + ("" if cov >= LEVEL else " (no interval reaches 95% at this n)") + ".")


def paired_by_regime(a_rows, b_rows, key="throughput_ops_per_s", fn=None):
    """{(pace, regime): Interval} of a paired ratio, each from the
    repetitions k whose two runs (a_k and b_k) both ran in that group
    (regime.split); groups with no such pair are left out."""
    a, b = regime.split(a_rows), regime.split(b_rows)
    ivs = {g: paired(a[g], b[g], key, fn) for g in a if g in b}
    return {g: iv for g, iv in ivs.items() if iv is not None}
