/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ops.c - the public operations of the production library: each calls the
 * core of the queue's look-up directly (nr_fastpath.h): NONE where the
 * queue has one node with CPUs (a worker's node cannot change: nothing to
 * look up), else RSEQ where the kernel keeps the node in rseq, CACHED
 * elsewhere.
 *
 * The choice is at most two branches on worker fields that never change
 * after attach, so they are predicted every time, and the three cores are
 * inlined here (NONE's first, then RSEQ's: one node is where a user tries
 * the queue first, and where the kernel has rseq's node_id it is what runs
 * on several):
 * no indirect call, no jump table, no look-up call, no backoff code on a
 * won race (make test-ring disassembles these four functions,
 * scripts/check_fastpath.sh). The lab's operations (lab_queue.c) jump to one
 * of seven variants instead; this file is not part of the lab's library.
 */
#define _GNU_SOURCE
#include "nr_fastpath.h"

#ifdef NR_LAB
#error "ops.c is production's: the lab's operations are in lab_queue.c"
#endif

int numaring_enqueue(struct numaring_worker *w, void *item)
{
	if (likely(w->fixed))
		return nr_enqueue_core(w, item, NUMARING_LOOKUP_NONE);
	if (likely(w->rseq))
		return nr_enqueue_core(w, item, NUMARING_LOOKUP_RSEQ);
	return nr_enqueue_core(w, item, NUMARING_LOOKUP_CACHED);
}

int numaring_dequeue(struct numaring_worker *w, void **item)
{
	if (likely(w->fixed))
		return nr_dequeue_core(w, item, NUMARING_LOOKUP_NONE);
	if (likely(w->rseq))
		return nr_dequeue_core(w, item, NUMARING_LOOKUP_RSEQ);
	return nr_dequeue_core(w, item, NUMARING_LOOKUP_CACHED);
}

unsigned numaring_enqueue_burst(struct numaring_worker *w, void *const *items, unsigned n)
{
	if (likely(w->fixed))
		return nr_enqueue_burst_core(w, items, n, NUMARING_LOOKUP_NONE);
	if (likely(w->rseq))
		return nr_enqueue_burst_core(w, items, n, NUMARING_LOOKUP_RSEQ);
	return nr_enqueue_burst_core(w, items, n, NUMARING_LOOKUP_CACHED);
}

unsigned numaring_dequeue_burst(struct numaring_worker *w, void **items, unsigned n)
{
	if (likely(w->fixed))
		return nr_dequeue_burst_core(w, items, n, NUMARING_LOOKUP_NONE);
	if (likely(w->rseq))
		return nr_dequeue_burst_core(w, items, n, NUMARING_LOOKUP_RSEQ);
	return nr_dequeue_burst_core(w, items, n, NUMARING_LOOKUP_CACHED);
}
