/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * run.h - one run of numaring-bench inside the program: the state the main
 * thread shares with the producer and consumer threads (workers.c) or the
 * threads of a symmetric workload (workload.c), the placement of those
 * threads (placement.c) and the result the report (report.c) writes.
 * run.c drives one run from the main thread; bench.c puts the runs of an
 * invocation together.
 *
 * Who writes what: each producer and consumer struct is written by its own
 * thread only, except `sent`/`received`/`done`, which the main thread (and,
 * for unbounded queues, the producers) read while the run goes on; those
 * sit on a line pair of their own. The main thread writes `phase`, `t_start`
 * and `t_end`; the workers read them. In a symmetric workload (pairs,
 * mixed) thread i is producer i and consumer i at once: it writes both
 * structs, and np == nc == nthreads.
 */
#ifndef HB_RUN_H
#define HB_RUN_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "counters.h"
#include "hdr.h"
#include "item.h"
#include "item_sum.h"
#include "numaring_topology.h"
#include "options.h"
#include "qmem.h"
#include "queue.h"
#include "work.h"

#define HB_LINE 128 /* x86 moves lines in pairs: keep writers 128 bytes apart */
#define HB_MAX_BURST 4096
#define HB_ERRLEN 256
/* Latency range of the histograms: 1 ns .. 1 hour, 3 significant digits. */
#define HB_HIST_MAX (INT64_C(3600) * 1000000000)
#define HB_HIST_DIGITS 3

enum hb_phase { PH_START, PH_WARMUP, PH_MEASURE, PH_STOP_PRODUCERS, PH_STOP_CONSUMERS, PH_ABORT };

struct hb_run;

struct hb_producer {
	alignas(HB_LINE) struct hb_run *run;
	unsigned id;
	int cpu, pin_errno;
	int mem_node;          /* OS node of its pool's first page (-1: no pool, unknown) */
	struct hb_msg *pool;   /* message mode: `window` messages, reused in turn */
	uint64_t quota;        /* --ops: measured items to send */
	/* closed loop: the send times of its timed items, slot (seq / sample)
	 * mod run->stamp_mask + 1, each tagged with its lap (item.h); written
	 * by it before the item goes, read by whoever dequeues the item */
	_Atomic uint64_t *stamps;
	/* open loop: the intended send time of its sequence 0 (item.h), stored
	 * before its first item goes */
	_Atomic uint64_t t0;
	uint64_t sent_measured;
	uint64_t full_retries, window_waits;
	uint64_t prefilled;    /* mixed: items it enqueued before the start */
	uint64_t rng;          /* its generator (work.h); a symmetric thread's only one */
	struct hq_stats st;
	int have_stats;
	struct hb_thread_counters ctr; /* --counters: opened by the thread, read by main */
	char err[HB_ERRLEN];
	pthread_t th;
	int started;
	/* read by the main thread (and producers of unbounded queues) */
	alignas(HB_LINE) _Atomic uint64_t sent;
	_Atomic int done;
};

/* A closed-loop timed item whose send time its consumer reads later
 * (record_timed): the stamps are read HB_PENDING at a time, from lines
 * their producer has moved past, rather than one line transfer each while
 * the producer writes the next stamps into the same line (issue 44: the
 * stamp read cost flat's bursts about a twelfth of their throughput on the
 * 2-CPU VM). */
#define HB_PENDING 32
struct hb_pending {
	uint64_t now;      /* the clock at its dequeue */
	uint64_t lap;      /* its sequence >> sample_shift: its stamp's slot and tag */
	uint32_t producer;
	uint32_t path;     /* enum hq_path it came by; HQ_PATH_COUNT_: not said */
};

struct hb_consumer {
	alignas(HB_LINE) struct hb_run *run;
	unsigned id;
	int cpu, pin_errno;
	int mem_node;           /* OS node of its tallies' first page (-1: unknown) */
	struct hdr_hist *hist;
	struct hb_tally *tally; /* per producer: what arrived in its name */
	uint64_t *dups;         /* message mode, per producer: messages not in flight
				 * (in the tallies' mapping, after them) */
	uint64_t bad;           /* values naming no producer */
	/* the order check (item.h): items that came below their producer's
	 * highest sequence seen, the largest step back; the oldest timed item
	 * (ticks from its send time); timed items whose stamp had been
	 * overwritten before it was read (no latency sample) */
	uint64_t inversions, max_step, max_age, stamps_lost;
	uint64_t empty_polls;
	/* prodcons, single inline items: the first sequence of the open run
	 * that consume() keeps in registers (workers_pvt.h, struct hb_run1),
	 * and whether one is open; touched only where that run breaks */
	uint64_t run1_first;
	int run1_open;
	uint64_t rng;           /* prodcons: its generator (work.h) */
	struct hq_stats st;
	int have_stats;
	struct hb_thread_counters ctr; /* --counters: opened by the thread, read by main */
	char err[HB_ERRLEN];
	pthread_t th;
	int started;
	/* latency by path (queue.h), for a queue with hq_ops.dequeue_paths:
	 * HQ_PATH_COUNT_ histograms besides hist (NULL for the other queues:
	 * record_timed's one test), and the thread's handle that the queue is
	 * asked about. Here, in the padding before the line pair below, so that
	 * every other field keeps its offset and the loops their code. */
	struct hdr_hist **path_hist;
	void *handle;
	/* read by the main thread (and producers of unbounded queues) */
	alignas(HB_LINE) _Atomic uint64_t received;
	/* closed loop: its timed items whose stamps it has not read yet
	 * (record_timed, hb_timed_flush); the consumer's own, a line pair
	 * apart from received */
	alignas(HB_LINE) struct hb_pending pending[HB_PENDING];
	unsigned npending;
};

struct hb_run {
	const struct hb_options *o;
	const struct hq_ops *ops;
	void *q;
	enum hb_item_kind item;
	enum hb_workload workload;
	unsigned np, nc;
	unsigned nthreads;           /* threads started: np + nc, or np for a symmetric workload */
	uint64_t enqueue_threshold;  /* mixed: an operation is an enqueue when a draw is below it */
	uint64_t prefill;            /* mixed: items to enqueue before the start, over all threads */
	size_t holds;                /* items the queue holds when full; 0: unbounded */
	/* the work's bounds in iterations of the loop (work.h); 0: none */
	uint64_t work_loops, producer_work_loops, consumer_work_loops;
	uint64_t work_min_loops;     /* every working side's least work (--work MIN-MAX) */
	uint64_t sample_mask;        /* sample - 1 */
	unsigned sample_shift;       /* log2(sample) */
	unsigned stamp_bits;         /* log2(slots of a producer's stamp ring) */
	uint64_t stamp_mask;         /* its slots - 1 */
	unsigned pending_max;        /* timed items a consumer holds before it reads their stamps (record_timed) */
	hb_item_sum_fn *item_sum;    /* a consumer's account of a burst (--accounting) */
	unsigned strip;              /* --strip: enum hb_strip bits (options.h) */
	unsigned burst_enq, burst_deq; /* 1: single operations */
	uint64_t interval;           /* open loop: ticks between a producer's sends; 0 closed */
	uint64_t window;             /* message pool per producer; in-flight bound of unbounded queues */
	uint64_t quota_total;        /* --ops (0: timed) */
	int measured;                /* the measured run: --counters and likwid markers cover its window */
	/* --queue-mem reaches the queue through its workers' memory policy (a
	 * queue that allocates as it runs, a plan that places): each worker
	 * sets it after its own memory, before thread_init, until thread_fini */
	int qmem_threads;
	struct hb_producer *prod;
	struct hb_consumer *cons;
	pthread_barrier_t barrier;
	int barrier_ready;
	int main_cpu;                /* the main thread's own CPU; -1: none */
	int main_pinned, main_pin_errno;
	int main_ran_on;             /* its CPU at the end of the measured window */
	cpu_set_t main_mask;         /* its CPUs before, given back in run_free */
	alignas(HB_LINE) _Atomic int phase;
	_Atomic uint64_t t_start, t_end;
};

/* What one run measured (bench.c fills it, report.c writes it). */
struct hb_measure {
	double duration_s, throughput, enqueue_rate, dequeue_rate;
	double offered_rate; /* open loop: items/s asked for (--rate, or --load x capacity) */
	double capacity;     /* --load: the per-worker capacity run's throughput; 0 without */
	uint64_t ops, enqueued, dequeued, lost, dup, corrupt, bad;
	int64_t p50, p90, p99, p999, max;
	double mean;
	int64_t latency_count;
	/* latency by path (queue.h), where the queue says (paths = 1): each
	 * path's timed items, median and 99th percentile */
	int paths;
	int64_t path_count[HQ_PATH_COUNT_], path_p50[HQ_PATH_COUNT_], path_p99[HQ_PATH_COUNT_];
	uint64_t prefilled; /* mixed: items enqueued before the start */
	/* the order check over the whole run (item.h): inversions, the largest
	 * step back, the oldest timed item; stamps overwritten before read;
	 * whether the order was checked (items travelled and were accounted)
	 * and enforced (bench.c), and whether the check failed */
	uint64_t inversions, max_step, stamps_lost;
	double max_age_ns;
	int ordering_checked, ordering_enforced, ordering_failed;
	struct hq_stats st;
	uint64_t full_retries, empty_polls, window_waits;
	/* fewest / most successful operations of one thread over the whole run
	 * (symmetric: its enqueues + dequeues; prodcons: per role, the lower of
	 * the producers' and the consumers' ratio); -1: not computed */
	double fairness;
	unsigned pin_failures;
	const char *verify;
	struct hb_counter_totals ctr; /* --counters over the measured window (counters.h) */
	/* the run's hand-over distance (pingpong.h): one line's one-way trip
	 * between c2c_cpu[0] (the first producer; thread 0 of a symmetric
	 * workload) and c2c_cpu[1] (the first consumer; thread 1), just before
	 * and just after the measured run; < 0: not measured (a CPU not pinned,
	 * one CPU for both, the trip timed out) */
	int c2c_cpu[2];
	double c2c_before_ns, c2c_after_ns;
	/* the measured run's queue pages by node, at the end of its window
	 * (qmem.h; --queue-mem) */
	struct hb_qmem_pages qpages;
};

/* The harness's own ceiling (the null queue's run, --calibrate). */
struct hb_calibration {
	int done;            /* 0: not run (--calibrate 0, or the queue is null) */
	const char *why_not; /* when not run */
	double seconds;
	double enqueue_rate, dequeue_rate; /* items/s, all producers / all consumers */
	double ceiling;                    /* min of the two */
	double producer_ns, consumer_ns;   /* thread time per item on each side */
};

/* Bytes of a consumer's tallies and duplicate counters (one mapping). */
static inline size_t hb_tally_bytes(const struct hb_run *run)
{
	return run->np * (sizeof(struct hb_tally) + sizeof(uint64_t));
}

/* ---- run.c ---- */

/* What one run of a queue is asked to do. */
struct hb_plan {
	const struct hq_ops *queue;
	const struct hq_params *params;
	const struct hb_placement *place;
	double warmup_s, duration_s; /* duration 0: until `items` went through */
	uint64_t items;
	double rate; /* open loop: items/s over all producers; 0 closed loop */
	const struct hb_work_calibration *work; /* the work loop's speed (--work) */
};

/*
 * The steps of one run, in this order, all on the main thread:
 *
 *   hb_run_setup    zero run, create the queue pl->queue (its adapter's
 *                   create, with pl->params and the run's item kind, under
 *                   --queue-mem's policy: qmem.h), allocate the threads'
 *                   state. 0, or 1/2 after a message (2: the queue refused
 *                   its parameters)
 *   hb_run_start    start the threads; they and the main thread meet at a
 *                   barrier (the main thread pinned to the plan's CPU
 *                   after). 0, or 1 after a message (a thread could not set
 *                   itself up). A thread that cannot be created exits the
 *                   process with status 1: the others wait at the barrier
 *   hb_run_measure  warm-up, the measured window (pl's duration, or until
 *                   pl->items went through; --drain-timeout without
 *                   progress ends it), the queue's pages counted (the
 *                   measured run), stop the producers, drain, join;
 *                   fills m's duration, rates, ops and qpages
 *   hb_run_collect  merge the threads' counts into m (and their histograms
 *                   into hist, unless NULL, and their histograms by path
 *                   into path_hist[], unless NULL), fairness included
 *   hb_run_verify   every producer's count and checksum against what the
 *                   consumers tallied in its name (item.h); fills m's
 *                   lost/dup/corrupt/bad; one line per producer that fails
 *                   on stderr when say
 *   hb_run_verify_totals  --strip accounting's check: all received against
 *                   all sent (lost/dup only; verify "count")
 *   hb_run_free     stop and join every thread still running, destroy the
 *                   queue (and the allocator's chunks of it), free
 *                   everything; run is zeroed. Always, after
 *                   hb_run_setup, whatever it returned (a zeroed run: nothing)
 */
int hb_run_setup(struct hb_run *run, const struct hb_options *o, const struct hb_plan *pl);
int hb_run_start(struct hb_run *run);
void hb_run_measure(struct hb_run *run, const struct hb_plan *pl, struct hb_measure *m);
void hb_run_collect(const struct hb_run *run, struct hb_measure *m, struct hdr_hist *hist,
		    struct hdr_hist *const *path_hist);
void hb_run_verify(const struct hb_run *run, struct hb_measure *m, int say);
void hb_run_verify_totals(const struct hb_run *run, struct hb_measure *m, int say);
void hb_run_free(struct hb_run *run);

/* ---- workers.c ---- */
void *hb_producer_main(void *arg);
void *hb_consumer_main(void *arg);

/* ---- workload.c ---- */
/* Thread i of a symmetric workload; arg is &run->prod[i] (its consumer
 * half is run->cons[i]). */
void *hb_symmetric_main(void *arg);

static inline int hb_phase(struct hb_run *run)
{
	/* Acquire: pairs with the release in hb_set_phase; a thread that sees a
	 * phase also sees t_start/t_end written before it. */
	return atomic_load_explicit(&run->phase, memory_order_acquire);
}

static inline void hb_set_phase(struct hb_run *run, int p)
{
	atomic_store_explicit(&run->phase, p, memory_order_release);
}

/* ---- placement.c ---- */
/* One CPU a run may use, as placement sees it. */
struct hb_cpu {
	int cpu;  /* OS CPU number */
	int node; /* its node: index into the run's topology (real or emulated) */
	int core; /* its core, machine-wide (hwloc's logical index); the CPUs of one
		   * core are its hardware threads (SMT siblings) */
};

/* The CPUs of a run with their cores: what the planner works on. Filled
 * from the topology and hwloc (hb_cpumap_discover), or by hand (tests). */
struct hb_cpumap {
	unsigned n;
	int cores_known;                /* 0: hwloc saw no cores, each CPU counts as one */
	struct hb_cpu cpu[NUMARING_MAX_CPUS]; /* any order */
};

/* The thread placement of one run. */
struct hb_placement {
	int *cpu;     /* per thread, producers first, then consumers; -1: not pinned */
	int main_cpu; /* a CPU no thread uses, for the main thread; -1: none (or --pin none) */
};

/* How the threads of a placement share cores. */
struct hb_sharing {
	int known;                 /* 0: a thread is not pinned (or no CPUs): unknown */
	unsigned threads_per_core; /* most threads on the CPUs of one core */
	int smt_shared;            /* 1: two threads on different CPUs of one core */
	unsigned cores;            /* cores with a thread */
};

/*
 * hb_cpumap_discover - the CPUs of topology t (real or emulated) with their
 * cores from hwloc: an emulated topology's CPUs are real CPUs, whose cores
 * are the machine's. Returns 0, or -1 with err set (hwloc failed).
 */
int hb_cpumap_discover(const struct numaring_topology *t, struct hb_cpumap *m, char *err, size_t errlen);
/* The entry of CPU cpu in m, or NULL. */
const struct hb_cpu *hb_cpumap_find(const struct hb_cpumap *m, int cpu);
/* CPUs and cores of m, and the most CPUs of one core. */
void hb_cpumap_count(const struct hb_cpumap *m, unsigned *cpus, unsigned *cores,
		     unsigned *threads_per_core);

/*
 * hb_place - where each thread runs: a pure function of the pin mode, the
 * SMT policy, the thread counts and the CPU map (the tests feed it
 * synthetic hosts). Within a node, CPUs are taken core by core (cores in
 * increasing core number); --smt cores takes the first CPU of each core
 * only, --smt siblings every CPU of a core before the next core. compact
 * fills the nodes in order, threads P0, C0, P1, C1, ...; scatter gives the
 * i-th producer and the i-th consumer node i mod nodes; split puts the
 * producers on the first node and the consumers on the last; a list is
 * taken as given. Threads beyond the CPUs chosen start over from the first
 * (they share CPUs). The main thread gets a CPU no thread uses, on a core
 * no thread uses if there is one. p->cpu must hold np + nc entries. The
 * threads of a symmetric workload are placed as np producers and nc = 0
 * consumers: compact fills a node's cores before the next node's, scatter
 * gives thread i node i mod nodes, split is refused.
 * Returns 0, or -1 with err set (split on one node or without consumers, a
 * list CPU outside m).
 */
int hb_place(enum hb_pin pin, enum hb_smt smt, unsigned np, unsigned nc, const cpu_set_t *list,
	     const unsigned *nodes, const struct hb_cpumap *m, struct hb_placement *p, char *err,
	     size_t errlen);
/* How the threads of cpu[0..n) share the cores of m (a pure function). */
void hb_sharing_of(const struct hb_cpumap *m, const int *cpu, unsigned n, struct hb_sharing *s);

/* hb_place for the options (a symmetric workload's threads as producers
 * alone); 0, or 2 after printing a message. */
int hb_plan_cpus(const struct hb_options *o, const struct hb_cpumap *m, struct hb_placement *p);
/* A note on stderr when the plan crowds threads on a CPU while another idles. */
void hb_warn_crowding(const struct hb_options *o, const struct numaring_topology *t, const int *cpu);
/* Pin the calling thread to cpu (>= 0); the error number goes to *pin_errno. */
void hb_pin_self(int cpu, int *pin_errno);

/*
 * hb_local_alloc - zeroed memory for the calling thread's own state, placed
 * by first touch: fresh pages (mmap) that the caller, already pinned,
 * touches before anyone else, so Linux takes them from the node of the CPU
 * it runs on (or where the process's memory policy, e.g. numactl
 * --membind, says). *node: the OS node of its first page, -1 if unknown.
 * Returns NULL when out of memory. Free with hb_local_free(p, size).
 */
void *hb_local_alloc(size_t size, int *node);
/* The bytes of a producer's stamp ring (hb_run_setup sizes it). */
static inline size_t hb_stamp_bytes(const struct hb_run *run)
{
	return (size_t)(run->stamp_mask + 1) * sizeof(uint64_t);
}
void hb_local_free(void *p, size_t size);

/* ---- report.c ---- */
struct hb_report {
	const struct hb_options *o;
	const struct numaring_topology *t;
	const int *cpus;
	const struct hb_cpumap *cpumap;  /* the run's CPUs and their cores */
	const struct hb_placement *place;
	struct hb_sharing sharing;       /* how the threads shared cores */
	const struct hb_run *run; /* the measured run (threads' pinning) */
	const struct hb_measure *m;
	const struct hb_calibration *cal;
	const struct hb_work_calibration *work;
	const struct hb_qmem *qmem;      /* where the queue's memory was to go */
	const char *lookup_in_force; /* "" when the queue has no look-up */
	/* numaring: the backoffs' spin lengths in force (PAUSEs), "" for other queues */
	char pause_spin_in_force[16];
	char exp_cap_in_force[16];
	char topo_spec[1024];
	char host[256];
	char start_time[64];
};
/* summary.csv, latency.hgrm, latency.csv and meta.json, each written whole,
 * and latency-path.csv where path_hist is not NULL (the queue has paths:
 * one histogram per enum hq_path). Returns 0, or HB_EXIT_CANNOT_WRITE after
 * printing why. */
int hb_write_results(const struct hb_report *r, const struct hdr_hist *hist,
		     struct hdr_hist *const *path_hist);
/* --schema: column,type,description of summary.csv. */
void hb_print_schema(FILE *f);
/* --show-topology. Returns the exit status. */
int hb_show_topology(const struct hb_options *o);
const char *hb_topology_origin(const struct hb_options *o);
void hb_topology_spec(const struct hb_options *o, const struct numaring_topology *t, char *buf,
		      size_t len);

#endif /* HB_RUN_H */
