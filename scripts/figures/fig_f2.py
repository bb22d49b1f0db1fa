# SPDX-License-Identifier: BSD-2-Clause
"""fig_f2.py - F2's figure (f2-node-cache): remembering the node, throughput
by look-up mode (fig_lines.py prepares and draws it) and the ratio it prints,
cached against libnuma (summarize.f2).
"""

from . import fig_lines
from . import fig_common
from .fig_common import condensed
from .fig_host import add_paired_words, compared, Said, STUDY, summary_of, what_varies


@condensed
def prep_f2(host):
    said = Said()

    def ann(series):
        # summarize.f2: cached_k / libnuma_k paired per rep at its quoted thread
        # count, within the regime it names (r["regime"]); printed where the
        # figure draws both look-ups
        lookups = compared("f2.cached_over_libnuma")
        variants = {v for v, _g in series}
        r = summary_of(host, "f2") if set(lookups) <= variants else {}
        text = said.text("f2.cached_over_libnuma", r)
        if text is None:
            return None
        return "%s / %s = %s at %d threads%s (%s)" % (
            *lookups, text, r["threads"], said.interval("f2.cached_over_libnuma", r), "; ".join(
                x for x in (fig_common.regime_words(r), STUDY["f2"]) if x))
    p = fig_lines.prep(host, "f2-node-cache", "lookup",
                   lambda series: "F2: remembering the node \u2014 "
                   + what_varies(series, "look-up mode"), ann)
    return add_paired_words(p, said)
