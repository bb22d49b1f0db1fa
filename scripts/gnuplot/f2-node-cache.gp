# SPDX-License-Identifier: BSD-2-Clause
# f2-node-cache.gp - F2: throughput by node look-up mode, the runs of the one
# (pace, regime) group the design fixes (the levels block names it): the median
# of each mode's runs with its interval, the physical ceiling (model) and the
# harness alone (the null queue through the same code, grey dash-dot) drawn
# once, and beside cached the study's value (a yellow band: 6-7x this host's
# libnuma median). One thread count (a small host): the modes on x as
# categories, a dot each, the ceiling and the harness one line across the
# panel (a mode whose ceiling is its own: a short bar in its colour over its
# slot). Several thread counts: a line per mode against threads, the ceiling
# lines dashed. Every group apart: f2-node-cache-regimes.gp (the supplement).
# The gnuplot twin of scripts/figures/plot.py's f2-node-cache figure (fig_f2.py).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f2-node-cache.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host and one line of what is drawn
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f2-node-cache.dat'
if (!exists("outfile")) outfile = 'f2-node-cache.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F2: throughput by node look-up mode'
# Blocks, each with its '# columns:' line (scripts/tests check every xx_<column>
# = N below against it): 0 the points (pt_; series apart by a blank line),
# 1 the ceiling lines (ce_; several thread counts), 2 the harness alone (hn_),
# 3 the levels drawn once (lv_; one thread count), 4 the ceilings of their own
# (ow_), 5 the study's band (st_).
pt_variant = 1
pt_vidx = 2
pt_threads = 3
pt_x = 4
pt_median_ops_per_s = 5
pt_lo_ops_per_s = 6
pt_hi_ops_per_s = 7
pt_color_rgb = 10
pt_harness_bound = 13
pt_oversubscribed = 14
pt_categorical = 15
pt_nvariants = 16
ce_threads = 1
ce_ceiling_ops_per_s = 2
ce_color_rgb = 3
hn_threads = 1
hn_median_ops_per_s = 2
lv_ceiling_ops_per_s = 1
lv_harness_ops_per_s = 2
ow_slot = 2
ow_ceiling_ops_per_s = 3
ow_color_rgb = 4
st_x = 1
st_lo_ops_per_s = 4
st_hi_ops_per_s = 5
st_lo_times = 6
st_hi_times = 7
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
ymin = has(0) ? STATS_min : 1
undefine STATS_*
stats datafile index 0 using (column(pt_hi_ops_per_s)) nooutput
ymax = has(0) ? STATS_max : 1
dmax = ymax
# the ceiling: once across (one thread count) or its lines (several)
undefine STATS_*
stats datafile index (cat ? 3 : 1) using (cat ? column(lv_ceiling_ops_per_s) : column(ce_ceiling_ops_per_s)) nooutput
has_ceiling = has(0)
if (has_ceiling) { c = (STATS_max > 30 * dmax ? 30 * dmax : STATS_max); ymax = (c > ymax ? c : ymax) }
ceiling = NaN
if (cat && has_ceiling) { ceiling = STATS_max }
undefine STATS_*
stats datafile index 4 using (column(ow_ceiling_ops_per_s)) nooutput
has_own = has(0)
undefine STATS_*
stats datafile index 2 using (column(hn_median_ops_per_s)) nooutput
has_harness = has(0)
if (has_harness) { ymax = (STATS_max > ymax ? STATS_max : ymax); ymin = (STATS_min < ymin ? STATS_min : ymin) }
harness = NaN
if (cat && has_harness) { harness = STATS_max }
undefine STATS_*
stats datafile index 5 using (column(st_hi_ops_per_s)) nooutput
has_study = has(0)
if (has_study) { ymax = (STATS_max > ymax ? STATS_max : ymax) }
undefine STATS_*
stats datafile index 5 using (column(st_lo_ops_per_s)) nooutput
if (has_study) { ymin = (STATS_min < ymin ? STATS_min : ymin) }
slo = 6; shi = 7
undefine STATS_*
stats datafile index 5 using (column(st_lo_times)) nooutput
if (has(0)) { slo = STATS_max }
undefine STATS_*
stats datafile index 5 using (column(st_hi_times)) nooutput
if (has(0)) { shi = STATS_max }
stitle = has_study ? sprintf('study: cached %g-%gx libnuma', slo, shi) : ''
undefine STATS_*
stats datafile index 0 using (column(pt_oversubscribed) == 1 ? 1 : NaN) nooutput
otitle = has(0) ? 'oversubscribed: threads share CPUs' : ''
undefine STATS_*
stats datafile index 0 using (column(pt_harness_bound) == 1 ? 1 : NaN) nooutput
btitle = has(0) ? 'ringed: within 20% of the harness alone' : ''
# a run that moved nothing (throughput 0) leaves no log scale
if (ymin > 0 && ymax / ymin > 20) { set logscale y; eval logtics; set yrange [ymin / 1.4e6 : ymax * 1.4e-6] } else { set yrange [0 : ymax * 1.15e-6] }
set ylabel 'throughput (million items/s)'
set key at screen 0.735, graph 1 left top Left reverse samplen 2
set title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set rmargin at screen 0.72
htitle = has_harness ? 'harness alone (null queue)' : ''
ctitle = has_ceiling ? 'physical ceiling (model)' : ''
if (cat) {
    set xrange [-0.6 : NV - 0.4]
    set xtics ()
    do for [i = 0:NV - 1] { set xtics add (vname[i + 1] i) }
    set grid noxtics
    set xlabel sprintf('node look-up mode (%g threads)', tmin)
    plot datafile index 5 using (column(st_x)):((column(st_lo_ops_per_s) + column(st_hi_ops_per_s)) / 2e6):(0.16):((column(st_hi_ops_per_s) - column(st_lo_ops_per_s)) / 2e6) \
             with boxxyerror fs solid 0.8 noborder lc rgb '#ffd27f' title stitle, \
         datafile index 0 using (column(pt_x)):(M6(pt_median_ops_per_s)):(M6(pt_lo_ops_per_s)):(M6(pt_hi_ops_per_s)):(column(pt_color_rgb)) \
             with yerrorbars pt 7 ps 1.6 lw 1.5 lc rgb variable notitle, \
         datafile index 4 using (column(ow_slot) - 0.36):(M6(ow_ceiling_ops_per_s)):(0.72):(0):(column(ow_color_rgb)) \
             with vectors nohead lw 3 lc rgb variable title (has_own ? 'a ceiling (model) of its own' : ''), \
         ceiling / 1e6 with lines lw 2 lc rgb 'black' title ctitle, \
         harness / 1e6 with lines dt 4 lw 2.5 lc rgb '#3a3a3a' title htitle, \
         datafile index 0 using (column(pt_x)):(column(pt_harness_bound) == 1 ? M6(pt_median_ops_per_s) : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' title btitle, \
         datafile index 0 using (column(pt_x)):(column(pt_oversubscribed) == 1 ? M6(pt_median_ops_per_s) : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         NaN with points pt 7 ps 1.5 lc rgb '#4d4d4d' title 'median of the runs (colour per mode)', \
         NaN with lines lw 0 lc rgb '#ffffff' title "whisker: the median's interval"
} else {
    set logscale x 2
    set xrange [tmin / 1.25 : tmax * 1.25]
    set xlabel 'threads (producers + consumers)'
    plot datafile index 5 using (column(st_x)):((column(st_lo_ops_per_s) + column(st_hi_ops_per_s)) / 2e6):(column(st_x) * 0.06):((column(st_hi_ops_per_s) - column(st_lo_ops_per_s)) / 2e6) \
             with boxxyerror fs solid 0.8 noborder lc rgb '#ffd27f' title stitle, \
         datafile index 0 using (column(pt_x)):(M6(pt_median_ops_per_s)):(column(pt_color_rgb)) \
             with lines lw 2 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(M6(pt_median_ops_per_s)):(M6(pt_lo_ops_per_s)):(M6(pt_hi_ops_per_s)):(column(pt_color_rgb)) \
             with yerrorbars pt 7 ps 1.1 lw 1.2 lc rgb variable notitle, \
         datafile index 0 using (column(pt_x)):(column(pt_harness_bound) == 1 ? M6(pt_median_ops_per_s) : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' title btitle, \
         datafile index 0 using (column(pt_x)):(column(pt_oversubscribed) == 1 ? M6(pt_median_ops_per_s) : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         datafile index 1 using (column(ce_threads)):(M6(ce_ceiling_ops_per_s)):(column(ce_color_rgb)) \
             with lines dt 2 lw 2 lc rgb variable notitle, \
         datafile index 2 using (column(hn_threads)):(M6(hn_median_ops_per_s)) \
             with linespoints dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' notitle, \
         for [i = 1:NV] NaN with lines lw 2 lc rgb hex(vcolor[i]) title vname[i], \
         NaN with lines lw 2 dt 2 lc rgb 'black' title ctitle, \
         NaN with linespoints dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' title htitle
}
