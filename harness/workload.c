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
 * The loop (loops_body.h's symmetric) is compiled once per queue family, as
 * the prodcons loops are (loops.c): the item mode (and whether items are
 * accounted: faa's are not), burst enqueues, burst dequeues, the workload
 * and the work are constant arguments of one always-inline body, and
 * hb_symmetric_main calls the variant of the run (hb_symmetric_of).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "loops.h"
#include "run.h"
#include "workers_pvt.h"

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
	enum hb_sym_mode mode = !(run->ops->moves_data || run->ops->fabricates) ? HB_SYM_COUNTED
				: run->item == HB_ITEM_MESSAGE			 ? HB_SYM_MESSAGE
											 : HB_SYM_INLINE;
	hb_symmetric_of(run->ops, mode, run->burst_enq > 1, run->burst_deq > 1,
			run->workload == HB_WORKLOAD_MIXED, run->work_loops > 0)(p, h);
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
