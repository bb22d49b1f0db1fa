# f4-backoff.gp - F4: throughput vs threads by backoff mode, with the physical
# ceiling and the harness's own (the null queue, grey dash-dot); failed attempts
# per 1,000 operations (did the backoff run?); and each backoff's paired change
# against retrying at once (none) at the largest thread count, or "backoff not
# exercised on this host" where fewer than 1 in 1,000 operations failed. The gnuplot twin of scripts/plot.py's f4-backoff figure.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f4-backoff.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f4-backoff.dat'
if (!exists("outfile")) outfile = 'f4-backoff.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F4: backoff after a failed attempt'
W = 1900; H = 680
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

# Blocks: 0..N-5 one per backoff (first line its name; columns threads median
# min max reps color_rgb ceiling harness_bound oversubscribed; ringed where
# harness_bound is 1, a black x where oversubscribed is 1), N-4 the failed
# attempts per 1,000 operations (backoff threads median min max reps color_rgb
# oversubscribed), N-3 the paired change against none at the largest thread
# count (backoff threads change_pct ci_lo_pct ci_hi_pct color_rgb
# failed_per_1000 exercised oversubscribed; exercised 0: the backoff did not run,
# no bar but "backoff not exercised on this host"), N-2 the physical ceiling
# (threads ceiling color), N-1 the harness alone, the null queue (threads median
# min max reps; NaN: not measured).
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
stats datafile index 0:(N - 5) using 1 nooutput
tmax = STATS_max
sty = (STATS_min == STATS_max) ? 'yerrorbars' : 'yerrorlines'
undefine STATS_*
stats datafile index 0:(N - 5) using ($9 == 1 ? 1 : NaN) nooutput
otitle = (exists("STATS_records") && STATS_records > 0) ? 'oversubscribed: threads share CPUs' : ''
undefine STATS_*
stats datafile index 0:(N - 5) using 3 nooutput
ymin = STATS_min; ymax = STATS_max
if (has_ceiling) { stats datafile index (N - 2) using 2 nooutput; ymax = (STATS_max > ymax * 30 ? ymax * 30 : (STATS_max > ymax ? STATS_max : ymax)) }
if (has_harness) { stats datafile index (N - 1) using 2 nooutput; ymax = (STATS_max > ymax ? STATS_max : ymax); ymin = (STATS_min < ymin ? STATS_min : ymin) }
htitle = has_harness ? 'harness alone (null queue)' : ''
set multiplot layout 1, 3 title figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '') tc rgb (emulated ? '#b00000' : 'black')
set bmargin at screen bottom
set tmargin at screen 0.84
set lmargin at screen 0.05
set rmargin at screen 0.31
# a run that moved nothing (throughput 0) leaves no log scale
if (ymin > 0 && ymax / ymin > 20) { set logscale y; eval logtics; set yrange [ymin / 1.4e6 : ymax * 1.4e-6] } else { set yrange [0 : ymax * 1.15e-6] }
set logscale x 2
set xlabel 'threads (producers + consumers)'
set ylabel 'throughput (million items/s)'
set key right bottom
set title 'throughput'
if (has_ceiling) {
    plot for [i = 0:N - 5] datafile index i using 1:($2 / 1e6):($3 / 1e6):($4 / 1e6):6 \
             with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
         for [i = 0:N - 5] datafile index i using 1:($8 == 1 ? $2 / 1e6 : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         for [i = 0:N - 5] datafile index i using 1:($9 == 1 ? $2 / 1e6 : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         datafile index (N - 2) using 1:($2 / 1e6):3 with lines dt 2 lw 2 lc rgb variable \
             title 'physical ceiling (model)', \
         datafile index (N - 1) using 1:($2 / 1e6) with linespoints dt 4 lw 2.5 pt 3 ps 1.5 \
             lc rgb '#3a3a3a' title htitle
} else {
    plot for [i = 0:N - 5] datafile index i using 1:($2 / 1e6):($3 / 1e6):($4 / 1e6):6 \
             with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
         for [i = 0:N - 5] datafile index i using 1:($8 == 1 ? $2 / 1e6 : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         for [i = 0:N - 5] datafile index i using 1:($9 == 1 ? $2 / 1e6 : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         datafile index (N - 1) using 1:($2 / 1e6) with linespoints dt 4 lw 2.5 pt 3 ps 1.5 \
             lc rgb '#3a3a3a' title htitle
}
# failed attempts per 1,000 operations, one line per backoff (rows carry the backoff's name)
unset logscale y
set ytics autofreq
set lmargin at screen 0.375
set rmargin at screen 0.635
undefine STATS_*
stats datafile index (N - 4) using 5 nooutput
fmax = (exists("STATS_records") && STATS_records > 0) ? STATS_max : 0
set yrange [0 : (fmax * 1.15 > 1.6 ? fmax * 1.15 : 1.6)]
set ylabel 'failed attempts per 1,000 operations'
set title 'does the backoff run? (failed_attempts / ops)'
set key right top
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 3 lw 1.5 lc rgb 'black'
plot for [b in 'none pause exp yield'] datafile index (N - 4) \
         using 2:(strcol(1) eq b ? $3 : NaN):4:5:7 with @sty lw 2 pt 7 ps 0.9 lc rgb variable \
         title b, \
     datafile index (N - 4) using 2:($8 == 1 ? $3 : NaN) with points pt 2 ps 2.5 lw 2.5 \
         lc rgb 'black' notitle, \
     NaN with lines dt 3 lw 1.5 lc rgb 'black' title '1 per 1,000: below, backoff not exercised'
unset arrow 1
unset logscale x
set lmargin at screen 0.705
set rmargin at screen 0.985
set yrange [-45 : 15]
undefine STATS_*
stats datafile index (N - 3) using 0:2 nooutput
if (exists("STATS_min_x")) { set xrange [STATS_min_x - 0.6 : STATS_max_x + 0.6] }
set xlabel 'backoff'
set ylabel 'throughput change vs none (%)'
set title sprintf('at %g threads, against retrying at once (paired per rep)', tmax)
set style fill solid 0.85 border lc rgb '#404040'
set boxwidth 0.6
set key left bottom
set xzeroaxis lt -1
set object 1 rect from graph 0, first -30 to graph 1, first -15 fc rgb '#ffd27f' fs solid 0.35 noborder behind
plot datafile index (N - 3) using 0:($8 == 1 ? $3 : NaN):6:xtic(1) with boxes lc rgb variable notitle, \
     '' index (N - 3) using 0:($8 == 1 ? $3 : NaN):4:5 with yerrorbars lc rgb 'black' pt 7 ps 0.5 \
         title 'bootstrap 95% CI', \
     '' index (N - 3) using 0:($8 == 1 ? $4 - 4 : NaN):(sprintf('%+.1f%%, %.2g failed per 1,000', $3, $7)) \
         with labels font ',9' notitle, \
     '' index (N - 3) using 0:($8 == 0 ? -15 : NaN):(sprintf("backoff not\nexercised\non this host\n(%.2g failed\nper 1,000 ops)", $7)) \
         with labels font ',9' notitle, \
     '' index (N - 3) using 0:($9 == 1 ? 10 : NaN) with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
     NaN with boxes lc rgb '#ffd27f' fs solid 0.35 title 'study: -15 to -30%'
unset multiplot
