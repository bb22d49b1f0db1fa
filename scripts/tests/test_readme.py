# SPDX-License-Identifier: BSD-2-Clause
"""Tests of the documentation (make test-scripts): README.md is a front door,
and no page types a measurement by hand.

    /usr/bin/python3 -m unittest discover -s scripts/tests -t . -v
    /usr/bin/python3 -m unittest scripts.tests.test_readme -v

* README.md and docs/*.md state no measured number (a number followed by a
  unit of measurement: x, ns, %, Mitems/s, ...) and no dated measurement log,
  except inside README.md's one generated block, which scripts/analysis/claims.py
  fills from the committed CSVs. What a host measured lives in
  results/<host>/README.md and its reproduction report; a number typed into
  prose goes stale the day the code or the machine changes.
* README.md holds exactly one pair of generated-block markers, in order.
* README.md opens with the two commands a newcomer runs (make experiments,
  make test) and stays short (at most MAX_README_LINES lines).
* Every relative link of README.md and docs/*.md points to a file or folder
  of the repository.

Each shape the measurement pattern lets through on purpose is listed in
ALLOWED with its reason; DetectorTest shows what is caught and what is not.
Nothing is run; the files are only read.
"""

import glob
import os
import re
import sys
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(TESTS))
README = os.path.join(ROOT, "README.md")
DOCS = os.path.join(ROOT, "docs")

#: the generated block's markers, exactly as scripts/analysis/claims.py looks for them
BEGIN = "<!-- BEGIN GENERATED: claims (scripts/analysis/claims.py readme README.md; do not edit) -->"
END = "<!-- END GENERATED: claims -->"

#: README.md is a front door of about 200 lines; the rest belongs in docs/
MAX_README_LINES = 260
#: the two commands must appear within this many lines from the top
OPENING_LINES = 15

# A number: digits, with decimals or thousands separators. Not a digit that
# follows a letter, a digit or a dot, so that names (f6m106, x86, AVX2, P2C)
# and the tails of versions or decimals never start a match.
NUMBER = r"(?<![\w.])\d+(?:[.,]\d+)*"
# An interval written after a value before its unit: "1.35 [1.24..1.38]x".
INTERVAL = r"(?:\s*\[[^\]\n]*\])?"
# Units of measured quantities. A unit must end where a word ends ("(?!\w)"
# rather than "\b", which never matches after '%' followed by a space), so
# that 0x41 (hex), 2x16 and 1x1 (shapes) are not ratios, and "10 nodes" or
# "3 msgs" are not milliseconds.
UNITS = [
    r"[x×]",                      # ratios: 11x, 1.35x, 6-7x, 10.7 [9.1..11.4]x
    r"%",                         # shares and drifts: 15-30%, 5.5%
    r"ns", r"us", r"[µμ]s", r"ms",  # times
    r"cycles",                    # CPU cycles per operation
    r"Mitems/s", r"Mops/s", r"M items/s", r"M ops/s",  # throughputs
    r"(?:million\s+)?(?:items|ops|operations)/s",
    r"[GM]i?B/s",                 # bandwidths: GB/s, MB/s, GiB/s, MiB/s
]
MEASUREMENT = re.compile(NUMBER + INTERVAL + r"\s*(?:" + "|".join(UNITS) + r")(?!\w)")

# A dated entry ("2026-12-01") is how a hand-typed measurement log looks; the
# documentation has no other use for a calendar date.
DATE = re.compile(r"(?<![\w-])(?:19|20)\d\d-[01]\d-[0-3]\d(?![\w-])")

#: shapes the pattern above would catch but that state no measurement; each
#: is blanked out of a line before it is searched, with the reason it is allowed
ALLOWED = [
    (re.compile(r"(?<![\w.])\d+\s*[x×]\s*\d+(?!\w)"),
     "a product of two counts describes a shape, not a ratio: '2 x 16 cores' (a "
     "machine), '2 nodes x 2 CPUs' is not even caught, '64x64' (a matrix), '1x1' "
     "(bench_peers' producer x consumer shapes)"),
]

INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def doc_files():
    """README.md and every docs/*.md (docs/ sorted), as absolute paths."""
    return [README] + sorted(glob.glob(os.path.join(DOCS, "*.md")))


def rel(path):
    return os.path.relpath(path, ROOT)


#: README.md's other generated block: how long make experiments takes
#: (python3 -m scripts.runner.experiments readme README.md)
ESTIMATE_BEGIN = ("<!-- BEGIN GENERATED: estimate (python3 -m scripts.runner.experiments "
                  "readme README.md; do not edit) -->")
ESTIMATE_END = "<!-- END GENERATED: estimate -->"
BLOCKS = ((BEGIN, END), (ESTIMATE_BEGIN, ESTIMATE_END))


def generated_lines(lines, blocks=((BEGIN, END),)):
    """Indices (0-based) of the lines strictly inside README's generated blocks;
    none for a block whose markers are missing or out of order (another test
    says so)."""
    out = set()
    for begin, end in blocks:
        try:
            b, e = lines.index(begin), lines.index(end)
        except ValueError:
            continue
        out |= set(range(b + 1, e)) if b < e else set()
    return out


def measurements(line):
    """The measured numbers typed into one line of prose, as matched strings."""
    for pattern, _reason in ALLOWED:
        line = pattern.sub(lambda m: " " * len(m.group(0)), line)
    return [m.group(0) for m in MEASUREMENT.finditer(line)] + \
        [m.group(0) for m in DATE.finditer(line)]


def offending_lines(path):
    """[(line number, found, line)] of every line outside the generated block
    that states a measurement."""
    lines = read_lines(path)
    skip = generated_lines(lines, BLOCKS) if path == README else set()
    out = []
    for i, line in enumerate(lines):
        if i in skip:
            continue
        found = measurements(line)
        if found:
            out.append((i + 1, found, line))
    return out


def links(path):
    """[(line number, target)] of every link of a Markdown file, outside code
    blocks and code spans."""
    out, fenced = [], None
    for i, line in enumerate(read_lines(path)):
        m = FENCE.match(line)
        if m:
            if fenced is None:
                fenced = m.group(1)
            elif m.group(1) == fenced:
                fenced = None
            continue
        if fenced is not None:
            continue
        text = CODE_SPAN.sub("", line)
        out += [(i + 1, m.group(1)) for m in INLINE_LINK.finditer(text)]
        m = REFERENCE_LINK.match(text)
        if m:
            out.append((i + 1, m.group(1)))
    return out


def broken_link(path, target):
    """Why a link of the file at path is broken, or None where it is fine or
    not relative (a URL, an anchor of the same page)."""
    if SCHEME.match(target) or target.startswith("#"):
        return None
    local = target.split("#", 1)[0].split("?", 1)[0]
    if not local:
        return None
    base = ROOT if local.startswith("/") else os.path.dirname(path)
    full = os.path.normpath(os.path.join(base, local.lstrip("/")))
    if os.path.relpath(full, ROOT).startswith(".."):
        return "points outside the repository"
    if os.path.relpath(full, ROOT).split(os.sep)[0] == "build":
        return "points into build/, which a fresh clone does not have"
    if not os.path.exists(full):
        return f"{rel(full)} does not exist"
    return None


class DetectorTest(unittest.TestCase):
    """The measurement pattern catches what it must and lets the rest through."""

    CAUGHT = [
        "numaring / rte **1.35x** [1.24..1.38] (target 1.2: met)",
        "10.7 [9.1..11.4]x the data movement",
        "cost more than 11x the data movement",
        "raised throughput 6-7x",
        "backoff cost 15-30% of throughput",
        "drift 5.5%, flagged",
        "getcpu syscall ~230 ns, rseq load ~1 ns",
        "spins for 20 us, then naps 10 µs per poll",
        "a guest that waits 1 ms",
        "numaring 258.8 [245.8..262.5] Mitems/s",
        "16.9 vs 1.6 Mops/s",
        "7,000-60,000 items/s against millions",
        "local bandwidth 12.5 GB/s",
        "about 300 cycles per element",
        "measured here (2026-12-01, commit 3ef47d8b)",
    ]
    ALLOWED_HERE = [
        "an x86-64 kernel; AVX2 where the CPU has it",
        "the constant 0x41 and the mask 0xff",
        "bench_peers.py --shapes 1x1,2x2 and 2P2C",
        "a 2 x 16-core host; 2 nodes x 2 CPUs; a 64x64 distance matrix",
        "results/vm-intel-f6m106-1node (CPUID family 6 model 106, 2 vCPUs)",
        "capacity 1024, batch 32, 60 s per fuzz target, Linux >= 6.3, glibc 2.35+",
        "10 nodes and 3 msgs",
        "lookup x gate x backoff",
        "a point at 0.8 of the harness's ceiling; target: none below 0.10",
    ]

    def test_caught(self):
        for text in self.CAUGHT:
            with self.subTest(text=text):
                self.assertTrue(measurements(text), f"not caught: {text!r}")

    def test_allowed(self):
        for text in self.ALLOWED_HERE:
            with self.subTest(text=text):
                self.assertEqual(measurements(text), [], f"caught: {text!r}")

    def test_generated_block_is_skipped(self):
        lines = ["# x", BEGIN, "| F1 | 11x | 10.7 [9.1..11.4]x | holds |", END, "done"]
        self.assertEqual(generated_lines(lines), {2})
        self.assertEqual(generated_lines([END, "1x", BEGIN]), set())


class ReadmeTest(unittest.TestCase):

    def setUp(self):
        self.lines = read_lines(README)

    def test_each_generated_block_once(self):
        begins = [i + 1 for i, l in enumerate(self.lines) if "BEGIN GENERATED" in l]
        ends = [i + 1 for i, l in enumerate(self.lines) if "END GENERATED" in l]
        self.assertEqual(len(begins), len(BLOCKS), f"README.md: BEGIN markers at lines "
                         f"{begins}; expected one of each:\n{BEGIN}\n{ESTIMATE_BEGIN}")
        self.assertEqual(len(ends), len(BLOCKS), f"README.md: END markers at lines {ends}")
        for begin, end in BLOCKS:
            with self.subTest(block=begin):
                self.assertEqual(self.lines.count(begin), 1,
                                 f"README.md: the BEGIN marker must read exactly\n{begin}")
                self.assertEqual(self.lines.count(end), 1,
                                 f"README.md: the END marker must read exactly\n{end}")
                self.assertLess(self.lines.index(begin), self.lines.index(end),
                                "README.md: END marker before BEGIN")

    def test_opens_with_the_two_commands(self):
        top = self.lines[:OPENING_LINES]
        for cmd in ("make experiments", "make test"):
            with self.subTest(cmd=cmd):
                self.assertTrue(any(re.match(r"\s*" + re.escape(cmd) + r"(?![\w-])", l)
                                    for l in top),
                                f"README.md: no line of the first {OPENING_LINES} "
                                f"starts with the command '{cmd}'")

    def test_short(self):
        self.assertLessEqual(len(self.lines), MAX_README_LINES,
                             f"README.md has {len(self.lines)} lines; a front door has at "
                             f"most {MAX_README_LINES}: move details to docs/")


class NoTypedMeasurementTest(unittest.TestCase):

    def test_no_measured_number_outside_the_generated_block(self):
        report = []
        for path in doc_files():
            for n, found, line in offending_lines(path):
                report.append(f"{rel(path)}:{n}: {', '.join(found)}\n    {line.strip()}")
        if report:
            self.fail("measured numbers typed by hand (move them to the claims table, "
                      "or point to results/<host>/README.md or the paper):\n"
                      + "\n".join(report))

    def test_docs_exist(self):
        self.assertTrue(os.path.isdir(DOCS), "docs/ is missing")
        self.assertTrue(glob.glob(os.path.join(DOCS, "*.md")), "docs/ holds no page")


class CanonicalHostTest(unittest.TestCase):
    """README.md and docs/ quote and link one host, the canonical one (the
    newest sweep); every other committed host folder says it is an archive."""

    def test_links_to_results_and_plots_name_the_canonical_host(self):
        from scripts.analysis import hostfacts
        canon = hostfacts.canonical_host(os.path.join(ROOT, "results"))
        self.assertIsNotNone(canon)
        bad = []
        for path in doc_files():
            lines = read_lines(path)
            skip = generated_lines(lines, BLOCKS) if path == README else set()
            for i, line in enumerate(lines):
                if i in skip:
                    continue
                for m in re.finditer(r"\((?:\.\./)?(?:results|plots)/([^/)#]+)", line):
                    if m.group(1).split("-emulated-")[0] != canon:
                        bad.append(f"{rel(path)}:{i + 1}: {m.group(1)}")
        self.assertEqual(bad, [], f"links to a host other than the canonical {canon}")

    def test_every_other_host_is_labelled_an_archive(self):
        from scripts.analysis import hostfacts
        results = os.path.join(ROOT, "results")
        canon = hostfacts.canonical_host(results)
        for h in sorted(os.listdir(results)):
            if not os.path.isfile(os.path.join(results, h, "README.md")):
                continue
            with self.subTest(host=h):
                with open(os.path.join(results, h, "README.md"), encoding="utf-8") as f:
                    text = f.read()
                top = "".join(text.splitlines(keepends=True)[:4])
                if not hostfacts.sweep_tables(os.path.join(results, h)):
                    # benchmarks alone: never a sweep to quote, nor an archive of one;
                    # make bench-fidelity's table where it ran
                    self.assertIn("**Benchmarks only.**", top)
                    self.assertNotEqual(h, canon)
                    self.assertEqual("## Where the harness's time goes" in text, os.path.isfile(
                        os.path.join(results, h, "bench", "bench-fidelity.csv")))
                    continue
                self.assertEqual("**Archive.**" in top, h.split("-emulated-")[0] != canon)
                # what an archive's tables lack of the current design, where
                # they lack anything (the sweep before the newest may lack nothing)
                if h.split("-emulated-")[0] != canon:
                    self.assertEqual("Its tables lack:" in top,
                                     bool(hostfacts.lacks(os.path.join(
                                         results, h.split("-emulated-")[0]))))


class LinkTest(unittest.TestCase):

    def test_relative_links_resolve(self):
        report, count = [], 0
        for path in doc_files():
            for n, target in links(path):
                count += 1
                why = broken_link(path, target)
                if why:
                    report.append(f"{rel(path)}:{n}: ({target}) {why}")
        if report:
            self.fail("broken links:\n" + "\n".join(report))
        self.assertGreater(count, 0, "no link found: the link pattern is broken")

    def test_link_parser(self):
        self.assertEqual(broken_link(README, "https://example.org/x"), None)
        self.assertEqual(broken_link(README, "#layout"), None)
        self.assertEqual(broken_link(README, "Makefile#L1"), None)
        self.assertIn("does not exist", broken_link(README, "results/no-such-host/"))
        self.assertIn("outside", broken_link(README, "../../etc/passwd"))


if __name__ == "__main__":
    sys.exit(unittest.main())
