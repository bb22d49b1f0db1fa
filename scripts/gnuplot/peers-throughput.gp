# peers-throughput.gp - throughput vs threads for NumaRing and its peer queues,
# single operations and bursts side by side; one row for inline items and, where
# measured, one for message items (the payload's cache line travels too); with
# the physical ceiling and the harness's own (the null queue, grey dash-dot).
# The gnuplot twin of scripts/plot.py's peers-throughput figure.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/peers-throughput.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'peers-throughput.dat'
if (!exists("outfile")) outfile = 'peers-throughput.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'Peers: throughput by queue and threads'
# Blocks: 0..N-3 one per queue (first line its name; columns threads median min
# max reps color_rgb ceiling bursts message harness_bound oversubscribed; ringed
# where harness_bound is 1, a black x where oversubscribed is 1), one
# sub-block per panel: bursts 0
# single operations, 1 bursts; message 0 inline items, 1 message items.
# N-2 the physical ceiling (threads ceiling color bursts message), N-1 the harness
# alone, the null queue (threads median min max reps bursts message; NaN: not measured).
undefine STATS_*
stats datafile using 1 nooutput
N = STATS_blocks
undefine STATS_*
stats datafile index 0:(N - 3) using 9 nooutput
M = int(STATS_max) + 1
undefine STATS_*
stats datafile index 0:(N - 3) using 1 nooutput
# one thread count: points with error bars, not lines
sty = (STATS_min == STATS_max) ? 'yerrorbars' : 'yerrorlines'
undefine STATS_*
stats datafile index 0:(N - 3) using ($11 == 1 ? 1 : NaN) nooutput
otitle = (exists("STATS_records") && STATS_records > 0) ? 'oversubscribed: threads share CPUs' : ''
W = 1500; H = (M > 1 ? 1180 : 680)
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

undefine STATS_*
stats datafile index (N - 2) using 2 nooutput
has_ceiling = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index (N - 1) using 2 nooutput
has_harness = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index 0:(N - 3) using 3 nooutput
ymin = STATS_min; ymax = STATS_max
if (has_ceiling) { stats datafile index (N - 2) using 2 nooutput; ymax = (STATS_max > ymax * 30 ? ymax * 30 : (STATS_max > ymax ? STATS_max : ymax)) }
if (has_harness) { stats datafile index (N - 1) using 2 nooutput; ymax = (STATS_max > ymax ? STATS_max : ymax); ymin = (STATS_min < ymin ? STATS_min : ymin) }
htitle = has_harness ? 'harness alone (null queue)' : ''
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') tc rgb (emulated ? '#b00000' : 'black')
# a run that moved nothing (throughput 0) leaves no log scale
if (ymin > 0 && ymax / ymin > 20) { set logscale y; eval logtics; set yrange [ymin / 1.4e6 : ymax * 1.4e-6] } else { set yrange [0 : ymax * 1.15e-6] }
set logscale x 2
set xlabel 'threads (producers + consumers)'
set ylabel 'throughput (million items/s)'
top = 1.0 - 80.0 / H
gap = 95.0 / H
ph = (top - bottom - gap * (M - 1)) / M
do for [m = 0:M - 1] {
do for [b = 0:1] {
    set title (m == 0 ? 'inline items' : 'message items: the payload''s line travels too') . ' - ' . (b == 0 ? 'single operations' : 'bursts (burst = batch items)')
    set tmargin at screen (top - m * (ph + gap))
    set bmargin at screen (top - m * (ph + gap) - ph)
    if (b == 0) { set lmargin at screen 0.06; set rmargin at screen 0.40; unset key } else { set lmargin at screen 0.46; set rmargin at screen 0.80; if (m == 0) { set key at screen 0.81, screen top left top Left reverse } else { unset key } }
    if (has_ceiling) {
        plot for [i = 0:N - 3] datafile index i using 1:($8 == b && $9 == m ? $2 / 1e6 : NaN):($3 / 1e6):($4 / 1e6):6 \
                 with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
             for [i = 0:N - 3] datafile index i using 1:($8 == b && $9 == m && $10 == 1 ? $2 / 1e6 : NaN) \
                 with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
             for [i = 0:N - 3] datafile index i using 1:($8 == b && $9 == m && $11 == 1 ? $2 / 1e6 : NaN) \
                 with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
             NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
             datafile index (N - 2) using 1:($4 == b && $5 == m ? $2 / 1e6 : NaN):3 with lines dt 2 lw 2 \
                 lc rgb variable title 'physical ceiling (model)', \
             datafile index (N - 1) using 1:($6 == b && $7 == m ? $2 / 1e6 : NaN) with linespoints \
                 dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' title htitle
    } else {
        plot for [i = 0:N - 3] datafile index i using 1:($8 == b && $9 == m ? $2 / 1e6 : NaN):($3 / 1e6):($4 / 1e6):6 \
                 with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
             for [i = 0:N - 3] datafile index i using 1:($8 == b && $9 == m && $10 == 1 ? $2 / 1e6 : NaN) \
                 with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
             for [i = 0:N - 3] datafile index i using 1:($8 == b && $9 == m && $11 == 1 ? $2 / 1e6 : NaN) \
                 with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
             NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
             datafile index (N - 1) using 1:($6 == b && $7 == m ? $2 / 1e6 : NaN) with linespoints \
                 dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' title htitle
    }
}
}
unset multiplot
