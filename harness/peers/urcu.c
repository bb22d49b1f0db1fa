/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * urcu.c - liburcu's wfcqueue (package liburcu-dev, <urcu/wfcqueue.h>,
 * non-inline symbols in liburcu-common): an unbounded linked queue with
 * wait-free enqueue (one xchg on the tail) and dequeue serialised by the
 * caller.
 *
 * Dequeue variant: several dequeuers must exclude each other. The library's
 * convenience cds_wfcq_dequeue_blocking() takes the queue's dequeue mutex,
 * but when it meets an enqueue in progress (tail swapped, link not yet
 * written) it spins 10 times, then sleeps 10 ms in poll() WITH the mutex
 * held. We take the same mutex (cds_wfcq_dequeue_lock) around
 * __cds_wfcq_dequeue_nonblocking(), which returns "would block" instead:
 * we report that as empty and the caller retries. Bursts take the mutex once.
 * Burst enqueue links the nodes in a private queue and splices it onto the
 * shared one: one xchg on the shared tail per burst.
 *
 * Items travel in nodes. Nodes are recycled, not malloc'd per item: each
 * thread keeps a free list; a consumer gives batches of URCU_BATCH nodes to a
 * shared pool (one mutex per batch) from which producers take whole batches;
 * malloc only when both are empty. thread_fini frees the thread's list.
 */
#include <pthread.h>
#include <stdalign.h>
#include <urcu/wfcqueue.h>

#include "peers.h"

#define URCU_BATCH 32u

struct unode {
	struct cds_wfcq_node link; /* in the queue, or in a free list */
	union {
		void *item;              /* in the queue */
		struct unode *next_batch; /* first node of a pooled batch */
	};
};

struct uq {
	alignas(HQ_LINE) struct cds_wfcq_head head; /* dequeuers; holds the dequeue mutex */
	alignas(HQ_LINE) struct cds_wfcq_tail tail; /* enqueuers */
	alignas(HQ_LINE) pthread_mutex_t pool_lock;
	struct unode *pool; /* stack of batches of URCU_BATCH free nodes */
};

struct uthread {
	struct uq *q;
	struct unode *free; /* this thread's free nodes, linked by link.next */
	unsigned nfree;
	struct __cds_wfcq_head lhead; /* private queue for burst enqueue */
	struct cds_wfcq_tail ltail;
};

static struct unode *next_free(struct unode *n)
{
	return (struct unode *)n->link.next; /* link is the first member */
}

static struct unode *node_get(struct uthread *t)
{
	struct unode *n = t->free;
	if (!n) {
		pthread_mutex_lock(&t->q->pool_lock);
		n = t->q->pool;
		if (n)
			t->q->pool = n->next_batch;
		pthread_mutex_unlock(&t->q->pool_lock);
		if (!n) /* the harness's allocator: --queue-mem places it, the run counts it */
			return hq_node_alloc(sizeof *n, 0);
		t->nfree = URCU_BATCH;
	}
	t->free = next_free(n);
	t->nfree--;
	return n;
}

static void node_put(struct uthread *t, struct unode *n)
{
	struct unode *last = n;
	n->link.next = (struct cds_wfcq_node *)t->free;
	t->free = n;
	if (++t->nfree < 2 * URCU_BATCH)
		return;
	/* hand the URCU_BATCH nodes freed last to the pool as one batch */
	for (unsigned i = 1; i < URCU_BATCH; i++)
		last = next_free(last);
	t->free = next_free(last);
	t->nfree -= URCU_BATCH;
	last->link.next = NULL;
	pthread_mutex_lock(&t->q->pool_lock);
	n->next_batch = t->q->pool;
	t->q->pool = n;
	pthread_mutex_unlock(&t->q->pool_lock);
}

static void free_list(struct unode *n)
{
	while (n) {
		struct unode *next = next_free(n);
		hq_node_free(n);
		n = next;
	}
}

static void *uq_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct uq *q = hq_alloc(sizeof *q);
	(void)p;
	if (!q) {
		hb_err(err, errlen, "urcu: out of memory");
		return NULL;
	}
	cds_wfcq_init(&q->head, &q->tail);
	pthread_mutex_init(&q->pool_lock, NULL);
	return q;
}

static void uq_destroy(void *qv)
{
	struct uq *q = qv;
	struct cds_wfcq_node *n;
	while ((n = __cds_wfcq_dequeue_blocking(&q->head, &q->tail)) != NULL)
		hq_node_free(n); /* alone now: blocking cannot wait */
	while (q->pool) {
		struct unode *batch = q->pool;
		q->pool = batch->next_batch;
		free_list(batch);
	}
	cds_wfcq_destroy(&q->head, &q->tail);
	pthread_mutex_destroy(&q->pool_lock);
	hq_free(q);
}

static void *uq_thread_init(void *q, char *err, size_t errlen)
{
	struct uthread *t = hq_thread_alloc(sizeof *t);
	if (!t) {
		hb_err(err, errlen, "urcu: out of memory for a thread handle");
		return NULL;
	}
	t->q = q;
	__cds_wfcq_init(&t->lhead, &t->ltail);
	return t;
}

static void uq_thread_fini(void *q, void *h)
{
	struct uthread *t = h;
	(void)q;
	free_list(t->free);
	free(t);
}

/* A node holding item, ready to enqueue, or NULL if out of memory. */
static struct unode *wrap(struct uthread *t, void *item)
{
	struct unode *n = node_get(t);
	if (!n)
		return NULL;
	cds_wfcq_node_init(&n->link);
	n->item = item;
	hq_tsan_release(n); /* see peers.h: liburcu is not instrumented */
	return n;
}

/* item out of the dequeued node n, n recycled. */
static void *unwrap(struct uthread *t, struct cds_wfcq_node *ln)
{
	struct unode *n = (struct unode *)ln;
	void *item;
	hq_tsan_acquire(n);
	item = n->item;
	node_put(t, n);
	return item;
}

static int uq_enqueue(void *h, void *item)
{
	struct uthread *t = h;
	struct unode *n = wrap(t, item);
	if (!n)
		return 1;
	cds_wfcq_enqueue(&t->q->head, &t->q->tail, &n->link);
	return 0;
}

static int uq_dequeue(void *h, void **item)
{
	struct uthread *t = h;
	struct cds_wfcq_node *n;
	cds_wfcq_dequeue_lock(&t->q->head, &t->q->tail);
	n = __cds_wfcq_dequeue_nonblocking(&t->q->head, &t->q->tail);
	cds_wfcq_dequeue_unlock(&t->q->head, &t->q->tail);
	if (!n || n == CDS_WFCQ_WOULDBLOCK)
		return 1;
	*item = unwrap(t, n);
	return 0;
}

static unsigned uq_enqueue_burst(void *h, void *const *items, unsigned n)
{
	struct uthread *t = h;
	unsigned k;
	for (k = 0; k < n; k++) {
		struct unode *node = wrap(t, items[k]);
		if (!node)
			break;
		cds_wfcq_enqueue(&t->lhead, &t->ltail, &node->link);
	}
	if (k)
		__cds_wfcq_splice_blocking(&t->q->head, &t->q->tail, &t->lhead, &t->ltail);
	return k;
}

static unsigned uq_dequeue_burst(void *h, void **items, unsigned n)
{
	struct uthread *t = h;
	unsigned k = 0;
	cds_wfcq_dequeue_lock(&t->q->head, &t->q->tail);
	while (k < n) {
		struct cds_wfcq_node *x = __cds_wfcq_dequeue_nonblocking(&t->q->head, &t->q->tail);
		if (!x || x == CDS_WFCQ_WOULDBLOCK)
			break;
		items[k++] = x; /* the node for now; unwrapped below */
	}
	cds_wfcq_dequeue_unlock(&t->q->head, &t->q->tail);
	for (unsigned i = 0; i < k; i++) /* recycle outside the dequeue mutex */
		items[i] = unwrap(t, items[i]);
	return k;
}

const struct hq_ops hq_urcu = {
	.name = "urcu",
	.description = "liburcu wfcqueue: wait-free enqueue, dequeue under its mutex (unbounded, pooled nodes)",
	.bounded = 0,
	.moves_data = 1,
	.ordering = "fifo",
	.capacity_kind = "unbounded",
	.memory = "running",
	.uncounted = "each thread's handle (the head of its list of free nodes)",
	.create = uq_create,
	.destroy = uq_destroy,
	.thread_init = uq_thread_init,
	.thread_fini = uq_thread_fini,
	.enqueue = uq_enqueue,
	.dequeue = uq_dequeue,
	.enqueue_burst = uq_enqueue_burst,
	.dequeue_burst = uq_dequeue_burst,
};
