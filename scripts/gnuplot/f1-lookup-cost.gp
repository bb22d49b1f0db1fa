# f1-lookup-cost.gp - F1: time per item for each node look-up mode, stacked as
# data movement (the time of lookup none) + node look-up (the rest), with
# min-max error bars over the repetitions, and the harness's own floor (the
# null queue's time per item, grey dash-dot) where it was measured.
# The gnuplot twin of scripts/plot.py's f1-lookup-cost figure.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f1-lookup-cost.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f1-lookup-cost.dat'
if (!exists("outfile")) outfile = 'f1-lookup-cost.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F1: cost of finding the node, per operation'
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

# Rows: mode data_movement_ns lookup_ns total_median_ns total_min_ns total_max_ns reps
# color_rgb harness_ns (the same on every row; NaN: not measured) oversubscribed
# (1: the word "oversubscribed" on the bar)
undefine STATS_*
stats datafile using 6 nooutput
ymax = STATS_max
nbars = STATS_records
undefine STATS_*
stats datafile using 9 nooutput
has_harness = exists("STATS_records") && STATS_records > 0
harness_ns = NaN
if (has_harness) { harness_ns = STATS_max; ymax = (harness_ns > ymax ? harness_ns : ymax) }
set yrange [0 : ymax * 1.15]
set xrange [-0.6 : nbars - 0.4]
set title (note ne '' ? note : '') tc rgb 'black'
set label 1 figtitle . (emulated ? '   [EMULATED nodes]' : '') at screen 0.5, screen 0.965 center font ',14' tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set tmargin at screen 0.88
set xlabel 'node look-up mode'
set ylabel 'time per item (ns)'
set style fill solid 0.85 border lc rgb '#404040'
set boxwidth 0.62
set key right top
set grid noxtics
plot datafile using 0:4:8:xtic(1) with boxes lc rgb variable title 'node look-up (colour per mode)', \
     '' using 0:2 with boxes lc rgb '#b8b8b8' title 'data movement (lookup none)', \
     '' using 0:4:5:6 with yerrorbars lc rgb 'black' pt 7 ps 0.5 lw 1.5 title 'min-max over reps', \
     '' using 0:($6 + ymax * 0.02):(sprintf('%.0f ns', $4)) with labels font ',9' notitle, \
     '' using 0:($10 == 1 ? $4 / 4 : NaN):('oversubscribed') with labels rotate by 90 font ',9' notitle, \
     harness_ns with lines dt 4 lw 2 lc rgb '#3a3a3a' \
         title (has_harness ? sprintf('harness alone (null queue): %.1f ns per item', harness_ns) : '')
