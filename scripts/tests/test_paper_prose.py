# SPDX-License-Identifier: BSD-2-Clause
"""The paper's prose states no number by hand (issue 47 item 3): every digit
of paper/numaring.tex's body is in a macro (paper/generated/, from the
results), a citation or reference, a section or figure number, or one of the
stated constants below (the design's, the study's, the methodology's), each
with why it may be typed. Counts are generated too: no "seven peer queues";
and no sentence says a queue is unmeasured (whether one was measured is a
generated macro, paper_numbers.measured_clause)."""

import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAPER = os.path.join(ROOT, "paper", "numaring.tex")

#: (pattern, why it may be typed): blanked from the body before digits are sought
CONSTANTS = [
    # the study's findings and set-up, quoted as the study states them
    (r"11\$\\times\$|6--7\$\\times\$|200\$\\times\$|15--30\\%|\$-15\$ to \$-30\$\\%",
     "the study's findings, as it states them"),
    (r"2\$\\times\$16|16 vCPUs|32[ -]workers?|32 cores|on 2 nodes|at 32\s*$",
     "the study's machine and worker count"),
    # the design
    (r"64-bit|16-byte|64-byte|\$x/64\$|release store of 0|word reads 0|^1, and the holder",
     "the ring's cells, counters, lines and the gate's lock word"),
    (r"[Bb]ursts of 32|32-item|32 nodes|modulo 512|batch 1(?:/16/256|, 16 and 256)?",
     "the experiments' fixed burst and batch sizes (experiments/*.exp), the "
     "peers' block sizes and the page offsets bench-placement tries"),
    (r"\$k-1\$", "k-FIFO's relaxation bound, as its paper states it"),
    (r"\d with the per-\w+ gate|\d with the shared gate|\$1/s\$|else 1\)",
     "the model's count of contenders per gate, and of index lines per operation"),
    (r"\d+/64", "the lines-per-item table's counts, quoted in its caption"),
    # the methodology's stated constants (harness and runner settings)
    (r"0\.1~s|within 20\\%|25, 50 and 75\\%|50\\%|75\\%|1\\,ms|300\\,ns",
     "the harness's calibration, the ringed-point threshold, the offered loads, "
     "the lingering wait and the local work: settings, not results"),
    (r"1 race per 1,000|1 in 1,000|per 1,000|1 in\b",
     "the sampling rate's form and the exercised threshold (nrdata.BACKOFF_EXERCISED)"),
    # names
    (r"x86-64|Xeon Gold \d+|Python~3|Debian 12|Linux \$\\ge\$ \d+\.\d+",
     "product and platform names"),
]

#: environments whose digits are constants: the lines-per-item table (counts
#: of each protocol's design) and the model's formulas
EXEMPT_ENVS = ("tabular", "align", "align*", "equation", "equation*")

#: a count of results written as a word: it must be a macro (\PeerQueues)
COUNT_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|twenty)\s+(?:other\s+)?(?:peer|peers|queues|claims|hosts|"
    r"libraries)\b", re.I)

#: what a generated clause says of a queue's measurements, never typed
UNMEASURED = re.compile(r"not yet measured|unmeasured|not measured yet|predate[sd]? (?:it|them)"
                        r"|has not been measured|were not measured", re.I)


def body_of(tex):
    """The document's body, comments out, as lines (numbers kept)."""
    b = tex.index("\\begin{document}")
    e = tex.index("\\end{document}")
    lines = tex[:e].splitlines()
    start = tex[:b].count("\n")
    return [(i + 1, re.sub(r"(?<!\\)%.*", "", lines[i])) for i in range(start, len(lines))]


def blanked(lines):
    """The body's lines with what may hold digits blanked: exempt environments,
    the arguments of references, citations, labels, file and macro names."""
    out, env = [], []
    for n, line in lines:
        for m in re.finditer(r"\\(begin|end)\{([^}]*)\}", line):
            if m.group(2) in EXEMPT_ENVS:
                if m.group(1) == "begin":
                    env.append(m.group(2))
                elif env:
                    env.pop()
        if env or re.search(r"\\end\{(?:%s)\}" % "|".join(map(re.escape, EXEMPT_ENVS)), line):
            continue
        line = re.sub(r"\\(?:label|ref|eqref|pageref|cite|input|url|href|includegraphics|"
                      r"crossfigure|texttt|ratioci|ci|begin|end|newcommand|renewcommand)"
                      r"(?:\[[^\]]*\])?\{[^}]*\}", " ", line)
        for pattern, _why in CONSTANTS:
            line = re.sub(pattern, " ", line)
        line = re.sub(r"\\[A-Za-z@]+\*?", " ", line)   # macro names
        out.append((n, line))
    return out


def typed_numbers(tex):
    """[(line, number)] of every digit the body types outside the above."""
    return [(n, m.group(0)) for n, line in blanked(body_of(tex))
            for m in re.finditer(r"(?<![A-Za-z\\\d.,])\d[\d.,]*", line)]


def sentences(tex):
    text = " ".join(line for _n, line in body_of(tex))
    return re.split(r"(?<=[.;])\s+", " ".join(text.split()))


def prose_faults(tex):
    """Every fault of the prose, as text; [] where there is none."""
    out = ["line %d: %s typed by hand" % (n, x) for n, x in typed_numbers(tex)]
    out += ["a count typed as a word: %r" % m.group(0)
            for s in sentences(tex) for m in COUNT_WORD.finditer(s)]
    out += ["says a queue is unmeasured: %r" % s[:120]
            for s in sentences(tex) if UNMEASURED.search(s)]
    return out


class PaperProse(unittest.TestCase):
    def setUp(self):
        with open(PAPER, encoding="utf-8") as f:
            self.tex = f.read()

    def test_no_number_or_count_typed_by_hand(self):
        self.assertEqual(prose_faults(self.tex), [])

    def plant(self, text):
        """The paper with text put into its introduction's first paragraph."""
        i = self.tex.index("\\section{")
        j = self.tex.index("\n\n", i)
        return self.tex[:j] + "\n" + text + self.tex[j:]

    def test_planted_faults_are_caught(self):
        for planted in ("We compare against seven peer queues.",
                        "We compare against 13 peer queues.",
                        "The queues are rte, SCQ and sharded, not yet measured.",
                        "It reaches 42.5 Mitems/s.",
                        "The look-up costs 716.4~ns."):
            with self.subTest(planted=planted):
                self.assertTrue(prose_faults(self.plant(planted)), planted)

    def test_constants_and_macros_pass(self):
        for fine in ("With bursts of 32 and \\PeerQueues{} peer queues (Fig.~\\ref{fig:f1}).",
                     "The study's 2$\\times$16 placement~\\cite{numaring-study}.",
                     "At \\FOneRatio$\\times$ \\ci{FOneRatio}, 1 in \\PeersSample{} timed."):
            with self.subTest(fine=fine):
                self.assertEqual(prose_faults(self.plant(fine)), [])


if __name__ == "__main__":
    unittest.main()


class OneInterval(unittest.TestCase):
    """Each number with an interval shows the same interval wherever it appears
    (issue 47 item 2): the paper's body macros, the abstract and Table 1 (from
    claims.csv) and the figures (from findings, as summarize) all carry the
    interval the claim decides on (stats.decision_interval; docs/measurement.md)."""

    #: a claim of the canonical host -> the paper's macro of the same number
    SAME = {"F1.lookup-dominates": "FOneRatio", "F2.cache-faster": "FTwoRatio",
            "F4.pause-costs": "FFourPause", "F4.exp-costs": "FFourExp",
            "F4.yield-costs": "FFourYield", "ring.peers-single-flat": "PeersSingleOverFlat",
            "ring.peers-bursts-rte": "PeersBurstOverRte"}

    def test_body_table_and_claims_agree(self):
        import csv
        from scripts.analysis import hostfacts
        numbers = os.path.join(ROOT, "paper", "generated", "numbers.tex")
        with open(numbers, encoding="utf-8") as f:
            m = dict(re.findall(r"\\newcommand\{\\(\w+)\}\{([^}]*)\}", f.read()))
        host = hostfacts.canonical_host(os.path.join(ROOT, "results"))
        with open(os.path.join(ROOT, "results", host, "claims.csv"), encoding="utf-8") as f:
            claims = {r["claim"]: r for r in csv.DictReader(f)}
        checked = 0
        for claim, macro in self.SAME.items():
            row = claims.get(claim)
            if not row or not row["lo"] or m.get(macro + "Lo", "n/a") == "n/a":
                continue
            with self.subTest(claim=claim, macro=macro):
                for end, key in (("Lo", "lo"), ("Hi", "hi")):
                    shown = m[macro + end].lstrip("+").replace("$-$", "-")
                    places = len(shown.partition(".")[2])
                    self.assertEqual(shown, "%.*f" % (places, float(row[key])),
                                     "%s%s is not %s's %s" % (macro, end, claim, key))
                checked += 1
        self.assertGreaterEqual(checked, 3)
