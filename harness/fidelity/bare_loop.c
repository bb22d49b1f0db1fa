/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bare_loop.c - the bare loop that numaring-bench is measured against
 * (make bench-fidelity, scripts/bench_fidelity.py).
 *
 * What it is: one producer thread and one consumer thread moving items
 * through one queue as fast as they can, with none of the harness's code
 * but its spin-wait (harness/relax.h, so that both wait alike): no adapter
 * layer (harness/queue.h), no messages, no clock reads per item, no latency
 * histograms, no verification. The producer enqueues increasing
 * uintptr_t counter values cast to void * (single operations, or bursts of
 * N with --burst N) and retries when the queue is full; the consumer
 * dequeues (single or burst) and only counts what it got, storing its count
 * in a relaxed atomic after each dequeue. After a start barrier and a
 * warm-up, the main thread reads that count at the start and at the end of
 * the measured window and prints one line of CSV:
 *
 *     queue,burst,items_per_s
 *
 * Why: it is the ceiling for the harness's throughput of the same queue at
 * 1P1C. numaring-bench's figure divided by this one says how much of what
 * is measured is the queue and how much is the harness around it (target of
 * issue 11: >= 0.8 with inline items).
 *
 * Pinning is that of numaring-bench's default --pin compact for 1 producer
 * + 1 consumer: P0 on the first CPU of the process's allowed set
 * (sched_getaffinity), C0 on the second (both on the one CPU if only one is
 * allowed, with a note). Failed attempts are retried as the harness retries
 * them: hb_idle_poll of harness/relax.h, the harness's own wait (PAUSE,
 * and a sched_yield every 1024 polls).
 *
 * Queues:
 *   flat      the per-node ring used alone, numaring_flat_* of numaring_lab.h,
 *             backoff NONE (as harness/peers/flat.c)
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

#include "errors.h"
#include "numaring.h"
#include "numaring_lab.h"
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

struct options {
	enum queue_kind queue;
	unsigned burst;
	uint64_t capacity;
	long cells_at; /* flat: where its cells start past a page boundary; -1: the default */
	double duration_s;
	double warmup_s;
};

/* Shared state: the consumer's count and the stop flag each on their own
 * line pair, so that the main thread's reads and the stop store do not
 * disturb the two workers' lines. */
static struct {
	alignas(LINE_PAIR) _Atomic uint64_t consumed; /* written by the consumer only */
	alignas(LINE_PAIR) atomic_int stop;           /* written by the main thread only */
	alignas(LINE_PAIR) struct options o;
	void *q;                   /* struct numaring_flat, struct numaring, struct rte_ring or
				      xenium's queue */
	int cpu[2];                /* P0, C0 */
	pthread_barrier_t barrier; /* producer, consumer, main */
	char err[2][256];          /* a worker's failure, printed by main */
	int failed[2];
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

/* Pin to cpu, attach, meet the others at the barrier. Returns 0 to run. */
static int worker_start(int who, struct handle *h)
{
	cpu_set_t s;
	int e;
	CPU_ZERO(&s);
	CPU_SET(run.cpu[who], &s);
	e = pthread_setaffinity_np(pthread_self(), sizeof s, &s);
	if (e) {
		snprintf(run.err[who], sizeof run.err[who], "cannot pin to CPU %d: %s", run.cpu[who],
			 strerror(e));
		run.failed[who] = 1;
	} else if (handle_init(h, run.err[who], sizeof run.err[who]) != 0) {
		run.failed[who] = 1;
	}
	if (run.failed[who])
		atomic_store(&run.stop, 1);
	pthread_barrier_wait(&run.barrier);
	return run.failed[who] ? -1 : 0;
}

static void *producer_main(void *arg)
{
	struct handle h;
	uintptr_t next = 0;
	unsigned burst = run.o.burst;
	void *items[MAX_BURST];
	(void)arg;

	if (worker_start(0, &h) != 0)
		return NULL;
	if (burst == 1) {
		while (!stopped()) {
			uint32_t polls = 0;
			while (enqueue1(&h, (void *)next) != 0) {
				if (stopped())
					goto out;
				hb_idle_poll(&polls);
			}
			next++;
		}
	} else {
		while (!stopped()) {
			unsigned done = 0;
			uint32_t polls = 0;
			for (unsigned i = 0; i < burst; i++)
				items[i] = (void *)(next + i);
			while (done < burst) {
				done += enqueue_burst(&h, items + done, burst - done);
				if (done < burst) {
					if (stopped())
						goto out;
					hb_idle_poll(&polls);
				}
			}
			next += burst;
		}
	}
out:
	handle_fini(&h);
	return NULL;
}

static void *consumer_main(void *arg)
{
	struct handle h;
	uint64_t count = 0;
	unsigned burst = run.o.burst;
	void *items[MAX_BURST];
	void *item = NULL;
	(void)arg;

	if (worker_start(1, &h) != 0)
		return NULL;
	if (burst == 1) {
		while (!stopped()) {
			uint32_t polls = 0;
			while (dequeue1(&h, &item) != 0) {
				if (stopped())
					goto out;
				hb_idle_poll(&polls);
			}
			/* Relaxed: a counter the main thread samples; it orders nothing. */
			atomic_store_explicit(&run.consumed, ++count, memory_order_relaxed);
		}
	} else {
		while (!stopped()) {
			unsigned got = dequeue_burst(&h, items, burst);
			if (got == 0) {
				uint32_t polls = 0;
				while ((got = dequeue_burst(&h, items, burst)) == 0) {
					if (stopped())
						goto out;
					hb_idle_poll(&polls);
				}
			}
			item = items[got - 1];
			count += got;
			atomic_store_explicit(&run.consumed, count, memory_order_relaxed);
		}
	}
out:
	sink = (uintptr_t)item;
	handle_fini(&h);
	return NULL;
}

/* ---- the command line ------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bare_loop [options]\n"
		"A bare pinned 1 producer + 1 consumer loop through one queue, without any\n"
		"harness code: the reference numaring-bench is compared with (make bench-fidelity).\n"
		"Prints one CSV line: queue,burst,items_per_s\n"
		"\n"
		"  --queue Q       flat, numaring, rte or xenium-vyukov (xenium's\n"
		"                  vyukov_bounded_queue, flat's algorithm: single operations\n"
		"                  only) (default flat)\n"
		"  --burst N       1 = single operations, else bursts of N items, 1..%u (default 1)\n"
		"  --capacity N    slots, a power of two >= 2 (default 1024)\n"
		"  --cells-at B    flat only: its cells start B bytes past a page boundary, a\n"
		"                  multiple of 128 below the page size (default: numaring's\n"
		"                  placement, 384; make bench-placement)\n"
		"  --duration SEC  measured window (default 1)\n"
		"  --warmup SEC    warm-up before the window (default 0.3)\n"
		"  --help          this text\n"
		"\n"
		"Pinning as numaring-bench --pin compact: producer on the first CPU of the\n"
		"allowed set, consumer on the second.\n"
		"exit status: 0 ok, 1 the run failed, 2 bad input\n",
		MAX_BURST);
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
	enum { OPT_QUEUE = 1, OPT_BURST, OPT_CAPACITY, OPT_CELLS_AT, OPT_DURATION, OPT_WARMUP, OPT_HELP };
	static const struct option longopts[] = {
		{"queue", required_argument, NULL, OPT_QUEUE},
		{"burst", required_argument, NULL, OPT_BURST},
		{"capacity", required_argument, NULL, OPT_CAPACITY},
		{"cells-at", required_argument, NULL, OPT_CELLS_AT},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"warmup", required_argument, NULL, OPT_WARMUP},
		{"help", no_argument, NULL, OPT_HELP},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c;

	o->queue = Q_FLAT;
	o->burst = 1;
	o->capacity = 1024;
	o->cells_at = -1;
	o->duration_s = 1.0;
	o->warmup_s = 0.3;
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

/* P0 on the first allowed CPU, C0 on the second (numaring-bench --pin compact). */
static int choose_cpus(void)
{
	cpu_set_t s;
	int n = 0;
	if (sched_getaffinity(0, sizeof s, &s) != 0) {
		hb_say("sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &s))
			run.cpu[n++] = c;
	if (n == 0) {
		hb_say("no CPU is allowed to this process");
		return -1;
	}
	if (n == 1) {
		run.cpu[1] = run.cpu[0];
		hb_say("note: only CPU %d is allowed: producer and consumer share it", run.cpu[0]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	hb_prog = "bare_loop"; /* the name its messages start with (errors.h) */
	int rc = parse_args(argc, argv, &run.o);
	if (rc >= 0)
		return rc;
	if (choose_cpus() != 0 || queue_create(&run.o) != 0)
		return 1;

	atomic_init(&run.consumed, 0);
	atomic_init(&run.stop, 0);
	pthread_barrier_init(&run.barrier, NULL, 3);
	for (int i = 0; i < 2; i++) {
		int e = pthread_create(&th[i], NULL, i == 0 ? producer_main : consumer_main, NULL);
		if (e) {
			hb_say("cannot start the %s thread: %s", i == 0 ? "producer" : "consumer",
			       strerror(e));
			return 1;
		}
	}
	pthread_barrier_wait(&run.barrier);

	double t0 = 0, t1 = 0;
	uint64_t c0 = 0, c1 = 0;
	if (!atomic_load(&run.stop)) {
		sleep_s(run.o.warmup_s);
		c0 = atomic_load_explicit(&run.consumed, memory_order_relaxed);
		t0 = now_s();
		sleep_s(run.o.duration_s);
		c1 = atomic_load_explicit(&run.consumed, memory_order_relaxed);
		t1 = now_s();
		atomic_store(&run.stop, 1);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&run.barrier);
	queue_destroy();

	for (int i = 0; i < 2; i++)
		if (run.failed[i]) {
			hb_say("%s: %s", i == 0 ? "producer" : "consumer", run.err[i]);
			rc = 1;
		}
	if (rc == 1)
		return 1;
	if (c1 == c0) {
		hb_say("no item went through %s in the measured window", queue_names[run.o.queue]);
		return 1;
	}
	printf("%s,%u,%.0f\n", queue_names[run.o.queue], run.o.burst, (double)(c1 - c0) / (t1 - t0));
	if (fflush(stdout) != 0 || ferror(stdout)) {
		hb_say("cannot write the result: %s", strerror(errno));
		return 1;
	}
	return 0;
}
