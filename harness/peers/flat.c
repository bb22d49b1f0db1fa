/*
 * flat.c - the baseline: ONE bounded MPMC ring shared by every thread, no
 * NUMA awareness. It is NumaRing's own per-node ring (ring/nr_ring.h, a
 * Vyukov-style bounded queue with bulk claims) used alone, so that
 * numaring vs flat measures exactly what the NUMA layer adds or costs.
 * Backoff NONE (retry at once), as NumaRing's default. Holds exactly
 * `capacity` items (a power of two).
 */
#include "nr_ring.h"
#include "peers.h"

struct flat_thread {
	struct nr_ring *r;
	struct nr_backoff bo; /* counts lost races: reported as failed_attempts */
};

static void *flat_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct nr_ring *r;

	if (!hq_pow2(p->capacity)) {
		hq_err(err, errlen, "flat: capacity %zu is not a power of two >= 2", p->capacity);
		return NULL;
	}
	r = hq_alloc(nr_ring_bytes(p->capacity));
	if (!r) {
		hq_err(err, errlen, "flat: out of memory for %zu slots", p->capacity);
		return NULL;
	}
	nr_ring_init(r, p->capacity);
	return r;
}

static void flat_destroy(void *q)
{
	free(q);
}

static void *flat_thread_init(void *q, char *err, size_t errlen)
{
	/* one line pair per thread: bo is written on every lost race */
	struct flat_thread *t = hq_alloc(sizeof *t);
	if (!t) {
		hq_err(err, errlen, "flat: out of memory for a thread handle");
		return NULL;
	}
	t->r = q;
	nr_backoff_init(&t->bo, NUMARING_BACKOFF_NONE);
	return t;
}

static void flat_thread_fini(void *q, void *h)
{
	(void)q;
	free(h);
}

static int flat_enqueue(void *h, void *item)
{
	struct flat_thread *t = h;
	return !nr_ring_enqueue(t->r, item, &t->bo);
}

static int flat_dequeue(void *h, void **item)
{
	struct flat_thread *t = h;
	return !nr_ring_dequeue(t->r, item, &t->bo);
}

static unsigned flat_enqueue_burst(void *h, void *const *items, unsigned n)
{
	struct flat_thread *t = h;
	return nr_ring_enqueue_burst(t->r, items, n, &t->bo);
}

static unsigned flat_dequeue_burst(void *h, void **items, unsigned n)
{
	struct flat_thread *t = h;
	return nr_ring_dequeue_burst(t->r, items, n, &t->bo);
}

/* Only failed_attempts (lost CAS races) is counted (stats_mask). */
static void flat_thread_stats(void *h, struct hq_stats *out)
{
	struct flat_thread *t = h;
	out->v[HQ_STAT_failed_attempts] += t->bo.failures;
}

const struct hq_ops hq_flat = {
	.name = "flat",
	.description = "one Vyukov-style bounded MPMC ring for all threads (NumaRing's ring without the NUMA layer)",
	.bounded = 1,
	.moves_data = 1,
	.stats_mask = HQ_STAT_BIT(failed_attempts),
	.create = flat_create,
	.destroy = flat_destroy,
	.thread_init = flat_thread_init,
	.thread_fini = flat_thread_fini,
	.enqueue = flat_enqueue,
	.dequeue = flat_dequeue,
	.enqueue_burst = flat_enqueue_burst,
	.dequeue_burst = flat_dequeue_burst,
	.thread_stats = flat_thread_stats,
};
