/*
 * fault.c - three broken queues for the harness's own tests: each is the
 * flat ring (flat.c) with one fault injected into every FAULT_PERIOD-th
 * item a producer thread enqueues (one in a million):
 *
 *   fault-drop     the item is reported enqueued but never stored (a loss);
 *   fault-dup      the item is stored twice (a duplicate);
 *   fault-corrupt  one bit of the item's value is flipped on the way (in
 *                  message mode the bit of the message's value: a pointer
 *                  that no longer points at a message would crash, not test).
 *
 * numaring-bench's verification must catch each of them, in both item modes
 * (harness/tests/test_bench.c). They have no burst enqueue, so the harness
 * loops single operations and every item passes the fault counter.
 */
#include <stdint.h>

#include "nr_ring.h"
#include "peers.h"

#define FAULT_PERIOD 1000000u

enum fault { FAULT_DROP, FAULT_DUP, FAULT_CORRUPT };

struct faultq {
	enum fault fault;
	enum hb_item_kind kind;
	struct nr_ring *r;
};

struct fault_thread {
	struct faultq *q;
	uint64_t n; /* items enqueued through this handle */
	struct nr_backoff bo;
};

static void *fault_create(const struct hq_params *p, enum fault f, char *err, size_t errlen)
{
	struct faultq *q;
	if (!hq_pow2(p->capacity))
		return hq_err(err, errlen, "fault: capacity %zu is not a power of two >= 2",
			      p->capacity),
		       NULL;
	if (!(q = hq_alloc(sizeof *q)) || !(q->r = hq_alloc(nr_ring_bytes(p->capacity)))) {
		free(q);
		return hq_err(err, errlen, "fault: out of memory"), NULL;
	}
	q->fault = f;
	q->kind = p->item;
	nr_ring_init(q->r, p->capacity);
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

static void fault_destroy(void *qv)
{
	struct faultq *q = qv;
	free(q->r);
	free(q);
}

static void *fault_thread_init(void *q, char *err, size_t errlen)
{
	struct fault_thread *t = hq_alloc(sizeof *t);
	if (!t)
		return hq_err(err, errlen, "fault: out of memory for a thread handle"), NULL;
	t->q = q;
	nr_backoff_init(&t->bo, NUMARING_BACKOFF_NONE);
	return t;
}

static void fault_thread_fini(void *q, void *h)
{
	(void)q;
	free(h);
}

static int fault_enqueue(void *h, void *item)
{
	struct fault_thread *t = h;
	if ((t->n + 1) % FAULT_PERIOD != 0) {
		if (!nr_ring_enqueue(t->q->r, item, &t->bo))
			return 1; /* full: a retry is not another item */
		t->n++;
		return 0;
	}
	t->n++;
	switch (t->q->fault) {
	case FAULT_DROP:
		return 0; /* "done" */
	case FAULT_DUP:
		while (!nr_ring_enqueue(t->q->r, item, &t->bo))
			nr_cpu_relax(); /* consumers run until every producer has stopped */
		break;
	case FAULT_CORRUPT:
		if (t->q->kind == HB_ITEM_MESSAGE)
			((struct hb_msg *)item)->value ^= 1;
		else
			item = (void *)((uintptr_t)item ^ 1);
		break;
	}
	if (nr_ring_enqueue(t->q->r, item, &t->bo))
		return 0;
	t->n--; /* full: the caller retries this item, and the fault with it */
	if (t->q->fault == FAULT_CORRUPT && t->q->kind == HB_ITEM_MESSAGE)
		((struct hb_msg *)item)->value ^= 1;
	return 1;
}

static int fault_dequeue(void *h, void **item)
{
	struct fault_thread *t = h;
	return !nr_ring_dequeue(t->q->r, item, &t->bo);
}

static unsigned fault_dequeue_burst(void *h, void **items, unsigned n)
{
	struct fault_thread *t = h;
	return nr_ring_dequeue_burst(t->q->r, items, n, &t->bo);
}

#define FAULT_OPS(suffix, what)                                                                \
	const struct hq_ops hq_fault_##suffix = {                                              \
		.name = "fault-" #suffix,                                                      \
		.description = "test only: the flat ring that " what " one item in a million", \
		.bounded = 1,                                                                  \
		.moves_data = 1,                                                               \
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
