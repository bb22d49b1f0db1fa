/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_fastpath.h - the fast path of the queue, inline (private to
 * libnumaring; do not include it outside ring/src).
 *
 * Route to the worker's node, one operation on that node's ring. One core
 * per operation, always inlined with the look-up `mode` a constant (DPDK's
 * constant-flag pattern), so a core compiles to the one look-up it names:
 * production's entry points (ops.c) branch between the RSEQ and CACHED
 * cores, the lab (lab_queue.c) compiles one variant per look-up and jumps
 * to the worker's. An operation that wins its race runs no backoff code.
 * Everything else goes through one slow path per direction (transfer.c),
 * out of line: a single operation is a burst of one there.
 */
#ifndef NR_FASTPATH_H
#define NR_FASTPATH_H

#include <errno.h>
#include <sched.h>

#include "nr_internal.h"
#include "nr_lookup.h"

#ifdef NR_LAB
#include <numa.h>
#endif

/*
 * Routing. Each look-up produces a raw key: a CPU number or a kernel node
 * number, depending on the mode and on whether the topology is emulated
 * (emulated nodes are not the kernel's, so they are found from the CPU).
 * The worker remembers the last key; only a different key is mapped to a
 * queue node (out of line, nr_rekey), so the fast path of an exact mode is
 * the look-up itself, one compare and one counter increment.
 */

/* The raw key of the calling thread by `mode`; UINT32_MAX if unknown.
 * With mode a constant, it folds to the one look-up. */
static NR_INLINE uint32_t nr_lookup_key(const struct numaring_worker *w, const struct numaring *q,
					enum numaring_lookup mode)
{
	unsigned kind = w->key_kind;
	switch (mode) {
#ifdef NR_LAB
	case NUMARING_LOOKUP_LIBNUMA: {
		int c = sched_getcpu();
		int n = numa_node_of_cpu(c);
		/* Emulated: the call is still made (its cost is what this mode
		 * measures), then the CPU decides. Real nodes: a CPU libnuma does
		 * not know (onlined after libnuma read the node maps) is an unknown
		 * key, never a CPU number read as a node number. */
		if (kind == NR_KEY_CPU)
			return (uint32_t)c;
		return n < 0 ? UINT32_MAX : (uint32_t)n;
	}
	case NUMARING_LOOKUP_SYSCALL: {
		unsigned cpu, os;
		if (nr_getcpu_syscall(&cpu, &os) < 0)
			return UINT32_MAX;
		return kind == NR_KEY_CPU ? cpu : os;
	}
	case NUMARING_LOOKUP_RDPID:
		/* (node << 12) | cpu: node or CPU by shift and mask from attach */
		return (uint32_t)(nr_rdpid() >> w->key_shift) & w->key_mask;
#endif
	case NUMARING_LOOKUP_RSEQ:
		/* cpu_id or node_id, chosen at attach: no test here */
		return nr_rseq_load(w->rseq_off);
	default: {
		/* the CPU and the table built at create (TABLE, CACHED's
		 * re-checks, NONE's first look) */
		int c = sched_getcpu();
		if (kind == NR_KEY_CPU)
			return (uint32_t)c;
		/* real nodes: the CPU still decides (that is the table); map
		 * it to the kernel node here */
		if (c < 0 || c >= NR_MAX_CPUS || q->cpu_node[c] < 0)
			return UINT32_MAX;
		return (uint32_t)q->topo.os_node[q->cpu_node[c]];
	}
	}
}

/* Route the worker before an operation. mode is a constant in each core's
 * caller, so this is one case: nothing for NONE, a countdown for CACHED, one
 * load and compare for RSEQ and RDPID, the look-up and a counter for the
 * others. */
static NR_INLINE void nr_route(struct numaring_worker *w, enum numaring_lookup mode)
{
	uint32_t key;
	switch (mode) {
	case NUMARING_LOOKUP_NONE:
		return;
	case NUMARING_LOOKUP_CACHED:
		if (likely(--w->recheck_left != 0))
			return;
		nr_recheck_now(w);
		return;
	case NUMARING_LOOKUP_RSEQ:
	case NUMARING_LOOKUP_RDPID:
		key = nr_lookup_key(w, w->q, mode);
		break;
	default:
		key = nr_lookup_key(w, w->q, mode);
		w->st.lookups++;
		break;
	}
	if (unlikely(key != w->key))
		nr_rekey(w, key);
}

/*
 * The cores. Enqueue and dequeue of one item keep Vyukov's per-cell
 * operation (one CAS, no look at the other index); bursts claim a range.
 * Either way, a ring that is full or empty (or held items) sends the
 * operation to its direction's one slow path.
 */
/*
 * Whether a full or empty local ring is the whole answer: the queue has one
 * ring (one node, look-up NONE) and the worker holds nothing. Then the slow
 * paths (transfer.c) have nowhere else to put or find an item, but orphans,
 * and a failed operation returns here, as the flat ring's does, without
 * their calls: in pairs and mixed a ring that settles full or empty fails a
 * large share of its operations (issue 45 item 2). mode is a constant, so
 * this folds away in every other core.
 */
static NR_INLINE int nr_alone(const struct numaring_worker *w, enum numaring_lookup mode)
{
	return mode == NUMARING_LOOKUP_NONE && w->alone && w->npending == 0;
}

/* nr_alone() and no orphan to hand out: an empty ring is the answer.
 * Relaxed: a hint, as in nr_dequeue_slow: an orphan left at this moment is
 * found by a later dequeue, as one left just after the slow path's load is. */
static NR_INLINE int nr_alone_and_empty(struct numaring_worker *w, enum numaring_lookup mode)
{
	if (!nr_alone(w, mode) ||
	    atomic_load_explicit(&w->q->orphan_count, memory_order_relaxed) != 0)
		return 0;
	nr_note_paths(w, 0, 0, 0, 0); /* what nr_dequeue_slow notes of an empty dequeue */
	return 1;
}

static NR_INLINE int nr_enqueue_core(struct numaring_worker *w, void *item,
				     enum numaring_lookup mode)
{
	nr_route(w, mode);
	if (likely(w->npending == 0) && likely(nr_ring_enqueue(w->local, item, &w->bo))) {
		w->st.enqueued++;
		return 0;
	}
	if (nr_alone(w, mode))
		return -ENOBUFS;
	return nr_enqueue_slow_one(w, item);
}

static NR_INLINE int nr_dequeue_core(struct numaring_worker *w, void **item,
				     enum numaring_lookup mode)
{
	if (unlikely(w->npending))
		return nr_pop_pending(w, item, 1) == 1 ? 0 : -ENOENT;
	nr_route(w, mode);
	if (likely(nr_ring_dequeue(w->local, item, &w->bo))) {
		w->st.dequeued++;
		return 0;
	}
	if (nr_alone_and_empty(w, mode))
		return -ENOENT;
	return nr_dequeue_slow(w, item, 1) == 1 ? 0 : -ENOENT;
}

static NR_INLINE unsigned nr_enqueue_burst_core(struct numaring_worker *w, void *const *items,
						unsigned n, enum numaring_lookup mode)
{
	unsigned done = 0;
	nr_route(w, mode);
	if (likely(w->npending == 0)) {
		done = nr_ring_enqueue_burst(w->local, items, n, &w->bo);
		w->st.enqueued += done;
		if (likely(done == n))
			return done;
	}
	if (nr_alone(w, mode))
		return done;
	return nr_enqueue_slow(w, items, n, done);
}

static NR_INLINE unsigned nr_dequeue_burst_core(struct numaring_worker *w, void **items, unsigned n,
						enum numaring_lookup mode)
{
	unsigned got = 0, k;
	if (unlikely(w->npending)) {
		got = nr_pop_pending(w, items, n);
		if (got == n)
			return got;
	}
	nr_route(w, mode);
	k = nr_ring_dequeue_burst(w->local, items + got, n - got, &w->bo);
	w->st.dequeued += k;
	got += k;
	if (likely(got > 0))
		return got;
	if (nr_alone_and_empty(w, mode))
		return 0;
	return nr_dequeue_slow(w, items, n);
}

#endif /* NR_FASTPATH_H */
