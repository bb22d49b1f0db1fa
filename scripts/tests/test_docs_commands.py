# SPDX-License-Identifier: BSD-2-Clause
"""Make targets are the one interface the docs show (issue 47 item 5): every
command README.md, docs/ and experiments/README.md show is a make target
that exists, or runs the interpreter the Makefile found with pandas
(/usr/bin/python3: with another Python first on PATH, `python3 -m` finds no
pandas)."""

import glob
import os
import re
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = ["README.md", "experiments/README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))

#: a bare `python3 -m`: not the Makefile's interpreter
BARE_PYTHON = re.compile(r"(?<![/\w])python3 -m ")
#: `make TARGET` at the start of a command, or after ; && || (
MAKE_CMD = re.compile(r"(?:^\s*|[;&|(]\s*)make ([a-z][\w-]*)")


def shown(text):
    """The commands a document shows: its `code spans` and its code lines
    (indented four spaces, or fenced), HTML comments left out."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    "):
            out.append(line)
    # a span may be broken over two lines of prose
    out += [m.replace("\n", " ") for m in re.findall(r"`([^`]+)`", text)]
    return out


def makefile_python():
    with open(os.path.join(ROOT, "scripts", "experiments.mk"), encoding="utf-8") as f:
        return re.search(r"^PYTHON\s*\?=\s*(\S+)", f.read(), re.M).group(1)


def make_targets():
    r = subprocess.run(["make", "-qp", "-f", "Makefile"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, MAKEFLAGS=""))
    return set(re.findall(r"^([a-zA-Z][\w-]*):", r.stdout, re.M))


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


class DocsCommands(unittest.TestCase):
    def test_no_bare_python3(self):
        self.assertEqual(makefile_python(), "/usr/bin/python3")
        for rel in DOCS:
            for line in shown(read(rel)):
                with self.subTest(doc=rel, command=line):
                    self.assertIsNone(BARE_PYTHON.search(line),
                                      "a make target, or /usr/bin/python3 -m")

    def test_every_make_target_shown_exists(self):
        targets = make_targets()
        self.assertIn("experiments", targets)
        for rel in DOCS:
            for line in shown(read(rel)):
                for t in MAKE_CMD.findall(line):
                    with self.subTest(doc=rel, target=t):
                        self.assertIn(t, targets, "%s shows `make %s`: no such target" % (rel, t))

    def test_the_checks_fail_on_a_planted_command(self):
        self.assertTrue(BARE_PYTHON.search(shown("run `python3 -m scripts.x list`")[0]))
        self.assertIsNone(BARE_PYTHON.search("`/usr/bin/python3 -m scripts.x`"))
        self.assertEqual(MAKE_CMD.findall(shown("    make no-such-target X=1")[0]),
                         ["no-such-target"])
        self.assertEqual(shown("<!-- python3 -m a -->"), [])


if __name__ == "__main__":
    unittest.main()
