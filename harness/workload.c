/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * workload.c - the threads of the symmetric workloads (--workload pairs,
 * mixed), and the calibration of the work loop (work.h).
 *
 * Contract. Thread i of a run of N threads is producer i and consumer i at
 * once (run.h): it sends items in producer i's name, counted and summed as
 * a prodcons producer's are (item.h), and accounts in consumer i's tallies
 * for whatever it dequeues, whoever sent it, so that the run is verified
 * exactly as a prodcons run is (bench.c, run_verify). Its operations:
 *
 *   pairs   an enqueue, then a dequeue, and again (Michael and Scott's
 *           enqueue-dequeue pairs, PODC 1996)
 *   mixed   an enqueue with probability --enqueue-share, else a dequeue,
 *           drawn from the thread's own generator (work.h). Before the start
 *           barrier each thread enqueues its share of half what the queue
 *           holds (run->prefill; half the in-flight bound for an unbounded
 *           queue), so that the random walk of the queue's length starts
 *           away from both ends; those items are verified like the others.
 *
 * An enqueue that finds the queue full or a dequeue that finds it empty is
 * counted (full_retries, empty_polls; an unbounded queue's enqueue beyond
 * the in-flight bound, or a message its consumer has not released yet:
 * window_waits) and the thread goes on to its next operation: no retry loop
 * hides in the workload, so a failed operation costs what the queue makes it
 * cost (its backoff, its lost races) and no more. With --bursts each
 * operation is a burst of --batch items where the queue has one. With
 * --work every operation, failed or not, is followed by a drawn length of
 * local work. Open loop (--rate): an enqueue first waits for its first
 * item's intended send time (the rate is the enqueues'); dequeues are not
 * paced. Latency is enqueue to dequeue of the timed items, whoever dequeues
 * them.
 *
 * Stopping: at PH_STOP_PRODUCERS, or with --ops once its share of the
 * window's items is sent, a thread stops enqueuing, publishes `done`
 * (release: its `sent` and checksum are final) and then only dequeues, as a
 * consumer drains, until PH_STOP_CONSUMERS. The drain's empty dequeues are
 * waits, not operations of the workload: they are not counted.
 *
 * The loop is specialised as workers.c's are: the item mode (and whether
 * items are accounted: faa's are not), burst enqueues, burst dequeues, the
 * workload and the work are constant arguments of one always-inline body,
 * and hb_symmetric_main calls the variant of the run.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "run.h"
#include "workers_pvt.h"

/* What a thread does with the items it dequeues, and which items it makes. */
enum sym_mode {
	SYM_INLINE,  /* inline items, accounted */
	SYM_MESSAGE, /* messages, accounted */
	SYM_COUNTED, /* inline values a queue that moves nothing returns (faa): counted only */
	SYM_MODES_
};

/* Before the start barrier (mixed): this thread's share of run->prefill, one
 * enqueue at a time, until the share is in or the queue refuses one. */
static void prefill(struct hb_producer *p, void *h)
{
	struct hb_run *run = p->run;
	const enum hb_item_kind kind = run->item;
	uint64_t share = run->prefill / run->nthreads + (p->id < run->prefill % run->nthreads);
	uint64_t seq = 0;
	void *item[1];
	while (seq < share) {
		uint64_t now = 0;
		/* closed loop, stamped, whatever the run's loop (record_timed) */
		if (make_items(p, seq, 1, kind, 0, 0, &now, item) == 0)
			break;
		unsigned done = run->ops->enqueue(h, item[0]) == 0;
		unsent_free(done, 1, kind, item);
		if (!done)
			break;
		seq++;
	}
	p->prefilled = seq;
	/* Relaxed: read by the main thread after the barrier (which orders it) */
	atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
}

static ALWAYS_INLINE void symmetric(struct hb_producer *p, void *h, enum sym_mode mode,
				    int burst_enqueues, int burst_dequeues, int mixed, int work)
{
	struct hb_run *run = p->run;
	struct hb_consumer *c = &run->cons[p->id];
	const struct hq_ops *ops = run->ops;
	const enum hb_item_kind kind = mode == SYM_MESSAGE ? HB_ITEM_MESSAGE : HB_ITEM_INLINE;
	const int account = mode != SYM_COUNTED;
	const uint64_t interval = run->interval, work_max = run->work_loops;
	const uint64_t work_min = run->work_min_loops;
	const uint64_t threshold = run->enqueue_threshold;
	const unsigned burst_enq = burst_enqueues ? run->burst_enq : 1;
	const unsigned burst_deq = burst_dequeues ? run->burst_deq : 1;
	const int counted = run->quota_total != 0;
	/* nothing travels and nothing is made up (faa): stop with the enqueues */
	const int stop_early = !ops->moves_data;
	hb_item_sum_fn *const item_sum = run->item_sum;
	/* the prefill's items are sequences 0..prefilled-1: go on from there */
	uint64_t seq = p->prefilled, total = 0, rng = p->rng;
	/* unbounded queues: the in-flight bound (hb_inflight_room); in message
	 * mode the pool bounds it, as for a producer */
	uint64_t limit = ops->bounded || kind == HB_ITEM_MESSAGE ? UINT64_MAX : 0;
	uint64_t next_send = hc_now();
	void *items[HB_MAX_BURST];

	if (interval)
		publish_t0(p, seq, next_send);

	for (;;) {
		int ph = hb_phase(run);
		if (ph >= PH_STOP_PRODUCERS)
			break;
		int enqueue = !mixed || hb_rng_next(&rng) < threshold;
		if (enqueue) {
			unsigned n = burst_enq;
			if (counted && ph == PH_MEASURE) {
				if (p->sent_measured >= p->quota)
					break;
				if (p->quota - p->sent_measured < n)
					n = (unsigned)(p->quota - p->sent_measured);
			}
			if (seq + n > limit) {
				uint64_t room = hb_inflight_room(run);
				limit = seq + room;
				if (room < n)
					n = (unsigned)room;
			}
			if (n == 0) {
				p->window_waits++; /* the in-flight bound: full, as the harness sees it */
			} else {
				uint64_t now = 0;
				if (interval && !(now = hb_wait_until(run, next_send)))
					break;
				unsigned made = make_items(p, seq, n, kind, 0, interval, &now,
							   items);
				unsigned done = 0;
				if (made) {
					if (burst_enqueues)
						done = ops->enqueue_burst(h, items, made);
					else
						done = ops->enqueue(h, items[0]) == 0;
					if (done < made)
						p->full_retries++;
				}
				unsent_free(done, made, kind, items);
				seq += done;
				if (interval)
					next_send += done * interval;
				if (ph == PH_MEASURE)
					p->sent_measured += done;
				/* Relaxed: a count for the main thread's window and for
				 * hb_inflight_room; final once `done` is published. */
				atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
			}
			if (work)
				hb_work(&rng, work_min, work_max);
		}
		if (!mixed || !enqueue) {
			unsigned got;
			if (burst_dequeues)
				got = ops->dequeue_burst(h, items, burst_deq);
			else
				got = ops->dequeue(h, &items[0]) == 0;
			if (got) {
				if (account)
					take(c, items, got, kind, item_sum);
				total += got;
				/* Relaxed: a count for the main thread's window and
				 * for hb_inflight_room; read after pthread_join. */
				atomic_store_explicit(&c->received, total, memory_order_relaxed);
			} else {
				c->empty_polls++;
			}
			if (work)
				hb_work(&rng, work_min, work_max);
		}
	}

	/* Release: the main thread that sees done also sees the final sent. */
	atomic_store_explicit(&p->done, 1, memory_order_release);

	/* drain: dequeue until the main thread says that everything arrived */
	uint32_t polls = 0;
	for (;;) {
		unsigned got;
		if (burst_dequeues)
			got = ops->dequeue_burst(h, items, burst_deq);
		else
			got = ops->dequeue(h, &items[0]) == 0;
		if (got == 0) {
			int ph = hb_phase(run);
			if (ph >= PH_STOP_CONSUMERS || (stop_early && ph >= PH_STOP_PRODUCERS))
				break;
			hb_idle_poll(&polls);
			continue;
		}
		polls = 0;
		if (account)
			take(c, items, got, kind, item_sum);
		total += got;
		atomic_store_explicit(&c->received, total, memory_order_relaxed);
		if (stop_early && hb_phase(run) >= PH_STOP_PRODUCERS)
			break;
	}
}

/* One function per variant, and the table hb_symmetric_main picks from:
 * index ((((mode * 2 + burst enqueues) * 2 + burst dequeues) * 2 + mixed) * 2 + work). */
typedef void sym_fn(struct hb_producer *p, void *h);

#define SYM_NAME(m, be, bd, mx, wk) sym_##m##_##be##bd##mx##wk
#define SYM_DEFINE(m, be, bd, mx, wk)                                          \
	static void SYM_NAME(m, be, bd, mx, wk)(struct hb_producer * p, void *h) \
	{                                                                      \
		symmetric(p, h, m, be, bd, mx, wk);                            \
	}
#define SYM_ENTRY(m, be, bd, mx, wk) SYM_NAME(m, be, bd, mx, wk),
#define SYM_WK(X, m, be, bd, mx) X(m, be, bd, mx, 0) X(m, be, bd, mx, 1)
#define SYM_MX(X, m, be, bd) SYM_WK(X, m, be, bd, 0) SYM_WK(X, m, be, bd, 1)
#define SYM_BD(X, m, be) SYM_MX(X, m, be, 0) SYM_MX(X, m, be, 1)
#define SYM_BE(X, m) SYM_BD(X, m, 0) SYM_BD(X, m, 1)
#define SYM_ALL(X) SYM_BE(X, SYM_INLINE) SYM_BE(X, SYM_MESSAGE) SYM_BE(X, SYM_COUNTED)

SYM_ALL(SYM_DEFINE)

static sym_fn *const variants[] = {SYM_ALL(SYM_ENTRY)};
_Static_assert(sizeof variants / sizeof variants[0] == SYM_MODES_ * 16,
	       "one variant per mode, burst enqueues, burst dequeues, workload and work");

void *hb_symmetric_main(void *arg)
{
	struct hb_producer *p = arg;
	struct hb_run *run = p->run;
	struct hb_consumer *c = &run->cons[p->id];
	struct hb_qmem_thread qt = {0};
	void *h = NULL;

	hb_pin_self(p->cpu, &p->pin_errno);
	/* pinned first: the pool, the tallies and the histogram are placed by
	 * this thread's first touch (bench.c's mallopt: fresh mappings) */
	int stamps_node;
	if (run->item == HB_ITEM_MESSAGE &&
	    !(p->pool = hb_local_alloc(run->window * sizeof *p->pool, &p->mem_node)))
		snprintf(p->err, sizeof p->err, "out of memory for its message pool");
	else if (!(p->stamps = hb_local_alloc(hb_stamp_bytes(run), &stamps_node)))
		snprintf(p->err, sizeof p->err, "out of memory for its stamp ring");
	else if (!(c->tally = hb_local_alloc(hb_tally_bytes(run), &c->mem_node)) ||
		 hb_consumer_hists(run, c) != 0)
		snprintf(p->err, sizeof p->err, "out of memory for its tallies and histograms");
	else {
		c->dups = (uint64_t *)(c->tally + run->np);
		hb_qmem_worker_enter(run, c->hist, &qt);
		h = run->ops->thread_init(run->q, p->err, sizeof p->err);
	}
	c->handle = h; /* for the queue's paths (record_timed) */
	if (h && run->prefill)
		prefill(p, h);
	if (!h)
		hb_set_phase(run, PH_ABORT);
	if (run->measured && run->o->counters) /* on itself, disabled: main enables them */
		hb_counters_open(&p->ctr);
	pthread_barrier_wait(&run->barrier);
	if (!h)
		return NULL;
	while (hb_phase(run) == PH_START)
		hb_cpu_relax();
	enum sym_mode mode = !(run->ops->moves_data || run->ops->fabricates) ? SYM_COUNTED
			     : run->item == HB_ITEM_MESSAGE			? SYM_MESSAGE
										: SYM_INLINE;
	unsigned v = (((mode * 2u + (run->burst_enq > 1)) * 2 + (run->burst_deq > 1)) * 2 +
		      (run->workload == HB_WORKLOAD_MIXED)) * 2 + (run->work_loops > 0);
	variants[v](p, h);
	hb_timed_flush(c); /* the timed items whose stamps it had not read yet */
	if (run->ops->thread_stats) {
		run->ops->thread_stats(h, &p->st);
		p->have_stats = 1;
	}
	run->ops->thread_fini(run->q, h);
	hb_qmem_leave(&qt);
	return NULL;
}

/* ---- the work loop's speed (work.h) ------------------------------------------ */

#define CAL_LOOPS (UINT64_C(1) << 20)
#define CAL_ROUNDS 9u

void hb_work_calibrate(struct hb_work_calibration *c)
{
	memset(c, 0, sizeof *c);
	c->loops = CAL_LOOPS;
	c->rounds = CAL_ROUNDS;
	for (unsigned r = 0; r < CAL_ROUNDS; r++) {
		uint64_t t0 = hc_now();
		hb_work_spin(CAL_LOOPS);
		double ns = hc_to_ns(hc_now() - t0);
		if (r == 0 || ns < c->fastest_ns)
			c->fastest_ns = ns;
		if (ns > c->slowest_ns)
			c->slowest_ns = ns;
	}
	if (c->fastest_ns < 1)
		c->fastest_ns = 1;
	c->loops_per_ns = (double)CAL_LOOPS / c->fastest_ns;
	c->done = 1;
}
