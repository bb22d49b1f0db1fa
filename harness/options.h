/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * options.h - numaring-bench's command line: one struct, parsed and checked
 * completely before anything runs. Bad input is one message and exit 2.
 */
#ifndef HB_OPTIONS_H
#define HB_OPTIONS_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "item.h"
#include "item_sum.h"
#include "numaring.h"
#include "numaring_lab.h"
#include "qmem.h"
#include "queue.h"

/* Exit status when the results could not be written (disk full, read-only
 * folder, ...): nothing is left behind, and the experiment runner stops the
 * sweep instead of recording a failed point (every next point would fail the
 * same way). 0 ok, 1 the run failed, 2 bad input. */
#define HB_EXIT_CANNOT_WRITE 3

enum hb_pin {
	HB_PIN_COMPACT, /* fill a node's CPUs before the next node's */
	HB_PIN_SCATTER, /* producers and consumers each round-robin over nodes */
	HB_PIN_SPLIT,   /* producers on the first node, consumers on the last */
	HB_PIN_NONE,    /* leave the scheduler alone */
	HB_PIN_LIST,    /* an explicit cpulist, threads in order P0.., C0.. */
	HB_PIN_NODES,   /* nodes:P/C: producers on node P, consumers on node C */
	HB_PIN_COUNT_
};

/* Which hardware threads of a core the placement may use (--smt). */
enum hb_smt {
	HB_SMT_CORES,    /* one thread per core, on its first CPU: siblings stay idle */
	HB_SMT_SIBLINGS, /* every CPU, a core's hyperthreads one after the other */
	HB_SMT_COUNT_
};

/* What the threads do (--workload). prodcons: producer threads enqueue and
 * consumer threads dequeue; the symmetric workloads give every thread both
 * roles: pairs enqueues then dequeues (Michael and Scott's enqueue-dequeue
 * pairs), mixed enqueues or dequeues at random (workload.c). */
enum hb_workload {
	HB_WORKLOAD_PRODCONS,
	HB_WORKLOAD_PAIRS,
	HB_WORKLOAD_MIXED,
	HB_WORKLOAD_COUNT_
};

/* --strip: the harness's own per-item costs a fidelity diagnostic removes,
 * one at a time (make bench-fidelity's table of where the time goes). Only
 * for a closed-loop prodcons run of inline items through a bounded queue
 * with no work and no --ops: the steps these remove are then not needed to
 * stop, time or verify the run (options.c refuses the rest). */
enum hb_strip {
	HB_STRIP_PUBLISH = 1,    /* a producer's count, stored after each operation for the
				  * main thread's window: stored once, at its end */
	HB_STRIP_WINDOW = 2,     /* a producer's phase, quota and window checks per operation:
				  * the phase read once every 64 operations */
	HB_STRIP_ACCOUNTING = 4, /* a consumer's tallies and checksums: items only counted;
				  * the run verifies totals (verify "count") */
};

/* "publish,window,accounting" <-> enum hb_strip bits. Parse returns 0, or
 * -1 naming nothing it knows (*bad: the first unknown word's start). */
int hb_strip_parse(const char *s, unsigned *out, const char **bad);
/* The bits' names, comma-separated, into buf ("" for 0). */
void hb_strip_names(unsigned strip, char *buf, size_t len);

enum hb_mode { HB_RUN, HB_SHOW_TOPOLOGY, HB_PROBE, HB_SCHEMA, HB_MANIFEST, HB_HELP, HB_VERSION };

struct hb_options {
	enum hb_mode mode;
	const struct hq_ops *queue;
	enum hb_workload workload;
	/* prodcons: the producer and consumer threads. pairs, mixed: both are
	 * `threads`, each thread being producer i and consumer i at once. */
	unsigned producers, consumers;
	unsigned threads;  /* threads of the run: producers + consumers, or --threads */
	double enqueue_share; /* mixed: probability that an operation is an enqueue */
	/* Local work between operations, uniform in 0..bound ns (0: none):
	 * --work for every thread; prodcons' two sides may differ. */
	uint64_t work_ns, producer_work_ns, consumer_work_ns;
	uint64_t work_min_ns;  /* --work MIN-MAX: every side's draws start here (0: at 0) */
	uint64_t seed;     /* of the per-thread generators (mixed's choices, the work) */
	double duration_s; /* 0 when --ops is used */
	uint64_t ops;      /* 0 when --duration is used */
	double warmup_s;
	size_t capacity;        /* the whole queue's slots, or numaring's per ring: */
	int capacity_per_node;  /* 1: --capacity-per-node gave it */
	unsigned batch;
	int bursts;        /* 1: burst operations of `batch` items where the queue has them */
	enum hb_item_kind item; /* inline values or pointers to messages (item.h) */
	unsigned sample;   /* every sample-th item is timed; a power of two */
	enum hb_accounting accounting; /* a consumer's width for a burst (item_sum.h) */
	unsigned strip;    /* enum hb_strip bits: a fidelity diagnostic's removed costs */
	double calibrate_s; /* the null queue's run before the measured one; 0: none */
	enum numaring_lookup lookup;
	unsigned recheck;
	enum numaring_gate gate;
	enum numaring_backoff backoff;
	unsigned linger_us;   /* numaring: take only full batches for this long (0: off) */
	unsigned pause_spin;  /* numaring lab: PAUSEs of backoff pause (0: production's) */
	unsigned exp_cap;     /* numaring lab: backoff exp's cap in PAUSEs (0: production's) */
	const char *topology; /* --topology, or NULL (then NUMARING_TOPOLOGY, else discovery) */
	enum hb_pin pin;
	const char *pin_list; /* HB_PIN_LIST: the cpulist as given */
	cpu_set_t pin_cpus;   /* HB_PIN_LIST: parsed */
	unsigned pin_nodes[2]; /* HB_PIN_NODES: the producers' and the consumers' node */
	enum hb_smt smt;      /* --smt: cores (default) or siblings */
	enum hb_qmem_policy queue_mem; /* --queue-mem: where the queue's memory goes */
	int queue_mem_node;   /* HB_QMEM_NODE: the OS node N of node:N */
	double rate;          /* open loop: items per second over all producers; 0 = closed loop */
	double load;          /* open loop at this fraction of the measured capacity; 0 = none */
	double load_probe_s;  /* --load: seconds of the capacity run */
	double capacity_ops;  /* --load: the capacity, given (items/s); 0 = measure it */
	const char *out;      /* --out DIR, or NULL */
	int verify;
	int counters;         /* --counters: perf_event_open counters over the measured window */
	double drain_timeout_s;
	int quick;            /* --probe: fewer round trips */
	int quiet;
	int argc;
	char **argv;
};

/* Names of enum hb_workload ("prodcons", "pairs", "mixed"), parsed and
 * printed through one table. Parse returns 0, or -1 for an unknown name. */
const char *hb_workload_name(enum hb_workload w);
int hb_workload_parse(const char *s, enum hb_workload *out);

/* 1 for a workload whose every thread enqueues and dequeues. */
static inline int hb_symmetric(const struct hb_options *o)
{
	return o->workload != HB_WORKLOAD_PRODCONS;
}

/* 1 when a run draws random numbers (mixed's choices, the work's lengths):
 * then its seed is part of its configuration. */
static inline int hb_draws(const struct hb_options *o)
{
	return o->workload == HB_WORKLOAD_MIXED || o->work_ns || o->producer_work_ns ||
	       o->consumer_work_ns;
}

/* Names of enum hb_pin, parsed and printed through the same table. */
const char *hb_pin_name(enum hb_pin p);
/* Names of enum hb_smt ("cores", "siblings"), the same way. */
const char *hb_smt_name(enum hb_smt s);

/*
 * hb_parse - parse argv into *o. Returns 0, or 2 after printing one message
 * naming the problem on stderr (the caller exits with it).
 */
int hb_parse(int argc, char **argv, struct hb_options *o);

/* hb_usage - the --help text, listing every option, its values and default. */
void hb_usage(FILE *out);

#endif /* HB_OPTIONS_H */
