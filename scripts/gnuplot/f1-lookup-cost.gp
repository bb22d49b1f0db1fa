# SPDX-License-Identifier: BSD-2-Clause
# f1-lookup-cost.gp - F1: time per item for each node look-up mode, the runs
# of the one (pace, regime) group the design fixes (the levels block names
# it), stacked as data movement (the time of lookup none) + node look-up (the
# rest), with min-max error bars over the repetitions, the harness's own
# floor (the null queue's time per item, grey dash-dot) where it was
# measured, and over libnuma's bar the study's value (a brown dashed mark:
# the look-up more than 11x this host's data movement). Every group apart:
# f1-lookup-cost-regimes.gp (the supplement).
# The gnuplot twin of scripts/figures/plot.py's f1-lookup-cost figure (fig_f1.py).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f1-lookup-cost.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host and one line of what is drawn
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f1-lookup-cost.dat'
if (!exists("outfile")) outfile = 'f1-lookup-cost.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F1: node look-up cost vs data movement'
# Blocks, each with its '# columns:' line (scripts/tests check every xx_<column>
# = N below against it): 0 the bars (b_; one per mode, ran 0: an empty slot),
# 1 the levels (l_: the harness's floor, the study's mark).
b_mode = 1
b_slot = 2
b_ran = 3
b_data_movement_ns = 4
b_lookup_ns = 5
b_total_median_ns = 6
b_total_min_ns = 7
b_total_max_ns = 8
b_color_rgb = 10
b_split_data = 11
b_oversubscribed = 12
b_harness_bound = 13
b_nslots = 14
l_harness_ns = 1
l_study_ns = 2
l_study_slot = 3
l_study_over = 4
l_regime = 5
isnum(v) = (v == v)
has(v) = (exists("STATS_records") && STATS_records > 0)
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
set grid lc rgb '#e0e0e0'
set border 3
set tics nomirror

undefine STATS_*
stats datafile index 0 using (column(b_total_max_ns)) nooutput
ymax = has(0) ? STATS_max : 1
undefine STATS_*
stats datafile index 0 using (column(b_nslots)) nooutput
nslots = int(STATS_max)
undefine STATS_*
stats datafile index 0 using (column(b_ran) == 1 && column(b_split_data) == 1 ? 1 : NaN) nooutput
has_split = has(0)
undefine STATS_*
stats datafile index 0 using (column(b_ran) == 1 && column(b_split_data) == 0 ? 1 : NaN) nooutput
has_unsplit = has(0)
# the modes' names by slot (the x axis)
array mname[nslots]
do for [i = 1:nslots] { mname[i] = '' }
stats datafile index 0 using (!isnum(column(b_slot)) ? NaN : \
    (mname[int(column(b_slot)) + 1] = strcol(b_mode), 0)) nooutput
regime = ''
stats datafile index 1 using (!isnum(column(l_study_slot)) ? NaN : (regime = strcol(l_regime), 0)) nooutput
undefine STATS_*
stats datafile index 1 using (column(l_harness_ns)) nooutput
has_harness = has(0)
harness_ns = NaN
if (has_harness) { harness_ns = STATS_max; ymax = (harness_ns > ymax ? harness_ns : ymax) }
undefine STATS_*
stats datafile index 1 using (column(l_study_ns)) nooutput
has_study = has(0)
study_ns = NaN
if (has_study) { study_ns = STATS_max; ymax = (study_ns > ymax ? study_ns : ymax) }
sover = 11
undefine STATS_*
stats datafile index 1 using (column(l_study_over)) nooutput
if (has(0)) { sover = STATS_max }
set yrange [0 : ymax * 1.15]
set xrange [-0.6 : nslots - 0.4]
set xtics ()
do for [i = 0:nslots - 1] { set xtics add (mname[i + 1] i) }
set title (note ne '' ? note : '') tc rgb 'black'
set label 1 figtitle . (emulated ? '   [EMULATED nodes]' : '') at screen 0.5, screen 0.965 center font ',14' tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set tmargin at screen 0.88
set xlabel 'node look-up mode' . ((regime ne '' && regime ne 'unknown') ? sprintf(' (%s runs)', regime) : '')
set ylabel 'time per item (ns)'
set style fill solid 0.85 border lc rgb '#404040'
set boxwidth 0.62
set key right top
set grid noxtics
nstext(t) = (t >= 10 ? sprintf('%.0f ns', t) : sprintf('%.1f ns', t))
plot datafile index 0 using (column(b_slot)):(column(b_total_median_ns)):(column(b_color_rgb)) with boxes lc rgb variable \
         title (has_split ? 'node look-up (colour per mode)' : 'ns per item'), \
     '' index 0 using (column(b_slot)):(column(b_split_data) == 1 ? column(b_data_movement_ns) : NaN) \
         with boxes lc rgb '#b8b8b8' title (has_split ? 'data movement (lookup none)' : ''), \
     '' index 0 using (column(b_slot)):(column(b_total_median_ns)):(column(b_total_min_ns)):(column(b_total_max_ns)) \
         with yerrorbars lc rgb 'black' pt 7 ps 0 lw 1.5 title 'min-max over reps', \
     '' index 0 using (column(b_slot)):(column(b_total_max_ns) + ymax * 0.03):(nstext(column(b_total_median_ns))) \
         with labels font ',9' notitle, \
     '' index 0 using (column(b_slot)):(column(b_ran) == 0 ? ymax * 0.03 : NaN):(sprintf('no %s run', regime)) \
         with labels rotate by 90 left font ',9' tc rgb '#595959' notitle, \
     '' index 0 using (column(b_slot)):(column(b_oversubscribed) == 1 ? column(b_total_median_ns) / 4 : NaN):('oversubscribed') \
         with labels rotate by 90 font ',9' notitle, \
     '' index 0 using (column(b_slot)):(column(b_harness_bound) == 1 ? column(b_total_median_ns) / 2 : NaN):('harness-bound') \
         with labels rotate by 90 font ',9' notitle, \
     '' index 1 using (column(l_study_slot)):(column(l_study_ns)):(0.39) with xerrorbars pt 9 ps 1.6 lw 2.5 dt 2 lc rgb '#7a5200' \
         title (has_study ? sprintf("study: libnuma's look-up > %gx the data movement", sover) : ''), \
     harness_ns with lines dt 4 lw 2 lc rgb '#3a3a3a' \
         title (has_harness ? sprintf('harness alone (null queue): %.1f ns per item', harness_ns) : '')
