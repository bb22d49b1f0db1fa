/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * loops_body.h - the producer and consumer loops of a prodcons run, written
 * once and compiled once per queue family (harness/loops.c, HB_LOOPS), so
 * that a family's enqueue and dequeue inline into its loops the way they do
 * in the bare loop (harness/fidelity/bare_loop.c; issue 44): no call
 * through the adapter's pointers per operation. The generic family passes
 * NULL for the operations and calls the run's adapter through them, as
 * every queue did before; hb_loops_of (loops.h) picks a run's family.
 *
 * Each loop is specialised, by constant arguments to an always-inline
 * body, for the item mode (inline values or messages), for single or burst
 * operations and for local work between operations (--producer-work,
 * --consumer-work), so that the per-item path of a run carries no test of
 * what kind of run it is. The per-item steps are workers_pvt.h's, shared
 * with workload.c. Include from loops.c only.
 */
#ifndef HB_LOOPS_BODY_H
#define HB_LOOPS_BODY_H

#include "clock.h"
#include "loops.h"
#include "run.h"
#include "workers_pvt.h"

/* A loop's call of operation fn of its family, a constant: the function
 * itself, which inlines, or NULL (the generic family): the adapter's
 * operation `op` through its pointer. */
#define HB_OP(fn, op, ...) ((fn) ? (fn)(__VA_ARGS__) : (op)(__VA_ARGS__))

/* strip: enum hb_strip bits, a constant of each variant (--strip, a
 * fidelity diagnostic: hb_parse allows it only where the steps it removes
 * are not needed, so that the plain variants carry no test of it). */
static ALWAYS_INLINE void produce(struct hb_producer *p, void *h, enum hb_item_kind kind,
				  int bursts, int work, unsigned strip, hb_enqueue_fn *enq,
				  hb_enqueue_burst_fn *enqb)
{
	struct hb_run *run = p->run;
	const struct hq_ops *ops = run->ops;
	const uint64_t interval = run->interval, work_max = run->producer_work_loops;
	const uint64_t work_min = run->work_min_loops;
	const unsigned burst = bursts ? run->burst_enq : 1;
	const int counted = run->quota_total != 0;
	uint64_t seq = 0, limit = ops->bounded || kind == HB_ITEM_MESSAGE ? UINT64_MAX : 0;
	uint64_t next_send = hc_now(), rng = p->rng;
	void *items[HB_MAX_BURST];

	if (interval)
		publish_t0(p, seq, next_send);
	for (uint64_t iter = 0;; iter++) {
		int ph = PH_MEASURE; /* stripped window: no count of what the window held */
		if (!(strip & HB_STRIP_WINDOW) || (iter & 63) == 0) {
			ph = hb_phase(run);
			if (ph >= PH_STOP_PRODUCERS)
				break;
		}
		unsigned n = burst;
		if (strip & HB_STRIP_WINDOW)
			; /* bounded, closed loop, no --ops: nothing to check */
		else if (counted && ph == PH_MEASURE) {
			if (p->sent_measured >= p->quota)
				break;
			if (p->quota - p->sent_measured < n)
				n = (unsigned)(p->quota - p->sent_measured);
		}
		if (!(strip & HB_STRIP_WINDOW) && seq + n > limit) {
			uint64_t room = hb_inflight_room(run);
			if (room < n) {
				uint32_t polls = 0;
				p->window_waits++;
				hb_idle_poll(&polls);
				continue;
			}
			limit = seq + room;
		}
		uint64_t now = 0;
		if (interval) { /* open loop: wait for the first item's intended time */
			if (!(now = hb_wait_until(run, next_send)))
				break;
		}

		unsigned made = make_items(p, seq, n, kind, 1, interval, &now, items);

		/* enqueue them */
		unsigned done = 0;
		uint32_t polls = 0;
		int stopped = made < n;
		while (done < made) {
			if (bursts)
				done += HB_OP(enqb, ops->enqueue_burst, h, items + done, made - done);
			else if (HB_OP(enq, ops->enqueue, h, items[done]) == 0)
				done++;
			if (done < made) {
				p->full_retries++;
				if (hb_phase(run) >= PH_STOP_PRODUCERS) {
					stopped = 1;
					break;
				}
				hb_idle_poll(&polls);
			}
		}
		unsent_free(done, made, kind, items);
		seq += done;
		if (interval)
			next_send += done * interval;
		if (!(strip & HB_STRIP_WINDOW) && ph == PH_MEASURE)
			p->sent_measured += done;
		/* Relaxed: a count for the main thread's window and for
		 * hb_inflight_room; the final value is read after pthread_join. */
		if (!(strip & HB_STRIP_PUBLISH))
			atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
		if (stopped)
			break;
		if (work)
			hb_work(&rng, work_min, work_max);
	}
	/* Relaxed: read after pthread_join (stripped publish: its only store) */
	atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
}

static ALWAYS_INLINE void consume(struct hb_consumer *c, void *h, enum hb_item_kind kind,
				  int bursts, int account, int work, int narrow, hb_dequeue_fn *deq,
				  hb_dequeue_burst_fn *deqb)
{
	struct hb_run *run = c->run;
	const struct hq_ops *ops = run->ops;
	const unsigned burst = bursts ? run->burst_deq : 1;
	const uint64_t work_max = run->consumer_work_loops, work_min = run->work_min_loops;
	/* nothing travels and nothing is made up (faa): stop with the producers */
	const int stop_early = !ops->moves_data;
	hb_item_sum_fn *const item_sum = run->item_sum;
	void *items[HB_MAX_BURST];
	uint64_t total = 0, rng = c->rng;
	uint32_t polls = 0;
	/* single inline items: the open run in registers (take1) */
	const int run1 = kind == HB_ITEM_INLINE && !bursts && account;
	struct hb_run1 o = {0, 0};

	c->run1_open = 0;
	for (;;) {
		unsigned got;
		if (bursts)
			got = HB_OP(deqb, ops->dequeue_burst, h, items, burst);
		else
			got = HB_OP(deq, ops->dequeue, h, &items[0]) == 0;
		if (got == 0) {
			int ph = hb_phase(run);
			if (ph >= PH_STOP_CONSUMERS || (stop_early && ph >= PH_STOP_PRODUCERS))
				break;
			c->empty_polls++;
			hb_idle_poll(&polls);
			continue;
		}
		polls = 0;
		if (run1)
			take1(c, items, &o);
		else if (account)
			take(c, items, got, kind, item_sum, narrow);
		total += got;
		/* Relaxed: a count for the main thread's window; the final value
		 * is read after pthread_join. */
		atomic_store_explicit(&c->received, total, memory_order_relaxed);
		if (stop_early && hb_phase(run) >= PH_STOP_PRODUCERS)
			break;
		if (work)
			hb_work(&rng, work_min, work_max);
	}
	if (run1)
		run1_fold(c, o);
}

/* A thread of a symmetric workload (workload.c has the contract): its
 * enqueues and dequeues, each failed one counted and not retried, then the
 * drain. Specialised, as the prodcons loops, by the item mode, burst
 * enqueues, burst dequeues, the workload (mixed or pairs) and the work. */
static ALWAYS_INLINE void symmetric(struct hb_producer *p, void *h, enum hb_sym_mode mode,
				    int burst_enqueues, int burst_dequeues, int mixed, int work,
				    int narrow, hb_enqueue_fn *enq, hb_dequeue_fn *deq,
				    hb_enqueue_burst_fn *enqb, hb_dequeue_burst_fn *deqb)
{
	struct hb_run *run = p->run;
	struct hb_consumer *c = &run->cons[p->id];
	const struct hq_ops *ops = run->ops;
	const enum hb_item_kind kind = mode == HB_SYM_MESSAGE ? HB_ITEM_MESSAGE : HB_ITEM_INLINE;
	const int account = mode != HB_SYM_COUNTED;
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
						done = HB_OP(enqb, ops->enqueue_burst, h, items, made);
					else
						done = HB_OP(enq, ops->enqueue, h, items[0]) == 0;
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
				got = HB_OP(deqb, ops->dequeue_burst, h, items, burst_deq);
			else
				got = HB_OP(deq, ops->dequeue, h, &items[0]) == 0;
			if (got) {
				if (account)
					take(c, items, got, kind, item_sum, narrow);
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
			got = HB_OP(deqb, ops->dequeue_burst, h, items, burst_deq);
		else
			got = HB_OP(deq, ops->dequeue, h, &items[0]) == 0;
		if (got == 0) {
			int ph = hb_phase(run);
			if (ph >= PH_STOP_CONSUMERS || (stop_early && ph >= PH_STOP_PRODUCERS))
				break;
			hb_idle_poll(&polls);
			continue;
		}
		polls = 0;
		if (account)
			take(c, items, got, kind, item_sum, narrow);
		total += got;
		atomic_store_explicit(&c->received, total, memory_order_relaxed);
		if (stop_early && hb_phase(run) >= PH_STOP_PRODUCERS)
			break;
	}
}


/* One function per variant of family fam (item mode, bursts, work, and
 * --strip's), each with its own loop, and the family's table (loops.h). */
#define HB_PRODUCER_(fam, name, kind, b, w, s, enq, enqb)                                  \
	static __attribute__((noinline)) void fam##_##name(struct hb_producer *p, void *h) \
	{                                                                                   \
		produce(p, h, kind, b, w, s, enq, enqb);                                    \
	}
#define HB_CONSUMER_(fam, name, kind, b, a, w, deq, deqb)                                  \
	static __attribute__((noinline)) HB_CLONES_##fam void fam##_##name(struct hb_consumer *c, void *h) \
	{                                                                                   \
		consume(c, h, kind, b, a, w, HB_NARROW_##fam, deq, deqb);                   \
	}

/* The symmetric variants of family fam: [mode][burst enqueues][burst
 * dequeues][mixed][work], each a function; X is HB_SYM_FN_ (define) or
 * HB_SYM_AT_ (the table's entry). HB_SYM_WORK_<fam>(x) is x where the
 * family has its own variants with local work, else nothing (loops.c: with
 * hundreds of nanoseconds of work between operations a call costs nothing
 * measurable, and each variant is compile time). HB_SYM_CLONES_<fam> and
 * HB_SYM_NARROW_<fam> (loops.c) say whether its variants are AVX2 clones
 * and whether they account for a burst 2 values at a time (take's narrow:
 * a constant, or a run-time one evaluated once per call). */
#define HB_SYM_NAME_(fam, m, be, bd, mx, wk) fam##_sym_##m##_##be##bd##mx##wk
#define HB_SYM_FN_(fam, m, be, bd, mx, wk, enq, deq, enqb, deqb)                          \
	static __attribute__((noinline)) HB_SYM_CLONES_##fam void HB_SYM_NAME_(             \
	    fam, m, be, bd, mx, wk)(struct hb_producer * p, void *h)                        \
	{                                                                                   \
		symmetric(p, h, m, be, bd, mx, wk, HB_SYM_NARROW_##fam, enq, deq, enqb,     \
			  deqb);                                                            \
	}
#define HB_SYM_AT_(fam, m, be, bd, mx, wk, ...) [m][be][bd][mx][wk] = HB_SYM_NAME_(fam, m, be, bd, mx, wk),
#define HB_SYM_WK_(X, fam, m, be, bd, mx, ...) X(fam, m, be, bd, mx, 0, __VA_ARGS__) HB_SYM_WORK_##fam(X(fam, m, be, bd, mx, 1, __VA_ARGS__))
#define HB_SYM_MX_(X, fam, m, be, bd, ...) HB_SYM_WK_(X, fam, m, be, bd, 0, __VA_ARGS__) HB_SYM_WK_(X, fam, m, be, bd, 1, __VA_ARGS__)
#define HB_SYM_BD_(X, fam, m, be, ...) HB_SYM_MX_(X, fam, m, be, 0, __VA_ARGS__) HB_SYM_MX_(X, fam, m, be, 1, __VA_ARGS__)
#define HB_SYM_MODE_(X, fam, m, ...) HB_SYM_BD_(X, fam, m, 0, __VA_ARGS__) HB_SYM_BD_(X, fam, m, 1, __VA_ARGS__)
/* the modes of a family: inline and message; the generic one's counted too
 * (a queue that moves nothing: faa) */
#define HB_SYM_DATA_(X, fam, ...) HB_SYM_MODE_(X, fam, HB_SYM_INLINE, __VA_ARGS__) HB_SYM_MODE_(X, fam, HB_SYM_MESSAGE, __VA_ARGS__)
#define HB_SYM_ALL_(X, fam, ...) HB_SYM_DATA_(X, fam, __VA_ARGS__) HB_SYM_MODE_(X, fam, HB_SYM_COUNTED, __VA_ARGS__)

#define HB_LOOPS(fam, SYMS, enq, deq, enqb, deqb)                                            \
	HB_PRODUCER_(fam, produce_inline, HB_ITEM_INLINE, 0, 0, 0, enq, enqb)                \
	HB_PRODUCER_(fam, produce_inline_bursts, HB_ITEM_INLINE, 1, 0, 0, enq, enqb)         \
	HB_PRODUCER_(fam, produce_message, HB_ITEM_MESSAGE, 0, 0, 0, enq, enqb)              \
	HB_PRODUCER_(fam, produce_message_bursts, HB_ITEM_MESSAGE, 1, 0, 0, enq, enqb)       \
	HB_PRODUCER_(fam, produce_inline_work, HB_ITEM_INLINE, 0, 1, 0, enq, enqb)           \
	HB_PRODUCER_(fam, produce_inline_bursts_work, HB_ITEM_INLINE, 1, 1, 0, enq, enqb)    \
	HB_PRODUCER_(fam, produce_message_work, HB_ITEM_MESSAGE, 0, 1, 0, enq, enqb)         \
	HB_PRODUCER_(fam, produce_message_bursts_work, HB_ITEM_MESSAGE, 1, 1, 0, enq, enqb)  \
	/* --strip's variants: inline items, no work (hb_parse) */                          \
	HB_PRODUCER_(fam, produce_strip_p, HB_ITEM_INLINE, 0, 0, HB_STRIP_PUBLISH, enq, enqb) \
	HB_PRODUCER_(fam, produce_strip_p_bursts, HB_ITEM_INLINE, 1, 0, HB_STRIP_PUBLISH, enq, \
		     enqb)                                                                  \
	HB_PRODUCER_(fam, produce_strip_w, HB_ITEM_INLINE, 0, 0, HB_STRIP_WINDOW, enq, enqb) \
	HB_PRODUCER_(fam, produce_strip_w_bursts, HB_ITEM_INLINE, 1, 0, HB_STRIP_WINDOW, enq, \
		     enqb)                                                                  \
	HB_PRODUCER_(fam, produce_strip_pw, HB_ITEM_INLINE, 0, 0,                            \
		     HB_STRIP_PUBLISH | HB_STRIP_WINDOW, enq, enqb)                          \
	HB_PRODUCER_(fam, produce_strip_pw_bursts, HB_ITEM_INLINE, 1, 0,                     \
		     HB_STRIP_PUBLISH | HB_STRIP_WINDOW, enq, enqb)                          \
	HB_CONSUMER_(fam, consume_inline, HB_ITEM_INLINE, 0, 1, 0, deq, deqb)                \
	HB_CONSUMER_(fam, consume_inline_bursts, HB_ITEM_INLINE, 1, 1, 0, deq, deqb)         \
	HB_CONSUMER_(fam, consume_message, HB_ITEM_MESSAGE, 0, 1, 0, deq, deqb)              \
	HB_CONSUMER_(fam, consume_message_bursts, HB_ITEM_MESSAGE, 1, 1, 0, deq, deqb)       \
	HB_CONSUMER_(fam, consume_counted, HB_ITEM_INLINE, 0, 0, 0, deq, deqb)               \
	HB_CONSUMER_(fam, consume_counted_bursts, HB_ITEM_INLINE, 1, 0, 0, deq, deqb)        \
	HB_CONSUMER_(fam, consume_inline_work, HB_ITEM_INLINE, 0, 1, 1, deq, deqb)           \
	HB_CONSUMER_(fam, consume_inline_bursts_work, HB_ITEM_INLINE, 1, 1, 1, deq, deqb)    \
	HB_CONSUMER_(fam, consume_message_work, HB_ITEM_MESSAGE, 0, 1, 1, deq, deqb)         \
	HB_CONSUMER_(fam, consume_message_bursts_work, HB_ITEM_MESSAGE, 1, 1, 1, deq, deqb)  \
	HB_CONSUMER_(fam, consume_counted_work, HB_ITEM_INLINE, 0, 0, 1, deq, deqb)          \
	HB_CONSUMER_(fam, consume_counted_bursts_work, HB_ITEM_INLINE, 1, 0, 1, deq, deqb)   \
	SYMS(HB_SYM_FN_, fam, enq, deq, enqb, deqb)                                          \
	static const struct hb_loops hb_loops_##fam = {                                     \
		.symmetric = {SYMS(HB_SYM_AT_, fam, enq)},                                   \
		.producers = {{{fam##_produce_inline, fam##_produce_inline_bursts},          \
			       {fam##_produce_message, fam##_produce_message_bursts}},       \
			      {{fam##_produce_inline_work, fam##_produce_inline_bursts_work}, \
			       {fam##_produce_message_work, fam##_produce_message_bursts_work}}}, \
		.stripped = {{fam##_produce_strip_p, fam##_produce_strip_p_bursts},          \
			     {fam##_produce_strip_w, fam##_produce_strip_w_bursts},          \
			     {fam##_produce_strip_pw, fam##_produce_strip_pw_bursts}},       \
		.consumers = {{{fam##_consume_inline, fam##_consume_inline_bursts},          \
			       {fam##_consume_message, fam##_consume_message_bursts},        \
			       {fam##_consume_counted, fam##_consume_counted_bursts}},       \
			      {{fam##_consume_inline_work, fam##_consume_inline_bursts_work}, \
			       {fam##_consume_message_work, fam##_consume_message_bursts_work}, \
			       {fam##_consume_counted_work, fam##_consume_counted_bursts_work}}}, \
	};

#endif /* HB_LOOPS_BODY_H */
