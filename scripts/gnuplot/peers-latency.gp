# SPDX-License-Identifier: BSD-2-Clause
# peers-latency.gp - closed-loop latency of NumaRing and its peer queues:
# p50 and p99 per queue and (pace, regime) group at the largest thread count,
# single operations and bursts side by side, a row for inline items and, where
# measured, one for message items. In a closed loop the latency is set by how
# full the queue runs (Little: items in flight / throughput), not by the
# queue's hand-over: a full queue's latency is its length. So each group is
# drawn apart (shape per regime: circle near-empty, square full; fill per
# pace: free filled, producer-paced hollow, consumer-paced hollow with a dot),
# never pooled: p50 the mark, p99 the dash right of it, each the median of the
# group's runs with its interval; n beside the mark where a queue's runs split.
# faa records no latency and has no message items, ck no bursts: not drawn there.
# The gnuplot twin of scripts/figures/plot.py's peers-latency figure (fig_peers.py).
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/peers-latency.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host and one line of what is drawn
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'peers-latency.dat'
if (!exists("outfile")) outfile = 'peers-latency.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'Peers: closed-loop latency by queue, each regime apart - set by how full the queue runs, not by its hand-over'
# One block, its columns named in its '# columns:' line; lt_<column> = N below
# (scripts/tests check each against it). panel: 0 inline single operations,
# 1 inline bursts, 2 message single operations, 3 message bursts.
lt_panel = 1
lt_queue = 4
lt_qidx = 5
lt_threads = 7
lt_x = 8
lt_p50_median_ns = 9
lt_p50_lo_ns = 10
lt_p50_hi_ns = 11
lt_p99_median_ns = 12
lt_p99_lo_ns = 13
lt_p99_hi_ns = 14
lt_n = 15
lt_color_rgb = 16
lt_pt = 17
lt_dot = 18
lt_oversubscribed = 19
lt_nqueues = 20
isnum(v) = (v == v)
has(v) = (exists("STATS_records") && STATS_records > 0)
NS(c) = column(c) * 1e-9
DX = 0.07   # p99's dash right of its p50 mark
undefine STATS_*
stats datafile using (column(lt_panel)) nooutput
NPAN = int(STATS_max) + 1
M = (NPAN + 1) / 2
stats datafile using (column(lt_nqueues)) nooutput
NQX = int(STATS_max)
array pq[4 * NQX]
array pn[4]
do for [k = 1:4] { pn[k] = 0 }
do for [k = 1:4 * NQX] { pq[k] = '' }
stats datafile using (!isnum(column(lt_panel)) ? NaN : \
    (pq[int(column(lt_panel)) * NQX + int(column(lt_qidx)) + 1] = strcol(lt_queue), \
     pn[int(column(lt_panel)) + 1] = column(lt_nqueues), 0)) nooutput
array pt_[4]
do for [k = 1:4] { pt_[k] = 0 }
stats datafile using (!isnum(column(lt_panel)) ? NaN : (pt_[int(column(lt_panel)) + 1] = column(lt_threads), 0)) nooutput
# does some queue's runs split into groups (n is then drawn)
undefine STATS_*
stats datafile using (isnum(column(lt_p50_median_ns)) && column(lt_n) > 0 ? column(lt_qidx) + 100 * column(lt_panel) : NaN) nooutput
nrec = has(0) ? STATS_records : 0
split = 0
do for [k = 0:3] { do for [q = 0:NQX - 1] { undefine STATS_*; stats datafile using (column(lt_panel) == k && column(lt_qidx) == q ? 1 : NaN) nooutput; if (has(0) && STATS_records > 1) { split = 1 } } }
undefine STATS_*
stats datafile using ((column(lt_pt) == 7 || column(lt_pt) == 6) ? 1 : NaN) nooutput
r_ne = has(0)
undefine STATS_*
stats datafile using ((column(lt_pt) == 5 || column(lt_pt) == 4) ? 1 : NaN) nooutput
r_full = has(0)
undefine STATS_*
stats datafile using (column(lt_dot) == 1 ? 1 : NaN) nooutput
s_cons = has(0)
undefine STATS_*
stats datafile using (column(lt_dot) == 0 && int(column(lt_pt)) % 2 == 0 ? 1 : NaN) nooutput
s_prod = has(0)
# one y range for every panel (log): the intervals' ends
undefine STATS_*
stats datafile using (isnum(column(lt_p50_lo_ns)) && column(lt_p50_lo_ns) > 0 ? NS(lt_p50_lo_ns) : NaN) nooutput
ymin = has(0) ? STATS_min : 1e-7
undefine STATS_*
stats datafile using (isnum(column(lt_p99_hi_ns)) ? NS(lt_p99_hi_ns) : NaN) nooutput
ymax = has(0) ? STATS_max : 1e-3
W = 1650; H = (M > 1 ? 1250 : 700)
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
bottom = (ncap * 15.0 + 110) / H
logtics = 'do for [e = -12:12] { set ytics add (2 * 10.0**e, 5 * 10.0**e) }'
set grid lc rgb '#e0e0e0'
set grid noxtics
set border 3
set tics nomirror
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') tc rgb (emulated ? '#b00000' : 'black')
set logscale y
eval logtics
set yrange [ymin / 2.0 : ymax * 2.0]
set format y '%.0s %cs'
set ylabel "closed-loop latency, enqueue to dequeue\n(set by the queue's occupancy)"
set xlabel 'queue'
top = 1.0 - 80.0 / H
gap = 160.0 / H
ph = (top - bottom - gap * (M - 1)) / M
sel(k) = (column(lt_panel) == k)
do for [k = 0:NPAN - 1] {
    m = k / 2; b = k % 2
    set title (m == 0 ? 'inline items' : 'message items: the payload''s line travels too') . "\n" . (b == 0 ? 'single operations' : 'bursts') . sprintf(', %d threads', pt_[k + 1])
    set tmargin at screen (top - m * (ph + gap))
    set bmargin at screen (top - m * (ph + gap) - ph)
    if (b == 0) { set lmargin at screen 0.07; set rmargin at screen 0.40; unset key } else { set lmargin at screen 0.47; set rmargin at screen 0.80; if (m == 0) { set key at screen 0.81, screen top left top Left reverse } else { unset key } }
    nq = pn[k + 1]
    set xrange [-0.6 : (nq > 0 ? nq : 1) - 0.4]
    set xtics () rotate by 30 right
    do for [q = 0:nq - 1] { set xtics add (pq[k * NQX + q + 1] q) }
    plot datafile using (column(lt_x)):(sel(k) ? NS(lt_p50_median_ns) : NaN):(column(lt_x) + DX - column(lt_x)):(NS(lt_p99_median_ns) - NS(lt_p50_median_ns)):(column(lt_color_rgb)) \
             with vectors nohead lw 1 lc rgb variable notitle, \
         datafile using (column(lt_x) + DX):(sel(k) ? NS(lt_p99_median_ns) : NaN):(NS(lt_p99_lo_ns)):(NS(lt_p99_hi_ns)):(column(lt_color_rgb)) \
             with yerrorbars ps 0 lw 0.8 lc rgb variable notitle, \
         datafile using (column(lt_x) + DX - 0.09):(sel(k) ? NS(lt_p99_median_ns) : NaN):(0.18):(0):(column(lt_color_rgb)) \
             with vectors nohead lw 3 lc rgb variable notitle, \
         datafile using (column(lt_x)):(sel(k) ? NS(lt_p50_median_ns) : NaN):(NS(lt_p50_lo_ns)):(NS(lt_p50_hi_ns)):(column(lt_color_rgb)) \
             with yerrorbars ps 0 lw 1.2 lc rgb variable notitle, \
         datafile using (column(lt_x)):(sel(k) && int(column(lt_pt)) % 2 == 0 ? NS(lt_p50_median_ns) : NaN) \
             with points pt 7 ps 1.6 lc rgb 'white' notitle, \
         datafile using (column(lt_x)):(sel(k) ? NS(lt_p50_median_ns) : NaN):(column(lt_pt)):(column(lt_color_rgb)) \
             with points pt variable ps 1.6 lw 2 lc rgb variable notitle, \
         datafile using (column(lt_x)):(sel(k) && column(lt_dot) == 1 ? NS(lt_p50_median_ns) : NaN):(column(lt_color_rgb)) \
             with points pt 7 ps 0.45 lc rgb variable notitle, \
         datafile using (column(lt_x)):(sel(k) && split ? NS(lt_p50_median_ns) : NaN):(sprintf('%d', column(lt_n))) \
             with labels left offset 0.9, -0.7 font ',8' tc rgb '#595959' notitle, \
         datafile using (column(lt_x)):(sel(k) && column(lt_oversubscribed) == 1 ? ymax * 1.5 : NaN):('oversubscribed') \
             with labels rotate by 90 right font ',9' notitle, \
         NaN with points pt 7 ps 1.5 lc rgb '#4d4d4d' title 'p50: the mark (shape: regime)', \
         NaN with lines lw 3 lc rgb '#4d4d4d' title 'p99: the dash', \
         NaN with points pt 7 ps 1.5 lc rgb '#4d4d4d' title (r_ne ? 'near-empty (the consumer waits)' : ''), \
         NaN with points pt 5 ps 1.5 lc rgb '#4d4d4d' title (r_full ? 'full (the producer waits)' : ''), \
         NaN with points pt 6 ps 1.5 lw 2 lc rgb '#4d4d4d' title (s_prod ? 'producer-paced (hollow)' : ''), \
         NaN with points pt 6 ps 1.5 lw 2 lc rgb '#4d4d4d' title (s_cons ? 'consumer-paced (hollow, dot)' : ''), \
         NaN with lines lw 0 lc rgb '#ffffff' title "whisker: the median's interval", \
         NaN with lines lw 0 lc rgb '#ffffff' title (split ? 'n beside a mark: its runs' : '')
}
unset multiplot
