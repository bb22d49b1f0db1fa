/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe.h - numaring-bench --probe: measure the host itself, for the
 * physical ceiling model (the highest throughput a queue of this design can
 * reach on this machine).
 *
 * hp_probe_run() writes <outdir>/probe.csv, one tidy table:
 *
 *   kind,cpu_a,cpu_b,node_a,node_b,value,spread,unit,method
 *
 * Fields that do not apply are empty. Node ids are queue node indices of the
 * topology passed in (emulated ones when it is emulated). Every value is a
 * median of several batches; spread is the p90-p10 width of the batches for
 * measured rows and the min..max width for summaries. The kinds:
 *
 *   c2c_rtt                 one cache-line round trip a->b->a between two pinned
 *                           threads (ping-pong on one 64-byte line), ns; every
 *                           ordered pair of distinct CPUs up to HP_ALL_PAIRS_MAX_CPUS
 *                           CPUs (HP_QUICK_ALL_PAIRS_MAX_CPUS quick), a sample
 *                           above (method "pingpong-median-sampled")
 *   c2c_same_node           median of the pair medians within a node (min..max)
 *   c2c_other_node          the same across nodes
 *   c2c_one_way_same_node   half of c2c_same_node: one line transfer
 *   c2c_one_way_other_node  half of c2c_other_node
 *   lookup_ns               ns per node look-up; method = the mode (libnuma,
 *                           syscall, table, rseq, rdpid), "<mode>-unsupported"
 *                           with an empty value where the host lacks it
 *   pause_ns                ns per spin-wait hint (PAUSE on x86, YIELD on arm64),
 *                           the unit of the ring's PAUSE and EXP backoffs: on
 *                           the first CPU, per batch (the time of a loop of N
 *                           hints less that of the same loop empty) / N, N =
 *                           20000 (5000 quick); median of the batches (method
 *                           "pause-loop-less-empty-loop"; "pause-unsupported"
 *                           with an empty value where there is no hint). From
 *                           about 10 to about 140 cycles across x86
 *                           generations; in a guest with pause-loop exiting the
 *                           loop exits to the hypervisor, and the value
 *                           includes that, as the backoff's spins do
 *   handover_stamped_ns     one hand-over timed as the harness times an item:
 *                           the producer reads the clock (hc_now) and writes the
 *                           stamp into a line; the consumer polls it as the
 *                           harness's consumers poll an empty queue
 *                           (hb_idle_poll) and reads the clock when it changes;
 *                           an acknowledgement on a second line makes every
 *                           hand-over find the consumer polling. Median over
 *                           100000 hand-overs (20000 quick) of consumer's clock
 *                           - stamp, ns, on the first two CPUs of the first node
 *                           with two (method "stamp-poll-stamp-median"; no row
 *                           without such a node). Against c2c_one_way_same_node
 *                           it is the instrument's share of a measured latency
 *   faa_contended_ns        ns per atomic fetch-and-add, 2 threads on one line,
 *                           on the pair with the lowest round trip
 *   faa_uncontended_ns      the same, one thread alone
 *   faa_contended_other_node_ns
 *                           faa_contended_ns on the pair across nodes with the
 *                           lowest round trip: a line fought over from two nodes
 *                           (only where two nodes have CPUs)
 *   c2c_bw_same_node_gbs    cache-to-cache streaming, GB/s: one thread writes
 *                           256 lines (one store each: modified in its cache),
 *                           another CPU's thread then reads them all (independent
 *                           loads), timed per round; median over the rounds. The
 *                           first two CPUs of the first node that has two (method
 *                           "stream-256-lines-1pair"): the rate one thread can pull
 *                           lines another core has just written, as a queue's
 *                           consumer pulls cells
 *   c2c_bw_other_node_gbs   the same, writer on the first CPU's node, reader on
 *                           the first other node with CPUs
 *   c2c_bw_mt_same_node_gbs every CPU of that node in such pairs at once (2k, 2k+1),
 *                           the sum of the pairs' medians ("...-sum-of-<k>pairs");
 *                           only with >= 4 CPUs on the node. Quick mode gives k
 *                           pairs 1/k of one pair's rounds each (at least 200):
 *                           the same lines in all as one pair moves
 *   c2c_bw_mt_other_node_gbs
 *                           min(CPUs of the two nodes) pairs across them at once,
 *                           writers on the first CPU's node; only with >= 2 pairs
 *   bw_local_gbs            read bandwidth of one pinned thread from its own
 *                           node's memory, GB/s (10^9 bytes/s), for every node
 *                           with CPUs and memory
 *   bw_remote_gbs           the same from another node's memory: from the node
 *                           of the first CPU to every other node with memory;
 *                           only with >= 2 real nodes, never on an emulated one
 *                           With >= 2 real nodes and not quick: likwid-bench
 *                           -t load, one thread, 3 runs (method
 *                           "likwid-bench-load-1thread", spread min..max);
 *                           else, or where likwid cannot place the thread on
 *                           the node, a built-in read loop over 256 MiB from
 *                           numa_alloc_onnode ("builtin-read-onnode"). One
 *                           node or emulated: one bw_local_gbs row, built-in
 *                           loop; on an emulated topology, or without NUMA,
 *                           the buffer is not placed ("builtin-read-unplaced",
 *                           node_b empty).
 *   bw_local_mt_gbs         read bandwidth of many threads at once, GB/s: the
 *                           CPUs of a node each read a buffer of their own on the
 *                           node (512 MiB in all, 256 quick, >= 32 MiB each); the
 *                           aggregate of a pass runs from the first thread's start
 *                           to the last one's end; median of the passes. One row
 *                           per node with CPUs and memory (method
 *                           "builtin-read-<N>threads-onnode"); on one node or
 *                           without NUMA, the first CPU's node; on an emulated
 *                           topology every CPU of the topology (its nodes share one
 *                           memory), buffers not placed ("...-unplaced", node_b
 *                           empty)
 *   bw_remote_mt_gbs        the CPUs of the first CPU's node reading another
 *                           node's memory at once; only with >= 2 real nodes
 *   meta                    one fact per row, named by method: topology
 *                           (real/emulated), clock, timer_overhead_ns, nodes,
 *                           cpus, rounds, mode
 */
#ifndef HP_PROBE_H
#define HP_PROBE_H

#include <stddef.h>
#include <stdio.h>

#include "numaring_topology.h"

/* With more CPUs than this, c2c_rtt measures a sample of the pairs. Quick
 * mode samples from fewer: in a QEMU TCG guest (make vm-experiments: 16
 * CPUs) a round trip waits for two vCPU threads to run at once, and the 240
 * pairs of 16 CPUs took minutes on a busy 2-CPU host. */
#define HP_ALL_PAIRS_MAX_CPUS	    16
#define HP_QUICK_ALL_PAIRS_MAX_CPUS 8

struct hp_opts {
	int quick;		  /* fewer round trips and batches (tests, small machines) */
	unsigned rounds;	  /* round trips per CPU pair (0: 20000; quick: 2000) */
	const char *likwid_bench; /* path; NULL: look for likwid-bench on PATH; "": never use it */
	FILE *progress;		  /* one line per step, or NULL */
};

/*
 * hp_probe_run - measure the host for topology t (see numaring_topology_get) and
 * write <outdir>/probe.csv whole: a temporary file in outdir, renamed over
 * probe.csv at the end; on error no file is left (an older probe.csv is left
 * as it was). outdir must exist. o may be NULL (defaults). Calls hc_init()
 * if the harness clock has not been calibrated yet. Every measuring thread
 * is pinned with pthread_setaffinity_np; the caller's affinity is not
 * changed. Not to be run concurrently with other measurements.
 *
 * Returns 0, or -errno with a sentence in err:
 *   -EINVAL  t has no CPU, or the clock could not be set up (NUMARING_CLOCK)
 *   -ENOMEM  an allocation failed
 *   other    creating, writing or renaming the file failed (-EACCES,
 *            -ENOENT, -ENOTDIR, -ENOSPC, ...), a thread could not be
 *            created or pinned (the error pthread_setaffinity_np gave, -EIO
 *            if the thread then ran elsewhere), likwid-bench named by
 *            o->likwid_bench is not executable (-ENOENT/-EACCES)
 */
int hp_probe_run(const struct numaring_topology *t, const char *outdir, const struct hp_opts *o,
		 char *err, size_t errlen);

/* ---- exposed for the tests ------------------------------------------- */

/*
 * hp_likwid_load - run `likwid-bench -t load` once with one thread of
 * likwid's memory domain M<cpu_dom> reading `bytes` placed in M<mem_dom>.
 * *gbs: the bandwidth it reports (MByte/s / 1000); *hwthread: the CPU it ran
 * on. Returns 0, or -errno with err set (not executable, non-zero exit, no
 * result in its output, more than 60 s).
 */
int hp_likwid_load(const char *likwid_bench, unsigned cpu_dom, unsigned mem_dom, size_t bytes,
		   double seconds, double *gbs, int *hwthread, char *err, size_t errlen);

/*
 * hp_likwid_domains - parse the output of `likwid-bench -p`: dom[k] gets the
 * CPUs of memory domain M<k> (cleared first). Returns the number of M
 * domains (the highest k + 1), 0 when there is none, at most maxdom.
 */
int hp_likwid_domains(const char *text, cpu_set_t *dom, int maxdom);

#endif /* HP_PROBE_H */
