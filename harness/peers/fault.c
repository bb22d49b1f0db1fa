/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fault.c - four broken queues for the harness's own tests: each is the
 * flat ring (flat.c) with one fault injected into every FAULT_PERIOD-th
 * item a producer thread enqueues (one in a million):
 *
 *   fault-drop     the item is reported enqueued but never stored (a loss);
 *   fault-dup      the item is stored twice (a duplicate);
 *   fault-corrupt  one bit of the item's value is flipped on the way (in
 *                  message mode the bit of the message's value: a pointer
 *                  that no longer points at a message would crash, not test);
 *   fault-reorder  the item is held back and stored after the producer's
 *                  next one (an inversion that loses nothing: the online
 *                  order check, not the counts, must catch it).
 *
 * numaring-bench's verification must catch each of them, in both item modes
 * (harness/tests/test_bench.c). They have no burst enqueue, so the harness
 * loops single operations and every item passes the fault counter.
 */
#include <sched.h>
#include <stdint.h>

#include "numaring_lab.h"
#include "peers.h"

#define FAULT_PERIOD 1000000u

enum fault { FAULT_DROP, FAULT_DUP, FAULT_CORRUPT, FAULT_REORDER };

struct faultq {
	enum fault fault;
	enum hb_item_kind kind;
	struct numaring_flat *r;
};

struct fault_thread {
	struct faultq *q;
	uint64_t n; /* items enqueued through this handle */
	struct numaring_flat_handle *h;
	void *held; /* fault-reorder: the item held back until the next one is in */
};

static void *fault_create(const struct hq_params *p, enum fault f, char *err, size_t errlen)
{
	struct faultq *q;
	if (!hq_pow2(p->capacity))
		return hb_err(err, errlen, "fault: capacity %zu is not a power of two >= 2",
			      p->capacity),
		       NULL;
	if (!(q = hq_alloc(sizeof *q)) || !(q->r = numaring_flat_create(p->capacity))) {
		hq_free(q);
		return hb_err(err, errlen, "fault: out of memory"), NULL;
	}
	q->fault = f;
	q->kind = p->item;
	return q;
}

static void *fault_create_drop(const struct hq_params *p, char *err, size_t errlen)
{
	return fault_create(p, FAULT_DROP, err, errlen);
}

static void *fault_create_dup(const struct hq_params *p, char *err, size_t errlen)
{
	return fault_create(p, FAULT_DUP, err, errlen);
}

static void *fault_create_corrupt(const struct hq_params *p, char *err, size_t errlen)
{
	return fault_create(p, FAULT_CORRUPT, err, errlen);
}

static void *fault_create_reorder(const struct hq_params *p, char *err, size_t errlen)
{
	return fault_create(p, FAULT_REORDER, err, errlen);
}

/* Store the item held back (fault-reorder), waiting for room: consumers run
 * until every producer has stopped. */
static void fault_release_held(struct fault_thread *t)
{
	if (!t->held)
		return;
	while (numaring_flat_enqueue(t->h, t->held) != 0)
		sched_yield();
	t->held = NULL;
}

/* Its ring: the flat ring's own mapping. */
static unsigned fault_regions(void *qv, struct hq_region *out, unsigned max)
{
	struct faultq *q = qv;
	if (max)
		out[0].addr = numaring_flat_ring(q->r, &out[0].len);
	return 1;
}

static void fault_destroy(void *qv)
{
	struct faultq *q = qv;
	numaring_flat_destroy(q->r);
	hq_free(q);
}

static void *fault_thread_init(void *q, char *err, size_t errlen)
{
	struct fault_thread *t = hq_thread_alloc(sizeof *t);
	if (!t)
		return hb_err(err, errlen, "fault: out of memory for a thread handle"), NULL;
	t->q = q;
	if (!(t->h = numaring_flat_attach(((struct faultq *)q)->r))) {
		free(t);
		return hb_err(err, errlen, "fault: out of memory for a thread handle"), NULL;
	}
	return t;
}

static void fault_thread_fini(void *q, void *h)
{
	(void)q;
	fault_release_held(h); /* its producer stopped right after the fault */
	numaring_flat_detach(((struct fault_thread *)h)->h);
	free(h);
}

static int fault_enqueue(void *h, void *item)
{
	struct fault_thread *t = h;
	if ((t->n + 1) % FAULT_PERIOD != 0) {
		if (numaring_flat_enqueue(t->h, item) != 0)
			return 1; /* full: a retry is not another item */
		t->n++;
		fault_release_held(t); /* after the item that follows it */
		return 0;
	}
	t->n++;
	switch (t->q->fault) {
	case FAULT_DROP:
		return 0; /* "done" */
	case FAULT_DUP:
		while (numaring_flat_enqueue(t->h, item) != 0)
			sched_yield(); /* consumers run until every producer has stopped */
		break;
	case FAULT_REORDER:
		t->held = item;
		return 0; /* "done": stored after the next one */
	case FAULT_CORRUPT:
		if (t->q->kind == HB_ITEM_MESSAGE)
			((struct hb_msg *)item)->value ^= 1;
		else
			item = (void *)((uintptr_t)item ^ 1);
		break;
	}
	if (numaring_flat_enqueue(t->h, item) == 0)
		return 0;
	t->n--; /* full: the caller retries this item, and the fault with it */
	if (t->q->fault == FAULT_CORRUPT && t->q->kind == HB_ITEM_MESSAGE)
		((struct hb_msg *)item)->value ^= 1;
	return 1;
}

static int fault_dequeue(void *h, void **item)
{
	struct fault_thread *t = h;
	return numaring_flat_dequeue(t->h, item) != 0;
}

static unsigned fault_dequeue_burst(void *h, void **items, unsigned n)
{
	struct fault_thread *t = h;
	return numaring_flat_dequeue_burst(t->h, items, n);
}

#define FAULT_OPS(suffix, what)                                                                \
	const struct hq_ops hq_fault_##suffix = {                                              \
		.name = "fault-" #suffix,                                                      \
		.description = "test only: the flat ring that " what " one item in a million", \
		.bounded = 1,                                                                  \
		.moves_data = 1,                                                               \
		.ordering = "fifo",                                                            \
		.capacity_kind = "exact",                                                      \
		.memory = "creation",                                                          \
		.regions = fault_regions,                                                      \
		.test_only = 1,                                                                \
		.create = fault_create_##suffix,                                               \
		.destroy = fault_destroy,                                                      \
		.thread_init = fault_thread_init,                                              \
		.thread_fini = fault_thread_fini,                                              \
		.enqueue = fault_enqueue,                                                      \
		.dequeue = fault_dequeue,                                                      \
		.dequeue_burst = fault_dequeue_burst,                                          \
	}

FAULT_OPS(drop, "drops");
FAULT_OPS(dup, "duplicates");
FAULT_OPS(corrupt, "corrupts");
FAULT_OPS(reorder, "reorders");
