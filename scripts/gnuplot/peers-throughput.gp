# SPDX-License-Identifier: BSD-2-Clause
# peers-throughput.gp - where NumaRing stands against the field's queues, per
# workload: one panel per workload (prodcons, pairs, mixed), each at work 0,
# pin compact, single operations (prodcons at its free pace) and one thread
# count. The queues on x, grouped by the order they keep (scripts/manifest.json's
# ordering): strict FIFO | relaxed | floors (the queues that move no data and
# the harness alone, its own slot and mark), a dashed separator between groups
# and their names over them; within a group by median, highest first. A dot per
# queue: its median throughput (log y) with the median's interval as a
# whisker; NumaRing highlighted (green diamond); hollow: a queue's
# message-item runs (it takes no inline items); ringed: within 20% of the
# harness alone; a black x: oversubscribed. The regimes, bursts, item modes
# and the ceiling model are the supplement's peers-regimes (peers-regimes.gp).
# The gnuplot twin of scripts/figures/plot.py's peers-throughput figure
# (fig_peers_main.py).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/peers-throughput.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host and one line of what is drawn
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the figure's)
if (!exists("datafile")) datafile = 'peers-throughput.dat'
if (!exists("outfile")) outfile = 'peers-throughput.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'Peers: where NumaRing stands against the field''s queues, per workload'
# Blocks, each with its '# columns:' line (scripts/tests check every xx_<column>
# = N below against it): 0 the queues' slots (sl_; panel -1: none ran), 1 the
# groups on x (gr_), 2 the panels (pa_).
B_SL = 0
B_GR = 1
B_PA = 2
sl_panel = 1
sl_slot = 2
sl_x = 3
sl_queue = 4
sl_group = 5
sl_median_ops_per_s = 6
sl_lo_ops_per_s = 7
sl_hi_ops_per_s = 8
sl_message = 11
sl_highlight = 12
sl_harness_slot = 13
sl_bound = 14
sl_oversubscribed = 15
sl_nslots = 16
gr_panel = 1
gr_gidx = 2
gr_group = 3
gr_x0 = 4
gr_x1 = 5
pa_panel = 1
pa_workload = 2
pa_unit = 3
pa_threads = 4
pa_xmax = 5
pa_npanels = 6
isnum(v) = (v == v)
has(v) = (exists("STATS_records") && STATS_records > 0)
M6(c) = column(c) / 1e6
# the panels and the widest panel's slots (at least one each: a host without
# runs still draws one empty panel, and every array below has a size)
undefine STATS_*
stats datafile index B_PA using (column(pa_npanels)) nooutput
NP = has(0) && STATS_max >= 1 ? int(STATS_max) : 1
undefine STATS_*
stats datafile index B_SL using (column(sl_nslots)) nooutput
NS = has(0) && STATS_max >= 1 ? int(STATS_max) : 1
# each panel's workload, unit, threads and last x; each slot's name; each group's
# name and span (at most three groups a panel): initialised first, so that a
# panel without runs reads defined values
array pwl[NP]
array punit[NP]
array pthr[NP]
array pxmax[NP]
do for [k = 1:NP] { pwl[k] = ''; punit[k] = 'items'; pthr[k] = 0; pxmax[k] = 0 }
array qn[NP * NS]
array qx[NP * NS]
do for [k = 1:NP * NS] { qn[k] = ''; qx[k] = NaN }
array gname[3 * NP]
array gx0[3 * NP]
array gx1[3 * NP]
do for [k = 1:3 * NP] { gname[k] = ''; gx0[k] = NaN; gx1[k] = NaN }
stats datafile index B_PA using (!(column(pa_panel) >= 0) ? NaN : \
    (pwl[int(column(pa_panel)) + 1] = strcol(pa_workload), \
     punit[int(column(pa_panel)) + 1] = strcol(pa_unit), \
     pthr[int(column(pa_panel)) + 1] = column(pa_threads), \
     pxmax[int(column(pa_panel)) + 1] = column(pa_xmax), 0)) nooutput
stats datafile index B_SL using (!(column(sl_panel) >= 0) ? NaN : \
    (qn[int(column(sl_panel)) * NS + int(column(sl_slot)) + 1] = \
        (column(sl_harness_slot) == 1 ? 'harness alone' : strcol(sl_queue)), \
     qx[int(column(sl_panel)) * NS + int(column(sl_slot)) + 1] = column(sl_x), 0)) nooutput
stats datafile index B_GR using (!(column(gr_panel) >= 0) ? NaN : \
    (gname[3 * int(column(gr_panel)) + int(column(gr_gidx)) + 1] = strcol(gr_group), \
     gx0[3 * int(column(gr_panel)) + int(column(gr_gidx)) + 1] = column(gr_x0), \
     gx1[3 * int(column(gr_panel)) + int(column(gr_gidx)) + 1] = column(gr_x1), 0)) nooutput
gwords(g) = (g eq 'fifo' ? 'strict FIFO' : (g eq 'relaxed' ? 'relaxed order' : (g eq 'floor' ? 'floors' : g)))
ptitle(w) = (w eq 'prodcons' ? 'prodcons: producers and consumers apart, free pace' : \
             (w eq 'pairs' ? 'pairs: every thread enqueues, then dequeues' : \
              (w eq 'mixed' ? 'mixed: each operation an enqueue or a dequeue at random' : w)))
# the marks drawn (the key names only those)
undefine STATS_*
stats datafile index B_SL using (column(sl_highlight) == 1 ? 1 : NaN) nooutput
k_ring = has(0)
undefine STATS_*
stats datafile index B_SL using (column(sl_highlight) == 0 && column(sl_harness_slot) == 0 && strcol(sl_group) ne 'floor' && column(sl_panel) >= 0 ? 1 : NaN) nooutput
k_peer = has(0)
undefine STATS_*
stats datafile index B_SL using (column(sl_harness_slot) == 0 && column(sl_panel) >= 0 && strcol(sl_group) eq 'floor' ? 1 : NaN) nooutput
k_floor = has(0)
undefine STATS_*
stats datafile index B_SL using (column(sl_harness_slot) == 1 ? 1 : NaN) nooutput
k_harness = has(0)
undefine STATS_*
stats datafile index B_SL using (column(sl_message) == 1 && column(sl_harness_slot) == 0 ? 1 : NaN) nooutput
k_message = has(0)
undefine STATS_*
stats datafile index B_SL using (column(sl_bound) == 1 ? 1 : NaN) nooutput
k_bound = has(0)
undefine STATS_*
stats datafile index B_SL using (column(sl_oversubscribed) == 1 ? 1 : NaN) nooutput
k_over = has(0)
# a slot's colour and point type: NumaRing a green diamond, the field's queues
# blue, the floors grey; hollow where its runs carried message items
RING = 0x2ca02c; PEER = 0x2b4a8b; FLOOR = 0x8c8c8c
colour(d) = (!(column(sl_panel) >= 0) ? PEER : (column(sl_highlight) == 1 ? RING : (strcol(sl_group) eq 'floor' ? FLOOR : PEER)))
ptype(d) = (column(sl_highlight) == 1 ? 13 : 7) - (column(sl_message) == 1 ? 1 : 0)
inp(k) = (column(sl_panel) == k && column(sl_harness_slot) == 0)
W = 640 * NP + 360; H = 620
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size W, H font 'DejaVu Sans,11' noenhanced
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
top = 1.0 - 75.0 / H
right = 1.0 - 330.0 / W
pw = (right - 0.05) / NP
set grid ytics lc rgb '#e0e0e0'
set border 3
set tics nomirror
set multiplot title figtitle . (note eq '' ? '' : "\n" . note) . (emulated ? '   [EMULATED nodes]' : '') tc rgb (emulated ? '#b00000' : 'black')
do for [k = 0:NP - 1] {
    unset label
    unset arrow
    unset logscale
    unset key
    set label 99 caption at screen 0.01, screen (ncap * 15.0 + 2) / H left front font ',9'
    set tmargin at screen top
    set bmargin at screen bottom
    set lmargin at screen (0.05 + k * pw + 0.02)
    set rmargin at screen (0.05 + (k + 1) * pw - 0.01)
    set autoscale xy   # (stats count only the points inside the ranges set)
    undefine STATS_*
    stats datafile index B_SL using (column(sl_panel) == k && isnum(column(sl_lo_ops_per_s)) ? M6(sl_lo_ops_per_s) : NaN) nooutput
    if (!has(0)) {
        set title (pwl[k + 1] eq '' ? 'no runs' : ptitle(pwl[k + 1]))
        set label 10 'no runs' at graph 0.5, graph 0.5 center font ',12' tc rgb '#666666'
        unset border; unset tics; unset xlabel; unset ylabel
        set xrange [0:1]; set yrange [0:1]
        plot NaN notitle
        set border 3; set tics nomirror
        continue
    }
    ylo = STATS_min
    stats datafile index B_SL using (column(sl_panel) == k ? M6(sl_hi_ops_per_s) : NaN) nooutput
    yhi = STATS_max
    set logscale y
    do for [e = -12:12] { set ytics add (2 * 10.0**e, 5 * 10.0**e) }
    set yrange [ylo / 1.35 : yhi * 2.2]   # room over the dots for the groups' names
    set xrange [-0.7 : pxmax[k + 1] + 0.7]
    set xtics () rotate by 40 right
    do for [s = 1:NS] { if (qn[k * NS + s] ne '') { set xtics add (qn[k * NS + s] qx[k * NS + s]) } }
    set title sprintf('%s · %d threads', ptitle(pwl[k + 1]), pthr[k + 1]) font ',10'
    set ylabel sprintf('throughput (million %s/s)', punit[k + 1])
    unset xlabel
    do for [j = 1:3] {
        i = 3 * k + j
        if (gname[i] ne '') {
            set label 20 + j gwords(gname[i]) at first (gx0[i] + gx1[i]) / 2, graph 0.97 center font ',9' tc rgb '#4d4d4d'
            if (j > 1) { set arrow 30 + j from first gx0[i] - 0.9, graph 0 to first gx0[i] - 0.9, graph 1 nohead dt 2 lw 1 lc rgb '#999999' back }
        }
    }
    if (k == NP - 1) { set key at screen right + 0.01, screen top left top Left reverse font ',10' }
    plot datafile index B_SL using (column(sl_x)):(inp(k) ? M6(sl_median_ops_per_s) : NaN):(M6(sl_lo_ops_per_s)):(M6(sl_hi_ops_per_s)):(colour(0)) \
             with yerrorbars pt 0 lw 1.5 lc rgb variable notitle, \
         datafile index B_SL using (column(sl_x)):(inp(k) && column(sl_message) == 1 ? M6(sl_median_ops_per_s) : NaN) \
             with points pt 7 ps 1.6 lc rgb 'white' notitle, \
         datafile index B_SL using (column(sl_x)):(inp(k) ? M6(sl_median_ops_per_s) : NaN):(ptype(0)):(colour(0)) \
             with points pt variable ps (1.6) lw 2 lc rgb variable notitle, \
         datafile index B_SL using (column(sl_x)):(column(sl_panel) == k && column(sl_harness_slot) == 1 ? M6(sl_median_ops_per_s) : NaN):(M6(sl_lo_ops_per_s)):(M6(sl_hi_ops_per_s)) \
             with yerrorbars pt 0 lw 1.5 lc rgb '#3a3a3a' notitle, \
         datafile index B_SL using (column(sl_x) - 0.35):(column(sl_panel) == k && column(sl_harness_slot) == 1 ? M6(sl_median_ops_per_s) : NaN):(0.7):(0) \
             with vectors nohead lw 5 lc rgb '#3a3a3a' notitle, \
         datafile index B_SL using (column(sl_x)):(column(sl_panel) == k && column(sl_bound) == 1 ? M6(sl_median_ops_per_s) : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#595959' notitle, \
         datafile index B_SL using (column(sl_x)):(column(sl_panel) == k && column(sl_oversubscribed) == 1 ? M6(sl_median_ops_per_s) : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 13 ps 1.8 lc rgb '#2ca02c' title (k_ring ? 'NumaRing' : ''), \
         NaN with points pt 7 ps 1.5 lc rgb '#2b4a8b' title (k_peer ? 'the field''s queues' : ''), \
         NaN with points pt 7 ps 1.4 lc rgb '#8c8c8c' title (k_floor ? 'floor: moves no data' : ''), \
         NaN with lines lw 5 lc rgb '#3a3a3a' title (k_harness ? 'harness alone (null queue)' : ''), \
         NaN with points pt 6 ps 1.5 lw 2 lc rgb '#2b4a8b' title (k_message ? 'hollow: message items (takes no inline items)' : ''), \
         NaN with impulses lw 1.5 lc rgb 'black' title 'whisker: the median''s interval', \
         NaN with points pt 6 ps 3 lw 1.5 lc rgb '#595959' title (k_bound ? 'ringed: within 20% of the harness alone' : ''), \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title (k_over ? 'oversubscribed: threads share CPUs' : '')
}
unset multiplot
