# SPDX-License-Identifier: BSD-2-Clause
# peers-regimes.gp - the supplement's peers figure (the diagnostics behind
# peers-throughput): NumaRing and its peer queues, producers and consumers
# apart (prodcons), single operations and bursts side by side, a row for inline
# items and, where measured, one for message items (the payload's cache line
# travels too). Each queue's runs are split by (pace, regime)
# (scripts/common/regime.py): a closed-loop run lands near empty or full by chance,
# and the two differ several-fold: each group is drawn apart, never pooled.
# Shape per regime (circle near-empty, square full, triangle open loop), fill
# per pace (free filled, producer-paced hollow, consumer-paced hollow with a
# dot), n beside a dot where a queue's runs split. One thread count (a small
# host): the queues on x, a dot per group with its median's interval, the
# queue's ceiling a short black bar over its slot, the harness alone a grey
# dash-dot level. Several: lines against threads (dash per pace), the
# ceilings as dashed lines. faa has no message items and ck no bursts: not in
# those panels.
# Where the host ran the peers under pairs (every thread enqueues, then
# dequeues), a row: each data-moving queue's operations/s (one thread
# count: a dot and its whisker per queue, the queues on x; several: lines
# against threads), inline items filled, message items hollow, the lost races
# per 1,000 operations of the queues that count them; under mixed (each
# operation an enqueue or a dequeue at random), a row of its own, the same way.
# Only the peers sweep's named configuration (no local work, pin compact).
# The gnuplot twin of scripts/figures/plot.py's peers-regimes figure (fig_peers.py).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/supplement/data/peers-regimes.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host and one line of what is drawn
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'peers-regimes.dat'
if (!exists("outfile")) outfile = 'peers-regimes.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'Peers: throughput by queue, each regime apart'
# Blocks, each with its '# columns:' line (scripts/tests check every xx_<column>
# = N below against it): 0 prodcons (pc_), 1 the ceiling model (ce_), 2 the
# harness alone (hn_), 3 the peers under pairs (pp_; panels 0-1; mixed 2-3;
# has_pairs 0: none ran).
B_PC = 0
B_CE = 1
B_HN = 2
B_PAIRS = 3
pc_panel = 1
pc_queue = 4
pc_qidx = 5
pc_threads = 8
pc_x = 9
pc_median_ops_per_s = 10
pc_lo_ops_per_s = 11
pc_hi_ops_per_s = 12
pc_n = 13
pc_color_rgb = 15
pc_pt = 16
pc_dot = 17
pc_dt = 18
pc_harness_bound = 20
pc_oversubscribed = 21
pc_categorical = 22
pc_nqueues = 23
pc_shown_n = 24
ce_panel = 1
ce_threads = 3
ce_x0 = 4
ce_ceiling_ops_per_s = 5
ce_color_rgb = 6
ce_categorical = 7
hn_panel = 1
hn_threads = 2
hn_median_ops_per_s = 3
pp_panel = 1
pp_queue = 2
pp_qidx = 3
pp_message = 4
pp_threads = 5
pp_x = 6
pp_median_ops_per_s = 7
pp_min_ops_per_s = 8
pp_max_ops_per_s = 9
pp_color_rgb = 11
pp_lost_per_1000 = 12
pp_oversubscribed = 13
pp_harness_ops_per_s = 14
pp_harness_row = 15
pp_categorical = 16
pp_nqueues = 17
pp_has_pairs = 18
isnum(v) = (v == v)
has(v) = (exists("STATS_records") && STATS_records > 0)
hex(c) = sprintf('#%06x', int(c))
M6(c) = column(c) / 1e6
# the prodcons panels: 0 inline single operations, 1 inline bursts, 2 message
# single operations, 3 message bursts (M rows of two)
undefine STATS_*
stats datafile index B_PC using (column(pc_panel)) nooutput
M = int(STATS_max) / 2 + 1
undefine STATS_*
stats datafile index B_PC using (column(pc_categorical)) nooutput
one_t = int(STATS_max)
stats datafile index B_PC using (column(pc_nqueues)) nooutput
NQX = int(STATS_max)
stats datafile index B_PC using (column(pc_shown_n)) nooutput
shown_n = int(STATS_max)
undefine STATS_*
stats datafile index B_PC using (isnum(column(pc_median_ops_per_s)) ? column(pc_threads) : NaN) nooutput
tmin = has(0) ? STATS_min : 1
tmax = has(0) ? STATS_max : 1
# the queues of each panel, named (one thread count: the x axis)
array pq[4 * NQX]
array pn[4]
do for [k = 1:4] { pn[k] = 0 }
do for [k = 1:4 * NQX] { pq[k] = '' }
stats datafile index B_PC using (!isnum(column(pc_panel)) ? NaN : \
    (pq[int(column(pc_panel)) * NQX + int(column(pc_qidx)) + 1] = strcol(pc_queue), \
     pn[int(column(pc_panel)) + 1] = column(pc_nqueues), 0)) nooutput
# the queues' colours (several thread counts: the key)
array qc[4 * NQX]
do for [k = 1:4 * NQX] { qc[k] = 0 }   # (a panel without runs, e.g. no single operations: still a colour)
stats datafile index B_PC using (!isnum(column(pc_panel)) ? NaN : \
    (qc[int(column(pc_panel)) * NQX + int(column(pc_qidx)) + 1] = column(pc_color_rgb), 0)) nooutput
# the regimes and paces drawn (the key names only those)
undefine STATS_*
stats datafile index B_PC using ((column(pc_pt) == 7 || column(pc_pt) == 6) ? 1 : NaN) nooutput
r_ne = has(0)
undefine STATS_*
stats datafile index B_PC using ((column(pc_pt) == 5 || column(pc_pt) == 4) ? 1 : NaN) nooutput
r_full = has(0)
undefine STATS_*
stats datafile index B_PC using ((column(pc_pt) == 9 || column(pc_pt) == 8) ? 1 : NaN) nooutput
r_open = has(0)
undefine STATS_*
stats datafile index B_PC using (column(pc_dt) == 2 ? 1 : NaN) nooutput
s_prod = has(0)
undefine STATS_*
stats datafile index B_PC using (column(pc_dt) == 3 ? 1 : NaN) nooutput
s_cons = has(0)
undefine STATS_*
stats datafile index B_PC using (column(pc_oversubscribed) == 1 ? 1 : NaN) nooutput
otitle = has(0) ? 'oversubscribed: threads share CPUs' : ''
undefine STATS_*
stats datafile index B_CE using (column(ce_ceiling_ops_per_s)) nooutput
has_ceiling = has(0)
undefine STATS_*
stats datafile index B_HN using (column(hn_median_ops_per_s)) nooutput
has_harness = has(0)
# the rows of panel k, of one dash
inp(k) = (column(pc_panel) == k)
Y(k) = inp(k) ? M6(pc_median_ops_per_s) : NaN
hollow(k) = inp(k) && (int(column(pc_pt)) % 2 == 0)
# the rows of the symmetric workloads (pairs: panels 0-1, mixed: 2-3): which
# are there, their shape
isnum(v) = (v == v)
array hasw[2]
do for [w = 0:1] {
    undefine STATS_*
    stats datafile index B_PAIRS using (isnum(column(pp_has_pairs)) && column(pp_has_pairs) == 1 && int(column(pp_panel)) / 2 == w ? 1 : NaN) nooutput
    hasw[w + 1] = (exists("STATS_records") && STATS_records > 0) ? 1 : 0
}
P = hasw[1] + hasw[2]
R = M + P
# (its shape read before any range is set: stats count only the points inside them;
# the plot styles are macros, set before the blocks that use them)
undefine STATS_*
stats datafile index B_PAIRS using (isnum(column(pp_categorical)) ? column(pp_categorical) : NaN) nooutput
cat = int(STATS_max)
stats datafile index B_PAIRS using (isnum(column(pp_nqueues)) ? column(pp_nqueues) : NaN) nooutput
NQ = (exists("STATS_records") && STATS_records > 0) ? int(STATS_max) : 1
stats datafile index B_PAIRS using (isnum(column(pp_message)) ? column(pp_message) : NaN) nooutput
two = (STATS_max > STATS_min) ? 1 : 0
stats datafile index B_PAIRS using (isnum(column(pp_threads)) ? column(pp_threads) : NaN) nooutput
ptmin = STATS_min; ptmax = STATS_max
# per panel (bursts b, + 2 under mixed): its queues by slot (ck has no bursts:
# the slots differ)
array qname[4 * NQ]
array qcolor[4 * NQ]
array pnq[4]
do for [k = 1:4] { pnq[k] = 0 }
do for [i = 1:4 * NQ] { qname[i] = ''; qcolor[i] = 0 }
stats datafile index B_PAIRS using (!isnum(column(pp_qidx)) ? NaN : \
    (qname[int(column(pp_panel)) * NQ + int(column(pp_qidx)) + 1] = strcol(pp_queue), \
     qcolor[int(column(pp_panel)) * NQ + int(column(pp_qidx)) + 1] = column(pp_color_rgb), \
     pnq[int(column(pp_panel)) + 1] = column(pp_nqueues), 0)) nooutput
hex(c) = sprintf('#%06x', int(c))
lost(v) = (v < 10 ? sprintf('%.2g', v) : sprintf('%.0f', v))
# the rows of lost races along the bottom (one thread count): their share
# of the axes' height and each row's height (inline, message)
f = two ? 0.25 : 0.18
# the rows of a panel (b: its bursts), of a queue and item mode in it
inb(bb) = (column(pp_panel) == bb)
sel(bb, q, k) = (inb(bb) && column(pp_qidx) == q && column(pp_message) == k)
haslost(bb) = (inb(bb) && isnum(column(pp_lost_per_1000)))
M6(c) = column(c) / 1e6
lnote1 = cat ? 'along the bottom: lost races' : 'lost N: lost races'
lnote2 = 'per 1,000 operations'
array srow[2]
srow[1] = two ? 0.1 : 0.025
srow[2] = 0.025
W = 1700; H = 200 + 520 * R
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
bottom = (ncap * 15.0 + 75 + 45 * P) / H   # the pairs row: its queue names slanted
# log axes: label 2 and 5 between the decades too
logtics = 'do for [e = -12:12] { set ytics add (2 * 10.0**e, 5 * 10.0**e) }'
set grid lc rgb '#e0e0e0'
set border 3
set tics nomirror
htitle = has_harness ? 'harness alone (null queue)' : ''
ctitle = has_ceiling ? 'ceiling (model)' : ''
cdt = one_t ? 1 : 2   # (dt takes no parenthesised expression: that is a dash pattern)
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') tc rgb (emulated ? '#b00000' : 'black')
set ylabel 'throughput (million items/s)'
top = 1.0 - 80.0 / H
gap = (P ? 135.0 : 125.0) / H
ph = (top - bottom - gap * (R - 1)) / R
do for [m = 0:M - 1] {
do for [b = 0:1] {
    k = 2 * m + b
    set title (m == 0 ? 'inline items' : 'message items: the payload''s line travels too') . "\n" . (b == 0 ? 'single operations' : 'bursts (burst = batch items)')
    set tmargin at screen (top - m * (ph + gap))
    set bmargin at screen (top - m * (ph + gap) - ph)
    if (b == 0) { set lmargin at screen 0.055; set rmargin at screen 0.37; unset key } else { set lmargin at screen 0.43; set rmargin at screen 0.745; if (m == 0) { set key at screen 0.755, screen top left top Left reverse } else { unset key } }
    unset logscale
    unset arrow
    set ytics autofreq
    set autoscale xy   # (stats count only the points inside the ranges set)
    # this panel's values: the intervals, the harness, the ceiling (at most 30x the data)
    undefine STATS_*
    stats datafile index B_PC using (inp(k) && isnum(column(pc_lo_ops_per_s)) ? M6(pc_lo_ops_per_s) : NaN) nooutput
    if (!has(0)) {
        set label 10 sprintf('no %s in these results', b ? 'bursts' : 'single operations') at graph 0.5, graph 0.5 center font ',12' tc rgb '#666666'
        unset border; unset tics; unset xlabel; unset ylabel
        set xrange [0:1]; set yrange [0:1]
        plot NaN notitle
        unset label 10
        set border 3; set tics nomirror; set ylabel 'throughput (million items/s)'
        continue
    }
    ylo = STATS_min
    stats datafile index B_PC using (inp(k) ? M6(pc_hi_ops_per_s) : NaN) nooutput
    yhi = STATS_max
    dmax = yhi
    if (has_harness) { undefine STATS_*; stats datafile index B_HN using (column(hn_panel) == k ? M6(hn_median_ops_per_s) : NaN) nooutput; if (has(0)) { yhi = (STATS_max > yhi ? STATS_max : yhi); ylo = (STATS_min < ylo ? STATS_min : ylo) } }
    if (has_ceiling) { undefine STATS_*; stats datafile index B_CE using (column(ce_panel) == k ? M6(ce_ceiling_ops_per_s) : NaN) nooutput; if (has(0)) { c = (STATS_max > 30 * dmax ? 30 * dmax : STATS_max); yhi = (c > yhi ? c : yhi) } }
    if (ylo > 0 && yhi / ylo > 20) { set logscale y; eval logtics; set yrange [ylo / 1.35 : yhi * 1.35] } else { set yrange [0 : yhi * 1.12] }
    if (one_t) {
        nq = pn[k + 1]
        set xrange [-0.6 : nq - 0.4]
        set xtics () rotate by 30 right
        do for [q = 0:nq - 1] { set xtics add (pq[k * NQX + q + 1] q) }
        set xlabel 'queue'
        if (has_harness) {
            undefine STATS_*
            stats datafile index B_HN using (column(hn_panel) == k ? M6(hn_median_ops_per_s) : NaN) nooutput
            if (has(0)) { set arrow 5 from graph 0, first STATS_max to graph 1, first STATS_max nohead dt 4 lw 2.5 lc rgb '#3a3a3a' back }
        }
    } else {
        set xtics () norotate
        set xtics autofreq
        set xrange [tmin / 1.25 : tmax * 1.25]
        if (tmax / tmin >= 4) { set logscale x 2 }
        set xlabel 'threads (producers + consumers)'
    }
    plot for [d = 1:3] datafile index B_PC using (column(pc_x)):(!one_t && column(pc_dt) == d ? Y(k) : NaN):(column(pc_color_rgb)) \
             with lines dt d lw 2 lc rgb variable notitle, \
         datafile index B_PC using (column(pc_x)):(Y(k)):(M6(pc_lo_ops_per_s)):(M6(pc_hi_ops_per_s)):(column(pc_color_rgb)) \
             with yerrorbars ps 0 lw 1.2 lc rgb variable notitle, \
         datafile index B_PC using (column(pc_x)):(hollow(k) ? Y(k) : NaN) \
             with points pt 7 ps (one_t ? 1.6 : 1.1) lc rgb 'white' notitle, \
         datafile index B_PC using (column(pc_x)):(Y(k)):(column(pc_pt)):(column(pc_color_rgb)) \
             with points pt variable ps (one_t ? 1.6 : 1.1) lw 2 lc rgb variable notitle, \
         datafile index B_PC using (column(pc_x)):(column(pc_dot) == 1 ? Y(k) : NaN):(column(pc_color_rgb)) \
             with points pt 7 ps 0.45 lc rgb variable notitle, \
         datafile index B_PC using (column(pc_x)):(one_t && shown_n ? Y(k) : NaN):(sprintf('%d', column(pc_n))) \
             with labels left offset 0.9, -0.7 font ',8' tc rgb '#595959' notitle, \
         datafile index B_PC using (column(pc_x)):(column(pc_harness_bound) == 1 ? Y(k) : NaN) \
             with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
         datafile index B_PC using (column(pc_x)):(column(pc_oversubscribed) == 1 ? Y(k) : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         datafile index B_CE using (column(ce_x0)):(one_t && column(ce_panel) == k ? M6(ce_ceiling_ops_per_s) : NaN):(0.72):(0) \
             with vectors nohead lw 3 lc rgb 'black' notitle, \
         datafile index B_CE using (column(ce_threads)):(!one_t && column(ce_panel) == k ? M6(ce_ceiling_ops_per_s) : NaN):(column(ce_color_rgb)) \
             with lines dt 2 lw 2 lc rgb variable notitle, \
         datafile index B_HN using (column(hn_threads)):(!one_t && column(hn_panel) == k ? M6(hn_median_ops_per_s) : NaN) \
             with linespoints dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' notitle, \
         for [q = 0:NQX - 1] NaN with lines lw 2 lc rgb hex(qc[q + 1]) title (one_t || pq[q + 1] eq '' ? '' : pq[q + 1]), \
         NaN with points pt 7 ps 1.5 lc rgb '#4d4d4d' title (r_ne ? 'near-empty (the consumer waits)' : ''), \
         NaN with points pt 5 ps 1.5 lc rgb '#4d4d4d' title (r_full ? 'full (the producer waits)' : ''), \
         NaN with points pt 9 ps 1.5 lc rgb '#4d4d4d' title (r_open ? 'open loop' : ''), \
         NaN with linespoints dt 2 pt 6 ps 1.5 lw 2 lc rgb '#4d4d4d' title (s_prod ? 'producer-paced (hollow)' : ''), \
         NaN with linespoints dt 3 pt 6 ps 1.5 lw 2 lc rgb '#4d4d4d' title (s_cons ? 'consumer-paced (hollow, dot)' : ''), \
         NaN with lines lw (one_t ? 3 : 2) dt cdt lc rgb 'black' title ctitle, \
         NaN with lines dt 4 lw 2.5 lc rgb '#3a3a3a' title htitle, \
         NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
         NaN with lines lw 0 lc rgb '#ffffff' title (one_t && shown_n ? 'n beside a dot: its runs' : '')
    unset arrow 5
}
}

# ---- the rows of pairs and mixed ---------------------------------------------------
row = 0
do for [w = 0:1] {
    if (!hasw[w + 1]) { continue }
    m = M + row
    row = row + 1
    do for [bb = 0:1] {
        b = 2 * w + bb
        unset logscale
        unset label
        unset arrow
        unset object
        unset key
        set autoscale xy
        set label 99 caption at screen 0.01, screen (ncap * 15.0 + 2) / H left front font ',9'
        set tmargin at screen (top - m * (ph + gap))
        set bmargin at screen (top - m * (ph + gap) - ph)
        if (bb == 0) { set lmargin at screen 0.055; set rmargin at screen 0.37 } else { set lmargin at screen 0.43; set rmargin at screen 0.745 }
        set title (w == 0 ? "pairs: every thread enqueues, then dequeues\n" : "mixed: each operation an enqueue or a dequeue at random\n") . (bb == 0 ? 'single operations' : 'bursts (burst = batch items)') . (cat ? sprintf(' - %g threads', ptmin) : '')
        set ylabel 'throughput (million operations/s)'
        undefine STATS_*
        stats datafile index B_PAIRS using (isnum(column(pp_panel)) && column(pp_panel) == b ? column(pp_max_ops_per_s) / 1e6 : NaN) nooutput
        have = exists("STATS_records") && STATS_records > 0
        if (!have) {
            set label 10 sprintf('%s: no %s in these results', w ? 'mixed' : 'pairs', bb ? 'bursts' : 'single operations') at graph 0.5, graph 0.5 center font ',12' tc rgb '#666666'
            unset border; unset tics; unset xlabel; unset ylabel
            set xrange [0:1]; set yrange [0:1]
            plot NaN notitle
            set border 3; set tics nomirror
            continue
        }
        pmax = STATS_max
        stats datafile index B_PAIRS using (isnum(column(pp_panel)) && column(pp_panel) == b ? column(pp_min_ops_per_s) / 1e6 : NaN) nooutput
        pmin = STATS_min
        # the harness alone, per item mode: a grey level (dotted: message items)
        array hlev[2]
        do for [k = 0:1] {
            undefine STATS_*
            stats datafile index B_PAIRS using (isnum(column(pp_panel)) && column(pp_panel) == b && column(pp_message) == k && column(pp_harness_row) == 1 ? column(pp_harness_ops_per_s) / 1e6 : NaN) nooutput
            hlev[k + 1] = (exists("STATS_records") && STATS_records > 0) ? STATS_max : NaN
            if (hlev[k + 1] == hlev[k + 1]) { pmax = (hlev[k + 1] > pmax ? hlev[k + 1] : pmax) }
        }
        if (pmin > 0 && pmax / pmin >= 20) {
            logy = 1
            yhi = pmax * 1.35; ylo = pmin / 1.35
        } else {
            logy = 0
            yhi = pmax * 1.12; ylo = 0
        }
        if (cat) {
            # room under the lowest whisker for the rows of lost races
            ylo = logy ? yhi / (yhi / ylo) ** (1.0 / (1.0 - f)) : yhi - (yhi - ylo) / (1.0 - f)
            sep = logy ? ylo * (yhi / ylo) ** f : ylo + f * (yhi - ylo)
            # value tics above the rows only: 1, 2, 5 per decade
            set ytics ()
            if (logy) {
                do for [e = -3:12] { do for [d = 1:3] { v = (d == 3 ? 5 : d) * 10.0**e; if (v >= sep && v <= yhi) { set ytics add (sprintf('%g', v) v) } } }
            } else {
                set ytics 0, (yhi > 1000 ? 500 : (yhi > 200 ? 100 : (yhi > 40 ? 20 : (yhi > 10 ? 5 : 1))))
            }
            set object 1 rect from graph 0, graph 0 to graph 1, graph f * 0.97 fc rgb '#f5f5f5' fs solid noborder behind
            set label 2 'lost races per 1,000 operations' at first -0.8, graph (srow[1] + 0.075) left font ',8' tc rgb '#4d4d4d' front
            if (two) {
                set label 3 '●' at first -0.55, graph (srow[1] + 0.02) center font ',9' tc rgb '#595959' front
                set label 4 '○' at first -0.55, graph (srow[2] + 0.02) center font ',9' tc rgb '#595959' front
            }
            set xrange [-0.85 : pnq[b + 1] - 0.15]
            set xtics () rotate by 30 right
            do for [q = 0:pnq[b + 1] - 1] { set xtics add (qname[b * NQ + q + 1] q) }
            set xlabel 'queue'
        } else {
            set ytics autofreq
            set xtics () norotate
            set xtics autofreq
            set xrange [ptmin / 1.25 : ptmax * 1.25]
            if (ptmax / ptmin >= 4) { set logscale x 2 }
            set xlabel (w == 0 ? 'threads (each enqueues, then dequeues)' : 'threads (each enqueues or dequeues at random)')
        }
        if (logy) { set logscale y }
        set yrange [ylo : yhi]
        yat(fr) = logy ? ylo * (yhi / ylo) ** fr : ylo + fr * (yhi - ylo)
        if (hlev[1] == hlev[1] && cat) { set arrow 5 from graph 0, first hlev[1] to graph 1, first hlev[1] nohead dt 4 lw 2.5 lc rgb '#3a3a3a' }
        if (hlev[2] == hlev[2] && cat) { set arrow 6 from graph 0, first hlev[2] to graph 1, first hlev[2] nohead dt 3 lw 2.5 lc rgb '#3a3a3a' }
        if (bb == 1 && row == 1) { set key at screen 0.755, screen (top - m * (ph + gap)) left top Left reverse font ',10' } else { unset key }
        plot for [q = 0:NQ - 1] for [k = 0:1] datafile index B_PAIRS \
                 using (column(pp_x)):(sel(b, q, k) ? M6(pp_median_ops_per_s) : NaN):(M6(pp_min_ops_per_s)):(M6(pp_max_ops_per_s)) \
                 with yerrorlines dt 1+k*(1-cat) pt 7-k ps 1.3 lw 2 lc rgb hex(qcolor[b * NQ + q + 1]) notitle, \
             datafile index B_PAIRS using (column(pp_x)):(inb(b) && column(pp_oversubscribed) == 1 ? M6(pp_median_ops_per_s) : NaN) \
                 with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
             datafile index B_PAIRS using (column(pp_qidx)):(cat && haslost(b) ? yat(srow[int(column(pp_message)) + 1]) : NaN):(lost(column(pp_lost_per_1000))):(column(pp_color_rgb)) \
                 with labels center offset 0, 0.5 font ',9' tc rgb variable notitle, \
             datafile index B_PAIRS using (column(pp_x)):(!cat && haslost(b) ? M6(pp_median_ops_per_s) : NaN):('lost ' . lost(column(pp_lost_per_1000))):(column(pp_color_rgb)) \
                 with labels left offset 1, 0 font ',9' tc rgb variable notitle, \
             for [k = 0:1] datafile index B_PAIRS using (column(pp_x)):(!cat && inb(b) && column(pp_message) == k && column(pp_harness_row) == 1 ? M6(pp_harness_ops_per_s) : NaN) \
                 with lines dt 4-k lw 2.5 lc rgb '#3a3a3a' notitle, \
             for [q = 0:NQ - 1] NaN with linespoints pt 7 lw 2 lc rgb hex(qcolor[q + 1]) title (cat || qname[q + 1] eq '' ? '' : qname[q + 1]), \
             NaN with points pt 7 ps 1.3 lc rgb '#4d4d4d' title 'inline items', \
             NaN with points pt 6 ps 1.3 lw 2 lc rgb '#4d4d4d' title (two ? 'message items' : ''), \
             NaN with lines dt 4 lw 2.5 lc rgb '#3a3a3a' title (hlev[1] == hlev[1] ? 'harness alone, inline items' : ''), \
             NaN with lines dt 3 lw 2.5 lc rgb '#3a3a3a' title (two && hlev[2] == hlev[2] ? 'harness alone, message items' : ''), \
             NaN with lines lw 0 lc rgb '#ffffff' title lnote1, \
             NaN with lines lw 0 lc rgb '#ffffff' title lnote2
    }
}
unset multiplot
