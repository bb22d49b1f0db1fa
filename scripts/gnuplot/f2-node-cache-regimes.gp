# SPDX-License-Identifier: BSD-2-Clause
# f2-node-cache-regimes.gp - F2 by regime (the supplement): throughput by node
# look-up mode, the median of each
# mode's runs with its interval, the physical ceiling and the harness's own
# ceiling (the null queue through the same code, grey dash-dot).
# Each mode's runs split by (pace, regime) and drawn apart (a closed-loop run
# lands near empty or full, several-fold apart): shape per regime (circle
# near-empty, square full), fill per pace, n beside a dot where a mode's runs
# split; an older table (regime not recorded): filled circles.
# Several thread counts: a line per mode and group against threads (dash per
# pace), the ceiling lines dashed. One thread count (a small host): the modes
# on x as categories, a dot per group, the mode's ceiling a short black bar
# over its slot, the harness a short grey dash-dot bar (no "vs threads" axis
# with one x value).
# The gnuplot twin of scripts/figures/plot.py's f2-node-cache-regimes figure
# (fig_f2.py prep_regimes, fig_lines.py).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/supplement/data/f2-node-cache-regimes.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host and one line of what is drawn
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f2-node-cache-regimes.dat'
if (!exists("outfile")) outfile = 'f2-node-cache-regimes.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F2 by regime: throughput by look-up mode'
# Blocks, each with its '# columns:' line (scripts/tests check every xx_<column>
# = N below against it): 0 the points (pt_; series apart by a blank line),
# 1 the ceiling lines (ce_; several thread counts), 2 the harness alone (hn_).
pt_variant = 1
pt_vidx = 2
pt_threads = 3
pt_x = 4
pt_median_ops_per_s = 5
pt_lo_ops_per_s = 6
pt_hi_ops_per_s = 7
pt_color_rgb = 10
pt_ceiling_ops_per_s = 11
pt_harness_ops_per_s = 12
pt_harness_bound = 13
pt_oversubscribed = 14
pt_categorical = 15
pt_nvariants = 16
pt_pt = 19
pt_dot = 20
pt_dt = 21
pt_shown_n = 22
pt_first_in_slot = 23
pt_slot_harness_ops_per_s = 24
pt_regime_known = 25
pt_n = 8
ce_threads = 1
ce_ceiling_ops_per_s = 2
ce_color_rgb = 3
hn_threads = 1
hn_median_ops_per_s = 2
isnum(v) = (v == v)
has(v) = (exists("STATS_records") && STATS_records > 0)
hex(c) = sprintf('#%06x', int(c))
M6(c) = column(c) / 1e6
W = 1250; H = 720
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size W, H font 'DejaVu Sans,11' noenhanced
} else {
    set terminal png size W, H noenhanced
}
set encoding utf8
set micro
set output outfile
ncap = (caption eq '') ? 0 : 1
do for [i = 1:strlen(caption)] { if (caption[i:i] eq "\n") { ncap = ncap + 1 } }
emulated = strstrt(caption, 'EMULATED') > 0
set label 99 caption at screen 0.01, screen (ncap * 15.0 + 2) / H left front font ',9'
bottom = (ncap * 15.0 + 75) / H
logtics = 'do for [e = -12:12] { set ytics add (2 * 10.0**e, 5 * 10.0**e) }'
set grid lc rgb '#e0e0e0'
set border 3
set tics nomirror

undefine STATS_*
stats datafile index 0 using (column(pt_categorical)) nooutput
cat = int(STATS_max)
stats datafile index 0 using (column(pt_nvariants)) nooutput
NV = int(STATS_max)
array vname[NV]
array vcolor[NV]
do for [i = 1:NV] { vname[i] = ''; vcolor[i] = 0 }
stats datafile index 0 using (!isnum(column(pt_vidx)) ? NaN : \
    (vname[int(column(pt_vidx)) + 1] = strcol(pt_variant), \
     vcolor[int(column(pt_vidx)) + 1] = column(pt_color_rgb), 0)) nooutput
undefine STATS_*
stats datafile index 0 using (column(pt_threads)) nooutput
tmin = STATS_min; tmax = STATS_max
undefine STATS_*
stats datafile index 0 using (column(pt_lo_ops_per_s)) nooutput
ymin = has(0) ? STATS_min : 1; dmax = has(0) ? STATS_max : 1
undefine STATS_*
stats datafile index 0 using (column(pt_hi_ops_per_s)) nooutput
ymax = has(0) ? STATS_max : 1
dmax = ymax
# the ceiling: per point (one thread count) or its lines (several)
undefine STATS_*
stats datafile index 0 using (column(pt_ceiling_ops_per_s)) nooutput
has_ceiling = has(0)
if (has_ceiling) { c = (STATS_max > 30 * dmax ? 30 * dmax : STATS_max); ymax = (c > ymax ? c : ymax) }
undefine STATS_*
stats datafile index 2 using (column(hn_median_ops_per_s)) nooutput
has_harness = has(0)
if (has_harness) { ymax = (STATS_max > ymax ? STATS_max : ymax); ymin = (STATS_min < ymin ? STATS_min : ymin) }
undefine STATS_*
stats datafile index 0 using (column(pt_oversubscribed) == 1 ? 1 : NaN) nooutput
otitle = has(0) ? 'oversubscribed: threads share CPUs' : ''
# the regimes and paces drawn (the key names only those; none: not recorded)
undefine STATS_*
stats datafile index 0 using (column(pt_regime_known) == 1 && (column(pt_pt) == 7 || column(pt_pt) == 6) ? 1 : NaN) nooutput
r_ne = has(0)
undefine STATS_*
stats datafile index 0 using (column(pt_regime_known) == 1 && (column(pt_pt) == 5 || column(pt_pt) == 4) ? 1 : NaN) nooutput
r_full = has(0)
undefine STATS_*
stats datafile index 0 using (column(pt_dt) == 2 ? 1 : NaN) nooutput
s_prod = has(0)
undefine STATS_*
stats datafile index 0 using (column(pt_dt) == 3 ? 1 : NaN) nooutput
s_cons = has(0)
undefine STATS_*
stats datafile index 0 using (column(pt_shown_n)) nooutput
shown_n = int(STATS_max)
# a hollow mark (paced runs): white under its outline
hollow(x) = (isnum(column(pt_pt)) && int(column(pt_pt)) % 2 == 0) ? x : NaN
# a run that moved nothing (throughput 0) leaves no log scale
if (ymin > 0 && ymax / ymin > 20) { set logscale y; eval logtics; set yrange [ymin / 1.4e6 : ymax * 1.4e-6] } else { set yrange [0 : ymax * 1.15e-6] }
set ylabel 'throughput (million items/s)'
set key at screen 0.735, graph 1 left top Left reverse samplen 2
set title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set rmargin at screen 0.72
htitle = has_harness ? 'harness alone (null queue)' : ''
ctitle = has_ceiling ? (cat ? 'ceiling (model), per mode' : 'physical ceiling (model)') : ''
cdt = cat ? 1 : 2
hdt = 4
if (cat) {
    set xrange [-0.6 : NV - 0.4]
    set xtics ()
    do for [i = 0:NV - 1] { set xtics add (vname[i + 1] i) }
    set grid noxtics
    set xlabel sprintf('node look-up mode (%g threads)', tmin)
    # the slot's ceiling and harness bars: every row of the slot carries them
    plot datafile index 0 using (column(pt_x)):(M6(pt_median_ops_per_s)):(M6(pt_lo_ops_per_s)):(M6(pt_hi_ops_per_s)):(column(pt_color_rgb)) \
             with yerrorbars ps 0 lw 1.5 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(hollow(M6(pt_median_ops_per_s))) \
             with points pt 7 ps 1.6 lc rgb 'white' notitle, \
         datafile index 0 using (column(pt_x)):(M6(pt_median_ops_per_s)):(column(pt_pt)):(column(pt_color_rgb)) \
             with points pt variable ps 1.6 lw 2 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(column(pt_dot) == 1 ? M6(pt_median_ops_per_s) : NaN):(column(pt_color_rgb)) \
             with points pt 7 ps 0.45 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(shown_n ? M6(pt_median_ops_per_s) : NaN):(sprintf('%d', column(pt_n))) \
             with labels left offset 0.9, -0.7 font ',8' tc rgb '#595959' notitle, \
         datafile index 0 using (column(pt_vidx) - 0.36):(M6(pt_ceiling_ops_per_s)):(0.72):(0) \
             with vectors nohead lw 3 lc rgb 'black' notitle, \
         datafile index 0 using (column(pt_vidx) - 0.36):(M6(pt_slot_harness_ops_per_s)):(0.72):(0) \
             with vectors nohead dt 4 lw 2.5 lc rgb '#3a3a3a' notitle, \
         datafile index 0 using (column(pt_x)):(column(pt_harness_bound) == 1 ? M6(pt_median_ops_per_s) : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         datafile index 0 using (column(pt_x)):(column(pt_oversubscribed) == 1 ? M6(pt_median_ops_per_s) : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 7 ps 1.5 lc rgb '#4d4d4d' title (r_ne || r_full ? '' : 'median of the runs'), \
         NaN with points pt 7 ps 1.5 lc rgb '#4d4d4d' title (r_ne ? 'near-empty (the consumer waits)' : ''), \
         NaN with points pt 5 ps 1.5 lc rgb '#4d4d4d' title (r_full ? 'full (the producer waits)' : ''), \
         NaN with points pt 6 ps 1.5 lw 2 lc rgb '#4d4d4d' title (s_prod ? 'producer-paced (hollow)' : ''), \
         NaN with points pt 6 ps 1.5 lw 2 lc rgb '#4d4d4d' title (s_cons ? 'consumer-paced (hollow, dot)' : ''), \
         NaN with lines lw 0 lc rgb '#ffffff' title "whisker: the median's interval", \
         NaN with lines lw 3 dt cdt lc rgb 'black' title ctitle, \
         NaN with lines lw 2.5 dt hdt lc rgb '#3a3a3a' title htitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         NaN with lines lw 0 lc rgb '#ffffff' title (shown_n ? 'n beside a dot: its runs' : '')
} else {
    set logscale x 2
    set xrange [tmin / 1.25 : tmax * 1.25]
    set xlabel 'threads (producers + consumers)'
    plot for [d = 1:3] datafile index 0 using (column(pt_x)):(column(pt_dt) == d ? M6(pt_median_ops_per_s) : NaN):(column(pt_color_rgb)) \
             with lines dt d lw 2 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(M6(pt_median_ops_per_s)):(M6(pt_lo_ops_per_s)):(M6(pt_hi_ops_per_s)):(column(pt_color_rgb)) \
             with yerrorbars ps 0 lw 1.2 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(hollow(M6(pt_median_ops_per_s))) \
             with points pt 7 ps 1.1 lc rgb 'white' notitle, \
         datafile index 0 using (column(pt_x)):(M6(pt_median_ops_per_s)):(column(pt_pt)):(column(pt_color_rgb)) \
             with points pt variable ps 1.1 lw 2 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(column(pt_dot) == 1 ? M6(pt_median_ops_per_s) : NaN):(column(pt_color_rgb)) \
             with points pt 7 ps 0.45 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(column(pt_harness_bound) == 1 ? M6(pt_median_ops_per_s) : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         datafile index 0 using (column(pt_x)):(column(pt_oversubscribed) == 1 ? M6(pt_median_ops_per_s) : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         datafile index 1 using (column(ce_threads)):(M6(ce_ceiling_ops_per_s)):(column(ce_color_rgb)) \
             with lines dt 2 lw 2 lc rgb variable notitle, \
         datafile index 2 using (column(hn_threads)):(M6(hn_median_ops_per_s)) \
             with linespoints dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' notitle, \
         for [i = 1:NV] NaN with lines lw 2 lc rgb hex(vcolor[i]) title vname[i], \
         NaN with points pt 7 ps 1.5 lc rgb '#4d4d4d' title (r_ne ? 'near-empty (the consumer waits)' : ''), \
         NaN with points pt 5 ps 1.5 lc rgb '#4d4d4d' title (r_full ? 'full (the producer waits)' : ''), \
         NaN with linespoints dt 2 pt 6 ps 1.5 lw 2 lc rgb '#4d4d4d' title (s_prod ? 'producer-paced (hollow)' : ''), \
         NaN with linespoints dt 3 pt 6 ps 1.5 lw 2 lc rgb '#4d4d4d' title (s_cons ? 'consumer-paced (hollow, dot)' : ''), \
         NaN with lines lw 2 dt 2 lc rgb 'black' title ctitle, \
         NaN with linespoints dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' title htitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle
}
