# SPDX-License-Identifier: BSD-2-Clause
"""paper_text.py - the paper's generated sentences: what was tested, and how.

scripts/paper/paper_numbers.py calls put(); everything here becomes macros of
paper/generated/numbers.tex (Numbers.put_raw), nothing is typed in the paper:

* Intervals (IntervalN, IntervalCoverage, IntervalMethod, and NAMECov /
  NAMECovNote for every ratio NAME that paper_numbers put with put_ci): the
  order-statistic interval of scripts/analysis/stats.py at the n each ratio used, its
  exact coverage in words (stats.cov_text, stats.method_sentence). The paper
  writes a bracket as \\ci{NAME}; a ratio whose coverage is not the common one
  names its own.
* What was tested (TitleHost, AbstractClaims, AbstractStudy, AbstractSymmetric,
  UntestedStudy, SymmetricFound, Claims<Status>N and Claims<Status>List): the
  host's reproduction report, claims.report(), the same rows as the paper's
  Table of claims (paper/generated/claims.tex) and results/<host>/claims.csv;
  for the study's findings this host cannot test, the ceiling model's
  prediction (scripts/analysis/ceiling.py) beside the claim's reason.
* The cross-node claims (CrossClaims): each one's sentence, predicate and
  status on the host, from the same report.
* The artifact appendix's expectations (ArtifactExpected): each claim's
  predicate and threshold from claims.CLAIMS.
* The gate's and the backoffs' constants (Gate..., Backoff...), read from the
  C headers that define them (ring/src/nr_backoff.h, ring/numaring.h).
"""

import os
import re
from collections import Counter

from ..analysis import ceiling, claims, stats, summarize
from ..analysis.claims import tex  # text for LaTeX: claims.tex's escaping (%, _, <, >, ...)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cov_tex(cov):
    return tex(stats.cov_text(cov)) if cov is not None else "n/a"


# ---- intervals ---------------------------------------------------------------------------

def put_intervals(n):
    """IntervalN / IntervalCoverage / IntervalMethod: the n and coverage most
    ratios of the paper have (the common one), the method in one sentence per
    n used; NAMECov and NAMECovNote for each ratio paper_numbers put with
    put_ci (n.intervals: [(name, n, coverage)])."""
    seen = [(k, c) for _, k, c in n.intervals if k]
    common = Counter(seen).most_common(1)[0][0] if seen else None
    others = sorted({k for k, _ in seen} - {common and common[0]})
    n.put_raw("IntervalN", common and str(common[0]))
    n.put_raw("IntervalCoverage", common and cov_tex(common[1]))
    n.put_raw("IntervalMethod", common and tex(stats.method_sentence(common[0]) + (
        " Where a ratio rests on fewer or more pairs (n = " + ", ".join(map(str, others))
        + "), its bracket names its own coverage." if others else "")))
    for name, k, cov in n.intervals:
        n.put_raw(name + "Cov", None if cov is None else cov_tex(cov))
        note = ("" if k and (k, cov) == common else
                "; one repetition, no interval" if k == 1 else
                "" if cov is None else f"; {cov_tex(cov)} coverage")
        n.put_raw(name + "CovNote", note)


def interval_text(d, key):
    """'[lo, hi]' with the coverage where it is not the common one: for the
    composite F4 sentences (no macros inside macros there)."""
    lo, hi, cov = d.get(key + "_lo"), d.get(key + "_hi"), d.get(key + "_cov")
    note = "" if cov is None else f", {cov_tex(cov)}"
    return "[%s, %s%s]" % ("${:+.1f}$".format(lo), "${:+.1f}$".format(hi), note)


# ---- the host's reproduction report ---------------------------------------------------

STATUS_WORDS = {"holds": ("holds", "hold"), "does not hold": ("does not hold", "do not hold"),
                "inconclusive": ("is inconclusive", "are inconclusive"),
                "not testable here": ("is not testable here", "are not testable here"),
                "not exercised": ("was not exercised", "were not exercised")}


def _ids(rows):
    return ", ".join("\\texttt{%s}" % tex(r["claim"]) for r in rows) or "none"


def _join(parts):
    parts = [p for p in parts if p]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


def _value(r):
    v = claims.fmt_value(r)
    return "" if v == "—" else tex(v)


def title_host(real):
    """'One Node and 2 CPUs': what the host is, for the title."""
    t = summarize.describe_host(real) or {}
    m = summarize.machine(real)
    nodes = summarize.real_nodes(t)
    cpus = sum(x.get("ncpus", 0) for x in t.get("nodes", [])) or m.get("ncpus") or 0
    sockets = m.get("sockets") or 0
    words = {1: "One", 2: "Two", 3: "Three", 4: "Four"}
    k = nodes or 1
    head = (f"{words.get(sockets, sockets)} Sockets" if sockets > 1
            else f"{words.get(k, k)} Node" + ("s" if k > 1 else ""))
    return f"{head} and {cpus} CPU" + ("s" if cpus != 1 else "")


def put_claims(n, rows, real):
    """The report as sentences: counts and ids per status, the study's
    findings, the symmetric-workload comparison."""
    n.put_raw("TitleHost", tex(title_host(real)))
    by = {s: [r for r in rows if r["status"] == s] for s in STATUS_WORDS}
    n.put_raw("ClaimsCount", str(len(rows)))
    for s, word in zip(STATUS_WORDS, ("Hold", "NotHold", "Inconclusive", "Untestable",
                                      "NotExercised")):
        n.put_raw(f"Claims{word}N", str(len(by[s])))
        n.put_raw(f"Claims{word}List", _ids(by[s]))
    counts = _join([f"{len(by[s])} {STATUS_WORDS[s][0 if len(by[s]) == 1 else 1]}"
                    for s in STATUS_WORDS if by[s]])
    n.put_raw("AbstractClaims", f"Of the {len(rows)} claims of this paper, checked on this "
              f"host's results (Table~\\ref{{tab:claims}}), {counts}." if rows else
              "No claim of this paper could be checked on this host's results.")

    # the study's findings: the claims that carry the study's value
    groups = []
    for s in STATUS_WORDS:
        rs = [r for r in by[s] if r["study"]]
        if not rs:
            continue
        # the value where the claim was decided or tried; when it is testable where not
        items = [f"{r['finding']} (study: {tex(r['study'])}"
                 + (f"; {tex(r['when'])}" if s == "not testable here" else "")
                 + (f"; here {v})" if v else ")")
                 for r in rs for v in [_value(r) if s in ("holds", "does not hold",
                                                          "inconclusive") else ""]]
        groups.append(f"{_join(items)} {STATUS_WORDS[s][0 if len(rs) == 1 else 1]}"
                      + (", and for each the paper gives the ceiling model's prediction "
                         "instead" if s == "not testable here" else ""))
    n.put_raw("AbstractStudy", ("Of the study's findings, " + "; ".join(groups) + ".")
              if groups else "None of the study's findings could be checked here.")

    # F4 with symmetric workloads (pairs, mixed): every thread races every other
    sym = [r for r in rows if re.match(r"F4\.(pairs|mixed)-", r["claim"])]
    n.put_raw("AbstractSymmetric", _symmetric_short(sym))
    n.put_raw("SymmetricFound", _symmetric_long(sym))


BACKOFF_WORDS = {"pause": "a fixed PAUSE spin", "exp": "exponential backoff",
                 "yield": "\\texttt{sched\\_yield}"}


def _symmetric_short(sym):
    if not sym:
        return ""
    testable = [r for r in sym if r["status"] != "not testable here"]
    if not testable:
        return ("The symmetric-workload comparison of backoff with retrying at once (pairs, "
                "mixed) has no data on this host.")
    st = Counter(r["status"] for r in testable)
    vals = [float(r["value"]) for r in testable if r["value"]]
    span = (" (throughput changes from ${:+.0f}$\\% to ${:+.0f}$\\%)".format(min(vals), max(vals))
            if vals else "")
    return ("The symmetric workloads, in which every thread races every other (pairs, "
            "mixed), are testable here: that backoff lowers throughput against retrying at "
            "once " + _join([f"{STATUS_WORDS[s][0]} in {k} of {len(testable)} comparisons"
                             for s, k in st.items()]) + span + ".")


def _work_of(row):
    """The local work (ns) an F4 claim reads: its id's -w<ns> suffix, 0 without."""
    m = re.search(r"-w(\d+)$", row["claim"])
    return int(m.group(1)) if m else 0


def _symmetric_long(sym):
    out = []
    for w, word in (("pairs", "enqueue-dequeue pairs"), ("mixed", "the random mix")):
        rs = [r for r in sym if r["claim"].startswith(f"F4.{w}-")]
        for work in dict.fromkeys(_work_of(r) for r in rs):
            # each backoff's words, value and status
            parts = [f"{BACKOFF_WORDS.get(b, tex(b))} {v + ', ' if v else ''}{tex(r['status'])}"
                     for r in rs if _work_of(r) == work
                     for b, v in [(r["claim"].split("-")[1], _value(r))]]
            out.append(f"with {word}"
                       + (f" and up to {work}~ns of local work" if work else "")
                       + ": " + "; ".join(parts))
    if not out:
        return "The symmetric workloads did not run on this host."
    return ("Against retrying at once, the claim that backoff lowers throughput, "
            + "; ".join(out) + " (Table~\\ref{tab:claims}).")


# ---- what this host cannot test, and what the model predicts ---------------------------

def predictions(probe, f3_batch):
    """The model's predictions for the study's untestable findings, as TeX
    text keyed by finding (empty without a probe that has the contended-line
    time). Machine: the first of ceiling.PUBLISHED."""
    if not probe or not ceiling.model_numbers(probe).get("t_s_ns"):
        return {}
    mname, (within, across) = next(iter(ceiling.PUBLISHED.items()))
    mname = tex(mname.split(" (")[0])
    out = {}

    def bound(b, gate):
        """(ceiling, term, terms) of ceiling.predict_two_socket's configuration
        (2x16 split, inline items, single operations) at realized batch b."""
        return ceiling.predict_two_socket(probe, within, across, batches=(b,), terms=True,
                                          gate=gate)[b]
    sh1, sh1_term, _ = bound(1, "shared")
    pw1, pw1_term, _ = bound(1, "perworker")
    f3 = ""
    if f3_batch and f3_batch > 1:
        shb, shb_term, bd = bound(f3_batch, "shared")
        pwb, pwb_term, _ = bound(f3_batch, "perworker")
        f3 = (f" At F3's batch of {f3_batch}, the shared gate's crossing allows "
              f"{bd['crossing'] / 1e6:.0f} and {shb_term} binds at {shb / 1e6:.0f} "
              f"(per-worker gate: {pwb_term}, {pwb / 1e6:.0f})"
              + (": the model predicts no throughput difference between the gates there, so "
                 "a latency ratio at equal load below saturation would have to come from "
                 "waiting for the gate, which the model does not describe."
                 if abs(shb - pwb) / pwb < 0.01 else "."))
    out["F3"] = (f"The ceiling model bounds throughput, not latency. With one shared gate "
                 f"one transfer crosses at a time: for the study's 2$\\times$16 placement on "
                 f"a {mname} it predicts {sh1 / 1e6:.0f}~Mitems/s at batch 1 ({sh1_term}), "
                 f"against {pw1 / 1e6:.0f} ({pw1_term}) with a gate per worker, so an offered "
                 f"load between the two queues behind the shared gate." + f3)
    cont = ceiling.predict_two_socket(probe, within, across, terms=True)
    c1, c1_term, c1_terms = cont[1]
    out["F4"] = (f"The ceiling model has no term for backoff. At the study's 32 workers "
                 f"(2$\\times$16, split) on a {mname} it predicts that {c1_term} binds at "
                 f"{c1 / 1e6:.0f}~Mitems/s: every producer's operation is serialised on its "
                 f"node's ring tail, so a backoff can change throughput only through how "
                 f"often that line changes hands; the model predicts no sign for it.")
    terms = sorted({cont[b][1] for b in cont})
    out["F5"] = (f"For the same placement the model predicts that {'/'.join(terms)}, not "
                 f"the interconnect, sets the ceiling: {c1 / 1e6:.0f}~Mitems/s on a {mname} "
                 f"whatever the batch, while the crossing of batches between sockets would "
                 f"allow {c1_terms['crossing'] / 1e6:.0f} already at batch 1.")
    return out


def put_untested(n, rows, probe, f3_batch):
    """UntestedStudy: the study's findings this host cannot test, each with why
    (the claim's own reason) and the model's prediction."""
    pred = predictions(probe, f3_batch)
    study = [r for r in rows if r["study"] and r["status"] == "not testable here"]
    paras = [f"\\emph{{{r['finding']}}} (\\texttt{{{tex(r['claim'])}}}; study: "
             f"{tex(r['study'])}): not testable here: {tex(r['why'])}."
             + (f" {pred[r['finding']]}" if pred.get(r["finding"]) else "") for r in study]
    # one line per macro: paragraphs are separated by \par, not a blank line
    n.put_raw("UntestedStudy", " \\par ".join(paras) if paras else
              "Every finding of the study with a value was testable on this host.")


#: the claims of the section Across nodes: numaring against the peers where
#: every item crosses nodes (claims_table, issue 31 item 9)
CROSS_PREFIX = "ring.cross-"


def put_cross(n, rows):
    """CrossClaims: each cross-node claim's sentence, predicate and status on
    this host (its value beside it; an untestable one's value is labelled as
    measured where its runs were, never as a result)."""
    out = []
    for r in rows:
        if not r["claim"].startswith(CROSS_PREFIX):
            continue
        st = claims.status_word(r)
        val = tex(claims.fmt_value(r)) if r.get("value") else ""
        said = st + ("" if not val else f", {val}" if st != "not testable here" else
                     f" (measured on {tex(r['source'].split('/')[0])}: {val}, not a result)")
        out.append(f"\\texttt{{{tex(r['claim'])}}}: {tex(r['sentence'].rstrip('.'))} "
                   f"({tex(claims.predicate(r))}; {said}).")
    n.put_raw("CrossClaims", " ".join(out) if out else "No cross-node claim in this report.")


# ---- the artifact appendix -----------------------------------------------------------------

def put_expected(n):
    """ArtifactExpected: per finding, each claim's id and predicate (claims.CLAIMS),
    and where it needs more than any host, when it is testable."""
    # finding -> when -> predicate -> [ids], in the table's order
    groups = {}
    for c in claims.CLAIMS:
        row = {"op": c.op, "threshold": claims.threshold_text(c), "unit": c.unit}
        groups.setdefault(c.finding, {}).setdefault(c.when, {}).setdefault(
            tex(claims.predicate(row)), []).append(f"\\texttt{{{tex(c.id)}}}")
    out = []
    for f, whens in groups.items():
        parts = [", ".join(f"{', '.join(ids)} {p}" for p, ids in preds.items())
                 + ("" if when == claims.ANY else f" ({tex(when)})")
                 for when, preds in whens.items()]
        name = {"ring": "Ring and peers", "harness": "Harness"}.get(f, f)
        out.append(f"{name}: " + "; ".join(parts) + ".")
    n.put_raw("ArtifactExpected", " ".join(out))


# ---- the code's constants ------------------------------------------------------------------

def c_defines(*paths):
    out = {}
    for p in paths:
        with open(os.path.join(ROOT, p), encoding="utf-8") as f:
            for name, v in re.findall(r"^#define\s+(\w+)\s+(\d+)u?\b", f.read(), re.M):
                out[name] = int(v)
    return out


def put_constants(n):
    """The gate wait's budgets (nr_backoff.h) and the backoffs' spins (numaring.h)."""
    d = c_defines(os.path.join("ring", "src", "nr_backoff.h"), os.path.join("ring", "numaring.h"))
    for name, define, scale in (("GateFreePolls", "NR_WAIT_FREE_POLLS", None),
                                ("GateSpinUs", "NR_WAIT_SPIN_NS", 1000),
                                ("GateYieldUs", "NR_WAIT_YIELD_NS", 1000),
                                ("GateNapUs", "NR_WAIT_SLEEP_NS", 1000),
                                ("BackoffPauseSpin", "NUMARING_PAUSE_SPIN", None),
                                ("BackoffExpMax", "NUMARING_EXP_MAX_SPIN", None)):
        v = d.get(define)   # microseconds: %g of the ns
        n.put_raw(name, None if v is None else str(v) if scale is None else "%g" % (v / scale))


# ---- all of it -----------------------------------------------------------------------------

def f3_batch(cross):
    """F3's configured batch (its runs' batch column), None where unknown."""
    if not cross:
        return None
    vals = {r.get("batch") for r in summarize.load(os.path.join(cross, "f3-gate.csv"))} - {None, ""}
    return int(float(vals.pop())) if len(vals) == 1 else None


def put(n, real, cross, probe):
    """Every macro of this module (module docstring), into paper_numbers' Numbers."""
    rows = claims.report(real)
    put_intervals(n)
    put_claims(n, rows, real)
    put_untested(n, rows, probe, f3_batch(cross))
    put_cross(n, rows)
    put_expected(n)
    put_constants(n)
