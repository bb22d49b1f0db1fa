# SPDX-License-Identifier: BSD-2-Clause
"""The reports' templates (scripts/analysis/templates.py, scripts/templates/):
a name a template uses that its caller did not pass is an error, never an
empty cell in a README; a macro's lines are its text split, a blank line kept
and nothing added; every template in the folder parses."""

import os
import tempfile
import unittest
from unittest import mock

import jinja2

from scripts.analysis import results_readme, templates


class TemplatesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        for name, text in (
                ("t.md.j2", "Host {{ host }}\n{% if rows %}\nrows\n{% endif %}\n"),
                ("s.md.j2", "{% macro sec(rows) %}\n\n## Title\n\n{% for r in rows %}\n"
                            "| {{ r }} | {{ unit(r) }} |\n{% endfor %}\n{% endmacro %}\n"
                            "{% macro nothing() %}{% endmacro %}\n")):
            with open(os.path.join(self.tmp.name, name), "w", encoding="utf-8") as f:
                f.write(text)
        patch = mock.patch.object(templates, "TEMPLATE_DIR", self.tmp.name)
        patch.start()
        self.addCleanup(patch.stop)
        templates.environment.cache_clear()
        self.addCleanup(templates.environment.cache_clear)

    def test_a_name_not_passed_is_an_error(self):
        with self.assertRaises(jinja2.UndefinedError):
            templates.render("t.md.j2", rows=[])
        self.assertEqual(templates.render("t.md.j2", host="h", rows=[]), "Host h\n")
        self.assertEqual(templates.render("t.md.j2", host="h", rows=[1]), "Host h\nrows\n")

    def test_a_macros_lines(self):
        lines = templates.section("s.md.j2", "sec", {"unit": lambda r: r * 2}, rows=[1, 2])
        self.assertEqual(lines, ["", "## Title", "", "| 1 | 2 |", "| 2 | 4 |"])
        with self.assertRaises(jinja2.UndefinedError):  # a helper not passed
            templates.section("s.md.j2", "sec", {}, rows=[1])
        self.assertEqual(templates.section("s.md.j2", "nothing", {}), [])

    def test_the_numbers_keep_their_decimals(self):
        with open(os.path.join(self.tmp.name, "n.j2"), "w", encoding="utf-8") as f:
            f.write("{{ v|dec1 }} {{ v|dec2 }}")
        self.assertEqual(templates.render("n.j2", v=2.345), f"{2.345:.1f} {2.345:.2f}")


class ShippedTemplatesTest(unittest.TestCase):
    def test_every_template_parses_and_the_readme_names_its_macros(self):
        env = templates.environment()
        names = sorted(os.listdir(templates.TEMPLATE_DIR))
        self.assertIn(results_readme.SECTIONS, names)
        for n in names:
            with self.subTest(template=n):
                env.get_template(n)
        module = env.get_template(results_readme.SECTIONS).make_module(results_readme.HELPERS)
        for macro in ("claims", "gallery", "regimes", "tightness", "handover", "spin", "trip", "drift", "harness", "pace", "f4", "peers_pairs",
                      "peers_field", "placement", "fidelity", "fidelity_not_measured"):
            self.assertTrue(callable(getattr(module, macro, None)), macro)


if __name__ == "__main__":
    unittest.main()
