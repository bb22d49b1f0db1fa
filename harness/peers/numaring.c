/*
 * numaring.c - NumaRing (this project, ring/), driven through its public API
 * exactly as an application would: numaring_create() from the harness's
 * config with capacity and batch taken from the run's parameters, one worker
 * attached per thread, the single and burst operations, the worker's stats.
 */
#include "peers.h"

static void *nrq_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct numaring_config cfg = p->ring;
	struct numaring *q;

	cfg.capacity = p->capacity;
	cfg.batch = p->batch;
	q = numaring_create(&cfg);
	if (!q)
		hq_err(err, errlen, "numaring_create: %s", numaring_last_error());
	return q;
}

static void nrq_destroy(void *q)
{
	numaring_destroy(q);
}

static void *nrq_thread_init(void *q, char *err, size_t errlen)
{
	struct numaring_worker *w = numaring_worker_attach(q);
	if (!w)
		hq_err(err, errlen, "numaring_worker_attach: %s", numaring_last_error());
	return w;
}

static void nrq_thread_fini(void *q, void *h)
{
	(void)q;
	numaring_worker_detach(h);
}

static int nrq_enqueue(void *h, void *item)
{
	return numaring_enqueue(h, item);
}

static int nrq_dequeue(void *h, void **item)
{
	return numaring_dequeue(h, item);
}

static unsigned nrq_enqueue_burst(void *h, void *const *items, unsigned n)
{
	return numaring_enqueue_burst(h, items, n);
}

static unsigned nrq_dequeue_burst(void *h, void **items, unsigned n)
{
	return numaring_dequeue_burst(h, items, n);
}

static void nrq_thread_stats(void *h, struct numaring_stats *out)
{
	numaring_worker_stats(h, out);
}

static int nrq_lookup_in_force(void *q)
{
	return (int)numaring_lookup_in_force(q);
}

const struct hq_ops hq_numaring = {
	.name = "numaring",
	.description = "NumaRing: one bounded MPMC ring per NUMA node, batches move between nodes",
	.bounded = 1,
	.moves_data = 1,
	.create = nrq_create,
	.destroy = nrq_destroy,
	.thread_init = nrq_thread_init,
	.thread_fini = nrq_thread_fini,
	.enqueue = nrq_enqueue,
	.dequeue = nrq_dequeue,
	.enqueue_burst = nrq_enqueue_burst,
	.dequeue_burst = nrq_dequeue_burst,
	.thread_stats = nrq_thread_stats,
	.lookup_in_force = nrq_lookup_in_force,
};
