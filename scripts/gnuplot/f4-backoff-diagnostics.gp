# SPDX-License-Identifier: BSD-2-Clause
# f4-backoff-diagnostics.gp - F4: backoff against spinning, per workload. The gnuplot twin
# of scripts/figures/plot.py's f4-backoff-diagnostics figure (the supplement), from the same prepared data: a column
# of panels per workload (prodcons, pairs, mixed), rows top to bottom:
# throughput by backoff (one thread count: a dot per backoff, whisker min-max,
# the harness alone as a grey mark; several: against threads, a line per
# backoff), the paired change against none ("inconclusive" where its interval
# holds 0, "not exercised" where none lost < 1 race per 1,000 operations; the
# study's -15..-30% band in the prodcons panel only), lost races per 1,000
# operations, time in backoff per operation, fairness (fewest / most
# operations of one thread, 0 to 1, a dotted line at 1: every thread did the
# same; "not recorded" for older tables), p99 latency. Filled marks: the
# least local work; hollow (dashed): more. A black x: oversubscribed. Under
# prodcons each (pace, regime) group of the runs apart where the regimes are
# recorded (a closed-loop run lands near empty or full, several-fold apart):
# shape per regime (circle near-empty, square full; pt), side by side in the
# slot, n beside a dot where the runs split.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/supplement/data/f4-backoff-diagnostics.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host, then what is drawn
#   note      optional: the finding's numbers for this host, under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f4-backoff-diagnostics.dat'
if (!exists("outfile")) outfile = 'f4-backoff-diagnostics.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F4: backoff against spinning, per workload'

# The data file's blocks (index) and the columns this script reads, by name:
# <prefix>_<column> = its number in the block's '# columns:' line
# (scripts/tests/test_f4_figure.py checks every one against the data file).
B_POINTS = 0
B_CHANGE = 1
B_HARNESS = 2
B_PANELS = 3
# block "points"
pt_panel = 1
pt_hollow = 2
pt_bidx = 3
pt_threads = 4
pt_x = 5
pt_median_ops_per_s = 6
pt_min_ops_per_s = 7
pt_max_ops_per_s = 8
pt_color_rgb = 10
pt_oversubscribed = 11
pt_harness_ops_per_s = 12
pt_harness_bound = 13
pt_failed_per_1000 = 14
pt_failed_min = 15
pt_failed_max = 16
pt_backoff_ns_per_op = 17
pt_backoff_ns_min = 18
pt_backoff_ns_max = 19
pt_p99_ns = 20
pt_p99_min_ns = 21
pt_p99_max_ns = 22
pt_backoff = 24
pt_fairness = 27
pt_fairness_min = 28
pt_fairness_max = 29
pt_reps = 9
pt_regime = 30
pt_pt = 31
pt_shown_n = 32
pt_ridx = 33
pt_slot_x = 34
pt_harness_row = 35
# block "change vs none"
ch_change_pct = 3
ch_ci_lo_pct = 4
ch_ci_hi_pct = 5
ch_color_rgb = 6
ch_exercised = 8
ch_oversubscribed = 9
ch_panel = 10
ch_hollow = 11
ch_x = 12
ch_inconclusive = 13
# block "harness alone (null queue)"
hn_panel = 1
hn_hollow = 2
hn_threads = 3
hn_median_ops_per_s = 4
# block "panels"
pn_panel = 1
pn_hollow = 2
pn_threads = 3
pn_exercised = 4
pn_none_failed_per_1000 = 5
pn_band = 6
pn_items = 7
pn_categorical = 8
pn_nbackoffs = 9
pn_work_ns = 10
pn_workload = 11

# ---- what the data holds: panels, amounts of work, backoffs --------------------
undefine STATS_*
stats datafile index B_PANELS using (column(pn_panel)) nooutput
NW = int(STATS_max) + 1
stats datafile index B_PANELS using (column(pn_hollow)) nooutput
NH = int(STATS_max) + 1
stats datafile index B_PANELS using (column(pn_categorical)) nooutput
categorical = int(STATS_max)
stats datafile index B_PANELS using (column(pn_nbackoffs)) nooutput
NB = int(STATS_max)
array wname[NW]
array wthreads[NW]
array wband[NW]
array witems[NW]
array ex[NW * NH]
array nf[NW * NH]
array work[NH]
# (the name line of a block has no such columns: skipped)
isnum(v) = (v == v)
stats datafile index B_PANELS using (!isnum(column(pn_hollow)) ? NaN : \
    (i = int(column(pn_panel)), j = int(column(pn_hollow)), \
    wname[i + 1] = strcol(pn_workload), wthreads[i + 1] = column(pn_threads), \
    wband[i + 1] = column(pn_band), witems[i + 1] = column(pn_items), \
    ex[i * NH + j + 1] = column(pn_exercised), \
    nf[i * NH + j + 1] = column(pn_none_failed_per_1000), work[j + 1] = column(pn_work_ns), 0)) \
    nooutput
array bname[NB]
array bcolor[NB]
stats datafile index B_POINTS using (!isnum(column(pt_bidx)) ? NaN : \
    (bname[int(column(pt_bidx)) + 1] = strcol(pt_backoff), \
    bcolor[int(column(pt_bidx)) + 1] = column(pt_color_rgb), 0)) nooutput
stats datafile index B_POINTS using (column(pt_threads)) nooutput
tmin = STATS_min
tmax = STATS_max
workwords(h) = (h >= NH ? '' : (work[h + 1] == 0 ? 'no local work' : sprintf('%g ns local work', work[h + 1])))
hex(c) = sprintf('#%06x', int(c))
any_over = 0
stats datafile index B_POINTS using (column(pt_oversubscribed) == 1 ? 1 : NaN) nooutput
if (exists("STATS_records") && STATS_records > 0) { any_over = 1 }
undefine STATS_*
stats datafile index B_HARNESS using (column(hn_median_ops_per_s)) nooutput
has_harness = exists("STATS_records") && STATS_records > 0
# the regimes drawn apart (prodcons; 'pooled' elsewhere): the key names them
undefine STATS_*
stats datafile index B_POINTS using (!isnum(column(pt_panel)) ? NaN : (strstrt(strcol(pt_regime), 'near-empty') > 0 ? 1 : NaN)) nooutput
r_ne = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index B_POINTS using (!isnum(column(pt_panel)) ? NaN : (strstrt(strcol(pt_regime), 'full') > 0 ? 1 : NaN)) nooutput
r_full = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index B_POINTS using (column(pt_shown_n) == 1 ? 1 : NaN) nooutput
shown_n = exists("STATS_records") && STATS_records > 0
hollowpt(k) = (isnum(column(k)) && int(column(k)) % 2 == 0)

# ---- the page: a column per workload, a row per quantity, the legend at right ----
PW = 520.0
RH = 300.0
LPAD = 25.0
LEG = 380.0
ncap = (caption eq '') ? 0 : 1
do for [i = 1:strlen(caption)] { if (caption[i:i] eq "\n") { ncap = ncap + 1 } }
nnote = (note eq '') ? 0 : 1
do for [i = 1:strlen(note)] { if (note[i:i] eq "\n") { nnote = nnote + 1 } }
# the title and the finding's lines, then the panels' two-line titles
TOP = 24.0 * (1 + nnote) + 70.0
PW = (NW * PW < 1100.0 ? 1100.0 / NW : PW)   # room for the title
W = int(LPAD + NW * PW + LEG)
NR = 6   # rows of panels
H = int(TOP + NR * RH + 70 + ncap * 15.0)
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size W, H font 'DejaVu Sans,11' noenhanced
} else {
    set terminal png size W, H noenhanced
}
set encoding utf8
set micro
set output outfile
emulated = strstrt(caption, 'EMULATED') > 0
set label 99 caption at screen 0.01, screen (ncap * 15.0 + 2) / H left front font ',9'
lm(c) = (LPAD + c * PW + 95.0) / W
rm(c) = (LPAD + (c + 1) * PW - 25.0) / W
tm(r) = 1.0 - (TOP + r * RH + 30.0) / H
bm(r) = 1.0 - (TOP + (r + 1) * RH - 30.0) / H
logtics = 'do for [e = -12:12] { set ytics add (2 * 10.0**e, 5 * 10.0**e) }'
set grid lc rgb '#e0e0e0'
set border 3
set tics nomirror
set style textbox opaque border lc rgb '#999999'
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') \
    tc rgb (emulated ? '#b00000' : 'black') font ',13'

# the value rows: row -> the columns of median, min, max and the scale
array vmed[NR]
array vmin[NR]
array vmax[NR]
array vscale[NR]
vmed[1] = pt_median_ops_per_s; vmin[1] = pt_min_ops_per_s; vmax[1] = pt_max_ops_per_s; vscale[1] = 1e-6
vmed[3] = pt_failed_per_1000; vmin[3] = pt_failed_min; vmax[3] = pt_failed_max; vscale[3] = 1
vmed[4] = pt_backoff_ns_per_op; vmin[4] = pt_backoff_ns_min; vmax[4] = pt_backoff_ns_max; vscale[4] = 1
vmed[5] = pt_fairness; vmin[5] = pt_fairness_min; vmax[5] = pt_fairness_max; vscale[5] = 1
vmed[6] = pt_p99_ns; vmin[6] = pt_p99_min_ns; vmax[6] = pt_p99_max_ns; vscale[6] = 1e-3
array ylabels[NR]
ylabels[2] = 'throughput change vs none (%)'
ylabels[3] = 'lost races per 1,000 operations'
ylabels[4] = 'time in backoff per operation (ns)'
ylabels[5] = "fairness: fewest / most\noperations of one thread"
ylabels[6] = 'p99 latency (µs)'
ok(v) = (v == v && v > 0)
desc(w) = (w eq 'prodcons' ? ': producers and consumers apart' : (w eq 'pairs' ? \
    ': every thread enqueues, then dequeues' : (w eq 'mixed' ? \
    ': every thread enqueues or dequeues at random' : '')))

# the x axis: backoffs (one thread count, and always for the change) or threads
# (a macro: set after the panel's stats)
xaxis = "if (categorical || r == 1) { set xrange [-0.55 : NB - 0.25]; set xtics (); " . \
        "do for [b = 0:NB - 1] { set xtics add (bname[b + 1] b) } } else { set xtics (); " . \
        "set xtics autofreq; set xrange [tmin / 1.25 : tmax * 1.25]; " . \
        "if (tmax / tmin >= 4) { set logscale x 2 } }"

do for [r = 0:NR - 1] {
do for [c = 0:NW - 1] {
    reset_panel = 1
    unset logscale
    unset arrow
    unset object 10
    unset label 10
    unset label 11
    do for [k = 20:29] { unset label k }
    unset key
    set lmargin at screen lm(c)
    set rmargin at screen rm(c)
    set tmargin at screen tm(r)
    set bmargin at screen bm(r)
    set ytics autofreq
    set format y '%g'
    if (r == 0) {
        set title wname[c + 1] . desc(wname[c + 1]) . sprintf("\n%s at %g threads", categorical ? 'all' : 'changes', wthreads[c + 1]) font ',11'
    } else {
        unset title
    }
    set ylabel (r == 0 ? (witems[c + 1] == 1 ? 'throughput (million items/s)' : 'throughput (million operations/s)') : (c == 0 ? ylabels[r + 1] : ''))
    set xlabel (r == NR - 1 ? (categorical || r == 1 ? 'backoff after a lost race' : 'threads') : '')
    # stats count only the points inside the ranges set: none set until they ran
    set autoscale xy
    if (r == 1) {
        # ---- the paired change against none ------------------------------------
        nidle = 0
        do for [h = 0:NH - 1] { if (ex[c * NH + h + 1] == 0) { nidle = nidle + 1 } }
        lo = (wband[c + 1] == 1 && nidle < NH ? -35.0 : -10.0)
        hi = 10.0
        undefine STATS_*
        stats datafile index B_CHANGE using (column(ch_panel) == c && column(ch_exercised) != 0 ? column(ch_ci_lo_pct) : NaN) nooutput
        if (exists("STATS_records") && STATS_records > 0) { lo = (STATS_min < lo ? STATS_min : lo) }
        undefine STATS_*
        stats datafile index B_CHANGE using (column(ch_panel) == c && column(ch_exercised) != 0 ? column(ch_ci_hi_pct) : NaN) nooutput
        if (exists("STATS_records") && STATS_records > 0) { hi = (STATS_max > hi ? STATS_max : hi) }
        nidle = 0
        do for [h = 0:NH - 1] { if (ex[c * NH + h + 1] == 0) { nidle = nidle + 1 } }
        span = hi - lo
        set yrange [lo - 0.08 * span : hi + span * (0.12 + 0.2 * nidle)]
        set format y '%+g%%'
        set xzeroaxis lt -1
        # the study's band only behind the changes measured here (never behind a
        # "not exercised" one: that would read as agreement)
        shownband = (wband[c + 1] == 1 && nidle < NH)
        if (shownband) {
            set label 10 "study:\n32 workers, 2 nodes" at first -0.48, first -22.5 left font ',8' tc rgb '#7a5200'
        }
        if (wband[c + 1] == 1 && !shownband) {
            set label 11 "study's -15 to -30%: not drawn, nothing measured here" at graph 0.01, graph 0.03 left font ',9' tc rgb '#7a5200'
        }
        bhalf = (NH == 1 ? 0.4 : 0.14)
        k = 0
        do for [h = 0:NH - 1] {
            if (ex[c * NH + h + 1] == 0) {
                set label (20 + h) sprintf("%snot exercised\n(none lost %.2g races per 1,000 operations)", NH > 1 ? workwords(h) . ': ' : '', nf[c * NH + h + 1]) \
                    at graph 0.5, graph (0.96 - 0.15 * k) center front boxed font ',9'
                k = k + 1
            }
        }
        eval xaxis
        if (c == NW - 1) {
            set key at screen (rm(c) + 0.012), screen tm(0) left top Left reverse samplen 1.5 spacing 1.15 font ',10'
        }
        plot datafile index B_CHANGE using (column(ch_x)):(shownband && column(ch_panel) == c && column(ch_exercised) != 0 && isnum(column(ch_change_pct)) ? -22.5 : NaN):(bhalf):(7.5) \
                 with boxxyerror fs solid 0.45 noborder fc rgb '#ffd27f' notitle, \
             datafile index B_CHANGE using (column(ch_x)):(column(ch_panel) == c && column(ch_hollow) == 0 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN):(column(ch_ci_lo_pct)):(column(ch_ci_hi_pct)):(column(ch_color_rgb)) \
                 with yerrorbars pt 7 ps 1.4 lw 1.5 lc rgb variable notitle, \
             '' index B_CHANGE using (column(ch_x)):(column(ch_panel) == c && column(ch_hollow) > 0 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN):(column(ch_ci_lo_pct)):(column(ch_ci_hi_pct)):(column(ch_color_rgb)) \
                 with yerrorbars pt 6 ps 1.4 lw 2 lc rgb variable notitle, \
             '' index B_CHANGE using (column(ch_x) - 0.07):(column(ch_panel) == c && column(ch_hollow) == 0 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN):(sprintf('%+.1f%%', column(ch_change_pct)) . (column(ch_inconclusive) == 1 ? "\ninconclusive" : '')) \
                 with labels right font ',9' notitle, \
             '' index B_CHANGE using (column(ch_x) + 0.07):(column(ch_panel) == c && column(ch_hollow) > 0 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN):(sprintf('%+.1f%%', column(ch_change_pct)) . (column(ch_inconclusive) == 1 ? "\ninconclusive" : '')) \
                 with labels left font ',9' notitle, \
             '' index B_CHANGE using (column(ch_x)):(column(ch_panel) == c && column(ch_oversubscribed) == 1 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN) \
                 with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
             for [b = 0:(categorical ? -1 : NB - 1)] NaN with linespoints lw 2 pt 7 lc rgb hex(bcolor[b + 1]) title bname[b + 1], \
             NaN with points pt 7 ps 1.4 lc rgb '#4d4d4d' title workwords(0), \
             for [h = 1:NH - 1] NaN with points pt 6 ps 1.4 lw 2 lc rgb '#4d4d4d' title workwords(h), \
             (has_harness ? NaN : 1/0) with lines lw 3 lc rgb '#3a3a3a' title (has_harness ? 'harness alone (null queue)' : ''), \
             (any_over ? NaN : 1/0) with points pt 2 ps 2 lw 2 lc rgb 'black' title (any_over ? 'oversubscribed: threads share CPUs or cores' : ''), \
             NaN with lines dt 3 lw 1.5 lc rgb 'black' title '1 lost race per 1,000 operations', \
             NaN with boxes fs solid 0.45 noborder lc rgb '#ffd27f' title 'study: 32 workers, 2 nodes: -15 to -30%', \
             NaN with points pt 7 ps 1.4 lc rgb '#4d4d4d' title (r_ne ? 'near-empty (the consumer waits)' : ''), \
             NaN with points pt 5 ps 1.4 lc rgb '#4d4d4d' title (r_full ? 'full (the producer waits)' : ''), \
             NaN with lines lw 0 lc rgb '#ffffff' title (shown_n ? 'n beside a dot: its runs' : '')
        unset xzeroaxis
    } else {
        # ---- a value: throughput, lost races, time in backoff, fairness, p99 ----
        i = r + 1
        s = vscale[i]
        V(k) = column(k) * s
        undefine STATS_*
        stats datafile index B_POINTS using (column(pt_panel) == c && ok(column(vmax[i])) ? column(vmax[i]) * s : NaN) nooutput
        has = exists("STATS_records") && STATS_records > 0
        ymax = has ? STATS_max : 1.0
        undefine STATS_*
        stats datafile index B_POINTS using (column(pt_panel) == c && isnum(column(vmed[i])) ? 1 : NaN) nooutput
        recorded = exists("STATS_records") && STATS_records > 0
        undefine STATS_*
        stats datafile index B_POINTS using (column(pt_panel) == c && ok(column(vmin[i])) ? column(vmin[i]) * s : NaN) nooutput
        ymin = (exists("STATS_records") && STATS_records > 0) ? STATS_min : ymax
        if (r == 0 && has_harness) {
            undefine STATS_*
            stats datafile index B_HARNESS using (column(hn_panel) == c ? column(hn_median_ops_per_s) * s : NaN) nooutput
            if (exists("STATS_records") && STATS_records > 0) { ymax = (STATS_max > ymax ? STATS_max : ymax); ymin = (STATS_min < ymin ? STATS_min : ymin) }
        }
        if (r == 2) {
            ymax = (ymax > 1.0 ? ymax : 1.0); ymin = (ymin < 1.0 ? ymin : 1.0)
            set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 3 lw 1.5 lc rgb 'black'
        }
        if (r == 4) {
            # fairness: a share in (0, 1], the same axis in every panel
            set yrange [0 : 1.2]
            set ytics 0.25
            if (has) { set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 3 lw 1.5 lc rgb 'black'; set label 11 'every thread did the same' at graph 0.01, first 1 left offset 0, 0.9 font ',9' tc rgb '#4d4d4d' }
        } else { if (ymin > 0 && ymax / ymin >= (r == 0 ? 5 : 20)) {
            set logscale y
            eval logtics
            set yrange [ymin / 1.35 : ymax * 1.35]
        } else {
            set yrange [0 : (ymax > 0 ? ymax * 1.15 : 1)]
        } }
        if (!has) {
            set label 10 (!recorded ? (r == 3 ? "time in backoff not recorded\n(results from before the counter)" : (r == 4 ? 'fairness not recorded in these results' : (r == 5 ? 'no latency recorded' : 'not recorded'))) : (r == 3 ? '0 at every point: no backoff ran' : '0 at every point')) at graph 0.5, graph 0.5 center font ',10' tc rgb '#595959'
        }
        eval xaxis
        if (categorical) {
            plot datafile index B_POINTS using (column(pt_x)):(column(pt_panel) == c && ok(column(vmed[i])) ? V(vmed[i]) : NaN):(V(vmin[i])):(V(vmax[i])):(column(pt_color_rgb)) \
                     with yerrorbars ps 0 lw 1.5 lc rgb variable notitle, \
                 '' index B_POINTS using (column(pt_x)):(column(pt_panel) == c && hollowpt(pt_pt) && ok(column(vmed[i])) ? V(vmed[i]) : NaN) \
                     with points pt 7 ps 1.4 lc rgb 'white' notitle, \
                 '' index B_POINTS using (column(pt_x)):(column(pt_panel) == c && ok(column(vmed[i])) ? V(vmed[i]) : NaN):(column(pt_pt)):(column(pt_color_rgb)) \
                     with points pt variable ps 1.4 lw 2 lc rgb variable notitle, \
                 '' index B_POINTS using (column(pt_x)):(column(pt_panel) == c && column(pt_shown_n) == 1 && ok(column(vmed[i])) ? V(vmed[i]) : NaN):(sprintf('%d', column(pt_reps))) \
                     with labels left offset 0.7, -0.6 font ',8' tc rgb '#595959' notitle, \
                 '' index B_POINTS using (column(pt_slot_x) - 0.13):(r == 0 && column(pt_panel) == c && column(pt_harness_row) == 1 && ok(column(pt_harness_ops_per_s)) ? V(pt_harness_ops_per_s) : NaN):(0.26):(0) \
                     with vectors nohead lw 3 lc rgb '#3a3a3a' notitle, \
                 '' index B_POINTS using (column(pt_x)):(r == 0 && column(pt_panel) == c && column(pt_harness_bound) == 1 ? V(vmed[i]) : NaN) \
                     with points pt 6 ps 3 lw 1.5 lc rgb '#595959' notitle, \
                 '' index B_POINTS using (column(pt_x)):(column(pt_panel) == c && column(pt_oversubscribed) == 1 && ok(column(vmed[i])) ? V(vmed[i]) : NaN) \
                     with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
                 '' index B_POINTS using (column(pt_x)):(column(pt_panel) == c && !ok(column(vmed[i])) && (r != 3 || column(pt_bidx) > 0) && column(vmed[i]) == column(vmed[i]) ? 0 : NaN):('0') \
                     with labels offset 0, 0.6 font ',9' tc rgb '#595959' notitle
        } else {
            plot for [b = 0:NB - 1] for [h = 0:NH - 1] datafile index B_POINTS \
                     using (column(pt_x)):(column(pt_panel) == c && column(pt_hollow) == h && column(pt_bidx) == b && ok(column(vmed[i])) ? V(vmed[i]) : NaN):(column(pt_color_rgb)) \
                     with lines dt 1+(h > 0) lw 2 lc rgb variable notitle, \
                 datafile index B_POINTS using (column(pt_x)):(column(pt_panel) == c && ok(column(vmed[i])) ? V(vmed[i]) : NaN):(V(vmin[i])):(V(vmax[i])):(column(pt_color_rgb)) \
                     with yerrorbars ps 0 lw 1.2 lc rgb variable notitle, \
                 datafile index B_POINTS using (column(pt_x)):(column(pt_panel) == c && hollowpt(pt_pt) && ok(column(vmed[i])) ? V(vmed[i]) : NaN) \
                     with points pt 7 ps 1.1 lc rgb 'white' notitle, \
                 datafile index B_POINTS using (column(pt_x)):(column(pt_panel) == c && ok(column(vmed[i])) ? V(vmed[i]) : NaN):(column(pt_pt)):(column(pt_color_rgb)) \
                     with points pt variable ps 1.1 lw 2 lc rgb variable notitle, \
                 for [h = 0:NH - 1] datafile index B_HARNESS using (column(hn_threads)):(r == 0 && column(hn_panel) == c && column(hn_hollow) == h ? column(hn_median_ops_per_s) * s : NaN) \
                     with lines dt 4-(h > 0) lw 2.5 lc rgb '#3a3a3a' notitle, \
                 datafile index B_POINTS using (column(pt_x)):(column(pt_panel) == c && column(pt_oversubscribed) == 1 && ok(column(vmed[i])) ? V(vmed[i]) : NaN) \
                     with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle
        }
    }
}
}
unset multiplot
