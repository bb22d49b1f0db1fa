/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rte_ops.h - DPDK rte_ring's operations as rte.c's adapter gives them
 * (MP/MC), static inline so that the worker loops compiled for it
 * (harness/loops.c) inline DPDK's own inline functions into the loop, as
 * the bare loop does (issue 44). rte.c's hq_ops points at the same
 * functions. Under ThreadSanitizer, which cannot see DPDK's fences, each
 * hand-over is told to it (peers.h).
 */
#ifndef HQ_RTE_OPS_H
#define HQ_RTE_OPS_H

#include <rte_ring.h>

#include "peers.h"

static inline int rteq_enqueue(void *h, void *item)
{
	hq_tsan_release(h);
	return rte_ring_mp_enqueue(h, item);
}

static inline int rteq_dequeue(void *h, void **item)
{
	int rc = rte_ring_mc_dequeue(h, item);
	if (rc == 0)
		hq_tsan_acquire(h);
	return rc;
}

static inline unsigned rteq_enqueue_burst(void *h, void *const *items, unsigned n)
{
	hq_tsan_release(h);
	return rte_ring_mp_enqueue_burst(h, items, n, NULL);
}

static inline unsigned rteq_dequeue_burst(void *h, void **items, unsigned n)
{
	unsigned k = rte_ring_mc_dequeue_burst(h, items, n, NULL);
	if (k)
		hq_tsan_acquire(h);
	return k;
}

#endif /* HQ_RTE_OPS_H */
