# f3-gate-percentiles.gp - F3: latency percentile distribution per gate at the
# largest thread count, HdrHistogram style (x = 1/(1-p) on a log axis labelled
# as percentiles), one line per gate with the min-max band over repetitions.
# The gnuplot twin of scripts/plot.py's f3-gate-percentiles figure.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f3-gate-percentiles.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f3-gate-percentiles.dat'
if (!exists("outfile")) outfile = 'f3-gate-percentiles.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F3: latency percentiles by gate'
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

# Blocks: one per gate and offered load (first line its name; columns 1/(1-p)
# value_ns band_lo_ns band_hi_ns color_rgb dash): every line the median over the
# reps at each percentile, the band min-max over the reps; dash 1 solid (the
# highest load), 2 dashed, 3 dotted.
undefine STATS_*
stats datafile using 1 nooutput
N = STATS_blocks
xmax = STATS_max
set logscale xy
eval logtics
set xrange [1 : (xmax * 1.3 > 10 ? xmax * 1.3 : 10)]
set xtics ('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 1e4, '99.999%%' 1e5, '99.9999%%' 1e6, '99.99999%%' 1e7)
set format y '%.0s %cs'
set xlabel 'percentile'
set ylabel 'latency, enqueue to dequeue'
set key left top
set title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set style fill transparent solid 0.18 noborder
# filledcurves takes no variable colour: read each gate's colour first
# (and each block's dash: dt takes no variable either)
array C[N]
array D[N]
do for [i = 0:N - 1] { stats datafile index i using 5 nooutput; C[i + 1] = int(STATS_max) }
do for [i = 0:N - 1] { D[i + 1] = 1; stats datafile index i using 6 nooutput; if (exists("STATS_max")) { D[i + 1] = int(STATS_max) } }
plot for [i = 0:N - 1] datafile index i using 1:($3 * 1e-9):($4 * 1e-9) \
         with filledcurves lc rgb (C[i + 1]) notitle, \
     for [i = 0:N - 1] datafile index i using 1:($2 * 1e-9):5 with lines lw 2.5 \
         dt D[i + 1] lc rgb variable title columnheader(1)
