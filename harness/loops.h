/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * loops.h - the producer and consumer loops of a prodcons run and the
 * threads' loop of a symmetric one (pairs, mixed), one set per queue family
 * (loops_body.h has them, loops.c compiles them).
 *
 * A family whose operations are visible to the compiler (flat, numaring,
 * rte: harness/peers/<queue>_ops.h) gets loops with those operations
 * inlined, as the bare loop has them; every other queue runs the generic
 * loops, which call its adapter's operations through their pointers
 * (queue.h). Either way the adapter stays the one place the queue is
 * described: the family's operations are the functions its hq_ops names.
 */
#ifndef HB_LOOPS_H
#define HB_LOOPS_H

#include "queue.h"

struct hb_producer;
struct hb_consumer;

/* The operations of queue.h's hq_ops, as types a loop is compiled with. */
typedef int hb_enqueue_fn(void *h, void *item);
typedef int hb_dequeue_fn(void *h, void **item);
typedef unsigned hb_enqueue_burst_fn(void *h, void *const *items, unsigned n);
typedef unsigned hb_dequeue_burst_fn(void *h, void **items, unsigned n);

typedef void hb_producer_loop(struct hb_producer *p, void *h);
typedef void hb_consumer_loop(struct hb_consumer *c, void *h);
/* A symmetric workload's thread: producer p and its consumer alike. */
typedef void hb_symmetric_loop(struct hb_producer *p, void *h);

/* What a symmetric thread does with the items it dequeues, and which items
 * it makes. */
enum hb_sym_mode {
	HB_SYM_INLINE,  /* inline items, accounted */
	HB_SYM_MESSAGE, /* messages, accounted */
	HB_SYM_COUNTED, /* inline values a queue that moves nothing returns (faa): counted only */
	HB_SYM_MODES_
};

/* One family's loops, a function per variant of a run. */
struct hb_loops {
	hb_producer_loop *producers[2][2][2]; /* [work][message][bursts] */
	hb_producer_loop *stripped[3][2];     /* [--strip's publish and window bits - 1][bursts] */
	hb_consumer_loop *consumers[2][3][2]; /* [work][inline, message, counted][bursts] */
	/* [mode][burst enqueues][burst dequeues][mixed][work]; a family that
	 * moves data has no counted mode (NULL) */
	hb_symmetric_loop *symmetric[HB_SYM_MODES_][2][2][2][2];
};

/* The loops of ops's family: its own where it has one, else the generic
 * ones. Never NULL. */
const struct hb_loops *hb_loops_of(const struct hq_ops *ops);

/* The symmetric loop of ops's family for a run of that mode, burst
 * enqueues and dequeues (0 or 1), workload (mixed 1, pairs 0) and work (0
 * or 1): its family's, else the generic one. Never NULL. */
hb_symmetric_loop *hb_symmetric_of(const struct hq_ops *ops, enum hb_sym_mode mode, int be,
				   int bd, int mixed, int work);

#endif /* HB_LOOPS_H */
