# SPDX-License-Identifier: BSD-2-Clause
# placement.gp - the placement heatmap: each queue's throughput in every
# placement of its threads and memory across nodes (experiments/placement.exp),
# a panel per workload; rows are placements (threads, producers' and
# consumers' nodes, the queue's memory), columns queues, each cell coloured
# by its median throughput (log scale) and annotated with it (and p50/p99
# where every item crosses nodes); right of each row numaring's paired
# median ratio to the best peer of that placement. A red x marks an
# oversubscribed cell. The gnuplot twin of scripts/figures/plot.py's
# placement figure (fig_placement.py).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/placement.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host and one line of what is drawn
#   figtitle  optional: the title
if (!exists("datafile")) datafile = 'placement.dat'
if (!exists("outfile")) outfile = 'placement.png'
if (!exists("caption")) caption = ''
if (!exists("figtitle")) figtitle = "Placement: each queue's throughput by where its threads and memory are"
# Blocks (index): 0 cells, 1 rows, 2 queues, 3 panels; their columns named in
# their '# columns:' lines; pc_, pr_, pq_, pp_<column> = N below (scripts/tests
# check each against them).
pc_panel = 1
pc_row = 2
pc_col = 3
pc_median_ops_per_s = 5
pc_log10_ops = 9
pc_crosses = 10
pc_p50_ns = 11
pc_p99_ns = 12
pc_oversubscribed = 13
pc_nrows = 14
pc_ncols = 15
pc_npanels = 16
pr_panel = 1
pr_row = 2
pr_label = 3
pr_ratio = 4
pr_best_peer = 7
pq_panel = 1
pq_col = 2
pq_queue = 3
pp_panel = 1
pp_workload = 2
isnum(v) = (v == v)
has(v) = (exists("STATS_records") && STATS_records > 0)
undefine STATS_*
stats datafile index 0 using (column(pc_npanels)) nooutput
NPAN = has(0) ? int(STATS_max) : 1
undefine STATS_*
stats datafile index 0 using (column(pc_ncols)) nooutput
NQX = has(0) ? int(STATS_max) : 1
undefine STATS_*
stats datafile index 0 using (column(pc_nrows)) nooutput
NRX = has(0) ? int(STATS_max) : 1
undefine STATS_*
stats datafile index 0 using (isnum(column(pc_log10_ops)) ? column(pc_log10_ops) : NaN) nooutput
cmin = has(0) ? STATS_min : 0
cmax = has(0) ? (STATS_max > STATS_min ? STATS_max : STATS_min + 1) : 1
# per panel: its queues (the x labels), its rows' labels, its sizes, its workload
array qn[3 * NQX]
array rl[3 * NRX]
array nq[3]
array nr[3]
array wl[3]
do for [k = 1:3 * NQX] { qn[k] = '' }
do for [k = 1:3 * NRX] { rl[k] = '' }
do for [k = 1:3] { nq[k] = 0; nr[k] = 0; wl[k] = '' }
stats datafile index 2 using (!isnum(column(pq_panel)) ? NaN : \
    (qn[int(column(pq_panel)) * NQX + int(column(pq_col)) + 1] = strcol(pq_queue), \
     nq[int(column(pq_panel)) + 1] = int(column(pq_col)) + 1, 0)) nooutput
stats datafile index 1 using (!isnum(column(pr_panel)) ? NaN : \
    (rl[int(column(pr_panel)) * NRX + int(column(pr_row)) + 1] = strcol(pr_label), \
     nr[int(column(pr_panel)) + 1] = int(column(pr_row)) + 1, 0)) nooutput
stats datafile index 3 using (!isnum(column(pp_panel)) ? NaN : \
    (wl[int(column(pp_panel)) + 1] = strcol(pp_workload), 0)) nooutput
# a label's '_' were its spaces (a .dat field has none)
unspace(s) = (strstrt(s, '_') == 0) ? s : unspace(s[1:strstrt(s, '_') - 1] . ' ' . s[strstrt(s, '_') + 1:])
W = 700 + 520 * NPAN
H = 330 + 42 * NRX
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size W, H font 'DejaVu Sans,10' noenhanced
} else {
    set terminal png size W, H noenhanced
}
set encoding utf8
set output outfile
ncap = (caption eq '') ? 0 : 1
do for [i = 1:strlen(caption)] { if (caption[i:i] eq "\n") { ncap = ncap + 1 } }
emulated = strstrt(caption, 'EMULATED') > 0
set label 99 caption at screen 0.01, screen (ncap * 15.0 + 2) / H left front font ',9'
bottom = (ncap * 15.0 + 110) / H
top = 1.0 - 70.0 / H
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') tc rgb (emulated ? '#b00000' : 'black')
set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')
set cbrange [cmin : cmax]
set cblabel 'log10 throughput (ops/s), median of the reps'
set cbtics format '%.1f'
set border 15
set tics nomirror out
set style fill solid 1.0 noborder
unset key
pw = (1.0 - 0.02) / NPAN
sel(k) = (column(pc_panel) == k)
# a cell's text: its median in M/s, and p50/p99 in us where every item
# crosses nodes and latency was recorded (a missing value is the word NaN)
lat(c) = (strcol(c) eq 'NaN') ? NaN : column(c) / 1000.0
us(v) = (v < 1000) ? sprintf('%.3g us', v) : sprintf('%.3g ms', v / 1000)
celltext(x) = sprintf('%.3g', column(pc_median_ops_per_s) / 1e6) . \
    ((column(pc_crosses) == 1 && strcol(pc_p99_ns) ne 'NaN') ? \
     "\np50 " . us(lat(pc_p50_ns)) . "\np99 " . us(lat(pc_p99_ns)) : '')
# white text on the dark lower part of the palette, black on the light one
dark(v) = (v - cmin) < 0.6 * (cmax - cmin)
selr(k) = (column(pr_panel) == k)
do for [k = 0:NPAN - 1] {
    set title wl[k + 1] . "\n(right of each row: numaring / the best peer)" font ',10'
    set tmargin at screen top
    set bmargin at screen bottom
    set lmargin at screen (0.02 + k * pw + 0.24 * pw)
    set rmargin at screen (0.02 + k * pw + 0.92 * pw)
    if (k == NPAN - 1) { set colorbox user origin screen (0.02 + k * pw + 0.955 * pw), screen bottom size screen 0.01, screen (top - bottom) } else { unset colorbox }
    n = (nq[k + 1] > 0 ? nq[k + 1] : 1)
    m = (nr[k + 1] > 0 ? nr[k + 1] : 1)
    # room right of the cells for the ratio (a label outside the range is not drawn)
    set xrange [-0.5 : n + 1.4]
    set yrange [m - 0.5 : -0.5]
    set xtics () rotate by 35 right font ',9'
    do for [q = 0:n - 1] { set xtics add (qn[k * NQX + q + 1] q) }
    set ytics () font ',8'
    do for [r = 0:m - 1] { set ytics add (unspace(rl[k * NRX + r + 1]) r) }
    plot datafile index 0 using (sel(k) ? column(pc_col) : NaN):(column(pc_row)):(0.5):(0.5):(column(pc_log10_ops)) \
             with boxxyerror fc palette, \
         datafile index 0 using (sel(k) ? column(pc_col) : NaN):(column(pc_row)):(celltext(0)):(dark(column(pc_log10_ops)) ? 0xffffff : 0x000000) \
             with labels font ',6.5' tc rgb variable, \
         datafile index 0 using (sel(k) && column(pc_oversubscribed) == 1 ? column(pc_col) + 0.42 : NaN):(column(pc_row) - 0.3):('x') \
             with labels font ',9' tc rgb '#d62728', \
         datafile index 1 using (selr(k) ? n - 0.45 : NaN):(column(pr_row)):(isnum(column(pr_ratio)) ? sprintf('%.2f× vs %s', column(pr_ratio), strcol(pr_best_peer)) : 'n/a') \
             with labels left font ',8'
}
unset multiplot
