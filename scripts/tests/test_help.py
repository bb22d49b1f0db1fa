"""Every command-line entry point of scripts/ prints its --help (and each
sub-command's) and exits 0: argparse expands % in help texts, so a stray
"25%" there turns --help into a traceback."""
import contextlib
import glob
import io
import os
import re
import runpy
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def entry_points():
    for path in sorted(glob.glob(os.path.join(ROOT, "scripts", "*", "*.py"))):
        if "/tests/" in path:
            continue
        with open(path) as f:
            text = f.read()
        if '__name__ == "__main__"' in text and "argparse" in text:
            yield "scripts." + os.path.relpath(path, os.path.join(ROOT, "scripts"))[:-3] \
                .replace(os.sep, ".")


def run_help(module, *argv):
    """(exit status, stdout) of python3 -m module *argv --help, run in-process."""
    out = io.StringIO()
    old = sys.argv
    sys.argv = [module, *argv, "--help"]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            runpy.run_module(module, run_name="__main__", alter_sys=False)
        code = 0
    except SystemExit as e:
        code = e.code or 0
    finally:
        sys.argv = old
    return code, out.getvalue()


class HelpTest(unittest.TestCase):
    def test_every_entry_point_and_sub_command_prints_help(self):
        mods = list(entry_points())
        self.assertIn("scripts.runner.experiments", mods)
        for m in mods:
            with self.subTest(module=m):
                code, text = run_help(m)
                self.assertEqual(code, 0, text)
                self.assertIn("usage:", text)
                subs = re.search(r"^usage:.*?\{([\w,-]+)\}", text, re.S | re.M)
                for sub in (subs.group(1).split(",") if subs else []):
                    with self.subTest(module=m, sub=sub):
                        code, sub_text = run_help(m, sub)
                        self.assertEqual(code, 0, sub_text)
                        self.assertIn("usage:", sub_text)


if __name__ == "__main__":
    unittest.main()
