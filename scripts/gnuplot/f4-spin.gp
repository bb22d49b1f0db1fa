# SPDX-License-Identifier: BSD-2-Clause
# f4-spin.gp - F4: the throughput change against none by spin length. The
# gnuplot twin of scripts/figures/plot.py's f4-spin figure, from the same
# prepared data: a panel per backoff (pause: its fixed spin, exp: its cap, in
# PAUSEs, log 2 on x), each spin's paired median change against the none runs
# of the same points with its interval, f4-backoff's setting dotted, the
# study's -15..-30% (prodcons, 32 workers, 2 nodes) as a band, "not
# exercised" where none lost < 1 race per 1,000 operations.
#
# Variables (gnuplot -e "datafile='...'; outfile='...'; caption='...'"):
#   datafile  the data file plot.py --gnuplot writes (plots/<host>/data/f4-spin.dat)
#   outfile   the PNG to write
#   caption   lines under the plot: the host, then what is drawn
#   figtitle  optional: the title
if (!exists("datafile")) datafile = 'f4-spin.dat'
if (!exists("outfile")) outfile = 'f4-spin.png'
if (!exists("caption")) caption = ''
if (!exists("figtitle")) figtitle = 'F4: throughput change against none by spin length'

# The data file's blocks (index) and the columns this script reads, by name:
# <prefix>_<column> = its number in the block's '# columns:' line
B_SPINS = 0
B_PANELS = 1
# block "spins"
sp_panel = 1
sp_spin = 3
sp_change_pct = 4
sp_ci_lo_pct = 5
sp_ci_hi_pct = 6
sp_color_rgb = 8
sp_oversubscribed = 12
# block "panels"
pn_panel = 1
pn_backoff = 2
pn_default_spin = 3
pn_exercised = 4
pn_none_failed_per_1000 = 5
pn_study_lo_pct = 6
pn_study_hi_pct = 7
pn_min_spin = 8
pn_max_spin = 9

isnum(v) = (v == v)
undefine STATS_*
stats datafile index B_PANELS using (column(pn_panel)) nooutput
NP = int(STATS_max) + 1
array bname[NP]
array dflt[NP]
array ex[NP]
array nf[NP]
array slo[NP]
array shi[NP]
array smin[NP]
array smax[NP]
stats datafile index B_PANELS using (!isnum(column(pn_panel)) ? NaN : \
    (i = int(column(pn_panel)) + 1, bname[i] = strcol(pn_backoff), \
    dflt[i] = column(pn_default_spin), ex[i] = column(pn_exercised), \
    nf[i] = column(pn_none_failed_per_1000), slo[i] = column(pn_study_lo_pct), \
    shi[i] = column(pn_study_hi_pct), smin[i] = column(pn_min_spin), \
    smax[i] = column(pn_max_spin), 0)) nooutput
any_over = 0
undefine STATS_*
stats datafile index B_SPINS using (column(sp_oversubscribed) == 1 ? 1 : NaN) nooutput
if (exists("STATS_records") && STATS_records > 0) { any_over = 1 }
bwords(b) = (b eq 'pause' ? 'pause: a fixed spin' : (b eq 'exp' ? 'exp: exponential, up to its cap' : b))
mn(a, b) = (a < b ? a : b)
mx(a, b) = (a > b ? a : b)

PW = 480.0
PH = 430.0
LPAD = 25.0
LEG = 300.0
TOP = 60.0
ncap = (caption eq '') ? 0 : 1
do for [i = 1:strlen(caption)] { if (caption[i:i] eq "\n") { ncap = ncap + 1 } }
W = int(LPAD + NP * PW + LEG)
H = int(TOP + PH + 70 + ncap * 15.0)
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size W, H font 'DejaVu Sans,11' noenhanced
} else {
    set terminal png size W, H noenhanced
}
set encoding utf8
set micro
set output outfile
emulated = strstrt(caption, 'EMULATED') > 0
set label 99 caption at screen 0.01, screen (ncap * 15.0 + 2) / H left front font ',9'
lm(c) = (LPAD + c * PW + 95.0) / W
rm(c) = (LPAD + (c + 1) * PW - 25.0) / W
set grid lc rgb '#e0e0e0'
set border 3
set tics nomirror
set style textbox opaque border lc rgb '#999999'
set multiplot title figtitle . (emulated ? '   [EMULATED nodes]' : '') \
    tc rgb (emulated ? '#b00000' : 'black') font ',13'
set tmargin at screen 1.0 - (TOP + 30.0) / H
set bmargin at screen (70.0 + ncap * 15.0 + 40.0) / H
set logscale x 2
set format y '%+g%%'

do for [c = 0:NP - 1] {
    unset key
    unset label 10
    unset arrow 1
    set lmargin at screen lm(c)
    set rmargin at screen rm(c)
    set title bwords(bname[c + 1]) font ',11'
    set ylabel (c == 0 ? 'throughput change vs none (%)' : '')
    set xlabel (bname[c + 1] eq 'exp' ? 'cap (PAUSEs)' : 'spin (PAUSEs)')
    lo = slo[c + 1]
    hi = shi[c + 1]
    if (ex[c + 1] != 0) {
        undefine STATS_*
        stats datafile index B_SPINS using (column(sp_panel) == c ? column(sp_ci_lo_pct) : NaN) nooutput
        if (exists("STATS_records") && STATS_records > 0) { lo = mn(lo, STATS_min) }
        undefine STATS_*
        stats datafile index B_SPINS using (column(sp_panel) == c ? column(sp_ci_hi_pct) : NaN) nooutput
        if (exists("STATS_records") && STATS_records > 0) { hi = mx(hi, STATS_max) }
    } else {
        set label 10 sprintf("not exercised\n(none lost %.2g races per 1,000 operations)", nf[c + 1]) \
            at graph 0.5, graph 0.96 center front boxed font ',9'
    }
    hi = mx(hi, 0)
    span = hi - lo
    set yrange [lo - 0.08 * span : hi + 0.15 * span]
    x0 = mn(smin[c + 1], dflt[c + 1]) / 1.6
    x1 = mx(smax[c + 1], dflt[c + 1]) * 1.6
    set xrange [x0 : x1]
    set xtics ()
    set xtics autofreq
    set xzeroaxis lt -1
    set arrow 1 from first dflt[c + 1], graph 0 to first dflt[c + 1], graph 1 nohead dt 3 lw 1.5 lc rgb '#4d4d4d'
    if (c == NP - 1) {
        set key at screen (rm(c) + 0.012), screen 1.0 - (TOP + 30.0) / H left top Left reverse samplen 1.5 spacing 1.15 font ',10'
    }
    plot datafile index B_PANELS using (column(pn_panel) == c ? sqrt(x0 * x1) : NaN):((column(pn_study_lo_pct) + column(pn_study_hi_pct)) / 2):(x0):(x1):(column(pn_study_lo_pct)):(column(pn_study_hi_pct)) \
             with boxxyerror fs solid 0.55 noborder fc rgb '#ffd27f' notitle, \
         '' index B_SPINS using (column(sp_spin)):(column(sp_panel) == c && ex[c + 1] != 0 ? column(sp_change_pct) : NaN):(column(sp_ci_lo_pct)):(column(sp_ci_hi_pct)):(column(sp_color_rgb)) \
             with yerrorbars pt 7 ps 1.4 lw 1.5 lc rgb variable notitle, \
         '' index B_SPINS using (column(sp_spin)):(column(sp_panel) == c && column(sp_oversubscribed) == 1 && ex[c + 1] != 0 ? column(sp_change_pct) : NaN) \
             with points pt 2 ps 2.5 lw 2.5 lc rgb 'black' notitle, \
         NaN with points pt 7 ps 1.4 lc rgb '#4d4d4d' title 'change vs none', \
         NaN with lines lw 1.5 lc rgb 'black' title 'whisker: its interval', \
         NaN with lines dt 3 lw 1.5 lc rgb '#4d4d4d' title "f4-backoff's setting", \
         (any_over ? NaN : 1/0) with points pt 2 ps 2 lw 2 lc rgb 'black' title (any_over ? 'oversubscribed: threads share CPUs or cores' : ''), \
         NaN with boxes fs solid 0.55 noborder lc rgb '#ffd27f' title "study, prodcons: -15 to -30%\n(32 workers, 2 nodes)"
    unset xzeroaxis
}
unset multiplot
