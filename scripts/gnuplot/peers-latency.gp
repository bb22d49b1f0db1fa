# peers-latency.gp - p50 and p99 latency per queue at the largest thread count,
# single operations and bursts side by side, with min-max error bars; one row for
# inline items and, where measured, one for message items.
# The gnuplot twin of scripts/plot.py's peers-latency figure.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/peers-latency.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'peers-latency.dat'
if (!exists("outfile")) outfile = 'peers-latency.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'Peers: enqueue-to-dequeue latency by queue'
# Blocks: one per panel (first line the panel name): inline items single
# operations, bursts, then message items single operations, bursts where measured;
# rows: queue bursts threads p50_median p50_min p50_max p99_median p99_min p99_max
# color_rgb message oversubscribed (NaN: the queue records no latency; oversubscribed
# 1: the word over the bars).
undefine STATS_*
stats datafile using 3 nooutput
N = STATS_blocks
M = (N + 1) / 2
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
stats datafile using 9 nooutput
ymax = STATS_max
undefine STATS_*
stats datafile using 5 nooutput
ymin = STATS_min
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') tc rgb (emulated ? '#b00000' : 'black')
set logscale y
eval logtics
set yrange [ymin * 1e-9 / 2.5 : ymax * 1e-9 * 2.5]
set format y '%.0s %cs'
set ylabel 'latency, enqueue to dequeue'
set xtics rotate by -30
set boxwidth 0.38
set grid noxtics
top = 1.0 - 80.0 / H
gap = 105.0 / H
ph = (top - bottom - gap * (M - 1)) / M
do for [k = 0:N - 1] {
    m = k / 2; b = k % 2
    set title (m == 0 ? 'inline items' : 'message items: the payload''s line travels too') . ' - ' . (b == 0 ? 'single operations' : 'bursts')
    set tmargin at screen (top - m * (ph + gap))
    set bmargin at screen (top - m * (ph + gap) - ph)
    if (b == 0) { set lmargin at screen 0.07; set rmargin at screen 0.43; unset key } else { set lmargin at screen 0.50; set rmargin at screen 0.86; if (m == 0) { set key at screen 0.865, screen top left top Left reverse } else { unset key } }
    plot datafile index k using ($0 - 0.19):($4 * 1e-9):10:xtic(1) with boxes fs solid 0.9 border lc rgb '#404040' lc rgb variable title 'p50 (median)', \
         '' index k using ($0 + 0.19):($7 * 1e-9):10 with boxes fs pattern 4 border lc rgb '#404040' lc rgb variable title 'p99', \
         '' index k using ($0 - 0.19):($4 * 1e-9):($5 * 1e-9):($6 * 1e-9) with yerrorbars lc rgb 'black' pt 7 ps 0.5 title 'min-max over reps', \
         '' index k using ($0 + 0.19):($7 * 1e-9):($8 * 1e-9):($9 * 1e-9) with yerrorbars lc rgb 'black' pt 7 ps 0.5 notitle, \
         '' index k using 0:($12 == 1 ? ymax * 1e-9 : NaN):('oversubscribed') with labels rotate by 90 right font ',9' notitle
}
unset multiplot
