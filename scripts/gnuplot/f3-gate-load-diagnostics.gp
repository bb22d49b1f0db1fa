# SPDX-License-Identifier: BSD-2-Clause
# f3-gate-load-diagnostics.gp - F3's supplement, the gnuplot twin of
# scripts/figures/plot.py's f3-gate-load-diagnostics figure (the main figure,
# p50 of the shared and per-worker gates only: f3-gate-percentiles.gp). Two
# shapes of data, told apart by the data file:
#
# * open loop (rows of 25 columns): at the largest thread count whose threads
#   each have a CPU, against the offered load (% of the per-worker gate's
#   capacity): a row of latency panels, one per gate (p50 solid, p99 dashed,
#   each the median over the reps with its min-max band; the axis from the
#   medians, x4 either side: twelve lines in one panel read as noise, and p90,
#   p99.9 stay in the data file); then items in flight (Little: throughput x
#   mean latency; log where the whiskers span decades) and achieved throughput
#   with the offered rate; where other thread counts are oversubscribed (blocks
#   with over_panel 1, after the gates' own), a labelled panel of their p50 vs
#   the offered load (dash per thread count): never mixed into the others;
# * closed loop (older results, rows of 6 columns): the latency percentile
#   distribution per gate, HdrHistogram style (x = 1/(1-p) on a log axis
#   labelled as percentiles), one line per gate and load, min-max band (as
#   the main figure: closed-loop results have no load to diagnose).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes
#             (plots/<host>/supplement/data/f3-gate-load-diagnostics.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'f3-gate-load-diagnostics.dat'
if (!exists("outfile")) outfile = 'f3-gate-load-diagnostics.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'F3 diagnostics: latency by gate'
# open loop: the rows have a reps column (21); closed loop: 6 columns
undefine STATS_*
stats datafile using 21 nooutput
openloop = exists("STATS_records") && STATS_records > 0
hasover = 0
if (openloop) { undefine STATS_*; stats datafile using ($24 == 1 ? 1 : NaN) nooutput; hasover = exists("STATS_records") && STATS_records > 0 }
W = openloop ? 1800 : 1100
H = openloop ? 1150 : 720
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
fulltitle = figtitle . (emulated ? '   [EMULATED nodes]' : '') . (note ne '' ? "\n" . note : '')

undefine STATS_*
stats datafile using 1 nooutput
N = STATS_blocks

if (openloop) {
    # Blocks: one per gate (first line its name; columns load_pct, then median
    # min max of p50, p90, p99, p99.9 (ns), items in flight, throughput; then
    # the offered rate, reps, color_rgb, oversubscribed, over_panel, dash); the
    # first G blocks are the gates at the drawn thread count, the rest (over_panel
    # 1) the oversubscribed thread counts' p50.
    G = 0
    array D[N]
    array C[N]
    do for [i = 0:N - 1] {
        undefine STATS_*
        stats datafile index i using 24 nooutput
        if (exists("STATS_max") && STATS_max == 0) { G = G + 1 }
        D[i + 1] = 1
        undefine STATS_*
        stats datafile index i using 25 nooutput
        if (exists("STATS_max")) { D[i + 1] = int(STATS_max) }
        stats datafile index i using 22 nooutput
        C[i + 1] = int(STATS_max)
    }
    # two rows: a latency panel per gate (p50 and p99 only: twelve lines in one
    # panel read as noise; p90 and p99.9 stay in the data file), then items in
    # flight, throughput, and the oversubscribed thread counts where there are any
    NC = (G > 3 ? G : 3)
    pw = (0.985 - 0.05) / NC
    mid = bottom + (0.86 - bottom) / 2
    undefine STATS_*
    stats datafile using 1 nooutput
    xhi = (STATS_max * 1.08 > 100 ? STATS_max * 1.08 : 100)
    undefine STATS_*
    stats datafile index 0:(G - 1) using 2 nooutput
    haslat = exists("STATS_records") && STATS_records > 0
    # the latency axis from the medians (p50 low, p99 high), x4 either side: a band
    # that runs past is clipped at the edge
    ylo = haslat ? STATS_min / 4.0 : 1
    undefine STATS_*
    stats datafile index 0:(G - 1) using 8 nooutput
    yhi = (exists("STATS_records") && STATS_records > 0) ? STATS_max * 4.0 : ylo * 1000
    # items in flight: log where the whiskers span decades
    undefine STATS_*
    stats datafile index 0:(G - 1) using 14 nooutput
    hasflight = exists("STATS_records") && STATS_records > 0
    undefine STATS_*
    stats datafile index 0:(G - 1) using 15 nooutput
    flo = (exists("STATS_records") && STATS_records > 0) ? STATS_min : 1
    undefine STATS_*
    stats datafile index 0:(G - 1) using 16 nooutput
    fhi = (exists("STATS_records") && STATS_records > 0) ? STATS_max : 1
    flog = hasflight && flo > 0 && fhi / flo >= 20
    set multiplot title fulltitle tc rgb (emulated ? '#b00000' : 'black')
    set xrange [0 : xhi]
    set xtics format '%g%%'
    set xlabel "offered load (% of the per-worker gate's capacity)"
    set style fill transparent solid 0.18 noborder
    set logscale y
    eval logtics
    set format y '%.0s %cs'
    set yrange [ylo * 1e-9 : yhi * 1e-9]
    do for [i = 0:G - 1] {
        set lmargin at screen (0.05 + i * pw + 0.015); set rmargin at screen (0.05 + (i + 1) * pw - 0.02)
        set bmargin at screen (mid + 0.06); set tmargin at screen 0.86
        set ylabel (i == 0 ? 'latency, enqueue to dequeue' : '')
        set key left top font ',10'
        set title 'p50 (solid), p99 (dashed)'
        if (haslat) {
            plot datafile index i using 1:($3 * 1e-9):($4 * 1e-9) with filledcurves lc rgb (C[i + 1]) notitle, \
                 datafile index i using 1:($9 * 1e-9):($10 * 1e-9) with filledcurves fs transparent solid 0.09 lc rgb (C[i + 1]) notitle, \
                 datafile index i using 1:($2 * 1e-9) with linespoints lw 2.5 dt 1 pt 7 ps 1 lc rgb (C[i + 1]) title columnheader(1), \
                 datafile index i using 1:($8 * 1e-9) with linespoints lw 1.6 dt 2 pt 6 ps 1 lc rgb (C[i + 1]) notitle
        } else {
            set label 3 'no latency recorded' at graph 0.5, graph 0.5 center tc rgb '#666666'
            plot NaN notitle
            unset label 3
        }
    }
    unset style fill
    # items in flight (Little)
    unset logscale y
    set ytics autofreq
    set format y '%g'
    set autoscale y
    set key left top maxrows 3
    set lmargin at screen (0.05 + 0.015); set rmargin at screen (0.05 + pw - 0.02)
    set bmargin at screen bottom; set tmargin at screen (mid - 0.04)
    if (flog) { set logscale y; eval logtics; set yrange [flo / 1.5 : fhi * 1.5] } else { set yrange [0 : *] }
    set ylabel 'items in flight (Little)'
    set title 'items in flight: throughput x mean latency'
    if (hasflight) {
        plot for [i = 0:G - 1] datafile index i using 1:14:15:16:22 \
                 with yerrorbars pt 7 ps 0.8 lc rgb variable notitle, \
             for [i = 0:G - 1] datafile index i using 1:14:22 \
                 with lines lw 2 lc rgb variable title columnheader(1)
    } else {
        set label 3 'no latency recorded' at graph 0.5, graph 0.5 center tc rgb '#666666'
        set yrange [0 : 1]
        plot NaN notitle
        unset label 3
    }
    # achieved throughput and the offered rate
    unset logscale y
    set ytics autofreq
    set yrange [0 : *]
    set lmargin at screen (0.05 + pw + 0.015); set rmargin at screen (0.05 + 2 * pw - 0.02)
    set ylabel 'throughput (million items/s)'
    set title 'achieved throughput vs the offered rate'
    set key right bottom maxrows 4
    plot datafile index 0 using 1:($20 / 1e6) with lines lw 8 lc rgb '#c8c8c8' notitle, \
         datafile index 0 using 1:($20 / 1e6) with linespoints dt 2 lw 1.5 pt 1 ps 1.5 \
             lc rgb 'black' title 'offered rate', \
         for [i = 0:G - 1] datafile index i using 1:($17 / 1e6):($18 / 1e6):($19 / 1e6):22 \
             with yerrorbars pt 7 ps 0.8 lc rgb variable notitle, \
         for [i = 0:G - 1] datafile index i using 1:($17 / 1e6):22 \
             with lines lw 2 lc rgb variable title columnheader(1)
    if (hasover) {
        # the oversubscribed thread counts, apart: p50 vs load, dash per thread count
        set lmargin at screen (0.05 + 2 * pw + 0.015); set rmargin at screen (0.05 + 3 * pw - 0.02)
        set object 1 rectangle from graph 0, graph 0 to graph 1, graph 1 behind fc rgb '#f6f1e7' fs solid noborder
        set logscale y
        eval logtics
        set format y '%.0s %cs'
        set autoscale y
        set ylabel 'p50 latency'
        set title "oversubscribed: threads share CPUs;\nscheduler, not queue" tc rgb '#7a4b00' font ',12'
        set key left top maxrows 6 font ',9'
        plot for [i = G:N - 1] datafile index i using 1:($2 * 1e-9):($3 * 1e-9):($4 * 1e-9):22 \
                 with yerrorbars pt 7 ps 0.8 lc rgb variable notitle, \
             for [i = G:N - 1] datafile index i using 1:($2 * 1e-9):22 \
                 with lines lw 2 dt D[i + 1] lc rgb variable title columnheader(1)
        unset object 1
    }
    unset multiplot
} else {
    # Blocks: one per gate and offered load (first line its name; columns 1/(1-p)
    # value_ns band_lo_ns band_hi_ns color_rgb dash): every line the median over the
    # reps at each percentile, the band min-max over the reps; dash 1 solid (the
    # highest load), 2 dashed, 3 dotted.
    xmax = STATS_max
    set logscale xy
    eval logtics
    set xrange [1 : (xmax * 1.3 > 10 ? xmax * 1.3 : 10)]
    set xtics ('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 1e4, '99.999%%' 1e5, '99.9999%%' 1e6, '99.99999%%' 1e7)
    set format y '%.0s %cs'
    set xlabel 'percentile'
    set ylabel 'latency, enqueue to dequeue'
    set key left top
    set title fulltitle tc rgb (emulated ? '#b00000' : 'black')
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
}
