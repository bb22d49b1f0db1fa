# SPDX-License-Identifier: BSD-2-Clause
# f5-ceiling.gp - F5, the gnuplot twin of scripts/figures/plot.py's f5-ceiling
# figure: the closed loop's capacity per configured batch (the one throughput
# that can meet a ceiling; median over the reps, whisker its interval), one
# line per thread count (and queue, where the data has several: here in one
# panel, matplotlib draws a panel per queue), against its ceiling (dashed,
# same colour), the ceiling's binding term (ceiling.binding) named where it
# starts and changes, and the crossing term dotted: the interconnect alone,
# where the study (the interconnect set the ceiling) puts the ceiling; then
# the capacity's share of its ceiling. The open loop (measured = offered by
# construction) against the realized batch: f5-ceiling-open-loop.gp.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f5-ceiling.dat)
#   trip_ns   optional: the host probe's one-way line trip between nodes (ns), given
#             where every run's items crossed nodes: the capacity panel gets a
#             second y axis, items per line trip (nrdata.items_per_trip)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f5-ceiling.dat'
if (!exists("outfile")) outfile = 'f5-ceiling.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F5: closed-loop capacity against the ceiling model, by batch size'
W = 1700; H = 720
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
# log axes: label 2 and 5 between the decades too
logtics = 'do for [e = -12:12] { set ytics add (2 * 10.0**e, 5 * 10.0**e) }'
set grid lc rgb '#e0e0e0'
set border 3
set tics nomirror

# One block, the closed loop (plot.py's fig_f5.CLOSED_COLUMNS, by name below): a
# series per queue and thread count, a blank line between; has_closed 0: none ran
cl_threads = 1
cl_batch = 2
cl_median_ops_per_s = 3
cl_lo_ops_per_s = 4
cl_hi_ops_per_s = 5
cl_color_rgb = 7
cl_ceiling_ops_per_s = 8
cl_ratio = 9
cl_binding_label = 11
cl_oversubscribed = 12
cl_has_closed = 13
cl_crossing_ops_per_s = 14
# the binding term where it is named ('-': not named there)
blab(c) = (column(cl_has_closed) == 1 ? strcol(c) : '-')
undefine STATS_*
stats datafile using 1 nooutput
BC = STATS_blocks - 1
undefine STATS_*
stats datafile index BC using (column(cl_has_closed) == 1 ? column(cl_lo_ops_per_s) : NaN) nooutput
closed = exists("STATS_records") && STATS_records > 0
if (closed) { cmin = STATS_min; stats datafile index BC using (column(cl_hi_ops_per_s)) nooutput; cmax = STATS_max; stats datafile index BC using (column(cl_ceiling_ops_per_s)) nooutput; if (exists("STATS_max")) { cmax = (STATS_max > cmax ? STATS_max : cmax) } }
undefine STATS_*
stats datafile index BC using (column(cl_crossing_ops_per_s)) nooutput
has_cross = exists("STATS_records") && STATS_records > 0
if (closed && has_cross) { cmax = (STATS_max > cmax ? STATS_max : cmax) }
undefine STATS_*
stats datafile index BC using (column(cl_ratio)) nooutput
has_cratio = exists("STATS_records") && STATS_records > 0
if (has_cratio) { rlo = STATS_min * 100; rhi = STATS_max * 100 }
undefine STATS_*
stats datafile index BC using (column(cl_oversubscribed) == 1 ? 1 : NaN) nooutput
otitle = (exists("STATS_records") && STATS_records > 0) ? 'oversubscribed: threads share CPUs' : ''
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set tmargin at screen 0.84
set logscale x 2
set xlabel 'batch size, configured (items per transfer)'
has_trip = exists("trip_ns")
# the throughput in items per line trip between nodes: Mitems/s x ns x 1e-3
if (has_trip) { k_trip = trip_ns * 1e-3 }
# ---- the closed loop: the capacity against its ceiling -----------------------------
set lmargin at screen 0.06
set rmargin at screen (has_trip ? 0.45 : 0.49)
if (has_trip) { set ytics nomirror; set y2tics; set y2label sprintf("items per line trip between nodes (x the probe's %.1f ns)", trip_ns) font ',9' }
set ylabel 'throughput (million items/s)'
set title "capacity (solid) against the ceiling (dashed), binding term named;\ndotted: the crossing term, the interconnect alone (the study's ceiling)"
set key left top font ',9'
if (closed) {
    if (cmin > 0 && cmax / cmin > 20) { set logscale y; eval logtics; set yrange [cmin / 1.4e6 : cmax * 1.4e-6] } else { unset logscale y; set yrange [0 : cmax * 1.15e-6] }
    if (has_trip) { if (cmin > 0 && cmax / cmin > 20) { set logscale y2; set y2range [cmin / 1.4e6 * k_trip : cmax * 1.4e-6 * k_trip] } else { unset logscale y2; set y2range [0 : cmax * 1.15e-6 * k_trip] } }
    plot datafile index BC using (column(cl_batch)):(column(cl_median_ops_per_s) / 1e6):(column(cl_lo_ops_per_s) / 1e6):(column(cl_hi_ops_per_s) / 1e6):(column(cl_color_rgb)) \
             with yerrorlines lw 2 pt 7 ps 0.9 lc rgb variable notitle, \
         datafile index BC using (column(cl_batch)):(column(cl_ceiling_ops_per_s) / 1e6):(column(cl_color_rgb)) \
             with lines dt 2 lw 1.5 lc rgb variable notitle, \
         datafile index BC using (column(cl_batch)):(column(cl_crossing_ops_per_s) / 1e6):(column(cl_color_rgb)) \
             with lines dt 3 lw 2 lc rgb variable notitle, \
         datafile index BC using (column(cl_batch)):(blab(cl_binding_label) eq '-' ? NaN : column(cl_ceiling_ops_per_s) / 1e6):(blab(cl_binding_label)):(column(cl_color_rgb)) \
             with labels center offset char 0, char 0.8 font ',9' tc rgb variable notitle, \
         datafile index BC using (column(cl_batch)):(column(cl_oversubscribed) == 1 ? column(cl_median_ops_per_s) / 1e6 : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with lines dt 2 lw 1.5 lc rgb '#3a3a3a' title 'ceiling (model), same colour', \
         NaN with lines dt 3 lw 2 lc rgb '#3a3a3a' title (has_cross ? 'crossing term (study: the interconnect set the ceiling)' : ''), \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle
} else {
    unset logscale y
    set label 3 "closed loop (the capacity):\nnot in these results\n(f5-ceiling.exp: load = closed;\nthe open loop: supplement)" at graph 0.5, graph 0.5 center font ',12' tc rgb '#666666'
    set yrange [0 : 1]
    plot NaN notitle
    unset label 3
}
# ---- the share of the ceiling reached --------------------------------------------
unset logscale y
if (has_trip) { unset y2tics; unset y2label; unset logscale y2; set ytics mirror }
set ytics autofreq
set lmargin at screen 0.60
set rmargin at screen 0.97
set ylabel 'capacity / ceiling (%)'
unset key
if (closed && has_cratio) {
    set title sprintf("share of the ceiling reached\nmeasured / ceiling: %.0f%%-%.0f%%", rlo, rhi)
    set yrange [0 : (rhi * 1.1 > 105 ? rhi * 1.1 : 105)]
    set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead dt 2 lc rgb 'black'
    plot datafile index BC using (column(cl_batch)):(column(cl_ratio) * 100):(column(cl_color_rgb)) \
             with linespoints lw 2 pt 7 ps 0.9 lc rgb variable notitle
} else {
    unset xtics; unset ytics; unset border
    set title 'share of the ceiling reached'
    set label 2 'ceiling not available' at graph 0.5, graph 0.5 center font ',14' tc rgb '#666666'
    set yrange [0 : 1]; set xrange [1 : 2]
    plot NaN notitle
}
unset multiplot
