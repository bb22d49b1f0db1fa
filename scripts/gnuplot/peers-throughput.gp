# peers-throughput.gp - throughput vs threads for NumaRing and its peer queues,
# single operations and bursts side by side; one row for inline items and, where
# measured, one for message items (the payload's cache line travels too); with
# the physical ceiling and the harness's own (the null queue, grey dash-dot).
# Those rows: producers and consumers apart (prodcons). Where the host ran the
# peers under pairs (every thread enqueues, then dequeues), a last row: each
# data-moving queue's operations/s (one thread count: a dot and its whisker per
# queue, the queues on x; several: lines against threads), inline items filled,
# message items hollow, the lost races per 1,000 operations of the queues that
# count them (along the bottom; beside the points with several thread counts).
# The gnuplot twin of scripts/plot.py's peers-throughput figure.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/peers-throughput.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: host, CPU, real or EMULATED nodes, reps, ceiling
#   note      optional: the finding's number for this host, shown under the title
#   figtitle  optional: the title (plot.py passes the one that says what varies)
if (!exists("datafile")) datafile = 'peers-throughput.dat'
if (!exists("outfile")) outfile = 'peers-throughput.png'
if (!exists("caption")) caption = ''
if (!exists("note")) note = ''
if (!exists("figtitle")) figtitle = 'Peers: throughput by queue and threads'
# Blocks: 0..N-4 one per queue (first line its name; columns threads median min
# max reps color_rgb ceiling bursts message harness_bound oversubscribed; ringed
# where harness_bound is 1, a black x where oversubscribed is 1), one
# sub-block per panel: bursts 0
# single operations, 1 bursts; message 0 inline items, 1 message items.
# N-3 the physical ceiling (threads ceiling color bursts message), N-2 the harness
# alone, the null queue (threads median min max reps bursts message; NaN: not measured),
# N-1 the peers under pairs: its columns by name below (has_pairs 0: none ran).
# block "pairs (every thread enqueues, then dequeues)": pp_<column> = its number
# in the block's '# columns:' line (scripts/tests/test_peers_pairs_figure.py
# checks every one against the data file)
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
undefine STATS_*
stats datafile using 1 nooutput
N = STATS_blocks
B_CEIL = N - 3
B_HARN = N - 2
B_PAIRS = N - 1
undefine STATS_*
stats datafile index 0:(N - 4) using 9 nooutput
M = int(STATS_max) + 1
undefine STATS_*
stats datafile index 0:(N - 4) using 1 nooutput
# one thread count: points with error bars, not lines
sty = (STATS_min == STATS_max) ? 'yerrorbars' : 'yerrorlines'
# the queues side by side at each thread count (as plot.py's dodger): one thread
# count, a linear axis around it; several, a fraction of a doubling
one_t = (STATS_min == STATS_max)
ct = STATS_min
NB = N - 3
dx(x, i) = (NB < 2 ? x : (one_t ? x + 0.22 * (i / (NB - 1.0) - 0.5) : x * 2**(0.22 * (i / (NB - 1.0) - 0.5))))
undefine STATS_*
stats datafile index 0:(N - 4) using ($11 == 1 ? 1 : NaN) nooutput
otitle = (exists("STATS_records") && STATS_records > 0) ? 'oversubscribed: threads share CPUs' : ''
# the pairs row: whether it is there, its shape
isnum(v) = (v == v)
undefine STATS_*
stats datafile index B_PAIRS using (isnum(column(pp_has_pairs)) ? column(pp_has_pairs) : NaN) nooutput
P = (exists("STATS_records") && STATS_records > 0 && STATS_max == 1) ? 1 : 0
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
array qname[NQ]
array qcolor[NQ]
stats datafile index B_PAIRS using (!isnum(column(pp_qidx)) ? NaN : \
    (qname[int(column(pp_qidx)) + 1] = strcol(pp_queue), \
     qcolor[int(column(pp_qidx)) + 1] = column(pp_color_rgb), 0)) nooutput
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
W = 1500; H = 180 + 500 * R
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

undefine STATS_*
stats datafile index B_CEIL using 2 nooutput
has_ceiling = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index B_HARN using 2 nooutput
has_harness = exists("STATS_records") && STATS_records > 0
undefine STATS_*
stats datafile index 0:(N - 4) using 3 nooutput
ymin = STATS_min; ymax = STATS_max
if (has_ceiling) { stats datafile index B_CEIL using 2 nooutput; ymax = (STATS_max > ymax * 30 ? ymax * 30 : (STATS_max > ymax ? STATS_max : ymax)) }
if (has_harness) { stats datafile index B_HARN using 2 nooutput; ymax = (STATS_max > ymax ? STATS_max : ymax); ymin = (STATS_min < ymin ? STATS_min : ymin) }
htitle = has_harness ? 'harness alone (null queue)' : ''
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') tc rgb (emulated ? '#b00000' : 'black')
# a run that moved nothing (throughput 0) leaves no log scale
if (ymin > 0 && ymax / ymin > 20) { set logscale y; eval logtics; set yrange [ymin / 1.4e6 : ymax * 1.4e-6] } else { set yrange [0 : ymax * 1.15e-6] }
if (one_t) { set xrange [ct - 0.5 : ct + 0.5]; set xtics (sprintf('%g', ct) ct) } else { set logscale x 2 }
set xlabel 'threads (producers + consumers)'
set ylabel 'throughput (million items/s)'
top = 1.0 - 80.0 / H
gap = (P ? 115.0 : 95.0) / H
ph = (top - bottom - gap * (R - 1)) / R
do for [m = 0:M - 1] {
do for [b = 0:1] {
    set title (m == 0 ? 'inline items' : 'message items: the payload''s line travels too') . ' - ' . (b == 0 ? 'single operations' : 'bursts (burst = batch items)')
    set tmargin at screen (top - m * (ph + gap))
    set bmargin at screen (top - m * (ph + gap) - ph)
    if (b == 0) { set lmargin at screen 0.06; set rmargin at screen 0.40; unset key } else { set lmargin at screen 0.46; set rmargin at screen 0.80; if (m == 0) { set key at screen 0.81, screen top left top Left reverse } else { unset key } }
    if (has_ceiling) {
        plot for [i = 0:N - 4] datafile index i using (dx($1, i)):($8 == b && $9 == m ? $2 / 1e6 : NaN):($3 / 1e6):($4 / 1e6):6 \
                 with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
             for [i = 0:N - 4] datafile index i using (dx($1, i)):($8 == b && $9 == m && $10 == 1 ? $2 / 1e6 : NaN) \
                 with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
             for [i = 0:N - 4] datafile index i using (dx($1, i)):($8 == b && $9 == m && $11 == 1 ? $2 / 1e6 : NaN) \
                 with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
             NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
             datafile index B_CEIL using 1:(!one_t && $4 == b && $5 == m ? $2 / 1e6 : NaN):3 with lines dt 2 lw 2 \
                 lc rgb variable title 'physical ceiling (model)', \
             datafile index B_CEIL using ($1 - 0.13):(one_t && $4 == b && $5 == m ? $2 / 1e6 : NaN):(0.26):(0):3 \
                 with vectors nohead lw 2.5 lc rgb variable notitle, \
             datafile index B_HARN using 1:($6 == b && $7 == m ? $2 / 1e6 : NaN) with linespoints \
                 dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' title htitle
    } else {
        plot for [i = 0:N - 4] datafile index i using (dx($1, i)):($8 == b && $9 == m ? $2 / 1e6 : NaN):($3 / 1e6):($4 / 1e6):6 \
                 with @sty lw 2 pt 7 ps 0.9 lc rgb variable title columnheader(1), \
             for [i = 0:N - 4] datafile index i using (dx($1, i)):($8 == b && $9 == m && $10 == 1 ? $2 / 1e6 : NaN) \
                 with points pt 6 ps 3 lw 1.5 lc rgb '#3a3a3a' notitle, \
             for [i = 0:N - 4] datafile index i using (dx($1, i)):($8 == b && $9 == m && $11 == 1 ? $2 / 1e6 : NaN) \
                 with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
             NaN with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' title otitle, \
             datafile index B_HARN using 1:($6 == b && $7 == m ? $2 / 1e6 : NaN) with linespoints \
                 dt 4 lw 2.5 pt 3 ps 1.5 lc rgb '#3a3a3a' title htitle
    }
}
}

# ---- the pairs row ----------------------------------------------------------------
if (P) {
    m = M
    do for [b = 0:1] {
        unset logscale
        unset label
        unset arrow
        unset object
        unset key
        set autoscale xy
        set label 99 caption at screen 0.01, screen (ncap * 15.0 + 2) / H left front font ',9'
        set tmargin at screen (top - m * (ph + gap))
        set bmargin at screen (top - m * (ph + gap) - ph)
        if (b == 0) { set lmargin at screen 0.06; set rmargin at screen 0.40 } else { set lmargin at screen 0.46; set rmargin at screen 0.80 }
        set title "pairs: every thread enqueues, then dequeues\n" . (b == 0 ? 'single operations' : 'bursts (burst = batch items)') . (cat ? sprintf(' - %g threads', ptmin) : '')
        set ylabel 'throughput (million operations/s)'
        undefine STATS_*
        stats datafile index B_PAIRS using (isnum(column(pp_panel)) && column(pp_panel) == b ? column(pp_max_ops_per_s) / 1e6 : NaN) nooutput
        have = exists("STATS_records") && STATS_records > 0
        if (!have) {
            set label 10 sprintf('pairs: no %s in these results', b ? 'bursts' : 'single operations') at graph 0.5, graph 0.5 center font ',12' tc rgb '#666666'
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
                set ytics autofreq
            }
            set object 1 rect from graph 0, graph 0 to graph 1, graph f * 0.97 fc rgb '#f5f5f5' fs solid noborder behind
            set label 2 'lost races per 1,000 operations' at first -0.8, graph (srow[1] + 0.075) left font ',8' tc rgb '#4d4d4d' front
            if (two) {
                set label 3 '●' at first -0.55, graph (srow[1] + 0.02) center font ',9' tc rgb '#595959' front
                set label 4 '○' at first -0.55, graph (srow[2] + 0.02) center font ',9' tc rgb '#595959' front
            }
            set xrange [-0.85 : NQ - 0.15]
            set xtics () rotate by 30 right
            do for [q = 0:NQ - 1] { set xtics add (qname[q + 1] q) }
            set xlabel 'queue'
        } else {
            set ytics autofreq
            set xtics () norotate
            set xtics autofreq
            set xrange [ptmin / 1.25 : ptmax * 1.25]
            if (ptmax / ptmin >= 4) { set logscale x 2 }
            set xlabel 'threads (each enqueues, then dequeues)'
        }
        if (logy) { set logscale y }
        set yrange [ylo : yhi]
        yat(fr) = logy ? ylo * (yhi / ylo) ** fr : ylo + fr * (yhi - ylo)
        if (hlev[1] == hlev[1] && cat) { set arrow 5 from graph 0, first hlev[1] to graph 1, first hlev[1] nohead dt 4 lw 2.5 lc rgb '#3a3a3a' }
        if (hlev[2] == hlev[2] && cat) { set arrow 6 from graph 0, first hlev[2] to graph 1, first hlev[2] nohead dt 3 lw 2.5 lc rgb '#3a3a3a' }
        if (b == 1) { set key at screen 0.81, screen (top - m * (ph + gap)) left top Left reverse font ',10' } else { unset key }
        plot for [q = 0:NQ - 1] for [k = 0:1] datafile index B_PAIRS \
                 using (column(pp_x)):(sel(b, q, k) ? M6(pp_median_ops_per_s) : NaN):(M6(pp_min_ops_per_s)):(M6(pp_max_ops_per_s)) \
                 with yerrorlines dt 1+k*(1-cat) pt 7-k ps 1.3 lw 2 lc rgb hex(qcolor[q + 1]) notitle, \
             datafile index B_PAIRS using (column(pp_x)):(inb(b) && column(pp_oversubscribed) == 1 ? M6(pp_median_ops_per_s) : NaN) \
                 with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
             datafile index B_PAIRS using (column(pp_qidx)):(cat && haslost(b) ? yat(srow[int(column(pp_message)) + 1]) : NaN):(lost(column(pp_lost_per_1000))):(column(pp_color_rgb)) \
                 with labels center offset 0, 0.5 font ',9' tc rgb variable notitle, \
             datafile index B_PAIRS using (column(pp_x)):(!cat && haslost(b) ? M6(pp_median_ops_per_s) : NaN):('lost ' . lost(column(pp_lost_per_1000))):(column(pp_color_rgb)) \
                 with labels left offset 1, 0 font ',9' tc rgb variable notitle, \
             for [k = 0:1] datafile index B_PAIRS using (column(pp_x)):(!cat && inb(b) && column(pp_message) == k && column(pp_harness_row) == 1 ? M6(pp_harness_ops_per_s) : NaN) \
                 with lines dt 4-k lw 2.5 lc rgb '#3a3a3a' notitle, \
             for [q = 0:NQ - 1] NaN with linespoints pt 7 lw 2 lc rgb hex(qcolor[q + 1]) title (cat ? '' : qname[q + 1]), \
             NaN with points pt 7 ps 1.3 lc rgb '#4d4d4d' title 'inline items', \
             NaN with points pt 6 ps 1.3 lw 2 lc rgb '#4d4d4d' title (two ? 'message items' : ''), \
             NaN with lines dt 4 lw 2.5 lc rgb '#3a3a3a' title (hlev[1] == hlev[1] ? 'harness alone, inline items' : ''), \
             NaN with lines dt 3 lw 2.5 lc rgb '#3a3a3a' title (two && hlev[2] == hlev[2] ? 'harness alone, message items' : ''), \
             NaN with lines lw 0 lc rgb '#ffffff' title lnote1, \
             NaN with lines lw 0 lc rgb '#ffffff' title lnote2
    }
}
unset multiplot
