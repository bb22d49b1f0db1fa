# f2-node-cache.gp - F2: throughput vs threads, one line per node look-up mode,
# median over repetitions with min-max error bars, the physical ceiling and the
# harness's own ceiling (the null queue, grey dash-dot).
# The gnuplot twin of scripts/plot.py's f2-node-cache figure.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f2-node-cache.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f2-node-cache.dat'
if (!exists("outfile")) outfile = 'f2-node-cache.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F2: remembering the node - throughput by look-up mode'
W = 1100; H = 720
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

# Blocks: 0..N-3 one per variant (first line its name; columns threads median
# min max reps color_rgb ceiling harness_bound oversubscribed; ringed where
# harness_bound is 1, a black x where oversubscribed is 1), N-2 the physical
# ceiling (threads ceiling color), N-1 the harness alone, the null queue (threads
# median min max reps; NaN: not measured).
undefine STATS_*
stats datafile using 1 nooutput
N = STATS_blocks
undefine STATS_*
stats datafile index (N - 2) using 2 nooutput
has_ceiling = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index (N - 1) using 2 nooutput
has_harness = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index 0:(N - 3) using 1 nooutput
# one thread count: points with error bars, not lines
sty = (STATS_min == STATS_max) ? 'yerrorbars' : 'yerrorlines'
undefine STATS_*
stats datafile index 0:(N - 3) using ($9 == 1 ? 1 : NaN) nooutput
otitle = (exists("STATS_records") && STATS_records > 0) ? 'oversubscribed: threads share CPUs' : ''
undefine STATS_*
stats datafile index 0:(N - 3) using 3 nooutput
ymin = STATS_min; ymax = STATS_max
if (has_ceiling) { stats datafile index (N - 2) using 2 nooutput; ymax = (STATS_max > ymax * 30 ? ymax * 30 : (STATS_max > ymax ? STATS_max : ymax)) }
if (has_harness) { stats datafile index (N - 1) using 2 nooutput; ymax = (STATS_max > ymax ? STATS_max : ymax); ymin = (STATS_min < ymin ? STATS_min : ymin) }
# a run that moved nothing (throughput 0) leaves no log scale
if (ymin > 0 && ymax / ymin > 20) { set logscale y; eval logtics; set yrange [ymin / 1.4e6 : ymax * 1.4e-6] } else { set yrange [0 : ymax * 1.15e-6] }
set logscale x 2
set xlabel 'threads (producers + consumers)'
set ylabel 'throughput (million items/s)'
set key outside right top
set title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set rmargin at screen 0.80
# the harness block always plots (all NaN where not measured: no line, no key entry)
htitle = has_harness ? 'harness alone (null queue)' : ''
if (has_ceiling) {
    plot for [i = 0:N - 3] datafile index i using 1:($2 / 1e6):($3 / 1e6):($4 / 1e6):6 \
             with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
         for [i = 0:N - 3] datafile index i using 1:($8 == 1 ? $2 / 1e6 : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         for [i = 0:N - 3] datafile index i using 1:($9 == 1 ? $2 / 1e6 : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         datafile index (N - 2) using 1:($2 / 1e6):3 with lines dt 2 lw 2 lc rgb variable \
             title 'physical ceiling (model)', \
         datafile index (N - 1) using 1:($2 / 1e6) with linespoints dt 4 lw 2.5 pt 3 ps 1.5 \
             lc rgb '#3a3a3a' title htitle
} else {
    plot for [i = 0:N - 3] datafile index i using 1:($2 / 1e6):($3 / 1e6):($4 / 1e6):6 \
             with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
         for [i = 0:N - 3] datafile index i using 1:($8 == 1 ? $2 / 1e6 : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         for [i = 0:N - 3] datafile index i using 1:($9 == 1 ? $2 / 1e6 : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         datafile index (N - 1) using 1:($2 / 1e6) with linespoints dt 4 lw 2.5 pt 3 ps 1.5 \
             lc rgb '#3a3a3a' title htitle
}
