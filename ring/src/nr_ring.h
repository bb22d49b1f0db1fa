/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_ring.h - the bounded MPMC ring of one node (private; inline fast path).
 *
 * Protocol (Vyukov's bounded MPMC queue, extended with bulk claims):
 *
 *   1. Positions are free-running 64-bit counters: `tail` hands out positions
 *      to producers, `head` to consumers. Position p lives in cell p & mask.
 *      At 10^10 operations per second a 64-bit counter wraps after 58 years,
 *      so wrap-around is never reached; differences of positions are taken
 *      as signed 64-bit values, valid while they are below 2^63.
 *   2. Each cell carries `seq`, which says whose turn it is:
 *        seq == p            the cell is free for the producer of position p;
 *        seq == p + 1        it holds the item of position p, for its consumer;
 *        seq == p + capacity the consumer of p is done: free for position p + capacity.
 *   3. A single enqueue claims position p only if cell(p).seq == p (free),
 *      with a CAS of tail from p to p + 1; then writes the item and publishes
 *      seq = p + 1. A single dequeue claims p only if cell(p).seq == p + 1,
 *      with a CAS of head; then reads the item and sets seq = p + capacity.
 *      Producers never read head and consumers never read tail on this path:
 *      with one producer and one consumer, each index line stays in its
 *      owner's cache and only cell lines move.
 *   4. A burst looks before it claims: an enqueue of up to n reads the seq
 *      of the cells from tail on and counts the k <= n consecutive ones that
 *      are free for their position (seq == p), then claims exactly those
 *      with one CAS of tail from p to p + k; a dequeue counts the cells that
 *      hold their position's item (seq == p + 1) and claims them with one
 *      CAS of head. If the CAS succeeds, no other thread claimed any of the
 *      k positions between the look and the claim (the index only grows,
 *      and each cell changes only by the owner of its position), so every
 *      claimed cell is ready: a burst writes or reads its k cells and
 *      publishes each, and never waits for another thread. Like single
 *      operations, bursts never read the other side's index: with one
 *      producer and one consumer only cell lines move. Bulk and single
 *      operations mix freely (they follow the same seq rule). Both
 *      directions run one look-and-claim (nr_ring_claim): a consumer is a
 *      producer that looks for seq == p + 1 instead of p and moves head.
 *   5. No operation waits for another thread's step: a single operation or
 *      a burst claims only cells that are ready, and a cell that is not
 *      ready makes it return short (full or empty) or retry from the
 *      current index. A thread preempted between its claim and its publish
 *      delays only the operations that reach its cells next: they find them
 *      not ready and report full or empty, as in Vyukov's queue.
 *   6. A burst hands its cells over from the last to the first: an enqueue
 *      publishes cell pos + k - 1 first and cell pos last, a dequeue frees
 *      them in the same order. The other side looks from its index on, so
 *      it finds the first cell not ready until the whole range is: it then
 *      takes the range in one look and one claim instead of chasing the
 *      burst cell by cell, which moved each line back and forth while it
 *      was being written (commit 35453d01 gives the measurement). Each
 *      cell's hand-over is its own seq store, so the order changes no rule
 *      above; a thread preempted in the middle of the loop leaves its
 *      first cells not ready, as in rule 5.
 *
 * Invariant: head <= tail <= head + capacity (a producer claims only free
 * cells, a consumer only full ones), which makes `tail - head` a count in
 * [0, capacity].
 */
#ifndef NR_RING_H
#define NR_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nr_backoff.h"

#define NR_CACHELINE 64
/* Two lines: x86's adjacent-line prefetcher pulls lines in pairs, so fields
 * written by different threads are kept 128 bytes apart (DPDK's guard line). */
#define NR_DESTRUCTIVE 128

struct nr_cell {
	_Atomic uint64_t seq; /* whose turn it is; see rule 2 above */
	void *item;           /* plain: ordered by seq's release/acquire */
};

struct nr_ring {
	/* written by every producer of this ring */
	alignas(NR_DESTRUCTIVE) _Atomic uint64_t tail;
	/* written by every consumer of this ring */
	alignas(NR_DESTRUCTIVE) _Atomic uint64_t head;
	/* read-only after nr_ring_init */
	alignas(NR_DESTRUCTIVE) uint64_t mask;
	uint64_t capacity;
	/* the cells start on their own line */
	alignas(NR_DESTRUCTIVE) struct nr_cell cells[];
};

_Static_assert(offsetof(struct nr_ring, tail) % NR_DESTRUCTIVE == 0,
	       "tail is written by producers only: it must not share a line pair");
_Static_assert(offsetof(struct nr_ring, head) % NR_DESTRUCTIVE == 0,
	       "head is written by consumers only: it must not share a line pair");
_Static_assert(offsetof(struct nr_ring, mask) % NR_DESTRUCTIVE == 0,
	       "read-only fields must not share a line with the indices");
_Static_assert(offsetof(struct nr_ring, cells) % NR_DESTRUCTIVE == 0,
	       "cells must not share a line with the read-only fields");
_Static_assert(sizeof(struct nr_cell) == 16, "four cells per cache line");

static inline size_t nr_ring_bytes(uint64_t capacity)
{
	return sizeof(struct nr_ring) + capacity * sizeof(struct nr_cell);
}

/* Initialise a ring in memory of nr_ring_bytes(capacity); capacity is a
 * power of two. Not concurrent with anything: the ring is published to other
 * threads afterwards by whatever hands them the queue (pthread_create). */
static inline void nr_ring_init(struct nr_ring *r, uint64_t capacity)
{
	atomic_init(&r->tail, 0);
	atomic_init(&r->head, 0);
	r->mask = capacity - 1;
	r->capacity = capacity;
	for (uint64_t i = 0; i < capacity; i++) {
		atomic_init(&r->cells[i].seq, i);
		r->cells[i].item = NULL;
	}
}

/* Approximate number of items: exact when the ring is quiescent. */
static inline uint64_t nr_ring_count(struct nr_ring *r)
{
	/* Relaxed: an estimate for choosing where to transfer; nothing is read
	 * through it. head first: head <= tail at every instant and both only
	 * grow, so on x86 (TSO) tail read after head is >= it. On ARM/POWER the
	 * relaxed tail may be older than head; the wrapped difference is then
	 * huge and the clamp below reports a full ring, a harmless estimate. */
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t n = t - h;
	return n > r->capacity ? r->capacity : n;
}

static inline uint64_t nr_ring_free(struct nr_ring *r)
{
	return r->capacity - nr_ring_count(r);
}

/* How many cells from tail on are free for their position, at most max:
 * the room a burst enqueue would find now. A transfer sizes its batch by
 * it, so that it takes off its own ring no more items than the destination
 * takes without waiting for a consumer that has claimed a cell and not yet
 * freed it (nr_ring_free counts such cells as room). */
static inline uint64_t nr_ring_free_ready(struct nr_ring *r, uint64_t max)
{
	/* Relaxed: an estimate; the enqueue that follows looks again with
	 * acquire (EB1) before it writes anything. */
	uint64_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t k = 0;
	while (k < max && atomic_load_explicit(&r->cells[(pos + k) & r->mask].seq,
					       memory_order_relaxed) == pos + k)
		k++;
	return k;
}

/*
 * The single operations keep Vyukov's loop instead of calling nr_ring_claim
 * with n = 1. The claim's k == 0 branch takes a second look at the cell
 * before it decides full, empty or catch up; a single operation decides
 * from the value its E1/D1 load already read, so the claim would add a
 * load to every full or empty return, and the cell's address, which this
 * loop keeps across the CAS, would be computed again after it (one more
 * load of mask on the success path). It would also make the single
 * operations run the burst's protocol, which the spin model's
 * ring_enqueue/ring_dequeue (ring/model/ring.pml) do not mirror.
 */

/* Enqueue one item. Returns false if the ring is full (cell of the next
 * position still holds an item, or its consumer has not finished reading). */
static inline bool nr_ring_enqueue(struct nr_ring *r, void *item, struct nr_backoff *bo)
{
	struct nr_cell *c;
	/* Relaxed: tail only hands out positions; who owns a cell is decided by
	 * the CAS below, what it holds is ordered by seq (E1/E2). */
	uint64_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
	unsigned attempt = 0;
	for (;;) {
		c = &r->cells[pos & r->mask];
		/* E1: acquire; pairs with the release of seq in dequeue (D2/DB2) by
		 * the consumer of pos - capacity: its read of c->item happens before
		 * our write below. Relaxed would let our write race with its read. */
		uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
		int64_t dif = (int64_t)(seq - pos);
		if (dif == 0) {
			/* Relaxed CAS: atomicity alone gives position pos to one
			 * producer; on failure pos is refreshed with the current tail. */
			if (atomic_compare_exchange_weak_explicit(&r->tail, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
			nr_backoff_fail(bo, attempt++);
		} else if (dif < 0) {
			return false; /* full: the item of pos - capacity is still there */
		} else {
			/* another producer took pos: catch up with tail */
			nr_backoff_fail(bo, attempt++);
			pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
		}
	}
	NR_FAULT_POINT();
	c->item = item;
	/* E2: release; pairs with the acquire of seq in dequeue (D1/DB1): the
	 * consumer that sees pos + 1 also sees item. */
	atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
	return true;
}

/* Dequeue one item into *item. Returns false if the ring is empty (the cell
 * of the next position is not published yet). */
static inline bool nr_ring_dequeue(struct nr_ring *r, void **item, struct nr_backoff *bo)
{
	struct nr_cell *c;
	/* Relaxed: see nr_ring_enqueue; ordering is carried by seq (D1/D2). */
	uint64_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
	unsigned attempt = 0;
	for (;;) {
		c = &r->cells[pos & r->mask];
		/* D1: acquire; pairs with the release of seq in enqueue (E2/EB2):
		 * seeing pos + 1 makes the producer's write of c->item visible. */
		uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
		int64_t dif = (int64_t)(seq - (pos + 1));
		if (dif == 0) {
			/* Relaxed CAS: one consumer gets pos; see nr_ring_enqueue. */
			if (atomic_compare_exchange_weak_explicit(&r->head, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
			nr_backoff_fail(bo, attempt++);
		} else if (dif < 0) {
			return false; /* empty: position pos is not published */
		} else {
			nr_backoff_fail(bo, attempt++);
			pos = atomic_load_explicit(&r->head, memory_order_relaxed);
		}
	}
	NR_FAULT_POINT();
	*item = c->item;
	/* D2: release; pairs with the acquire of seq by the producer of
	 * pos + capacity (E1/EB1): our read of item happens before it overwrites. */
	atomic_store_explicit(&c->seq, pos + r->capacity, memory_order_release);
	return true;
}

/* The ready offset of a cell (rule 2): a cell is ready for the producer of
 * position p when its seq is p + NR_READY_FREE, for the consumer of p when
 * it is p + NR_READY_FULL. */
#define NR_READY_FREE 0
#define NR_READY_FULL 1

/* What a claim got: positions [pos, pos + k), k == 0 when none. */
struct nr_claim {
	uint64_t pos;
	uint64_t k;
};

/*
 * The look and the claim of rule 4, for both directions (DPDK's one head
 * move): a consumer is a producer that looks for seq == p + 1 instead of
 * seq == p, and moves head instead of tail. `index` is &r->tail with
 * `ready` NR_READY_FREE (enqueue), or &r->head with NR_READY_FULL
 * (dequeue); both are constants in every caller, so each direction
 * compiles to its own loop with no test of the direction.
 *
 * Claims the k <= n consecutive cells from the index on that are ready for
 * this side, with one CAS of the index from pos to pos + k, and returns
 * {pos, k}. k == 0 when the cell at the index is not ready: the ring is
 * full (enqueue) or empty (dequeue). The caller then owns the k cells
 * alone and hands each over with a release store of its seq (EB2/DB2).
 * Never waits for another thread (rule 5): a failed CAS or a position
 * taken by another thread of the same side retries from the current index.
 */
static inline __attribute__((always_inline)) struct nr_claim
nr_ring_claim(struct nr_ring *r, _Atomic uint64_t *index, uint64_t ready, uint64_t n,
	      struct nr_backoff *bo)
{
	/* Relaxed: the index only hands out positions; who owns a cell is
	 * decided by the CAS below, what it holds is ordered by seq (EB1/DB1). */
	uint64_t pos = atomic_load_explicit(index, memory_order_relaxed);
	unsigned attempt = 0;
	uint64_t k;
	if (n == 0)
		return (struct nr_claim){pos, 0};
	for (;;) {
		/* Look: the ready cells from pos on, one acquire load each.
		 * EB1 (enqueue): pairs with the release of seq by the consumer
		 * of pos + k - capacity (D2/DB2): its read of the item happens
		 * before our caller's write; relaxed would let that write race
		 * with the read. DB1 (dequeue): pairs with the release of seq
		 * by the producer of pos + k (E2/EB2): seeing pos + k + 1 makes
		 * its write of the item visible to our caller's read. */
		for (k = 0; k < n; k++) {
			struct nr_cell *c = &r->cells[(pos + k) & r->mask];
			if (atomic_load_explicit(&c->seq, memory_order_acquire) != pos + k + ready)
				break;
		}
		if (k == 0) {
			/* Relaxed: this second look only decides between
			 * returning and retrying; nothing is read through it. */
			int64_t dif = (int64_t)(atomic_load_explicit(
							&r->cells[pos & r->mask].seq,
							memory_order_relaxed) -
						(pos + ready));
			if (dif < 0)
				/* enqueue: full, the item of pos - capacity is
				 * still there; dequeue: empty, pos not published */
				return (struct nr_claim){pos, 0};
			if (dif == 0)
				continue; /* ready since the look: look again */
			/* another thread of this side took pos: catch up */
			nr_backoff_fail(bo, attempt++);
			pos = atomic_load_explicit(index, memory_order_relaxed);
			continue;
		}
		/* Claim exactly the k cells seen ready. Relaxed CAS: atomicity
		 * gives [pos, pos + k) to this thread alone; the cells'
		 * hand-over was ordered by EB1/DB1 above. On failure pos is
		 * refreshed with the current index. */
		if (atomic_compare_exchange_weak_explicit(index, &pos, pos + k,
							  memory_order_relaxed,
							  memory_order_relaxed))
			return (struct nr_claim){pos, k};
		nr_backoff_fail(bo, attempt++);
	}
}

/* Enqueue up to n items in order (rule 4). Returns how many went in: fewer
 * than n when the cells after them are not free (full, or their consumers
 * still reading). */
static inline unsigned nr_ring_enqueue_burst(struct nr_ring *r, void *const *items, unsigned n,
					     struct nr_backoff *bo)
{
	struct nr_claim cl = nr_ring_claim(r, &r->tail, NR_READY_FREE, n, bo);
	if (cl.k == 0)
		return 0;
	NR_FAULT_POINT(); /* holding claimed cells */
	/* Publish from the last claimed cell back to the first (rule 6). */
	for (uint64_t i = cl.k; i-- > 0;) {
		struct nr_cell *c = &r->cells[(cl.pos + i) & r->mask];
		c->item = items[i];
		/* EB2: release; pairs with D1/DB1 of the consumer of pos + i,
		 * as E2: seeing pos + i + 1 makes the item visible. */
		atomic_store_explicit(&c->seq, cl.pos + i + 1, memory_order_release);
	}
	return (unsigned)cl.k;
}

/* Dequeue up to n items in order (rule 4). Returns how many came out:
 * fewer than n when the cells after them hold no item yet. */
static inline unsigned nr_ring_dequeue_burst(struct nr_ring *r, void **items, unsigned n,
					     struct nr_backoff *bo)
{
	struct nr_claim cl = nr_ring_claim(r, &r->head, NR_READY_FULL, n, bo);
	if (cl.k == 0)
		return 0;
	NR_FAULT_POINT(); /* holding claimed cells */
	/* Free from the last claimed cell back to the first (rule 6). */
	for (uint64_t i = cl.k; i-- > 0;) {
		struct nr_cell *c = &r->cells[(cl.pos + i) & r->mask];
		items[i] = c->item;
		/* DB2: release; pairs with E1/EB1 of the producer of
		 * pos + i + capacity, as D2: our read happens before its write. */
		atomic_store_explicit(&c->seq, cl.pos + i + r->capacity, memory_order_release);
	}
	return (unsigned)cl.k;
}

#endif /* NR_RING_H */
