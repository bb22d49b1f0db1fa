# SPDX-License-Identifier: BSD-2-Clause
# f4-backoff.gp - F4: the throughput change of each backoff against none, per
# workload. The gnuplot twin of scripts/figures/plot.py's f4-backoff figure,
# from the same prepared data: a panel per workload (prodcons, pairs, mixed),
# the backoffs on x (none the baseline at 0), each one's paired median change
# against none with its interval ("inconclusive" where it holds 0), a dot per
# amount of local work (filled: the least, hollow: more), "not exercised"
# where none lost < 1 race per 1,000 operations, the study's -15..-30% in a
# slot of its own beside this host's (prodcons). A black x: oversubscribed.
# The rest of F4 is the supplement's f4-backoff-diagnostics.gp.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f4-backoff.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host, then what is drawn
#   figtitle  optional: the title
if (!exists("datafile")) datafile = 'f4-backoff.dat'
if (!exists("outfile")) outfile = 'f4-backoff.png'
if (!exists("caption")) caption = ''
if (!exists("figtitle")) figtitle = 'F4: throughput change of each backoff against none, per workload'

# The data file's blocks (index) and the columns this script reads, by name:
# <prefix>_<column> = its number in the block's '# columns:' line
# (scripts/tests/test_f4_figure.py checks every one against the data file).
B_CHANGE = 0
B_PANELS = 1
B_SLOTS = 2
B_STUDY = 3
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
# block "panels"
pn_panel = 1
pn_hollow = 2
pn_exercised = 4
pn_none_failed_per_1000 = 5
pn_work_ns = 7
pn_workload = 8
pn_nslots = 9
# block "slots"
sl_panel = 1
sl_sidx = 2
sl_slot = 3
# block "study"
st_panel = 1
st_x = 2
st_lo_pct = 3
st_hi_pct = 4

isnum(v) = (v == v)
undefine STATS_*
stats datafile index B_PANELS using (column(pn_panel)) nooutput
NW = int(STATS_max) + 1
stats datafile index B_PANELS using (column(pn_hollow)) nooutput
NH = int(STATS_max) + 1
array wname[NW]
array nslots[NW]
array ex[NW * NH]
array nf[NW * NH]
array work[NH]
stats datafile index B_PANELS using (!isnum(column(pn_hollow)) ? NaN : \
    (i = int(column(pn_panel)), j = int(column(pn_hollow)), \
    wname[i + 1] = strcol(pn_workload), nslots[i + 1] = column(pn_nslots), \
    ex[i * NH + j + 1] = column(pn_exercised), \
    nf[i * NH + j + 1] = column(pn_none_failed_per_1000), work[j + 1] = column(pn_work_ns), 0)) \
    nooutput
stats datafile index B_SLOTS using (column(sl_sidx)) nooutput
NS = int(STATS_max) + 1
array sname[NW * NS]
stats datafile index B_SLOTS using (!isnum(column(sl_sidx)) ? NaN : \
    (sname[int(column(sl_panel)) * NS + int(column(sl_sidx)) + 1] = strcol(sl_slot), 0)) nooutput
workwords(h) = (h >= NH ? '' : (work[h + 1] == 0 ? 'no local work' : sprintf('%g ns local work', work[h + 1])))
any_over = 0
undefine STATS_*
stats datafile index B_CHANGE using (column(ch_oversubscribed) == 1 && column(ch_exercised) != 0 ? 1 : NaN) nooutput
if (exists("STATS_records") && STATS_records > 0) { any_over = 1 }
undefine STATS_*
stats datafile index B_STUDY using (column(st_lo_pct)) nooutput
has_study = exists("STATS_records") && STATS_records > 0
desc(w) = (w eq 'prodcons' ? ': producers and consumers apart' : (w eq 'pairs' ? \
    ': every thread enqueues, then dequeues' : (w eq 'mixed' ? \
    ': every thread enqueues or dequeues at random' : '')))

# ---- the page: a panel per workload, the legend at right ----------------------
PW = 480.0
PH = 430.0
LPAD = 25.0
LEG = 300.0
TOP = 60.0
ncap = (caption eq '') ? 0 : 1
do for [i = 1:strlen(caption)] { if (caption[i:i] eq "\n") { ncap = ncap + 1 } }
W = int(LPAD + NW * PW + LEG)
H = int(TOP + PH + 70 + ncap * 15.0)
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
set grid lc rgb '#e0e0e0'
set border 3
set tics nomirror
set style textbox opaque border lc rgb '#999999'
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') \
    tc rgb (emulated ? '#b00000' : 'black') font ',13'
set tmargin at screen 1.0 - (TOP + 30.0) / H
set bmargin at screen (70.0 + ncap * 15.0 + 40.0) / H

do for [c = 0:NW - 1] {
    unset label 10
    do for [k = 20:29] { unset label k }
    unset key
    set lmargin at screen lm(c)
    set rmargin at screen rm(c)
    set title wname[c + 1] . desc(wname[c + 1]) font ',11'
    set ylabel (c == 0 ? 'throughput change vs none (%)' : '')
    set xlabel 'backoff after a lost race'
    set autoscale xy
    nidle = 0
    do for [h = 0:NH - 1] { if (ex[c * NH + h + 1] == 0) { nidle = nidle + 1 } }
    lo = -10.0
    hi = 10.0
    undefine STATS_*
    stats datafile index B_CHANGE using (column(ch_panel) == c && column(ch_exercised) != 0 ? column(ch_ci_lo_pct) : NaN) nooutput
    if (exists("STATS_records") && STATS_records > 0) { lo = (STATS_min < lo ? STATS_min : lo) }
    undefine STATS_*
    stats datafile index B_CHANGE using (column(ch_panel) == c && column(ch_exercised) != 0 ? column(ch_ci_hi_pct) : NaN) nooutput
    if (exists("STATS_records") && STATS_records > 0) { hi = (STATS_max > hi ? STATS_max : hi) }
    undefine STATS_*
    stats datafile index B_STUDY using (column(st_panel) == c ? column(st_lo_pct) : NaN) nooutput
    study = exists("STATS_records") && STATS_records > 0
    if (study) { lo = (STATS_min - 9.0 < lo ? STATS_min - 9.0 : lo) }
    span = hi - lo
    set yrange [lo - 0.08 * span : hi + span * (0.12 + 0.22 * nidle)]
    set format y '%+g%%'
    set xzeroaxis lt -1
    k = 0
    do for [h = 0:NH - 1] {
        if (ex[c * NH + h + 1] == 0) {
            set label (20 + h) sprintf("%snot exercised\n(none lost %.2g races per 1,000 operations)", NH > 1 ? workwords(h) . ': ' : '', nf[c * NH + h + 1]) \
                at graph 0.5, graph (0.96 - 0.15 * k) center front boxed font ',9'
            k = k + 1
        }
    }
    set xrange [-0.55 : nslots[c + 1] - 0.25]
    set xtics ()
    do for [s = 0:nslots[c + 1] - 1] { set xtics add (sname[c * NS + s + 1] s) }
    if (c == NW - 1) {
        set key at screen (rm(c) + 0.012), screen 1.0 - (TOP + 30.0) / H left top Left reverse samplen 1.5 spacing 1.15 font ',10'
    }
    plot datafile index B_STUDY using (column(st_x)):(column(st_panel) == c ? (column(st_lo_pct) + column(st_hi_pct)) / 2 : NaN):(0.3):((column(st_hi_pct) - column(st_lo_pct)) / 2) \
             with boxxyerror fs solid 0.8 border lc rgb '#7a5200' fc rgb '#ffd27f' notitle, \
         '' index B_STUDY using (column(st_x)):(column(st_panel) == c ? column(st_lo_pct) - 1.5 : NaN):("32 workers,\n2 nodes") \
             with labels center offset 0, -1.2 font ',8' tc rgb '#7a5200' notitle, \
         '' index B_SLOTS using (column(sl_panel) == c && strcol(sl_slot) eq 'none' ? column(sl_sidx) : NaN):(0):('baseline') \
             with labels center offset 0, 0.7 font ',8' tc rgb '#595959' notitle, \
         '' index B_CHANGE using (column(ch_x)):(column(ch_panel) == c && column(ch_hollow) == 0 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN):(column(ch_ci_lo_pct)):(column(ch_ci_hi_pct)):(column(ch_color_rgb)) \
             with yerrorbars pt 7 ps 1.4 lw 1.5 lc rgb variable notitle, \
         '' index B_CHANGE using (column(ch_x)):(column(ch_panel) == c && column(ch_hollow) > 0 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN):(column(ch_ci_lo_pct)):(column(ch_ci_hi_pct)):(column(ch_color_rgb)) \
             with yerrorbars pt 6 ps 1.4 lw 2 lc rgb variable notitle, \
         '' index B_CHANGE using (column(ch_x) - 0.07):(column(ch_panel) == c && column(ch_hollow) == 0 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN):(sprintf('%+.1f%%', column(ch_change_pct)) . (column(ch_inconclusive) == 1 ? "\ninconclusive" : '')) \
             with labels right font ',9' notitle, \
         '' index B_CHANGE using (column(ch_x) + 0.07):(column(ch_panel) == c && column(ch_hollow) > 0 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN):(sprintf('%+.1f%%', column(ch_change_pct)) . (column(ch_inconclusive) == 1 ? "\ninconclusive" : '')) \
             with labels left font ',9' notitle, \
         '' index B_CHANGE using (column(ch_x)):(column(ch_panel) == c && column(ch_oversubscribed) == 1 && column(ch_exercised) != 0 ? column(ch_change_pct) : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 7 ps 1.4 lc rgb '#4d4d4d' title workwords(0), \
         for [h = 1:NH - 1] NaN with points pt 6 ps 1.4 lw 2 lc rgb '#4d4d4d' title workwords(h), \
         NaN with lines lw 1.5 lc rgb 'black' title "whisker: the change's interval", \
         (any_over ? NaN : 1/0) with points pt 2 ps 2 lw 2 lc rgb 'black' title (any_over ? 'oversubscribed: threads share CPUs or cores' : ''), \
         (has_study ? NaN : 1/0) with boxes fs solid 0.8 border lc rgb '#ffd27f' title (has_study ? 'study, prodcons: -15 to -30%' : '')
    unset xzeroaxis
}
unset multiplot
