/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * transfer.c - everything an operation does once it leaves the local ring:
 * the gates, cross-node batch transfers, items held by a worker and left
 * by detached ones (orphans), and the one slow path per direction that the
 * fast path (nr_fastpath.h) falls into when its ring is full or empty.
 */
#define _GNU_SOURCE
#include "nr_internal.h"

#include <errno.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* gates                                                                */

/* The gate of w's cross-node transfers: production's is the worker's own
 * (no line that every worker writes); the lab may share one per node or
 * one for all. */
static struct nr_gate *gate_of(struct numaring_worker *w)
{
#ifdef NR_LAB
	switch (w->q->lab.gate) {
	case NUMARING_GATE_SHARED:
		return &w->q->shared_gate;
	case NUMARING_GATE_PERNODE:
		return &w->q->node_gates[w->node];
	case NUMARING_GATE_PERWORKER:
	default:
		return &w->own_gate;
	}
#else
	return &w->own_gate;
#endif
}

/* Take the gate for a cross-node transfer. */
static void gate_enter(struct numaring_worker *w, struct nr_gate *g)
{
	/* G1: acquire exchange; pairs with the release in gate_exit (G2) of the
	 * holder before us, so our transfer starts after its transfer ended.
	 * The relaxed load first keeps waiters reading a shared line instead
	 * of writing it. */
	if (atomic_exchange_explicit(&g->held, 1, memory_order_acquire) != 0) {
		struct nr_wait wt = NR_WAIT_INIT;
		unsigned attempt = 0;
		w->st.gate_waits++;
		do {
			/* the configured backoff between polls, until the wait
			 * has spun its budget: then the holder may be preempted,
			 * and spinning would keep it from the CPU */
			if (!nr_wait_spent(&wt))
				nr_backoff_gate(&w->bo, attempt++);
			nr_wait_poll(&wt);
		} while (atomic_load_explicit(&g->held, memory_order_relaxed) != 0 ||
			 atomic_exchange_explicit(&g->held, 1, memory_order_acquire) != 0);
	}
	NR_FAULT_POINT(); /* holding the gate */
}

static void gate_exit(struct nr_gate *g)
{
	/* G2: release; pairs with G1 of the next holder. Only the holder
	 * writes 0, so a store suffices. */
	atomic_store_explicit(&g->held, 0, memory_order_release);
}

/* ------------------------------------------------------------------ */
/* held items and orphans                                               */

/* Put as many of items[0..n) as fit into the rings of w's node's others,
 * from the `from`-th nearest on, then into the local ring. Returns how many
 * were placed (a prefix); *local (if not NULL) gets how many of them went
 * into the local ring. */
static unsigned place(struct numaring_worker *w, void *const *items, unsigned n, unsigned from,
		      unsigned *local)
{
	struct numaring *q = w->q;
	unsigned done = 0, here;
	for (unsigned i = from; done < n && i + 1 < q->nnodes; i++)
		done += nr_ring_enqueue_burst(q->rings[q->order[w->node][i]], items + done,
					      n - done, &w->bo);
	here = done < n ? nr_ring_enqueue_burst(w->local, items + done, n - done, &w->bo) : 0;
	if (local)
		*local = here;
	return done + here;
}

/* Put as many of items[0..n) as fit anywhere, local ring first, then other
 * nodes nearest first. Returns how many (a prefix); *local as place(). */
static unsigned place_anywhere(struct numaring_worker *w, void *const *items, unsigned n,
			       unsigned *local)
{
	unsigned done = nr_ring_enqueue_burst(w->local, items, n, &w->bo);
	if (local)
		*local = done;
	if (done < n)
		done += place(w, items + done, n - done, 0, NULL) /* local is full: others */;
	return done;
}

/* Items of a transfer that found no room: place them (other nodes from the
 * `from`-th nearest, then the local ring), and hold what fits nowhere; this
 * worker hands held items out first (dequeue) or puts them back first
 * (enqueue, detach). Never drops one. Callers hold only while npending == 0
 * and n <= batch, so pending[] has room. Returns how many were placed in
 * rings; *local as place(). */
static unsigned place_or_hold(struct numaring_worker *w, void *const *items, unsigned n,
			      unsigned from, unsigned *local)
{
	unsigned done = place(w, items, n, from, local);
	memcpy(w->pending + w->npending, items + done, (n - done) * sizeof(void *));
	w->npending += n - done;
	return done;
}

/* Move held items back into rings; keeps those that fit nowhere. */
void nr_flush_pending(struct numaring_worker *w)
{
	unsigned done = place_anywhere(w, w->pending, w->npending, NULL);
	if (done == 0)
		return;
	memmove(w->pending, w->pending + done, (w->npending - done) * sizeof(void *));
	w->npending -= done;
}

/* Hand out up to n held items (newest first); counted as dequeued, not local. */
unsigned nr_pop_pending(struct numaring_worker *w, void **items, unsigned n)
{
	unsigned got = 0;
	while (w->npending && got < n)
		items[got++] = w->pending[--w->npending];
	w->st.dequeued += got;
	w->nonlocal += got;
	nr_note_paths(w, 0, 0, got, 1); /* a burst's fast path may add local items after them */
	return got;
}
static int take_orphan(struct numaring *q, void **item)
{
	int got = 0;
	pthread_mutex_lock(&q->lock);
	size_t n = atomic_load_explicit(&q->orphan_count, memory_order_relaxed);
	if (n > 0) {
		*item = q->orphans[n - 1];
		/* Relaxed: the lock orders orphans[]; the count read without the
		 * lock is only a hint to come and look. */
		atomic_store_explicit(&q->orphan_count, n - 1, memory_order_relaxed);
		got = 1;
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

/* ------------------------------------------------------------------ */
/* cross-node transfers (slow path)                                     */

/* Local ring full: move a batch of its oldest items to the nearest node
 * that has room. Returns the number of items moved off the node; *any_room
 * says whether any other ring showed room at all (if none did, the caller
 * need not look at their index lines again: each look takes the line from
 * the consumers that are busy with it). */
static NR_NOINLINE unsigned push_batch(struct numaring_worker *w, int *any_room)
{
	struct numaring *q = w->q;
	struct nr_gate *g = gate_of(w);
	unsigned moved = 0;
	gate_enter(w, g);
	*any_room = 0;
	for (unsigned i = 0; i + 1 < q->nnodes; i++) {
		struct nr_ring *dst = q->rings[q->order[w->node][i]];
		/* the cells dst can take now, not its index room: a cell whose
		 * consumer has not finished would send the batch straight back */
		unsigned want = (unsigned)nr_ring_free_ready(dst, q->cfg.batch);
		if (want == 0)
			continue;
		*any_room = 1;
		unsigned n = nr_ring_dequeue_burst(w->local, w->xfer, want, &w->bo);
		if (n == 0)
			break;	  /* consumers emptied the local ring meanwhile */
		NR_FAULT_POINT(); /* items in flight between two rings */
		moved = nr_ring_enqueue_burst(dst, w->xfer, n, &w->bo);
		/* dst filled up meanwhile: the rest goes to the next nodes, back
		 * to the local ring, or is held by this worker; never dropped.
		 * Counted as moved: only what went back to the local ring is not. */
		if (moved < n) {
			unsigned back;
			moved += place_or_hold(w, w->xfer + moved, n - moved, i + 1, &back) - back;
		}
		if (moved) {
			w->st.batches_out++;
			w->st.items_out += moved;
		}
		break;
	}
	gate_exit(g);
	return moved;
}

#ifdef NR_LAB
/* linger: 1 if the worker should take only full batches now (see
 * numaring_lab.linger_us): it has not yet looked in vain for that long.
 * Out of line (called only with linger on, from the slow path), so that it
 * is a symbol of its own: make test-ring checks that production's library
 * has none (ring/tests/check_no_lab.sh). */
static NR_NOINLINE int lingering(struct numaring_worker *w)
{
	uint64_t now = nr_now_ns();
	/* a new episode of empty dequeues: the first, or one since which a
	 * dequeue succeeded (counted, so the fast path stores nothing more) */
	if (w->empty_since_ns == 0 || w->empty_mark != w->st.dequeued) {
		w->empty_since_ns = now;
		w->empty_mark = w->st.dequeued;
	}
	return now - w->empty_since_ns < (uint64_t)w->q->lab.linger_us * 1000u;
}
#endif

/* Local ring empty: take a batch from the nearest non-empty node. The
 * first `want` items go to out[], the rest into the local ring (held if it
 * filled up meanwhile). Returns the number given to out[]. With the lab's linger, a
 * node with fewer than a batch is passed over until the worker has found
 * nothing for linger_us (then it takes what there is: nothing waits longer). */
static NR_NOINLINE unsigned pull_batch(struct numaring_worker *w, void **out, unsigned want)
{
	struct numaring *q = w->q;
	struct nr_gate *g = gate_of(w);
	unsigned given = 0;
	uint64_t least = 1;
#ifdef NR_LAB
	if (q->lab.linger_us && lingering(w)) {
		least = q->cfg.batch;
		/* not a full batch anywhere: do not even take the gate */
		unsigned i = 0;
		for (; i + 1 < q->nnodes; i++)
			if (nr_ring_count(q->rings[q->order[w->node][i]]) >= least)
				break;
		if (i + 1 >= q->nnodes)
			return 0;
	}
#endif
	gate_enter(w, g);
	for (unsigned i = 0; i + 1 < q->nnodes; i++) {
		struct nr_ring *src = q->rings[q->order[w->node][i]];
		if (nr_ring_count(src) < least)
			continue;
		unsigned n = nr_ring_dequeue_burst(src, w->xfer, q->cfg.batch, &w->bo);
		if (n == 0)
			continue;
		NR_FAULT_POINT(); /* items in flight between two rings */
		given = n < want ? n : want;
		memcpy(out, w->xfer, given * sizeof(void *));
		/* the rest: the local ring, else held (not back to other nodes) */
		(void)place_or_hold(w, w->xfer + given, n - given, q->nnodes, NULL);
		w->st.batches_in++;
		w->st.items_in += n;
		break;
	}
	gate_exit(g);
	return given;
}

/* ------------------------------------------------------------------ */
/* the slow paths: one per direction, for single operations and bursts  */

/* Put items[0..n) into the local ring, counting what went in. */
static unsigned put_local(struct numaring_worker *w, void *const *items, unsigned n)
{
	return nr_ring_enqueue_burst(w->local, items, n, &w->bo);
}

/*
 * The rest of an enqueue: items[done..n) found the local ring full (or this
 * worker holds items, which go back first). Re-check the node, move batches
 * off the node while that makes room, and at last put items in any ring
 * with a free slot. Counts every item it places; returns the new `done`.
 */
unsigned nr_enqueue_slow(struct numaring_worker *w, void *const *items, unsigned n, unsigned done)
{
	struct numaring *q = w->q;
	unsigned start = done, local;
	int any_room = 1;
	if (w->npending) { /* held items go back first; then ours may fit */
		nr_flush_pending(w);
		if (w->npending == 0)
			done += put_local(w, items + done, n - done);
	}
	if (done < n && nr_recheck_on_slow_path(w) && w->npending == 0)
		done += put_local(w, items + done, n - done);
	while (done < n && w->npending == 0 && q->nnodes > 1) {
		unsigned moved = push_batch(w, &any_room);
		if (w->npending)
			break;
		done += put_local(w, items + done, n - done);
		if (moved == 0)
			break;
	}
	/* One ring, or every other ring just showed no room, and the local
	 * ring was retried above: nothing has room. Else any free slot
	 * anywhere, local first. */
	if (done < n && ((q->nnodes > 1 && any_room) || w->npending)) {
		unsigned k = place_anywhere(w, items + done, n - done, &local);
		done += k;
		w->nonlocal += k - local;
	}
	w->st.enqueued += done - start;
	return done;
}

/*
 * The rest of a dequeue that found the local ring empty (and held nothing):
 * re-check the node, take a batch from another node, then orphans. Counts
 * what it returns; returns how many of items[0..n) it filled.
 */
unsigned nr_dequeue_slow(struct numaring_worker *w, void **items, unsigned n)
{
	struct numaring *q = w->q;
	unsigned got = 0, pulled;
	if (nr_recheck_on_slow_path(w)) {
		got = nr_ring_dequeue_burst(w->local, items, n, &w->bo);
		if (got > 0) {
			w->st.dequeued += got;
			nr_note_paths(w, got, 0, 0, 0); /* the new node's ring is local */
			return got;
		}
	}
	if (q->nnodes > 1)
		got = pull_batch(w, items, n);
	pulled = got;
	/* Relaxed: a hint only; take_orphan reads under the lock. */
	while (got < n && atomic_load_explicit(&q->orphan_count, memory_order_relaxed) > 0 &&
	       take_orphan(q, &items[got]))
		got++;
	w->st.dequeued += got;
	w->nonlocal += got;
	/* the batch's items first, then orphans (held by a detached worker);
	 * an empty dequeue notes an empty split */
	nr_note_paths(w, 0, pulled, got - pulled, 0);
	return got;
}

/* A single item's nr_enqueue_slow, taking the item by value so that the fast
 * path keeps it in a register (its address would make every enqueue store it). */
int nr_enqueue_slow_one(struct numaring_worker *w, void *item)
{
	return nr_enqueue_slow(w, &item, 1, 0) == 1 ? 0 : -ENOBUFS;
}
