# SPDX-License-Identifier: BSD-2-Clause
# f3-gate-percentiles.gp - F3, the gnuplot twin of scripts/figures/plot.py's
# f3-gate-percentiles figure: does the per-worker gate cut p50 latency, as the
# study says (by more than 200x)? Two shapes of data, told apart by the file:
#
# * open loop (gate blocks of 8 columns): one panel at the largest thread
#   count whose threads each have a CPU: p50 against the offered load (% of
#   the per-worker gate's capacity) for the shared and the per-worker gate,
#   each the median over the unsaturated reps with its min-max band; the
#   saturated runs' p50 as hollow diamonds, left out of the lines; dotted,
#   200x the per-worker gate's p50 (where the study puts the shared gate);
#   above each load the paired median ratio shared / per-worker. Every other
#   gate, p99, items in flight and throughput: f3-gate-load-diagnostics.gp;
# * closed loop (older results, rows of 6 columns): the latency percentile
#   distribution per gate, HdrHistogram style (x = 1/(1-p) on a log axis
#   labelled as percentiles), one line per gate and load, min-max band.
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
if (!exists("figtitle")) figtitle = 'F3: p50 latency by gate'
# open loop: the first block (a gate) has a saturated_runs column (7); closed loop: 6 columns
undefine STATS_*
stats datafile index 0 using 7 nooutput
openloop = exists("STATS_records") && STATS_records > 0
W = openloop ? 1300 : 1100
H = openloop ? 860 : 720
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
# Blocks: one per gate (g_: its name first), then 'saturated' (s_), 'study'
# (y_) and 'paired ratio' (r_); each a NaN row where it has none. The columns
# by name (plot.py's fig_f3.F3_MAIN_COLUMNS and the others):
g_load_pct = 1
g_p50_median_ns = 2
g_p50_min_ns = 3
g_p50_max_ns = 4
g_color_rgb = 6
s_load_pct = 1
s_p50_ns = 2
s_color_rgb = 3
y_load_pct = 1
y_study_p50_ns = 2
r_load_pct = 1
r_ratio_text = 2
    G = N - 3
    BS = G
    BY = G + 1
    BR = G + 2
    # filledcurves takes no variable colour: each gate's colour first
    array C[G]
    do for [i = 0:G - 1] { undefine STATS_*; stats datafile index i using (column(g_color_rgb)) nooutput; C[i + 1] = int(STATS_max) }
    # the latency axis from the medians (and the saturated runs, the study's line),
    # a factor 3 below and 12 above: a band that runs past is clipped at the edge,
    # and the ratios have room at the top
    undefine STATS_*
    stats datafile index 0:(G - 1) using (column(g_p50_median_ns)) nooutput
    haslat = exists("STATS_records") && STATS_records > 0
    ylo = haslat ? STATS_min : 1
    yhi = haslat ? STATS_max : 1000
    undefine STATS_*
    stats datafile index BS using (column(s_p50_ns)) nooutput
    hassat = exists("STATS_records") && STATS_records > 0
    if (hassat) { ylo = (STATS_min < ylo ? STATS_min : ylo); yhi = (STATS_max > yhi ? STATS_max : yhi) }
    undefine STATS_*
    stats datafile index BY using (column(y_study_p50_ns)) nooutput
    hasstudy = exists("STATS_records") && STATS_records > 0
    if (hasstudy) { yhi = (STATS_max > yhi ? STATS_max : yhi) }
    undefine STATS_*
    stats datafile index BR using (column(r_load_pct)) nooutput
    hasratio = exists("STATS_records") && STATS_records > 0
    ytop = yhi * 12.0
    set title fulltitle tc rgb (emulated ? '#b00000' : 'black')
    set xrange [0 : 100]
    set xtics format '%g%%'
    set xlabel "offered load (% of the per-worker gate's capacity)"
    set ylabel 'p50 latency, enqueue to dequeue'
    set logscale y
    eval logtics
    set format y '%.0s %cs'
    set yrange [ylo / 3.0 * 1e-9 : ytop * 1e-9]
    set bmargin at screen bottom
    # the key bottom right, under the ratios and clear of the lowest loads
    set key right bottom Left reverse font ',10'
    set style fill transparent solid 0.18 noborder
    if (haslat) {
        plot for [i = 0:G - 1] datafile index i using (column(g_load_pct)):(column(g_p50_min_ns) * 1e-9):(column(g_p50_max_ns) * 1e-9) \
                 with filledcurves lc rgb (C[i + 1]) notitle, \
             for [i = 0:G - 1] datafile index i using (column(g_load_pct)):(column(g_p50_median_ns) * 1e-9):(column(g_color_rgb)) \
                 with linespoints lw 2.5 pt 7 ps 1.2 lc rgb variable title columnheader(1), \
             datafile index BS using (column(s_load_pct)):(column(s_p50_ns) * 1e-9):(column(s_color_rgb)) \
                 with points pt 12 ps 2 lw 1.5 lc rgb variable notitle, \
             NaN with points pt 12 ps 2 lw 1.5 lc rgb '#4d4d4d' title (hassat ? 'saturated run (queueing): left out of the line' : ''), \
             datafile index BY using (column(y_load_pct)):(column(y_study_p50_ns) * 1e-9) \
                 with lines dt 3 lw 2 lc rgb '#4d4d4d' title (hasstudy ? "200x the per-worker gate's p50: where the study puts the shared gate" : ''), \
             datafile index BR using (column(r_load_pct)):(ytop / 1.6 * 1e-9):(strcol(r_ratio_text)) \
                 with labels center font ',12' tc rgb '#1a1a1a' title (hasratio ? 'N.Nx above a load: p50 shared / per-worker, paired median over the reps' : '')
    } else {
        set label 3 'no latency recorded' at graph 0.5, graph 0.5 center tc rgb '#666666'
        plot NaN notitle
    }
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
