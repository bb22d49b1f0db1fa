/*
 * run.h - one run of numaring-bench inside the program: the state the main
 * thread shares with the producer and consumer threads (workers.c), the
 * placement of those threads (placement.c) and the result the report
 * (report.c) writes. bench.c puts them together.
 *
 * Who writes what: each producer and consumer struct is written by its own
 * thread only, except `sent`/`received`/`done`, which the main thread (and,
 * for unbounded queues, the producers) read while the run goes on; those
 * sit on a line pair of their own. The main thread writes `phase`, `t_start`
 * and `t_end`; the workers read them.
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
#include "numaring_topology.h"
#include "options.h"
#include "queue.h"

#define HB_LINE 128 /* x86 moves lines in pairs: keep writers 128 bytes apart */
#define HB_MAX_BURST 4096
#define HB_ERRLEN 256

enum hb_phase { PH_START, PH_WARMUP, PH_MEASURE, PH_STOP_PRODUCERS, PH_STOP_CONSUMERS, PH_ABORT };

struct hb_run;

struct hb_producer {
	alignas(HB_LINE) struct hb_run *run;
	unsigned id;
	int cpu, pin_errno;
	struct hb_msg *pool;   /* message mode: `window` messages, reused in turn */
	uint64_t quota;        /* --ops: measured items to send */
	uint64_t timed_sum;    /* checksum of the timed values sent (item.h) */
	uint64_t sent_measured;
	uint64_t full_retries, window_waits;
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

struct hb_consumer {
	alignas(HB_LINE) struct hb_run *run;
	unsigned id;
	int cpu, pin_errno;
	struct hdr_hist *hist;
	struct hb_tally *tally; /* per producer: what arrived in its name */
	uint64_t *dups;         /* message mode, per producer: messages not in flight */
	uint64_t bad;           /* values naming no producer */
	uint64_t empty_polls;
	struct hq_stats st;
	int have_stats;
	struct hb_thread_counters ctr; /* --counters: opened by the thread, read by main */
	char err[HB_ERRLEN];
	pthread_t th;
	int started;
	/* read by the main thread (and producers of unbounded queues) */
	alignas(HB_LINE) _Atomic uint64_t received;
};

struct hb_run {
	const struct hb_options *o;
	const struct hq_ops *ops;
	void *q;
	enum hb_item_kind item;
	unsigned np, nc;
	uint64_t sample_mask;        /* sample - 1 */
	unsigned burst_enq, burst_deq; /* 1: single operations */
	uint64_t interval;           /* open loop: ticks between a producer's sends; 0 closed */
	uint64_t window;             /* message pool per producer; in-flight bound of unbounded queues */
	uint64_t quota_total;        /* --ops (0: timed) */
	int measured;                /* the measured run: --counters and likwid markers cover its window */
	struct hb_producer *prod;
	struct hb_consumer *cons;
	pthread_barrier_t barrier;
	int barrier_ready;
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
	struct hq_stats st;
	uint64_t full_retries, empty_polls, window_waits;
	unsigned pin_failures;
	const char *verify;
	struct hb_counter_totals ctr; /* --counters over the measured window (counters.h) */
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

/* ---- workers.c ---- */
void *hb_producer_main(void *arg);
void *hb_consumer_main(void *arg);

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
/* CPU of each thread (producers first, then consumers); -1: not pinned.
 * Returns 0, or 2 after printing a message. */
int hb_plan_cpus(const struct hb_options *o, const struct numaring_topology *t, int *cpu);
/* A note on stderr when the plan crowds threads on a CPU while another idles. */
void hb_warn_crowding(const struct hb_options *o, const struct numaring_topology *t, const int *cpu);
/* Pin the calling thread to cpu (>= 0); the error number goes to *pin_errno. */
void hb_pin_self(int cpu, int *pin_errno);

/* ---- report.c ---- */
struct hb_report {
	const struct hb_options *o;
	const struct numaring_topology *t;
	const int *cpus;
	const struct hb_run *run; /* the measured run (threads' pinning) */
	const struct hb_measure *m;
	const struct hb_calibration *cal;
	const char *lookup_in_force; /* "" when the queue has no look-up */
	char topo_spec[1024];
	char host[256];
	char start_time[64];
};
/* summary.csv, latency.hgrm, latency.csv and meta.json, each written whole.
 * Returns 0, or HB_EXIT_CANNOT_WRITE after printing why. */
int hb_write_results(const struct hb_report *r, const struct hdr_hist *hist);
/* --schema: column,type,description of summary.csv. */
void hb_print_schema(FILE *f);
/* --show-topology. Returns the exit status. */
int hb_show_topology(const struct hb_options *o);
const char *hb_topology_origin(const struct hb_options *o);
void hb_topology_spec(const struct hb_options *o, const struct numaring_topology *t, char *buf,
		      size_t len);

#endif /* HB_RUN_H */
