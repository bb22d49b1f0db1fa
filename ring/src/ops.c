/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ops.c - the public operations of the production library: each calls the
 * core of the queue's look-up directly (nr_fastpath.h), RSEQ where the
 * kernel keeps the node in rseq, CACHED elsewhere.
 *
 * The choice is one branch on a worker field that never changes after
 * attach, so it is predicted every time, and both cores are inlined here
 * (RSEQ's laid out as the fall-through: where the kernel has it, it is what
 * runs):
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
	if (likely(w->rseq))
		return nr_enqueue_core(w, item, NUMARING_LOOKUP_RSEQ);
	return nr_enqueue_core(w, item, NUMARING_LOOKUP_CACHED);
}

int numaring_dequeue(struct numaring_worker *w, void **item)
{
	if (likely(w->rseq))
		return nr_dequeue_core(w, item, NUMARING_LOOKUP_RSEQ);
	return nr_dequeue_core(w, item, NUMARING_LOOKUP_CACHED);
}

unsigned numaring_enqueue_burst(struct numaring_worker *w, void *const *items, unsigned n)
{
	if (likely(w->rseq))
		return nr_enqueue_burst_core(w, items, n, NUMARING_LOOKUP_RSEQ);
	return nr_enqueue_burst_core(w, items, n, NUMARING_LOOKUP_CACHED);
}

unsigned numaring_dequeue_burst(struct numaring_worker *w, void **items, unsigned n)
{
	if (likely(w->rseq))
		return nr_dequeue_burst_core(w, items, n, NUMARING_LOOKUP_RSEQ);
	return nr_dequeue_burst_core(w, items, n, NUMARING_LOOKUP_CACHED);
}
