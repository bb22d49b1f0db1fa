/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flat_ops.h - the flat ring's operations as flat.c's adapter gives them,
 * static inline so that the worker loops compiled for it (harness/loops.c)
 * call the library as the bare loop does, with no adapter call between
 * (issue 44). flat.c's hq_ops points at the same functions.
 */
#ifndef HQ_FLAT_OPS_H
#define HQ_FLAT_OPS_H

#include "numaring_lab.h"

static inline int flat_enqueue(void *h, void *item)
{
	return numaring_flat_enqueue(h, item) != 0;
}

static inline int flat_dequeue(void *h, void **item)
{
	return numaring_flat_dequeue(h, item) != 0;
}

static inline unsigned flat_enqueue_burst(void *h, void *const *items, unsigned n)
{
	return numaring_flat_enqueue_burst(h, items, n);
}

static inline unsigned flat_dequeue_burst(void *h, void **items, unsigned n)
{
	return numaring_flat_dequeue_burst(h, items, n);
}

#endif /* HQ_FLAT_OPS_H */
