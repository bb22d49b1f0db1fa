/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bare_loop.c - the bare loop that numaring-bench is measured against
 * (make bench-fidelity, scripts/bench_fidelity.py).
 *
 * What it is: threads moving items through one queue as fast as they can,
 * with none of the harness's code but its spin-wait (harness/relax.h, so
 * that both wait alike): no adapter layer (harness/queue.h), no clock reads
 * per item, no latency histograms, no verification. Two workloads, as
 * numaring-bench's of the same name:
 *
 *   prodcons  --threads N: N/2 producers and N/2 consumers (1P1C by default).
 *             A producer enqueues increasing counter values (single
 *             operations, or bursts of N with --burst N) and retries when
 *             the queue is full; a consumer dequeues (single or burst) and
 *             counts what it got.
 *   pairs     --threads N (2 by default): each thread enqueues one item (or
 *             a burst), then dequeues once; a full or empty queue is not
 *             retried. It counts the operations that succeeded, enqueued
 *             and dequeued items alike (numaring-bench's pairs, whose
 *             throughput counts operations).
 *
 * Items (--item): inline, the counter value cast to void *; or message, a
 * pointer to a message of the producing thread's pool (value and state, as
 * numaring-bench's struct hb_msg): the producer waits until the message is
 * free, writes the value and marks it in flight; the consumer reads the
 * value and frees it with a release store. That is the least a message
 * costs: the line goes to the consumer and back per item. numaring-bench
 * exchanges the state instead, which also catches a duplicate.
 *
 * Each consumer (pairs: each thread) stores its count in a relaxed atomic
 * on its own line after each dequeue. After a start barrier and a warm-up, the main thread sums
 * the counts at the start and at the end of the measured window and prints
 * one line of CSV:
 *
 *     queue,burst,items_per_s
 *
 * Why: it is the ceiling for the harness's throughput of the same queue in
 * the same shape. numaring-bench's figure divided by this one says how much
 * of what is measured is the queue and how much is the harness around it
 * (issue 44: >= 0.8 with inline items, >= 0.6 with messages).
 *
 * Pinning is that of numaring-bench's default --pin compact: the threads in
 * the order P0, C0, P1, C1, ... (pairs: thread 0, 1, ...) on the CPUs of the
 * process's allowed set (sched_getaffinity) in turn, wrapping when there
 * are more threads than CPUs (with a note: such a run says little). Failed
 * attempts are retried as the harness retries them: hb_idle_poll of
 * harness/relax.h, the harness's own wait (PAUSE, and a sched_yield every
 * 1024 polls).
 *
 * Queues:
 *   flat      the per-node ring used alone, numaring_flat_* of numaring_lab.h,
 *             with the library's default backoff (NUMARING_BACKOFF_DEFAULT,
 *             set by numaring_flat_attach), as harness/peers/flat.c
 *   numaring  the public API of ring/numaring.h, defaults of
 *             numaring_config_init() with --capacity, batch = the burst
 *             (32 for single operations: numaring-bench's default --batch)
 *   rte       DPDK rte_ring MP/MC without EAL, RING_F_EXACT_SZ (as
 *             harness/peers/rte.c)
 *   xenium-vyukov  xenium's vyukov_bounded_queue (xenium_vyukov.cpp): flat's
 *             algorithm in another library, single operations only; no
 *             numaring-bench peer, a check of flat's speed (make
 *             bench-peers prints flat / xenium-vyukov)
 *
 * Usage: bare_loop [--queue flat|numaring|rte|xenium-vyukov] [--burst N]
 *                  [--workload prodcons|pairs] [--threads N] [--item inline|message]
 *                  [--capacity N] [--duration SEC] [--warmup SEC]
 * Exit status: 0 ok, 1 the run failed, 2 bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_ring.h>

#include "clock.h"
#include "errors.h"
#include "numaring.h"
#include "numaring_lab.h"
#include "pingpong.h"
#include "relax.h"
#include "xenium_vyukov.h"

/* two lines: what the library keeps apart (x86 prefetches line pairs) */
#define LINE_PAIR 128

#define MAX_BURST 4096u
#define MAX_CAPACITY (UINT64_C(1) << 30)
#define MAX_SECONDS 3600.0
#define HARNESS_BATCH 32u /* numaring-bench's default --batch */

enum queue_kind { Q_FLAT, Q_NUMARING, Q_RTE, Q_XVYUKOV };

static const char *const queue_names[] = {"flat", "numaring", "rte", "xenium-vyukov"};

enum workload { W_PRODCONS, W_PAIRS };
enum item_kind { I_INLINE, I_MESSAGE };


#define MAX_THREADS 1024u

struct options {
	enum queue_kind queue;
	enum workload workload;
	enum item_kind item;
	unsigned threads; /* prodcons: producers + consumers, half each; pairs: threads */
	unsigned burst;
	uint64_t capacity;
	long cells_at; /* flat: where its cells start past a page boundary; -1: the default */
	double duration_s;
	double warmup_s;
	int hand_over; /* --hand-over: time the first two threads' CPUs' line trip */
};

/* A message (--item message), as numaring-bench's struct hb_msg. */
struct msg {
	uint64_t value;
	_Atomic uint32_t state; /* 1: in flight, 0: free (released by its consumer) */
	uint32_t pad_;
};

/* One thread: its count on its own line pair, so that the main thread's
 * reads do not disturb the others' lines. */
struct worker {
	alignas(LINE_PAIR) _Atomic uint64_t consumed; /* written by this thread only */
	unsigned id;
	int cpu;
	int produces, consumes;
	struct msg *pool; /* producing threads with --item message */
	char err[256];    /* a failure, printed by main */
	int failed;
};

/* Shared state: the stop flag on its own line pair. */
static struct {
	alignas(LINE_PAIR) atomic_int stop; /* written by the main thread, or a failing worker */
	alignas(LINE_PAIR) struct options o;
	void *q;                   /* struct numaring_flat, struct numaring, struct rte_ring or
				      xenium's queue */
	struct worker *w;          /* o.threads of them */
	uint64_t pool_mask;        /* a message pool's size - 1 */
	pthread_barrier_t barrier; /* the workers and main */
} run;

static volatile uintptr_t sink; /* the last item seen: keeps the consumer honest */

/* ---- the queues ------------------------------------------------------ */

/* One worker's handle: what every operation of its queue needs. */
struct handle {
	struct numaring_flat_handle *f; /* flat */
	struct numaring_worker *w;  /* numaring */
};

static int handle_init(struct handle *h, char *err, size_t len)
{
	memset(h, 0, sizeof *h);
	switch (run.o.queue) {
	case Q_FLAT:
		h->f = numaring_flat_attach(run.q);
		if (!h->f) {
			snprintf(err, len, "numaring_flat_attach: out of memory");
			return -1;
		}
		return 0;
	case Q_NUMARING:
		h->w = numaring_worker_attach(run.q);
		if (!h->w) {
			snprintf(err, len, "numaring_worker_attach: %s", numaring_last_error());
			return -1;
		}
		return 0;
	case Q_RTE:
	case Q_XVYUKOV:
		return 0;
	}
	return 0;
}

static void handle_fini(struct handle *h)
{
	if (run.o.queue == Q_NUMARING)
		numaring_worker_detach(h->w);
	if (run.o.queue == Q_FLAT)
		numaring_flat_detach(h->f);
}

static inline int enqueue1(struct handle *h, void *item)
{
	switch (run.o.queue) {
	case Q_FLAT:
		return numaring_flat_enqueue(h->f, item);
	case Q_NUMARING:
		return numaring_enqueue(h->w, item);
	case Q_RTE:
		return rte_ring_mp_enqueue(run.q, item);
	case Q_XVYUKOV:
		return xv_enqueue(run.q, item);
	}
	return -1;
}

static inline int dequeue1(struct handle *h, void **item)
{
	switch (run.o.queue) {
	case Q_FLAT:
		return numaring_flat_dequeue(h->f, item);
	case Q_NUMARING:
		return numaring_dequeue(h->w, item);
	case Q_RTE:
		return rte_ring_mc_dequeue(run.q, item);
	case Q_XVYUKOV:
		return xv_dequeue(run.q, item);
	}
	return -1;
}

static inline unsigned enqueue_burst(struct handle *h, void *const *items, unsigned n)
{
	switch (run.o.queue) {
	case Q_FLAT:
		return numaring_flat_enqueue_burst(h->f, items, n);
	case Q_NUMARING:
		return numaring_enqueue_burst(h->w, items, n);
	case Q_RTE:
		return rte_ring_mp_enqueue_burst(run.q, items, n, NULL);
	case Q_XVYUKOV: /* refused by parse_args */
		break;
	}
	return 0;
}

static inline unsigned dequeue_burst(struct handle *h, void **items, unsigned n)
{
	switch (run.o.queue) {
	case Q_FLAT:
		return numaring_flat_dequeue_burst(h->f, items, n);
	case Q_NUMARING:
		return numaring_dequeue_burst(h->w, items, n);
	case Q_RTE:
		return rte_ring_mc_dequeue_burst(run.q, items, n, NULL);
	case Q_XVYUKOV: /* refused by parse_args */
		break;
	}
	return 0;
}

static void *aligned_zeroed(size_t len)
{
	void *p;
	len = (len + LINE_PAIR - 1) / LINE_PAIR * LINE_PAIR;
	if (posix_memalign(&p, LINE_PAIR, len) != 0)
		return NULL;
	memset(p, 0, len);
	return p;
}

/* Create the queue; called before any thread is pinned (numaring_create
 * takes the allowed CPUs of the calling thread). */
static int queue_create(const struct options *o)
{
	switch (o->queue) {
	case Q_FLAT: {
		struct numaring_flat *r =
			o->cells_at < 0 ? numaring_flat_create((size_t)o->capacity)
					: numaring_flat_create_placed((size_t)o->capacity, (size_t)o->cells_at);
		if (!r) {
			hb_say("flat: out of memory for %llu slots",
			       (unsigned long long)o->capacity);
			return -1;
		}
		run.q = r;
		return 0;
	}
	case Q_NUMARING: {
		struct numaring_config cfg;
		numaring_config_init(&cfg);
		cfg.capacity = (size_t)o->capacity;
		cfg.batch = o->burst > 1 ? o->burst : HARNESS_BATCH;
		if (cfg.batch > cfg.capacity)
			cfg.batch = (unsigned)cfg.capacity;
		run.q = numaring_create(&cfg);
		if (!run.q) {
			hb_say("numaring_create: %s", numaring_last_error());
			return -1;
		}
		return 0;
	}
	case Q_RTE: {
		ssize_t bytes = rte_ring_get_memsize(rte_align32pow2((uint32_t)o->capacity + 1));
		if (bytes < 0) {
			hb_say("rte: rte_ring_get_memsize failed (%zd)", bytes);
			return -1;
		}
		struct rte_ring *r = aligned_zeroed((size_t)bytes);
		if (!r) {
			hb_say("rte: out of memory for %llu slots",
			       (unsigned long long)o->capacity);
			return -1;
		}
		int rc = rte_ring_init(r, "bare_rte", (unsigned)o->capacity, RING_F_EXACT_SZ);
		if (rc < 0) {
			hb_say("rte: rte_ring_init failed: %s", strerror(-rc));
			free(r);
			return -1;
		}
		run.q = r;
		return 0;
	}
	case Q_XVYUKOV:
		run.q = xv_create((size_t)o->capacity);
		if (!run.q) {
			hb_say("xenium-vyukov: out of memory for %llu slots",
			       (unsigned long long)o->capacity);
			return -1;
		}
		return 0;
	}
	return -1;
}

static void queue_destroy(void)
{
	if (run.o.queue == Q_NUMARING)
		numaring_destroy(run.q);
	else if (run.o.queue == Q_FLAT)
		numaring_flat_destroy(run.q);
	else if (run.o.queue == Q_XVYUKOV)
		xv_destroy(run.q);
	else
		free(run.q);
	run.q = NULL;
}

/* ---- the two threads ------------------------------------------------- */

static inline int stopped(void)
{
	/* Relaxed: the flag only ends the loop; nothing is read through it. */
	return atomic_load_explicit(&run.stop, memory_order_relaxed);
}

/* Pin, attach, meet the others at the barrier. Returns 0 to run. */
static int worker_start(struct worker *w, struct handle *h)
{
	cpu_set_t s;
	int e;
	CPU_ZERO(&s);
	CPU_SET(w->cpu, &s);
	e = pthread_setaffinity_np(pthread_self(), sizeof s, &s);
	if (e) {
		snprintf(w->err, sizeof w->err, "cannot pin to CPU %d: %s", w->cpu, strerror(e));
		w->failed = 1;
	} else if (handle_init(h, w->err, sizeof w->err) != 0) {
		w->failed = 1;
	}
	if (w->failed)
		atomic_store(&run.stop, 1);
	pthread_barrier_wait(&run.barrier);
	return w->failed ? -1 : 0;
}

/* items[0..n) of sequences next..next+n-1: values, or messages of w's pool
 * holding them. Returns how many were made: fewer than n only when the
 * run stopped while a message was still in flight. */
static inline unsigned make_items(struct worker *w, uintptr_t next, unsigned n, void **items,
				  int wait)
{
	if (run.o.item == I_INLINE) {
		for (unsigned i = 0; i < n; i++)
			items[i] = (void *)(next + i);
		return n;
	}
	for (unsigned i = 0; i < n; i++) {
		struct msg *m = &w->pool[(next + i) & run.pool_mask];
		uint32_t polls = 0;
		/* Acquire: pairs with the consumer's release store of state, so
		 * its read of the value happens before we overwrite it. */
		while (atomic_load_explicit(&m->state, memory_order_acquire) != 0) {
			if (!wait || stopped())
				return i;
			hb_idle_poll(&polls);
		}
		m->value = next + i;
		/* Relaxed: the queue's own release/acquire hands the message
		 * over together with its value. */
		atomic_store_explicit(&m->state, 1, memory_order_relaxed);
		items[i] = m;
	}
	return n;
}

/* The messages of items[done..made) did not go: free again. */
static inline void unsent_free(void *const *items, unsigned done, unsigned made)
{
	if (run.o.item == I_MESSAGE)
		for (unsigned i = done; i < made; i++)
			atomic_store_explicit(&((struct msg *)items[i])->state, 0,
					      memory_order_relaxed);
}

/* What a consumer does with items[0..got): nothing for values but keep the
 * last; a message's value read, and the message freed. */
static inline uintptr_t take(void *const *items, unsigned got)
{
	if (run.o.item == I_INLINE)
		return (uintptr_t)items[got - 1];
	uintptr_t v = 0;
	for (unsigned i = 0; i < got; i++) {
		struct msg *m = items[i];
		v += m->value;
		/* Release: pairs with the producer's acquire in make_items. */
		atomic_store_explicit(&m->state, 0, memory_order_release);
	}
	return v;
}

static void produce(struct worker *w, struct handle *h)
{
	uintptr_t next = 0;
	unsigned burst = run.o.burst;
	void *items[MAX_BURST];
	while (!stopped()) {
		unsigned made = make_items(w, next, burst, items, 1), done = 0;
		uint32_t polls = 0;
		while (done < made) {
			if (burst == 1)
				done += enqueue1(h, items[0]) == 0;
			else
				done += enqueue_burst(h, items + done, made - done);
			if (done < made) {
				if (stopped()) {
					unsent_free(items, done, made);
					return;
				}
				hb_idle_poll(&polls);
			}
		}
		next += made;
	}
}

static uintptr_t consume(struct worker *w, struct handle *h)
{
	uint64_t count = 0;
	unsigned burst = run.o.burst;
	void *items[MAX_BURST];
	uintptr_t last = 0;
	while (!stopped()) {
		unsigned got;
		uint32_t polls = 0;
		for (;;) {
			got = burst == 1 ? dequeue1(h, &items[0]) == 0 : dequeue_burst(h, items, burst);
			if (got)
				break;
			if (stopped())
				return last;
			hb_idle_poll(&polls);
		}
		last = take(items, got);
		count += got;
		/* Relaxed: a counter the main thread samples; it orders nothing. */
		atomic_store_explicit(&w->consumed, count, memory_order_relaxed);
	}
	return last;
}

/* pairs: an enqueue (one item or a burst) and a dequeue, neither retried */
static uintptr_t pair(struct worker *w, struct handle *h)
{
	uintptr_t next = (uintptr_t)w->id << 40, last = 0;
	uint64_t count = 0;
	unsigned burst = run.o.burst;
	void *items[MAX_BURST];
	while (!stopped()) {
		unsigned made = make_items(w, next, burst, items, 0), done;
		done = burst == 1 ? made && enqueue1(h, items[0]) == 0
				  : made ? enqueue_burst(h, items, made) : 0;
		unsent_free(items, done, made);
		next += done;
		unsigned got = burst == 1 ? dequeue1(h, &items[0]) == 0
					  : dequeue_burst(h, items, burst);
		if (got)
			last = take(items, got);
		/* operations that succeeded, as numaring-bench counts a
		 * symmetric workload's */
		count += done + got;
		atomic_store_explicit(&w->consumed, count, memory_order_relaxed);
	}
	return last;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct handle h;
	uintptr_t last = 0;
	if (worker_start(w, &h) != 0)
		return NULL;
	if (run.o.workload == W_PAIRS)
		last = pair(w, &h);
	else if (w->produces)
		produce(w, &h);
	else
		last = consume(w, &h);
	sink = last;
	handle_fini(&h);
	return NULL;
}

/* ---- the command line ------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bare_loop [options]\n"
		"A bare pinned loop through one queue, without any harness code: the reference\n"
		"numaring-bench is compared with (make bench-fidelity).\n"
		"Prints one CSV line: queue,burst,items_per_s (items dequeued, all threads;\n"
		"pairs: items enqueued and dequeued, the operations numaring-bench counts)\n"
		"\n"
		"  --queue Q       flat, numaring, rte or xenium-vyukov (xenium's\n"
		"                  vyukov_bounded_queue, flat's algorithm: single operations\n"
		"                  only) (default flat)\n"
		"  --workload W    prodcons (producers enqueue, consumers dequeue) or pairs\n"
		"                  (each thread enqueues, then dequeues; neither retried)\n"
		"                  (default prodcons)\n"
		"  --threads N     prodcons: N/2 producers and N/2 consumers, N even; pairs: N\n"
		"                  threads; 1..%u (default 2)\n"
		"  --item K        inline (a value in the pointer) or message (a pointer to a\n"
		"                  message of the producer's pool, read and freed by its\n"
		"                  consumer) (default inline)\n"
		"  --burst N       1 = single operations, else bursts of N items, 1..%u (default 1)\n"
		"  --capacity N    slots, a power of two >= 2 (default 1024)\n"
		"  --cells-at B    flat only: its cells start B bytes past a page boundary, a\n"
		"                  multiple of 128 below the page size (default: numaring's\n"
		"                  placement, 384; make bench-placement)\n"
		"  --duration SEC  measured window (default 1)\n"
		"  --warmup SEC    warm-up before the window (default 0.3)\n"
		"  --hand-over     also time one cache line's one-way trip between the CPUs\n"
		"                  of P0 and C0 (pairs: threads 0 and 1) just before and just\n"
		"                  after the run, as numaring-bench's c2c_one_way_before_ns\n"
		"                  and c2c_one_way_after_ns: the line gets two more fields,\n"
		"                  queue,burst,items_per_s,before_ns,after_ns (empty: not timed,\n"
		"                  e.g. one thread or both on one CPU)\n"
		"  --help          this text\n"
		"\n"
		"Pinning as numaring-bench --pin compact: P0, C0, P1, C1, ... (pairs: the\n"
		"threads in order) on the allowed CPUs in turn.\n"
		"exit status: 0 ok, 1 the run failed, 2 bad input\n",
		MAX_THREADS, MAX_BURST);
}

/* A whole unsigned decimal number in [lo, hi], or -1. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A whole finite number of seconds in [lo, MAX_SECONDS] (> 0 if positive). */
static int parse_seconds(const char *s, int positive, double *out)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < 0 || (positive && v <= 0) ||
	    v > MAX_SECONDS)
		return -1;
	*out = v;
	return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct options *o)
{
	enum {
		OPT_QUEUE = 1,
		OPT_WORKLOAD,
		OPT_THREADS,
		OPT_ITEM,
		OPT_BURST,
		OPT_CAPACITY,
		OPT_CELLS_AT,
		OPT_DURATION,
		OPT_WARMUP,
		OPT_HAND_OVER,
		OPT_HELP
	};
	static const struct option longopts[] = {
		{"queue", required_argument, NULL, OPT_QUEUE},
		{"workload", required_argument, NULL, OPT_WORKLOAD},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"item", required_argument, NULL, OPT_ITEM},
		{"burst", required_argument, NULL, OPT_BURST},
		{"capacity", required_argument, NULL, OPT_CAPACITY},
		{"cells-at", required_argument, NULL, OPT_CELLS_AT},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"warmup", required_argument, NULL, OPT_WARMUP},
		{"hand-over", no_argument, NULL, OPT_HAND_OVER},
		{"help", no_argument, NULL, OPT_HELP},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c;

	o->queue = Q_FLAT;
	o->workload = W_PRODCONS;
	o->item = I_INLINE;
	o->threads = 2;
	o->burst = 1;
	o->capacity = 1024;
	o->cells_at = -1;
	o->duration_s = 1.0;
	o->warmup_s = 0.3;
	o->hand_over = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_QUEUE: {
			size_t i;
			for (i = 0; i < sizeof queue_names / sizeof queue_names[0]; i++)
				if (strcmp(optarg, queue_names[i]) == 0)
					break;
			if (i == sizeof queue_names / sizeof queue_names[0])
				return hb_usage_error(
				    "%s: unknown queue \"%s\" (flat, numaring, rte or xenium-vyukov)",
				    "--queue",
				    optarg);
			o->queue = (enum queue_kind)i;
			break;
		}
		case OPT_WORKLOAD:
			if (strcmp(optarg, "prodcons") == 0)
				o->workload = W_PRODCONS;
			else if (strcmp(optarg, "pairs") == 0)
				o->workload = W_PAIRS;
			else
				return hb_usage_error("%s: unknown workload \"%s\" (prodcons or pairs)",
						      "--workload", optarg);
			break;
		case OPT_THREADS:
			if (parse_u64(optarg, 1, MAX_THREADS, &v) != 0)
				return hb_usage_error("%s: \"%s\" is not a whole number in 1..%u",
						      "--threads", optarg, MAX_THREADS);
			o->threads = (unsigned)v;
			break;
		case OPT_ITEM:
			if (strcmp(optarg, "inline") == 0)
				o->item = I_INLINE;
			else if (strcmp(optarg, "message") == 0)
				o->item = I_MESSAGE;
			else
				return hb_usage_error("%s: unknown item kind \"%s\" (inline or message)",
						      "--item", optarg);
			break;
		case OPT_BURST:
			if (parse_u64(optarg, 1, MAX_BURST, &v) != 0)
				return hb_usage_error("%s: \"%s\" is not a whole number in 1..4096",
						      "--burst", optarg);
			o->burst = (unsigned)v;
			break;
		case OPT_CAPACITY:
			if (parse_u64(optarg, 2, MAX_CAPACITY, &v) != 0 || (v & (v - 1)) != 0)
				return hb_usage_error(
				    "%s: \"%s\" is not a power of two in 2..1073741824",
				    "--capacity", optarg);
			o->capacity = v;
			break;
		case OPT_CELLS_AT: {
			long page = sysconf(_SC_PAGESIZE);
			if (parse_u64(optarg, 0, (uint64_t)page - 1, &v) != 0 || v % 128 != 0)
				return hb_usage_error(
				    "%s: \"%s\" is not a multiple of 128 in 0..%ld", "--cells-at",
				    optarg, page - 128);
			o->cells_at = (long)v;
			break;
		}
		case OPT_DURATION:
			if (parse_seconds(optarg, 1, &o->duration_s) != 0)
				return hb_usage_error(
				    "%s: \"%s\" is not a number of seconds in (0, 3600]",
				    "--duration", optarg);
			break;
		case OPT_WARMUP:
			if (parse_seconds(optarg, 0, &o->warmup_s) != 0)
				return hb_usage_error(
				    "%s: \"%s\" is not a number of seconds in [0, 3600]",
				    "--warmup", optarg);
			break;
		case OPT_HAND_OVER:
			o->hand_over = 1;
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		case ':':
			return hb_usage_error("%s needs a value", argv[optind - 1]);
		default:
			return hb_usage_error("unknown option \"%s\"", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return hb_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (o->cells_at >= 0 && o->queue != Q_FLAT)
		return hb_usage_error(
		    "--cells-at is for --queue flat only (numaring and rte place their own)");
	if (o->queue == Q_XVYUKOV && o->burst > 1)
		return hb_usage_error(
		    "--burst %u: xenium-vyukov has no burst operations (--burst 1)", o->burst);
	if (o->workload == W_PRODCONS && o->threads % 2 != 0)
		return hb_usage_error("--threads %u: prodcons runs half producers, half consumers "
				      "(an even count)", o->threads);
	if (o->burst > o->capacity)
		return hb_usage_error("--burst %u is larger than --capacity %llu", o->burst,
				      (unsigned long long)o->capacity);
	return -1;
}

/* ---- main ------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The workers' roles and CPUs: P0, C0, P1, C1, ... (pairs: in order) on
 * the allowed CPUs in turn (numaring-bench --pin compact); their pools. */
static int plan_workers(void)
{
	cpu_set_t s;
	int cpus[CPU_SETSIZE], n = 0;
	unsigned nt = run.o.threads, np = nt / 2;
	if (sched_getaffinity(0, sizeof s, &s) != 0) {
		hb_say("sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s))
			cpus[n++] = c;
	if (n == 0) {
		hb_say("no CPU is allowed to this process");
		return -1;
	}
	if ((unsigned)n < nt)
		hb_say("note: %u threads on %d allowed CPUs: some share a CPU (oversubscribed)", nt,
		       n);
	if (!(run.w = aligned_zeroed(nt * sizeof *run.w))) {
		hb_say("out of memory for %u threads", nt);
		return -1;
	}
	uint64_t pool = 1;
	while (pool < run.o.capacity + (uint64_t)run.o.burst * nt + 64)
		pool <<= 1;
	run.pool_mask = pool - 1;
	for (unsigned i = 0; i < nt; i++) {
		struct worker *w = &run.w[i];
		unsigned slot = i;
		w->id = i;
		if (run.o.workload == W_PAIRS) {
			w->produces = w->consumes = 1;
		} else {
			w->produces = i < np;
			w->consumes = !w->produces;
			slot = w->produces ? 2 * i : 2 * (i - np) + 1;
		}
		w->cpu = cpus[slot % (unsigned)n];
		atomic_init(&w->consumed, 0);
		if (w->produces && run.o.item == I_MESSAGE &&
		    !(w->pool = aligned_zeroed(pool * sizeof *w->pool))) {
			hb_say("out of memory for a pool of %llu messages", (unsigned long long)pool);
			return -1;
		}
	}
	return 0;
}

/* The one-way line trip (ns) between the CPUs of the run's first two
 * threads (P0 and C0; pairs: threads 0 and 1), as numaring-bench times its
 * runs' (bench.c, pingpong.h); "" where it cannot be timed: one thread, both
 * on one CPU, or no answer within 20 ms. Outside the measured window. */
static void hand_over(char *out, size_t len)
{
	unsigned nt = run.o.threads;
	unsigned second = run.o.workload == W_PAIRS ? 1 : nt / 2;
	double ns;
	out[0] = '\0';
	if (nt < 2 || run.w[0].cpu == run.w[second].cpu)
		return;
	if (hb_one_way_ns(run.w[0].cpu, run.w[second].cpu, 20.0, &ns) == 0)
		snprintf(out, len, "%.1f", ns);
}

static uint64_t consumed_sum(void)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < run.o.threads; i++)
		sum += atomic_load_explicit(&run.w[i].consumed, memory_order_relaxed);
	return sum;
}

int main(int argc, char **argv)
{
	hb_prog = "bare_loop"; /* the name its messages start with (errors.h) */
	int rc = parse_args(argc, argv, &run.o);
	if (rc >= 0)
		return rc;
	if (plan_workers() != 0 || queue_create(&run.o) != 0)
		return 1;
	char before[32] = "", after[32] = "";
	if (run.o.hand_over) {
		if (hc_init() != 0) {
			hb_say("NUMARING_CLOCK: only \"gettime\" (or unset) is known");
			return 1;
		}
		hand_over(before, sizeof before);
	}
	unsigned nt = run.o.threads;
	pthread_t *th = calloc(nt, sizeof *th);
	if (!th) {
		hb_say("out of memory for %u threads", nt);
		return 1;
	}

	atomic_init(&run.stop, 0);
	pthread_barrier_init(&run.barrier, NULL, nt + 1);
	for (unsigned i = 0; i < nt; i++) {
		int e = pthread_create(&th[i], NULL, worker_main, &run.w[i]);
		if (e) {
			/* the barrier counts every thread: none can meet it now */
			hb_say("cannot start thread %u: %s", i, strerror(e));
			return 1;
		}
	}
	pthread_barrier_wait(&run.barrier);

	double t0 = 0, t1 = 0;
	uint64_t c0 = 0, c1 = 0;
	if (!atomic_load(&run.stop)) {
		sleep_s(run.o.warmup_s);
		c0 = consumed_sum();
		t0 = now_s();
		sleep_s(run.o.duration_s);
		c1 = consumed_sum();
		t1 = now_s();
		atomic_store(&run.stop, 1);
	}
	for (unsigned i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&run.barrier);
	queue_destroy();
	if (run.o.hand_over)
		hand_over(after, sizeof after);

	for (unsigned i = 0; i < nt; i++)
		if (run.w[i].failed) {
			hb_say("thread %u: %s", i, run.w[i].err);
			rc = 1;
		}
	for (unsigned i = 0; i < nt; i++)
		free(run.w[i].pool);
	free(run.w);
	free(th);
	if (rc == 1)
		return 1;
	if (c1 == c0) {
		hb_say("no item went through %s in the measured window", queue_names[run.o.queue]);
		return 1;
	}
	printf("%s,%u,%.0f", queue_names[run.o.queue], run.o.burst, (double)(c1 - c0) / (t1 - t0));
	if (run.o.hand_over)
		printf(",%s,%s", before, after);
	printf("\n");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		hb_say("cannot write the result: %s", strerror(errno));
		return 1;
	}
	return 0;
}
