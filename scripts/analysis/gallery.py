# SPDX-License-Identifier: BSD-2-Clause
"""gallery.py - the results README's figures beside their claims (issue 33 item 3).

lines(hostdir, rows) writes the section "Figures and their claims" of
results/<host>/README.md: for every main figure (scripts/common/figlist.py,
the list scripts/figures/plot.py draws), in its order, a heading, the figure
inline (a relative link to plots/<host>/<figure>.png, or to the cross-node
folder's where the figure's experiment ran there: hostfacts.cross_node_dir),
directly under it the claim rows of the figure's finding (status, value with
its interval, the pairs or rounds used: claims.csv's columns), and a line on
the two renderers (matplotlib draws the PNG and the PDF the paper includes;
gnuplot draws plots/<host>/gnuplot/<figure>.png from
plots/<host>/data/<figure>.dat by column name). A figure whose PNG is missing
says why instead of linking.

Which claims belong to a figure is read, not typed: a figure knows its
experiment (figlist.FIGURES), an experiment its finding (experiments/*.exp,
read by scripts/common/expfile.py), a claim its finding (claims_table.CLAIMS).
A finding that no claim carries (peers: its claims say "ring") takes the
claims that read the experiment's CSV and belong to no experiment's finding.
An emulated sibling's claims are its real host's (../<real>/claims.csv): the
claims read the sibling's cross-node runs from there.
"""

import os

from . import hostfacts, templates
from ..common import expfile, figlist
from ..common.tidy import read_rows


def plots_dir(hostdir):
    """plots/ beside the host's results/ folder (results/<host> -> plots)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(hostdir))), "plots")


def figures():
    """[(figure, experiment)] of the main figures, in drawing order
    (scripts/common/figlist.py, whose list plot.py draws)."""
    return figlist.figures()


def experiments():
    """{name: Experiment} of experiments/*.exp."""
    return {e.name: e for e in expfile.experiments()}


def claim_finding(exp, rows):
    """The finding the claims of experiment ``exp`` carry: the experiment's own
    where a claim carries it, else the one finding among the claims that read
    the experiment's CSV and carry no experiment's finding (peers: ring);
    None where there is none."""
    if any(r["finding"] == exp.finding for r in rows):
        return exp.finding
    other = {r["finding"] for r in rows if reads_csv(r, exp.name)
             and r["finding"] not in expfile.FINDINGS}
    return other.pop() if len(other) == 1 else None


def reads_csv(row, exp_name):
    """Whether a claim row reads results/<host>/<exp_name>.csv."""
    return (row.get("reads") or "").split(":")[0].strip() == f"{exp_name}.csv"


def figure_rows(exp, rows):
    """The claim rows under a figure of experiment ``exp``: those of its
    finding (claim_finding); where that finding is not the experiment's own
    (peers: ring), only those that read the experiment's CSV."""
    finding = claim_finding(exp, rows)
    if finding is None:
        return []
    if finding == exp.finding:
        return [r for r in rows if r["finding"] == finding]
    return [r for r in rows if r["finding"] == finding and reads_csv(r, exp.name)]


def read_claims(path):
    """The rows of a claims.csv, None where there is none."""
    try:
        return read_rows(path)
    except OSError:
        return None


def real_host_of(hostdir):
    """The real host folder of an emulated sibling (<real>-emulated-...), else None."""
    hostdir = os.path.normpath(os.path.abspath(hostdir))
    host = os.path.basename(hostdir)
    if "-emulated-" not in host:
        return None
    return os.path.join(os.path.dirname(hostdir), host.split("-emulated-")[0])


def link(path, hostdir, text=None):
    """A Markdown link from results/<host>/README.md to path."""
    rel = os.path.relpath(path, os.path.abspath(hostdir)).replace(os.sep, "/")
    return f"[{text or rel}]({rel})"


def where(hostdir, exp_name, fig):
    """(results folder, plots folder) of a figure: for a cross-node experiment
    (hostfacts.CROSS_NODE) the folder the claims read it from
    (hostfacts.cross_node_dir: the host itself with two real nodes, else its
    emulated sibling) before the host's own, for any other the host's own
    first; the first folder with the figure's PNG or the experiment's CSV;
    (None, None) where neither has either."""
    hostdir = os.path.normpath(os.path.abspath(hostdir))
    dirs = [hostdir]
    cross = hostfacts.cross_node_dir(hostdir)
    if cross and os.path.normpath(os.path.abspath(cross)) != hostdir:
        cross = os.path.normpath(os.path.abspath(cross))
        dirs = [cross, hostdir] if exp_name in hostfacts.CROSS_NODE else [hostdir, cross]
    plots = plots_dir(hostdir)
    for d in dirs:
        p = os.path.join(plots, os.path.basename(d))
        if (os.path.exists(os.path.join(p, f"{fig}.png"))
                or os.path.exists(os.path.join(d, f"{exp_name}.csv"))):
            return d, p
    return None, None


def renderers_line(hostdir, p, fig):
    """The line on the two renderers of one figure, with links to the PDF
    beside the PNG, gnuplot's copy and its .dat where they exist."""
    host_p = os.path.basename(p)

    def ref(rel, missing):
        path = os.path.join(p, rel)
        text = f"plots/{host_p}/{rel}"
        return link(path, hostdir, text) if os.path.exists(path) else f"{text} ({missing})"

    mpl = (f"matplotlib drew this PNG and {ref(f'{fig}.pdf', 'not drawn')} (the paper "
           "includes the PDF)" if os.path.exists(os.path.join(p, f"{fig}.png")) else
           f"matplotlib draws plots/{host_p}/{fig}.png and .pdf (the paper includes the PDF)")
    return (f"Renderers: {mpl}; gnuplot draws "
            f"{ref(f'gnuplot/{fig}.png', 'not drawn: make plots with gnuplot')} from "
            f"{ref(f'data/{fig}.dat', 'not written')} by column name.")


def predicate(row):
    """A claim row's predicate, "—" where the row names no claim the table knows."""
    from . import claims
    try:
        return claims.predicate(row)
    except (ValueError, KeyError):
        return "—"


def supplement_lines(hostdir):
    """The README's list of the supplement (figlist.SUPPLEMENT: the
    diagnostics, plots/<host>/supplement/), a link per figure drawn for this
    host or its cross-node sibling with what it shows; [] where none is."""
    items = []
    for fig, exp_name in figlist.supplement():
        d, p = where(hostdir, exp_name, f"{figlist.SUPPLEMENT_DIR}/{fig}")
        if d is None:
            continue
        png = os.path.join(p, figlist.SUPPLEMENT_DIR, f"{fig}.png")
        what = figlist.SUPPLEMENT_WHAT.get(fig, exp_name)
        items.append(f"* {link(png, hostdir, fig) if os.path.exists(png) else f'`{fig}` (not drawn: `make plots`)'}"
                     f" ({exp_name}): {what}")
    return items


def lines(hostdir, rows=None, guest=False):
    """The README's section "Figures and their claims" (markdown lines).
    ``rows``: the host's claim rows (claims.report, as claims.csv holds them);
    None reads the real host's claims.csv for an emulated sibling."""
    hostdir = os.path.normpath(os.path.abspath(hostdir))
    host = os.path.basename(hostdir)
    real = real_host_of(hostdir)
    source = "`claims.csv`"
    if rows is None and real and not guest:
        rows = read_claims(os.path.join(real, "claims.csv"))
        source = link(os.path.join(real, "claims.csv"), hostdir,
                      f"{os.path.basename(real)}/claims.csv") + " (the real host's: its claims "
        source += "read these cross-node runs)"
    exps = experiments()
    figs, absent = [], []
    cross = hostfacts.cross_node_dir(hostdir)
    sibling = bool(cross) and os.path.normpath(os.path.abspath(cross)) != hostdir
    for fig, exp_name in figures():
        exp = exps.get(exp_name)
        d, p = where(hostdir, exp_name, fig)
        if d is None:
            absent.append(f"`{fig}` (no `{exp_name}.csv` in these results"
                          + (" nor in the cross-node sibling's" if sibling else "") + ")")
            continue
        png = os.path.join(p, f"{fig}.png")
        fr = None if rows is None else figure_rows(exp, rows) if exp else []
        figs.append({
            "fig": fig, "exp": exp_name, "results": os.path.basename(d),
            "plots": os.path.basename(p), "claims": fr,
            "title": exp_name if not exp else (
                exp.title if exp.title.startswith(exp.finding) else f"{exp.finding}: {exp.title}"),
            "png": os.path.relpath(png, hostdir).replace(os.sep, "/")
            if os.path.exists(png) else None,
            "that_read": "" if not fr or (exp and fr[0]["finding"] == exp.finding)
            else f" that read `{exp_name}.csv`",
            "renderers": renderers_line(hostdir, p, fig)})
    from . import claims
    return templates.section(
        "readme_sections.md.j2", "gallery", {
            "status_word": claims.status_word, "fmt_value": claims.fmt_value,
            "predicate": predicate},
        source=source, every=real is None and not guest, figures=figs, guest=guest,
        supplement=supplement_lines(hostdir), absent=absent,
        real_link=link(os.path.join(real, "README.md"), hostdir,
                       os.path.basename(real) + "/README.md")
        if real and os.path.exists(os.path.join(real, "README.md")) else None)
