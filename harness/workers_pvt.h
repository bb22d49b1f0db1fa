/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * workers_pvt.h - the steps every worker loop is made of, private to
 * workers.c (producers and consumers) and workload.c (the symmetric
 * workloads); include run.h, not this, anywhere else.
 *
 * The per-item steps are always inline and take the run's kind as constant
 * arguments (item mode, single or burst operations, whether to wait), so
 * that each loop that calls them is specialised by its caller, as the
 * header of workers.c says: no test of what kind of run it is per item.
 *
 *   make_items    a producer's next n values (item.h), as inline items or in
 *                 messages of its pool
 *   sent_sum      after the enqueue: the checksum of the timed items that
 *                 went (the untimed ones follow from the count), and the
 *                 messages that did not go freed again
 *   take          a consumer's account of what it dequeued: tallies per
 *                 producer, the histogram of the timed items (and by path,
 *                 for a queue that has paths), the counters of what should
 *                 not have arrived
 */
#ifndef HB_WORKERS_PVT_H
#define HB_WORKERS_PVT_H

#include <sched.h>

#include "clock.h"
#include "relax.h"
#include "run.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Unbounded queues: how many more items a producer may send before it looks
 * again (workers.c). */
uint64_t hb_inflight_room(struct hb_run *run);

/* A worker of a queue that allocates as it runs takes --queue-mem's policy
 * (run->qmem_threads), once its own memory is in place: its pool and
 * tallies were touched when allocated, and its histogram's counts (hist, or
 * NULL), which calloc left untouched, are touched here, so that they stay
 * on its own node. hb_qmem_leave(s) after thread_fini gives the policy
 * back; a worker without it leaves s unset. */
static inline void hb_qmem_worker_enter(struct hb_run *run, struct hdr_hist *hist,
					struct hb_qmem_thread *s)
{
	if (!run->qmem_threads)
		return;
	hdr_reset(hist);
	hb_qmem_enter(s);
}

/* Open loop: wait until the clock reaches `when`. Returns the time, or 0 if
 * the producers were stopped first (workers.c). */
uint64_t hb_wait_until(struct hb_run *run, uint64_t when);

/* The calling thread's histograms, consumer c's (placed by its first touch:
 * call it pinned): the overall one, and one per path where the queue has
 * paths (hq_ops.dequeue_paths; c->handle must then be set before the
 * loop). 0, or -1 when out of memory (workers.c). */
int hb_consumer_hists(struct hb_run *run, struct hb_consumer *c);

/* record_timed's by-path part (workers.c): which path item i of the
 * handle's last dequeue of got items came by (queue.h), HQ_PATH_COUNT_
 * where the queue cannot tell. *ps is filled by the first call of a
 * dequeue (i == 0 asks the queue) and read by the next ones. */
enum hq_path hb_timed_path(struct hb_consumer *c, unsigned got, unsigned i, struct hq_paths *ps,
			   int *known);

/* The next free message of the pool for sequence seq. wait: until it is
 * free (NULL if the run stopped first); else NULL at once when its consumer
 * has not released it yet (counted as a window wait). */
static ALWAYS_INLINE struct hb_msg *next_msg(struct hb_producer *p, uint64_t seq, int wait)
{
	struct hb_run *run = p->run;
	struct hb_msg *m = &p->pool[seq & (run->window - 1)];
	uint32_t polls = 0;
	/* Acquire: pairs with the consumer's release store of state, so its
	 * reads of the message happen before we overwrite it. */
	while (atomic_load_explicit(&m->state, memory_order_acquire) != 0) {
		p->window_waits++;
		if (!wait || hb_phase(run) >= PH_STOP_PRODUCERS)
			return NULL;
		hb_idle_poll(&polls);
	}
	return m;
}

/* Open loop: publish that producer p's sequence seq is due at next_send, so
 * that a consumer computes any of its items' send time (item.h). Before the
 * first item of the loop goes. */
static ALWAYS_INLINE void publish_t0(struct hb_producer *p, uint64_t seq, uint64_t next_send)
{
	/* Relaxed: the queue's own release/acquire of the first item carries it
	 * to whoever dequeues that item or a later one. */
	atomic_store_explicit(&p->t0, next_send - seq * p->run->interval, memory_order_relaxed);
}

/* Timed sequence s of producer p, sent at the clock read once for the
 * operation (*now, read here if 0), into the producer's stamp ring. */
static ALWAYS_INLINE void stamp_timed(struct hb_producer *p, uint64_t s, uint64_t *now)
{
	const struct hb_run *run = p->run;
	uint64_t lap = s >> run->sample_shift;
	uint64_t t = *now ? *now : (*now = hc_now());
	/* Relaxed: the queue's release/acquire of this item (enqueued after
	 * this store) carries it to its consumer; a later lap's store over it
	 * is told by the tag (record_timed). */
	atomic_store_explicit(&p->stamps[lap & run->stamp_mask], hb_stamp(lap >> run->stamp_bits, t),
			      memory_order_relaxed);
}

/*
 * Make the items of sequences seq..seq+n-1 of producer p into items[]
 * (values, or messages holding them in message mode). Each carries its producer and
 * sequence; a timed one (sequence % sample == 0) is marked, and in closed
 * loop (interval 0) the clock read once for the operation (*now, read here
 * if 0) goes to the producer's stamp ring (in open loop its send time
 * follows from its sequence: publish_t0). Returns how many were made: fewer
 * than n when a message was not free (next_msg).
 *
 * Inline values are written as consecutive values first, with no test per
 * item (a loop the compiler vectorizes, as the bare loop's), then the few
 * multiples of the sample among them are marked: a test of the sequence per
 * item cost a burst's producer about as much as its enqueue (issue 44).
 */
static ALWAYS_INLINE unsigned make_items(struct hb_producer *p, uint64_t seq, unsigned n,
					 enum hb_item_kind kind, int wait, uint64_t interval,
					 uint64_t *now, void **items)
{
	const struct hb_run *run = p->run;
	const uint64_t smask = run->sample_mask, pid = p->id;
	if (kind == HB_ITEM_INLINE && (seq & HB_ITEM_LOW_MASK) + n <= HB_ITEM_LOW_MASK + 1) {
		/* no wrap of the sequence field inside the burst: value + i is
		 * sequence seq + i's */
		const uint64_t base = hb_item_untimed(pid, seq);
		for (unsigned i = 0; i < n; i++)
			items[i] = (void *)(uintptr_t)(base + i);
		for (uint64_t s = (seq + smask) & ~smask; s - seq < n; s += smask + 1) {
			items[s - seq] = (void *)(uintptr_t)hb_item_timed(pid, s);
			if (!interval)
				stamp_timed(p, s, now);
		}
		return n;
	}
	unsigned made = 0;
	for (; made < n; made++) {
		uint64_t s = seq + made, v;
		if ((s & smask) == 0) {
			v = hb_item_timed(pid, s);
			if (!interval)
				stamp_timed(p, s, now);
		} else {
			v = hb_item_untimed(pid, s);
		}
		if (kind == HB_ITEM_MESSAGE) {
			struct hb_msg *m = next_msg(p, s, wait);
			if (!m)
				break;
			m->value = v;
			/* Relaxed: the queue's own release/acquire hands the
			 * message over together with its value. */
			atomic_store_explicit(&m->state, 1, memory_order_relaxed);
			items[made] = m;
		} else {
			items[made] = (void *)(uintptr_t)v;
		}
	}
	return made;
}

/* After an enqueue of the messages items[0..made) that took the first
 * `done`: those that did not go, freed again (inline items: nothing). */
static ALWAYS_INLINE void unsent_free(unsigned done, unsigned made, enum hb_item_kind kind,
				      void *const *items)
{
	if (kind == HB_ITEM_MESSAGE) /* never sent: free again */
		for (unsigned i = done; i < made; i++)
			atomic_store_explicit(&((struct hb_msg *)items[i])->state, 0,
					      memory_order_relaxed);
}

/* A timed item's latency, now - t ticks from its send time t, into the
 * consumer's histograms (by path too, where the queue said which) if t fell
 * inside the measured window; the oldest item's age over the whole run. */
static inline void timed_sample(struct hb_consumer *c, uint64_t t, uint64_t now,
				unsigned path)
{
	struct hb_run *run = c->run;
	/* Relaxed: published by the phase acquire before these items could be
	 * sent, or still UINT64_MAX (then the item was sent before the window:
	 * t < t_start) */
	uint64_t t0 = atomic_load_explicit(&run->t_start, memory_order_relaxed);
	uint64_t t1 = atomic_load_explicit(&run->t_end, memory_order_relaxed);
	if (now > t && now - t > c->max_age)
		c->max_age = now - t;
	if (t < t0 || t > t1)
		return;
	int64_t ns = (int64_t)hc_to_ns(now > t ? now - t : 0);
	hdr_record(c->hist, ns);
	if (path < HQ_PATH_COUNT_) /* numaring: by path too */
		hdr_record(c->path_hist[path], ns);
}

/* Closed loop: read the stamps of the consumer's pending timed items
 * (record_timed) and record them. Their producers wrote each stamp before
 * enqueuing its item, so every one is in place; a stamp overwritten since
 * (its tag tells) is counted in stamps_lost. Called when HB_PENDING are
 * pending (run->pending_max: 1 where a worker shares its CPU) and when the
 * consumer's loop ends (hb_timed_flush). */
static __attribute__((noinline, unused)) void timed_resolve(struct hb_consumer *c)
{
	struct hb_run *run = c->run;
	for (unsigned k = 0; k < c->npending; k++) {
		const struct hb_pending *e = &c->pending[k];
		struct hb_producer *p = &run->prod[e->producer];
		/* Relaxed: see make_items; a later lap's stamp has another tag */
		uint64_t st = atomic_load_explicit(&p->stamps[e->lap & run->stamp_mask],
						   memory_order_relaxed);
		if (hb_stamp_tag(st) != ((e->lap >> run->stamp_bits) & 0xffff)) {
			c->stamps_lost++;
			continue;
		}
		timed_sample(c, hb_item_send_time(st, e->now), e->now, e->path);
	}
	c->npending = 0;
}

/* The end of a consumer's loop: the timed items still pending, recorded. */
static inline void hb_timed_flush(struct hb_consumer *c)
{
	if (c->npending)
		timed_resolve(c);
}

/* The timed items among items[0..got), one clock read for all of them: in
 * open loop their send time follows from their sequence (item.h: t0 + seq x
 * interval) and they are recorded at once (timed_sample); in closed loop it
 * is in their producer's stamp ring, read later, HB_PENDING at a time
 * (timed_resolve), so that the consumer does not pull the producer's stamp
 * line once per timed item while the producer is writing the next ones
 * into it. Out of line: one dequeue in `sample` comes here, and the others'
 * loop stays small. A queue with paths (numaring) is asked here which path
 * each came by, right after the dequeue as queue.h asks: the test for it
 * is here, once per call, so that no loop of any queue carries it (nor
 * changes its code for it). */
static __attribute__((noinline, unused)) void record_timed(struct hb_consumer *c, void **items,
							   unsigned got)
{
	struct hb_run *run = c->run;
	uint64_t now = hc_now();
	if (run->ops->fabricates) /* made-up items (null): no producer sent them */
		return;
	struct hq_paths ps;
	int known = -1; /* paths: not asked yet (hb_timed_path) */
	for (unsigned i = 0; i < got; i++) {
		uint64_t v = (uint64_t)(uintptr_t)items[i];
		if (!(v & HB_ITEM_TIMED))
			continue;
		unsigned pr = hb_item_producer(v); /* checked by take */
		struct hb_producer *p = &run->prod[pr];
		uint64_t s = hb_item_seq(v);
		unsigned path = HQ_PATH_COUNT_;
		if (__builtin_expect(c->path_hist != NULL, 0))
			path = hb_timed_path(c, got, i, &ps, &known);
		if (run->interval && s >= p->prefilled) {
			/* Relaxed: see publish_t0 */
			timed_sample(c, atomic_load_explicit(&p->t0, memory_order_relaxed) +
						s * run->interval, now, path);
			continue;
		}
		c->pending[c->npending++] = (struct hb_pending){
			.now = now, .lap = s >> run->sample_shift, .producer = pr, .path = path};
		if (c->npending >= run->pending_max) /* 1: a worker that shares its CPU */
			timed_resolve(c);
	}
}

/* The run [a, b) of producer pr's sequences (a < b) that does not go on
 * from the open run of its tally: one above the next sequence closes the
 * open run (folds it into count and sum) and opens this one; one below it
 * is an inversion, counted per item below the highest seen, with the step
 * back from it, and folded in at once; the part of it above the highest
 * seen (if any) goes on from the open run. */
static __attribute__((noinline, unused)) void tally_jump(struct hb_consumer *c, unsigned pr,
							 uint64_t a, uint64_t b)
{
	struct hb_tally *t = &c->tally[pr];
	if (a > t->next) {
		t->count += t->next - t->run;
		t->sum += hb_item_check_run(pr, t->run, t->next);
		t->run = a;
		t->next = b;
		return;
	}
	uint64_t below = b < t->next ? b : t->next;
	c->inversions += below - a;
	if (t->next - 1 - a > c->max_step)
		c->max_step = t->next - 1 - a;
	t->count += below - a;
	t->sum += hb_item_check_run(pr, a, below);
	if (b > t->next)
		t->next = b;
}

/* The run [a, b) of producer pr's sequences, received in this order, into
 * its tally (item.h): the usual case, the next sequence expected, only
 * moves the open run's end. */
static inline void tally_run(struct hb_consumer *c, unsigned pr, uint64_t a, uint64_t b)
{
	struct hb_tally *t = &c->tally[pr];
	if (__builtin_expect(a == t->next, 1))
		t->next = b;
	else
		tally_jump(c, pr, a, b);
}

/* Whether any of values[0..n) carries a timed bit its sequence does not
 * call for, or lacks one it does (item.h). Out of line: take() comes here
 * for a burst with a timed item only. */
static __attribute__((noinline, unused)) int timed_bits_wrong(void *const *values, unsigned n,
							       uint64_t sample_mask)
{
	uint64_t wrong = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = (uint64_t)(uintptr_t)values[i];
		wrong |= (v >> 63) ^ (uint64_t)hb_item_due_timed(hb_item_seq(v), sample_mask);
	}
	return wrong != 0;
}

/* Account for `got` items (item.h): tallies, the histogram and the bad
 * counters say what arrived.
 *
 * Inline items first take a path without a branch per item: one pass
 * (item_sum.h) says whether the burst is one run of one producer's
 * consecutive sequences (the usual case); then the run's two ends are its
 * count, its checksum and its order (tally_run), and only a burst with a
 * timed item is looked at again. The pass is compiled in (item_sum NULL,
 * --accounting auto: 4 values at a time, or 2 where `narrow`: the loops
 * compiled once, and the symmetric ones not run as AVX2, loops.c) or called
 * per burst (a named width). Anything else
 * (several producers, a gap, a bad producer field, messages) goes item by
 * item, cutting it into runs of one producer's consecutive sequences, each
 * into the tally as a whole: the compare that finds a run's end is the
 * order check too. */
static ALWAYS_INLINE void take(struct hb_consumer *c, void **items, unsigned got,
			       enum hb_item_kind kind, hb_item_sum_fn *item_sum, int narrow)
{
	struct hb_run *run = c->run;
	const unsigned np = run->np;
	const uint64_t mask = run->sample_mask;
	if (kind == HB_ITEM_INLINE && got == 1) {
		/* One value (every dequeue of single operations: the caller's
		 * got is 0 or 1, so this is the whole of its take): a run of
		 * one, in registers, no call. */
		uint64_t v = (uint64_t)(uintptr_t)items[0];
		unsigned pr = hb_item_producer(v);
		if (__builtin_expect(pr < np, 1)) {
			uint64_t s = hb_item_seq(v);
			if (__builtin_expect((v >> 63) != (uint64_t)hb_item_due_timed(s, mask), 0))
				c->tally[pr].sum += HB_ITEM_TIMED_WRONG;
			tally_run(c, pr, s, s + 1);
			if (v & HB_ITEM_TIMED)
				record_timed(c, items, 1);
			return;
		}
		/* a bad producer field: the item by item path counts it */
	}
	if (kind == HB_ITEM_INLINE) {
		struct hb_item_sums s;
		if (item_sum)
			item_sum(items, got, &s);
		else if (narrow) /* loops compiled once, or not run as AVX2 (loops.c) */
			hb_item_sums_inline2(items, got, &s);
		else
			hb_item_sums_inline(items, got, &s);
		uint64_t v0 = (uint64_t)(uintptr_t)items[0];
		unsigned pr = hb_item_producer(v0);
		if ((s.off & ~HB_ITEM_TIMED) == 0 && pr < np) {
			uint64_t first = hb_item_seq(v0);
			/* timed bits: some item timed exactly when the burst holds a
			 * multiple of the sample (the first one at or above first) */
			uint64_t due = (first + mask) & ~mask;
			if (s.off & HB_ITEM_TIMED) {
				if (__builtin_expect(timed_bits_wrong(items, got, mask), 0))
					c->tally[pr].sum += HB_ITEM_TIMED_WRONG;
				tally_run(c, pr, first, first + got);
				record_timed(c, items, got);
			} else {
				if (__builtin_expect(due < first + got, 0))
					c->tally[pr].sum += HB_ITEM_TIMED_WRONG;
				tally_run(c, pr, first, first + got);
			}
			return;
		}
	}

	unsigned cur = np; /* the producer of the run being cut; np: none */
	uint64_t a = 0, b = 0, timed = 0;
	for (unsigned i = 0; i < got; i++) {
		uint64_t v;
		if (kind == HB_ITEM_MESSAGE) {
			struct hb_msg *m = items[i];
			v = m->value;
			/* Relaxed: the queue's own release/acquire of the
			 * pointer ordered the producer's writes (value, state
			 * 1) before these reads. The state must be 1 (in
			 * flight); 0 is a message this consumer, or another
			 * before it, already took: a duplicate. A load and a
			 * store, not an exchange: no locked instruction per
			 * item. Two consumers taking one message at the same
			 * moment both see 1; the counts then catch the
			 * duplicate (item.h), only not by name. */
			if (atomic_load_explicit(&m->state, memory_order_relaxed) != 1) {
				unsigned pr = hb_item_producer(v);
				if (pr < np)
					c->dups[pr]++;
				else
					c->bad++;
				items[i] = NULL; /* not timed: record_timed skips it */
				continue;
			}
			/* Release: pairs with the producer's acquire in next_msg,
			 * so that our read of the value comes before its reuse. */
			atomic_store_explicit(&m->state, 0, memory_order_release);
			items[i] = (void *)(uintptr_t)v; /* record_timed reads values */
		} else {
			v = (uint64_t)(uintptr_t)items[i];
		}
		unsigned pr = hb_item_producer(v);
		if (pr >= np) {
			c->bad++;
			items[i] = NULL;
			continue;
		}
		uint64_t s = hb_item_seq(v);
		if ((v >> 63) != (uint64_t)hb_item_due_timed(s, mask))
			c->tally[pr].sum += HB_ITEM_TIMED_WRONG;
		timed |= v;
		if (pr == cur && s == b) {
			b++;
			continue;
		}
		if (cur < np)
			tally_run(c, cur, a, b);
		cur = pr;
		a = s;
		b = s + 1;
	}
	if (cur < np)
		tally_run(c, cur, a, b);
	if (timed & HB_ITEM_TIMED)
		record_timed(c, items, got);
}

/*
 * The open run of a prodcons consumer of single inline items, kept in two
 * registers (consume()'s locals) instead of its producer's tally: `expect`,
 * the value the next item must be to go on from the run, and `left`, how
 * many more untimed items may go on before one is due timed (or before the
 * sequence field would wrap). An item equal to expect while left is not 0
 * is the whole of its account: its count, checksum and order are the run's
 * end moving by one (item.h: a run costs its ends only), and its timed bit
 * is right (clear, and not due). Anything else (a timed item, another
 * producer, a gap, an inversion, a bad value) goes to take1_break, which
 * folds the run into the tally and takes the item as take() does (issue
 * 44: the tally's load and store and the bit tests per item were the
 * consumer's accounting, and the consumer set the pace of a 1P1C run).
 * The run's first sequence is in the consumer (run1_first), touched only
 * where it breaks; run1_fold puts the run into the tally when the loop
 * ends.
 */
struct hb_run1 {
	uint64_t expect, left;
};

/* The open run of o (if any, and not empty) into its producer's tally. */
static inline void run1_fold(struct hb_consumer *c, struct hb_run1 o)
{
	uint64_t next = hb_item_seq(o.expect);
	if (c->run1_open && next != c->run1_first)
		tally_run(c, hb_item_producer(o.expect), c->run1_first, next);
	c->run1_open = 0;
}

/* items[0] did not go on from the open run o: fold o in, take the item as
 * take() does, and open a run after it. Returns the new run (left 0: none,
 * every item comes here until one opens it). */
static __attribute__((noinline, unused)) struct hb_run1
take1_break(struct hb_consumer *c, void **items, struct hb_run1 o)
{
	const struct hb_run *run = c->run;
	run1_fold(c, o);
	take(c, items, 1, HB_ITEM_INLINE, NULL, 0);
	uint64_t v = (uint64_t)(uintptr_t)items[0];
	unsigned pr = hb_item_producer(v);
	uint64_t s = hb_item_seq(v) + 1;
	if (pr >= run->np || s >= HB_ITEM_LOW_MASK)
		return (struct hb_run1){0, 0};
	/* untimed from s up to the first due sequence at or above it, and
	 * below HB_ITEM_LOW_MASK, so that expect's sequence never wraps */
	uint64_t due = (s + run->sample_mask) & ~run->sample_mask;
	uint64_t left = due - s, room = HB_ITEM_LOW_MASK - s;
	c->run1_first = s;
	c->run1_open = 1;
	return (struct hb_run1){hb_item_untimed(pr, s), left < room ? left : room};
}

/* The account of one inline item of a prodcons consumer (take() for got
 * 1), through its open run o. */
static ALWAYS_INLINE void take1(struct hb_consumer *c, void **items, struct hb_run1 *o)
{
	uint64_t v = (uint64_t)(uintptr_t)items[0];
	if (__builtin_expect(((v ^ o->expect) | (o->left == 0)) == 0, 1)) {
		o->expect++;
		o->left--;
	} else {
		*o = take1_break(c, items, *o);
	}
}

#endif /* HB_WORKERS_PVT_H */
