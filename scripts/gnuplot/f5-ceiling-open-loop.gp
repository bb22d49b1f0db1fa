# SPDX-License-Identifier: BSD-2-Clause
# f5-ceiling-open-loop.gp - F5's supplement, the gnuplot twin of
# scripts/figures/plot.py's f5-ceiling-open-loop figure: the open loop's
# throughput (the rate offered: measured = offered by construction) vs the
# realized batch (items moved per cross-node transfer, median over the reps
# of each point), one line per thread count, the configured batch a label
# beside each point (b=N, red with the realized share where under 0.8 of
# it), with the physical ceiling of each point dashed in the same colour; its
# share of the ceiling in a second panel. Where the results record no
# transfers, x is the configured batch (said in the axis label). The closed
# loop's capacity against the ceiling is the main figure's (f5-ceiling.gp).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes
#             (plots/<host>/supplement/data/f5-ceiling-open-loop.dat)
#   trip_ns   optional: the host probe's one-way line trip between nodes (ns), given
#             where every run's items crossed nodes: the two throughput panels get a
#             second y axis, items per line trip (nrdata.items_per_trip)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f5-ceiling-open-loop.dat'
if (!exists("outfile")) outfile = 'f5-ceiling-open-loop.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F5 open loop: throughput vs batch size against the physical ceiling'
W = 1500; H = 700
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

# Blocks: one per thread count (first line its name; columns items_per_transfer
# median min max reps color_rgb ceiling ratio_median ratio_min ratio_max harness
# harness_bound oversubscribed batch realized_over_configured realized; NaN: no
# ceiling, harness not measured; harness_bound 1: ringed; oversubscribed 1: a
# black x; realized 0: column 1 is the configured batch).
undefine STATS_*
stats datafile using 1 nooutput
N = STATS_blocks
BO = N - 1   # the blocks: 0..BO
undefine STATS_*
stats datafile index 0:BO using 7 nooutput
has_ceiling = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index 0:BO using 11 nooutput
has_harness = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index 0:BO using ($13 == 1 ? 1 : NaN) nooutput
otitle = (exists("STATS_records") && STATS_records > 0) ? 'oversubscribed: threads share CPUs' : ''
undefine STATS_*
stats datafile index 0:BO using 3 nooutput
ymin = STATS_min; ymax = STATS_max
if (has_ceiling) { stats datafile index 0:BO using 7 nooutput; ymax = (STATS_max > ymax ? STATS_max : ymax) }
if (has_harness) { stats datafile index 0:BO using 11 nooutput; ymax = (STATS_max > ymax ? STATS_max : ymax) }
htitle = has_harness ? 'harness alone (null queue), dash-dot' : ''
undefine STATS_*
stats datafile index 0:BO using 16 nooutput
realized = exists("STATS_records") && STATS_records > 0 && STATS_max == 1
# the configured batch beside each point: b=N, with the realized share when < 0.8
blabel(b, f) = (f < 0.8) ? sprintf('b=%d (%.2fx)', b, f) : sprintf('b=%d', b)
bcolor(f) = (f < 0.8) ? 0xb00000 : 0x333333
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set tmargin at screen 0.85
set logscale x 2
set xlabel (realized ? 'items per cross-node transfer, realized (b=N: configured batch)' : 'batch size, configured (items per transfer not recorded)')
has_trip = exists("trip_ns")
# the throughput in items per line trip between nodes: Mitems/s x ns x 1e-3
if (has_trip) { k_trip = trip_ns * 1e-3 }
set lmargin at screen 0.05
set rmargin at screen (has_trip ? 0.42 : 0.46)
if (has_trip) { set ytics nomirror; set y2tics; set y2label sprintf("items per line trip between nodes (x the probe's %.1f ns)", trip_ns) font ',9' }
# a run that moved nothing (throughput 0) leaves no log scale
if (ymin > 0 && ymax / ymin > 20) { set logscale y; eval logtics; set yrange [ymin / 1.4e6 : ymax * 1.4e-6] } else { set yrange [0 : ymax * 1.15e-6] }
# the second axis spans the first's range times the trip (no link: log axes)
if (has_trip) { if (ymin > 0 && ymax / ymin > 20) { set logscale y2; set y2range [ymin / 1.4e6 * k_trip : ymax * 1.4e-6 * k_trip] } else { set y2range [0 : ymax * 1.15e-6 * k_trip] } }
set ylabel 'throughput (million items/s)'
set title 'measured (solid), ceiling (dashed), harness alone (dash-dot), same colour'
set key right bottom
if (has_ceiling) {
    plot for [i = 0:BO] datafile index i using 1:($2 / 1e6):($3 / 1e6):($4 / 1e6):6 \
             with yerrorlines lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
         for [i = 0:BO] datafile index i using 1:($7 / 1e6):6 with lines dt 2 lw 1.5 \
             lc rgb variable notitle, \
         for [i = 0:BO] datafile index i using 1:($11 / 1e6):6 with lines dt 4 lw 1.5 \
             lc rgb variable notitle, \
         for [i = 0:BO] datafile index i using 1:($12 == 1 ? $2 / 1e6 : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         for [i = 0:BO] datafile index i using 1:($13 == 1 ? $2 / 1e6 : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         NaN with lines dt 4 lw 1.5 lc rgb '#3a3a3a' title htitle, \
         for [i = 0:BO] datafile index i using 1:($16 == 1 ? $2 / 1e6 : NaN):(blabel($14, $15)):(bcolor($15)) \
             with labels left offset char 0.6, char 0.6 font ',8' tc rgb variable notitle
} else {
    plot for [i = 0:BO] datafile index i using 1:($2 / 1e6):($3 / 1e6):($4 / 1e6):6 \
             with yerrorlines lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
         for [i = 0:BO] datafile index i using 1:($11 / 1e6):6 with lines dt 4 lw 1.5 \
             lc rgb variable notitle, \
         for [i = 0:BO] datafile index i using 1:($12 == 1 ? $2 / 1e6 : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         for [i = 0:BO] datafile index i using 1:($13 == 1 ? $2 / 1e6 : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         NaN with lines dt 4 lw 1.5 lc rgb '#3a3a3a' title htitle, \
         for [i = 0:BO] datafile index i using 1:($16 == 1 ? $2 / 1e6 : NaN):(blabel($14, $15)):(bcolor($15)) \
             with labels left offset char 0.6, char 0.6 font ',8' tc rgb variable notitle
}
# ---- the share of the ceiling reached ------------------------------------------------
unset logscale y
if (has_trip) { unset y2tics; unset y2label; unset logscale y2; set ytics mirror }
set ytics autofreq
set lmargin at screen 0.57
set rmargin at screen 0.97
set ylabel 'measured / ceiling (%)'
set key left top
if (has_ceiling) {
    set title 'share of the ceiling reached'
    set xlabel (realized ? 'items per cross-node transfer, realized (b=N: configured batch)' : 'batch size, configured (items per transfer not recorded)')
    set yrange [0 : *]
    set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead dt 2 lc rgb 'black'
    plot for [i = 0:BO] datafile index i using 1:($8 * 100):($9 * 100):($10 * 100):6 \
             with yerrorlines lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
         for [i = 0:BO] datafile index i using 1:($16 == 1 ? $8 * 100 : NaN):(blabel($14, $15)):(bcolor($15)) \
             with labels left offset char 0.6, char 0.6 font ',8' tc rgb variable notitle
} else {
    unset xtics; unset ytics; unset border
    set label 2 'ceiling not available' at graph 0.5, graph 0.5 center font ',14' tc rgb '#666666'
    set yrange [0 : 1]; set xrange [1 : 2]
    plot NaN notitle
}
unset multiplot
