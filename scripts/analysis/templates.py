# SPDX-License-Identifier: BSD-2-Clause
"""templates.py - the reports' text from jinja2 templates (scripts/templates/).

A report's wording lives in its template, one line of the template for each
line of the report; the Python that fills it computes the values only. The
environment is strict: a name the template uses and the caller did not pass
is an error (StrictUndefined), never an empty string in a committed README.
Blocks own their lines (trim_blocks, lstrip_blocks): a `{% if %}` or
`{% for %}` on a line of its own writes no line itself.
"""

import functools
import os

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "templates")


@functools.lru_cache(maxsize=None)
def environment():
    try:
        import jinja2
    except ImportError:
        raise SystemExit("the reports need jinja2: sudo apt-get install -y python3-jinja2 "
                         "(scripts/deps.sh experiments installs it)") from None
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR), undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    # a number with one or two decimals, as f"{v:.1f}" and f"{v:.2f}" write it
    env.filters.update(dec1="{:.1f}".format, dec2="{:.2f}".format)
    return env


def render(name, **values):
    """The text of template ``name`` (scripts/templates/<name>) filled with ``values``."""
    return environment().get_template(name).render(**values)


def section(name, macro, helpers, **values):
    """The lines of macro ``macro`` of template ``name`` called with ``values``
    ("\\n".join of them is its text); ``helpers``: the names (functions) the
    template calls besides them. [] where the macro writes nothing."""
    text = str(getattr(environment().get_template(name).make_module(helpers), macro)(**values))
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n") if text else []
