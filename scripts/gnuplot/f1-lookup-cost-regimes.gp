# SPDX-License-Identifier: BSD-2-Clause
# f1-lookup-cost-regimes.gp - F1 by regime (the supplement): time per item for
# each node look-up mode and (pace, regime) group of its runs, stacked as
# data movement (the time of lookup none) + node look-up (the rest), with
# min-max error bars over the repetitions, and the harness's own floor (the
# null queue's time per item, grey dash-dot) where it was measured.
# The gnuplot twin of scripts/figures/plot.py's f1-lookup-cost-regimes figure
# (fig_f1.py prep_regimes, draw_regimes, dat_regimes).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/supplement/data/f1-lookup-cost-regimes.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f1-lookup-cost-regimes.dat'
if (!exists("outfile")) outfile = 'f1-lookup-cost-regimes.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F1 by regime: node look-up cost vs data movement'
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

# Rows (one per look-up mode and (pace, regime) group: a bar each, side by
# side in the mode's slot): 1 mode, 2 data_movement_ns, 3 lookup_ns,
# 4 total_median_ns, 5 total_min_ns, 6 total_max_ns, 7 reps, 8 color_rgb,
# 9 harness_ns (the same on every row; NaN: not measured), 10 oversubscribed
# (1: the word "oversubscribed" on the bar), 11 group, 12 x, 13 width, 14 slot,
# 15 pt (the mark on top: shape per regime, filled: free), 16 dot (inside the
# mark: consumer-paced), 17 split_data (1: stacked as data movement + look-up;
# 0: none did not run in that group, hatched), 18 shown_n (1: n over the bars
# of a mode whose runs split), 19 regime_known (0: an older table, no mark),
# 20 nslots, 21 label_at_ns (the height of the value label: the slot's
# highest whisker, stepped up per bar of the slot)
undefine STATS_*
stats datafile using 6 nooutput
ymax = STATS_max
undefine STATS_*
stats datafile using 20 nooutput
nslots = int(STATS_max)
undefine STATS_*
stats datafile using 19 nooutput
known = int(STATS_max)
undefine STATS_*
stats datafile using ($17 == 1 ? 1 : NaN) nooutput
has_split = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile using ($17 == 0 ? 1 : NaN) nooutput
has_unsplit = exists("STATS_records") && STATS_records > 0
hatched = has_split && has_unsplit && known
undefine STATS_*
stats datafile using ($18 == 1 ? 1 : NaN) nooutput
shown_n = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile using ((known && ($15 == 7 || $15 == 6)) ? 1 : NaN) nooutput
r_ne = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile using ((known && ($15 == 5 || $15 == 4)) ? 1 : NaN) nooutput
r_full = exists("STATS_records") && STATS_records > 0
# the modes' names by slot (the x axis)
array mname[nslots]
do for [i = 1:nslots] { mname[i] = '' }
stats datafile using (mname[int($14) + 1] = strcol(1), 0) nooutput
undefine STATS_*
stats datafile using 9 nooutput
has_harness = exists("STATS_records") && STATS_records > 0
harness_ns = NaN
if (has_harness) { harness_ns = STATS_max; ymax = (harness_ns > ymax ? harness_ns : ymax) }
# room over the highest value label (two lines where a mode's runs split)
undefine STATS_*
stats datafile using ($21 + ymax * ($18 == 1 ? 0.14 : 0.1)) nooutput
ytop = (STATS_max > ymax * 1.15 ? STATS_max : ymax * 1.15)
set yrange [0 : ytop]
set xrange [-0.6 : nslots - 0.4]
set xtics ()
do for [i = 0:nslots - 1] { set xtics add (mname[i + 1] i) }
set title (note ne '' ? note : '') tc rgb 'black'
set label 1 figtitle . (emulated ? '   [EMULATED nodes]' : '') at screen 0.5, screen 0.965 center font ',14' tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set tmargin at screen 0.88
set xlabel 'node look-up mode'
set ylabel 'time per item (ns)'
set style fill solid 0.85 border lc rgb '#404040'
set key right top
set grid noxtics
nstext(t) = (t >= 10 ? sprintf('%.0f ns', t) : sprintf('%.1f ns', t))
plot datafile using 12:4:13:8 with boxes lc rgb variable title (has_split ? 'node look-up (colour per mode)' : 'ns per item'), \
     '' using 12:($17 == 1 ? $2 : NaN):13 with boxes lc rgb '#b8b8b8' title (has_split ? 'data movement (lookup none)' : ''), \
     '' using 12:(hatched && $17 == 0 ? $4 : NaN):13 with boxes fs transparent pattern 4 lc rgb '#303030' \
         title (hatched ? 'not split: no none run in its regime' : ''), \
     '' using 12:4:5:6 with yerrorbars lc rgb 'black' pt 7 ps 0 lw 1.5 title 'min-max over reps', \
     '' using 12:(known ? $4 : NaN):15 with points pt variable ps 1.3 lc rgb '#1a1a1a' notitle, \
     '' using 12:(known && $16 == 1 ? $4 : NaN) with points pt 7 ps 0.4 lc rgb 'white' notitle, \
     '' using 12:($21 + ymax * ($18 == 1 ? 0.075 : 0.03)):(nstext($4) . ($18 == 1 ? sprintf("\nn = %d", $7) : '')) with labels font ',9' notitle, \
     '' using 12:($10 == 1 ? $4 / 4 : NaN):('oversubscribed') with labels rotate by 90 font ',9' notitle, \
     harness_ns with lines dt 4 lw 2 lc rgb '#3a3a3a' \
         title (has_harness ? sprintf('harness alone (null queue): %.1f ns per item', harness_ns) : ''), \
     NaN with points pt 7 ps 1.3 lc rgb '#1a1a1a' title (r_ne ? 'near-empty (the consumer waits)' : ''), \
     NaN with points pt 5 ps 1.3 lc rgb '#1a1a1a' title (r_full ? 'full (the producer waits)' : ''), \
     NaN with lines lw 0 lc rgb '#ffffff' title (shown_n ? "n = its runs, where a mode's runs split" : '')
