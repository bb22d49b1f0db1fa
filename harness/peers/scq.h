/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * scq.h - the SCQ adapter's index rings, opened up for its tests
 * (harness/tests/test_peers.c). numaring-bench uses the adapter through
 * hq_scq (queue.h) alone.
 *
 * The adapter (scq.c) is Nikolaev's SCQ, written from the paper's
 * pseudocode. Its operations are split where the paper's dequeue and
 * enqueue take a position and then work on it, so that a test can stop a
 * "thread" between the two and run others in between: faa_tail then
 * enqueue_at is one enqueue attempt, faa_head then dequeue_at one dequeue
 * attempt, and threshold_dec is the decrement that follows a dequeue attempt
 * that did not take an item. The whole operations (enqueue, dequeue) are
 * exactly these steps in a loop; a script of steps is an interleaving the
 * real threads can produce.
 *
 * scq.c built with -DSCQ_MUTATION=k (the tests' build only) gives the same
 * interface with one bug put in on purpose, under the names suffixed _m<k>;
 * its `mutation` says which (scq.c, top).
 */
#ifndef HQ_SCQ_H
#define HQ_SCQ_H

#include <stddef.h>
#include <stdint.h>

#include "queue.h"

struct scq_ring; /* one index ring: 2n entries for indices 0..n-1 */

/* What one dequeue attempt at a position did. */
enum scq_at {
	SCQ_TAKEN,     /* the position's index is *idx */
	SCQ_MISSED,    /* nothing for this position; items lie further on */
	SCQ_CAUGHT_UP, /* nothing here and Tail was at or before it: empty */
};

struct scq_hooks {
	const struct hq_ops *ops; /* the adapter (create/destroy/enqueue/... on void *q) */
	const char *mutation;     /* the bug put in (SCQ_MUTATION), or NULL */

	/* The rings of a queue made by ops->create: 0 its allocated ring aq
	 * (indices whose data slot holds an item, in FIFO order), 1 its free
	 * ring fq (indices of free data slots). */
	struct scq_ring *(*ring_of)(void *q, int free_ring);
	/* An empty ring for indices 0..n-1 (n a power of two >= 1), or NULL. */
	struct scq_ring *(*ring_create)(size_t n);
	void (*ring_destroy)(struct scq_ring *r);

	/* The paper's whole operations. dequeue: 0 and *idx, or 1 if empty.
	 * enqueue never fails: at most n indices exist for 2n entries. */
	void (*enqueue)(struct scq_ring *r, unsigned idx);
	int (*dequeue)(struct scq_ring *r, unsigned *idx);

	/* Their steps. enqueue_at: 1 if idx went in at position t (the
	 * threshold restored: the enqueue has returned), 0 if t had to be
	 * passed over (the enqueue takes another position). */
	uint64_t (*faa_tail)(struct scq_ring *r);
	int (*enqueue_at)(struct scq_ring *r, uint64_t t, unsigned idx);
	uint64_t (*faa_head)(struct scq_ring *r);
	enum scq_at (*dequeue_at)(struct scq_ring *r, uint64_t h, unsigned *idx);
	int64_t (*threshold_dec)(struct scq_ring *r); /* the value before */

	/* What is in the ring's words now. */
	int64_t (*threshold)(const struct scq_ring *r);
	int64_t (*threshold_reset)(const struct scq_ring *r); /* 3n - 1 */
	uint64_t (*head)(const struct scq_ring *r);
	uint64_t (*tail)(const struct scq_ring *r);
};

extern const struct scq_hooks scq_hooks;
/* The mutants, linked into test_peers only (harness/harness.mk). */
extern const struct scq_hooks scq_hooks_m1, scq_hooks_m2;

#endif /* HQ_SCQ_H */
