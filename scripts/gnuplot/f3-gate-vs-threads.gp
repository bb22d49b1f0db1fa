# f3-gate-vs-threads.gp - F3: p50 and p99 latency vs threads, one line per gate,
# median over repetitions with min-max error bars.
# The gnuplot twin of scripts/plot.py's f3-gate-vs-threads figure.
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
W = 1500; H = 680
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
# p50_max reps color_rgb p99_median p99_min p99_max oversubscribed), latencies
# in ns; a black x where oversubscribed is 1.
undefine STATS_*
stats datafile using 1 nooutput
N = STATS_blocks
sty = (STATS_min == STATS_max) ? 'yerrorbars' : 'yerrorlines'
undefine STATS_*
stats datafile using ($10 == 1 ? 1 : NaN) nooutput
otitle = (exists("STATS_records") && STATS_records > 0) ? 'oversubscribed: threads share CPUs' : ''
set multiplot layout 1, 2 title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set tmargin at screen 0.85
set logscale x 2
set logscale y
eval logtics
set format y '%.0s %cs'
set xlabel 'threads (producers + consumers)'
set lmargin at screen 0.08
set rmargin at screen 0.47
set title 'median (p50)'
set ylabel 'p50 latency'
set key left top
plot for [i = 0:N - 1] datafile index i using 1:($2 * 1e-9):($3 * 1e-9):($4 * 1e-9):6 \
         with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
     for [i = 0:N - 1] datafile index i using 1:($10 == 1 ? $2 * 1e-9 : NaN) \
         with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
     NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle
set lmargin at screen 0.58
set rmargin at screen 0.97
set title 'p99'
set ylabel 'p99 latency'
plot for [i = 0:N - 1] datafile index i using 1:($7 * 1e-9):($8 * 1e-9):($9 * 1e-9):6 \
         with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
     for [i = 0:N - 1] datafile index i using 1:($10 == 1 ? $7 * 1e-9 : NaN) \
         with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle
unset multiplot
