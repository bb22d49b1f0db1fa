# SPDX-License-Identifier: BSD-2-Clause
# f3-gate-vs-threads.gp - F3: p50 and p99 latency vs threads, one line per gate,
# median over repetitions with min-max error bars, for the thread counts where
# every thread has a CPU; oversubscribed thread counts (threads share CPUs:
# the scheduler, not the queue) only in a separate, labelled third panel.
# The gnuplot twin of scripts/figures/plot.py's f3-gate-vs-threads figure.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f3-gate-vs-threads.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f3-gate-vs-threads.dat'
if (!exists("outfile")) outfile = 'f3-gate-vs-threads.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F3: enqueue-to-dequeue latency by gate and threads'
W = 1700; H = 680
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

# Blocks: one per gate (first line its name; columns threads p50_median p50_min
# p50_max reps color_rgb p99_median p99_min p99_max oversubscribed over_panel),
# latencies in ns; rows with over_panel 1 (oversubscribed thread counts) go to
# the third panel, never the first two.
# Whiskers and points, then lines: a single thread count draws no line (points).
undefine STATS_*
stats datafile using 1 nooutput
N = STATS_blocks
undefine STATS_*
# (rows with a p50: $1 + 0 * $2 is NaN where $2 is)
stats datafile using ($11 == 1 ? NaN : $1 + 0 * $2) nooutput
hasclean = exists("STATS_records") && STATS_records > 0
if (hasclean) { cx0 = STATS_min; cx1 = STATS_max }
undefine STATS_*
stats datafile using ($11 == 1 ? $1 + 0 * $2 : NaN) nooutput
hasover = exists("STATS_records") && STATS_records > 0
if (hasover) { ox0 = STATS_min; ox1 = STATS_max }
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set tmargin at screen 0.85
set logscale x 2
set logscale y
eval logtics
set format y '%.0s %cs'
set xlabel 'threads (producers + consumers)'
set key left top
# the panels' places: two, or three with the oversubscribed one
L1 = hasover ? 0.06 : 0.08; R1 = hasover ? 0.33 : 0.47
L2 = hasover ? 0.39 : 0.58; R2 = hasover ? 0.65 : 0.97
do for [panel = 1:2] {
    col = (panel == 1) ? 2 : 7
    set lmargin at screen (panel == 1 ? L1 : L2)
    set rmargin at screen (panel == 1 ? R1 : R2)
    set title (panel == 1 ? 'median (p50)' : 'p99')
    set ylabel (panel == 1 ? 'p50 latency' : 'p99 latency')
    if (hasclean) {
        unset label 3
        set xrange [cx0 / 1.3 : cx1 * 1.3]
        plot for [i = 0:N - 1] datafile index i using 1:($11 == 1 ? NaN : column(col) * 1e-9):(column(col + 1) * 1e-9):(column(col + 2) * 1e-9):6 \
                 with yerrorbars pt 7 ps 0.9 lc rgb variable notitle, \
             for [i = 0:N - 1] datafile index i using 1:($11 == 1 ? NaN : column(col) * 1e-9):6 \
                 with lines lw 2 lc rgb variable title columnheader(1)
    } else {
        set label 3 "no latency at a thread count\nwhere every thread has a CPU" at graph 0.5, graph 0.5 center tc rgb '#666666'
        set xrange [1 : 2]; set yrange [1e-9 : 1e-6]
        plot NaN notitle
        set autoscale xy
    }
}
unset label 3
if (hasover) {
    set lmargin at screen 0.72
    set rmargin at screen 0.985
    set object 1 rectangle from graph 0, graph 0 to graph 1, graph 1 behind fc rgb '#f6f1e7' fs solid noborder
    set title "oversubscribed: threads share CPUs;\nscheduler, not queue" tc rgb '#7a4b00' font ',12'
    set ylabel 'latency (p50 solid, p99 dashed)'
    set key left top font ',9'
    set autoscale y
    set xrange [ox0 / 1.3 : ox1 * 1.3]
    plot for [i = 0:N - 1] datafile index i using 1:($11 == 1 ? $2 * 1e-9 : NaN):($3 * 1e-9):($4 * 1e-9):6 \
             with yerrorbars pt 7 ps 0.9 lc rgb variable notitle, \
         for [i = 0:N - 1] datafile index i using 1:($11 == 1 ? $2 * 1e-9 : NaN):6 \
             with lines lw 2 lc rgb variable title columnheader(1), \
         for [i = 0:N - 1] datafile index i using 1:($11 == 1 ? $7 * 1e-9 : NaN):($8 * 1e-9):($9 * 1e-9):6 \
             with yerrorbars pt 7 ps 0.9 lc rgb variable notitle, \
         for [i = 0:N - 1] datafile index i using 1:($11 == 1 ? $7 * 1e-9 : NaN):6 \
             with lines lw 2 dt 2 lc rgb variable notitle
    unset object 1
}
unset multiplot
