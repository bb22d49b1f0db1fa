/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numaring_ops.h - NumaRing's operations as numaring.c's adapter gives them
 * (the public API of ring/numaring.h), static inline so that the worker
 * loops compiled for it (harness/loops.c) call the library as the bare loop
 * does, with no adapter call between (issue 44). numaring.c's hq_ops points
 * at the same functions.
 */
#ifndef HQ_NUMARING_OPS_H
#define HQ_NUMARING_OPS_H

#include "numaring.h"

static inline int nrq_enqueue(void *h, void *item)
{
	return numaring_enqueue(h, item);
}

static inline int nrq_dequeue(void *h, void **item)
{
	return numaring_dequeue(h, item);
}

static inline unsigned nrq_enqueue_burst(void *h, void *const *items, unsigned n)
{
	return numaring_enqueue_burst(h, items, n);
}

static inline unsigned nrq_dequeue_burst(void *h, void **items, unsigned n)
{
	return numaring_dequeue_burst(h, items, n);
}

#endif /* HQ_NUMARING_OPS_H */
