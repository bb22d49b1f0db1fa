# SPDX-License-Identifier: BSD-2-Clause
"""looks.py - when a claim may decide: the stopping rule's looks and budget.

The runner (scripts/runner/experiments.py) adds rounds to an experiment while
a claim that reads it is undecided; the analysis (scripts/analysis/stats.py
decision_interval) decides a claim of n pairs on the interval this schedule
allows at n.  Both read this module: standard library only.
"""

from fractions import Fraction

#: the stopping rule's looks (docs/measurement.md, "Repetitions until a claim
#: decides"): the pair counts at which a claim may decide.  The runner adds
#: rounds up to the next look while a claim is undecided, so a claim is looked
#: at several times; to keep the chance of a false decision (an interval that
#: misses the true median, whichever look it happens at) within 1 - LEVEL, the
#: level is split across the looks (Bonferroni: the sum of the looks' error
#: bounds is at most 0.05, whatever the looks taken).  The first look gets
#: 1/32, exactly what the widest interval at 6 pairs spends (so 6 pairs all
#: past a threshold decide), the others share the rest equally.
LOOKS = (6, 10, 15, 20, 30, 40)
FIRST_LOOK_ALPHA = Fraction(1, 32)


def look_alpha(n):
    """The error a claim of n pairs may spend (a Fraction): that of the largest
    look <= n (LOOKS); None below the first look (no decision)."""
    taken = [k for k in LOOKS if k <= n]
    if not taken:
        return None
    if len(taken) == 1:
        return FIRST_LOOK_ALPHA
    return (Fraction(1, 20) - FIRST_LOOK_ALPHA) / (len(LOOKS) - 1)


#: the most rounds the runner adds, as a multiple of the profile's repetitions
BUDGET_FACTOR = 4


def budget_rounds(reps, factor=BUDGET_FACTOR):
    """The rounds an experiment may run while a claim it feeds is undecided:
    the largest look within factor x its planned repetitions; the planned
    repetitions themselves where no look fits (factor 1 at 5: none added)."""
    return max([k for k in LOOKS if reps < k <= factor * reps], default=reps)


def next_look(rounds, budget):
    """The look after ``rounds`` rounds within ``budget``; None at the budget."""
    return next((k for k in LOOKS if rounds < k <= budget), None)
