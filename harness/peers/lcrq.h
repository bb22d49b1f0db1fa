/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lcrq.h - the LCRQ adapter's rings (CRQs), opened up for its tests
 * (harness/tests/test_peers.c). numaring-bench uses the adapter through
 * hq_lcrq (queue.h) alone.
 *
 * The adapter (lcrq.c) is Morrison and Afek's LCRQ, written from the
 * paper's pseudocode. As in scq.h, a CRQ's operations are split where the
 * paper's take a position and then work on it, so that a test can stop a
 * "thread" between the two and run others in between: faa_tail then
 * enqueue_at is one enqueue attempt, faa_head then dequeue_at one dequeue
 * attempt. The whole CRQ operations (crq_enqueue, crq_dequeue) are these
 * steps in a loop (plus, for the enqueue, the paper's close when the ring
 * is full or the enqueuer starves); a script of steps is an interleaving
 * real threads can produce.
 *
 * lcrq.c built with -DLCRQ_MUTATION=k (the tests' build only) gives the
 * same interface with one bug put in on purpose, under the names suffixed
 * _m<k>; its `mutation` says which (lcrq.c, top).
 */
#ifndef HQ_LCRQ_H
#define HQ_LCRQ_H

#include <stddef.h>
#include <stdint.h>

#include "queue.h"

struct lcrq_crq; /* one CRQ: a ring of R cells, Head, Tail (with its closed bit), next */

/* What one enqueue attempt at a position did. */
enum lcrq_enq {
	LCRQ_ENQ_OK,     /* the item went in at t */
	LCRQ_ENQ_MISSED, /* t could not take it (taken, closed off, unsafe and passed) */
	LCRQ_ENQ_CLOSED, /* the CRQ is closed: t came with Tail's closed bit */
};

/* What one dequeue attempt at a position did. */
enum lcrq_deq {
	LCRQ_DEQ_TAKEN,  /* *x is h's item */
	LCRQ_DEQ_MISSED, /* nothing for h; Tail is past h + 1: try another position */
	LCRQ_DEQ_EMPTY,  /* nothing for h and Tail <= h + 1: the CRQ is empty (fixState run) */
};

struct lcrq_hooks {
	const struct hq_ops *ops; /* the adapter (create/destroy/thread_init/... on void *q) */
	const char *mutation;     /* the bug put in (LCRQ_MUTATION), or NULL */

	/* A queue as ops->create makes it, but with CRQs of `ring` cells (a
	 * power of two >= 2) instead of LCRQ_RING; NULL with a sentence in
	 * err. Destroy it with ops->destroy. */
	void *(*create_sized)(size_t ring, char *err, size_t errlen);
	/* CRQs the queue has linked after its first (closes that made the
	 * list grow), and of them, those that had to be allocated (the others
	 * were recycled after their hazard-pointer scan). */
	uint64_t (*appended)(void *q);
	uint64_t (*allocated)(void *q);

	/* A CRQ alone, empty, of `ring` cells (a power of two >= 2), or NULL. */
	struct lcrq_crq *(*crq_create)(size_t ring);
	void (*crq_destroy)(struct lcrq_crq *c);

	/* The paper's CRQ operations. crq_enqueue: 0, or 1 when the CRQ is
	 * closed (by this call or before it). crq_dequeue: 0 and *x, or 1 if
	 * empty. */
	int (*crq_enqueue)(struct lcrq_crq *c, uint64_t x);
	int (*crq_dequeue)(struct lcrq_crq *c, uint64_t *x);

	/* Their steps. faa_tail's value carries the closed bit (bit 63) as
	 * the paper's F&A on Tail returns it; enqueue_at answers CLOSED for it. */
	uint64_t (*faa_tail)(struct lcrq_crq *c);
	enum lcrq_enq (*enqueue_at)(struct lcrq_crq *c, uint64_t t, uint64_t x);
	uint64_t (*faa_head)(struct lcrq_crq *c);
	enum lcrq_deq (*dequeue_at)(struct lcrq_crq *c, uint64_t h, uint64_t *x);

	/* What is in the CRQ's words now: Head, Tail's index (closed bit
	 * off), 1 if Tail's closed bit is set. */
	uint64_t (*head)(const struct lcrq_crq *c);
	uint64_t (*tail)(const struct lcrq_crq *c);
	int (*closed)(const struct lcrq_crq *c);
};

extern const struct lcrq_hooks lcrq_hooks;
/* The mutants, linked into test_peers only (harness/harness.mk). */
extern const struct lcrq_hooks lcrq_hooks_m1, lcrq_hooks_m2, lcrq_hooks_m3;

#endif /* HQ_LCRQ_H */
